"""The report dict as readable tables: plain text for the terminal, or Markdown."""
from __future__ import annotations

from typing import Any

from .tables import (
    MAX_DOCUMENTS, MAX_PAIRS, Table, bounds, ci, largest, num, shown_of, spans_marked, tables_as_markdown, tables_as_text,
)
from ..catalogue import headline, reference_note, replicates
from .chance_text import chance_tables, document_tables
from .unitizing_text import tables as unitizing_tables
from .structure_text import tables as structure_tables


def tables(report: dict) -> list[Table]:
    """The sections of a score report, each as ``(title, header, rows)``."""
    chance = report.get("chance_corrected")
    if chance is not None and chance.get("scheme") in ("multiclass", "multilabel"):
        return document_tables(report) + [excluded_table(report)]
    rule = report["rule"]
    options = ", ".join(f"{k}={v}" for k, v in rule.items())
    docs = report["documents"]
    overall = report["overall"]
    note = reference_note(report)
    summary = [
        ["rule", options],
        ["raters", len(report["raters"]) if note is None else f"{len(report['raters'])}: {note}"],
        ["documents scored / read", f"{docs['scored']} / {docs['read']}"],
        ["rater pairs", overall["pairs"]],
        ["a / b / c", f"{num(overall['a'], 2)} / {num(overall['b'], 2)} / {num(overall['c'], 2)}"],
        *([row["name"], f"undefined: {row['undefined']}" if row["value"] is None
           else num(row["value"]) + bounds(row["interval"], row["method"])] for row in headline(report)),
    ]
    if overall["pairs_undefined"]:
        summary.append(["pairs with PSA undefined (no spans)", overall["pairs_undefined"]])
    if "intervals" in report:
        iv = report["intervals"]
        summary.append(["intervals", f"{iv['level']:.0%} percentile bootstrap over documents, {iv['replicates']} replicates, seed {iv['seed']}"])
    out: list[Table] = [("Agreement", ["", ""], summary)]

    pairs = sorted(report["pairs"], key=lambda p: -p["documents"])
    n_pairs = report["overall"]["pairs"]
    rows = [
        [f"{p['raters'][0]} ~ {p['raters'][1]}", p["documents"], num(p["psa"]) + ci(p, "psa"), num(p["a"], 2), num(p["b"], 2),
         num(p["c"], 2), *p["outcomes"].values()]
        for p in pairs[:MAX_PAIRS]
    ]
    title = "Per pair" + (f" (the {MAX_PAIRS} sharing most documents, of {n_pairs})" if n_pairs > MAX_PAIRS else "")
    # missed / spurious are the spans only the pair's first (A) / second (B) rater marked
    roles = {"missed": "missed (only A)", "spurious": "spurious (only B)"}
    outcome_names = [roles.get(name, name) for name in report["overall"]["outcomes"]]
    out.append((title, ["pair (A ~ B)", "docs", "PSA", "a", "b", "c", *outcome_names], rows))

    labels = report["labels"]
    shown = largest(list(labels), lambda name: spans_marked(labels[name]))
    rows = [
        [name, num(v["pairwise_mean_psa"]) + ci(v, "pairwise_mean_psa"), num(v["pooled_psa"]), num(v["a"], 2),
         num(v["b"], 2), num(v["c"], 2)]
        for name, v in ((name, labels[name]) for name in shown)
    ]
    note = shown_of(len(shown), len(labels), "the {n} with most spans")
    title = f"Per label (labels strict{'; ' + note if note else ''})"
    out.append((title, ["label", "pairwise mean PSA", "pooled PSA", "a", "b", "c"], rows))

    if "reference" in report:
        ref = report["reference"]
        rows = [
            [name, num(v["precision"]), num(v["recall"]), num(v["f"])] for name, v in ref["raters"].items()
        ]
        out.append((f"Against reference {ref['rater']!r}", ["rater", "precision", "recall", f"F{ref['beta']:g}"], rows))

    if "per_rater" in report:
        out.append(rater_table(report["per_rater"]))

    worst = sorted(
        (d for d in report["per_document"] if d["pairwise_mean_psa"] is not None),
        key=lambda d: d["pairwise_mean_psa"],
    )[:MAX_DOCUMENTS]
    rows = [[d["doc_id"], d["raters"], num(d["pairwise_mean_psa"]), num(d["a"], 2), num(d["b"], 2), num(d["c"], 2)]
            for d in worst]
    out.append((f"Lowest-agreement documents (up to {MAX_DOCUMENTS})", ["document", "raters", "PSA", "a", "b", "c"], rows))

    if "chance_corrected" in report:
        out.extend(chance_tables(report["chance_corrected"], replicates(report)))
    if "unitizing" in report:
        out.extend(unitizing_tables(report["unitizing"], num))
    if "structure" in report:
        out.extend(structure_tables(report["structure"], num))
    out.append(excluded_table(report))
    return out


def excluded_table(report: dict) -> Table:
    """What was left out, and why (the text tables and the HTML page)."""
    rows = [
        [kind, reason, n]
        for kind in ("documents", "annotations", "spans")
        for reason, n in report[kind]["excluded"].items()
    ]
    rows += [["spans", f"note: {reason}", n] for reason, n in report["spans"].get("notes", {}).items()]
    return ("Excluded, and why", ["what", "reason", "count"], rows or [["-", "nothing was excluded", 0]])


#: Column names of the per-rater table (text, Markdown and the HTML report).
RATER_COLUMNS = ["rater", "docs", "spans", "mean PSA", "P / R / F vs others", "F vs others' consensus",
                 "only theirs", "parts most on"]


def rater_table(rows: list[dict], limit: int | None = MAX_PAIRS) -> Table:
    """The per-rater view as a table, lowest mean PSA first (the raters to look at first)."""
    ordered = sorted(rows, key=lambda r: (r["mean_psa"] is None, r["mean_psa"] or 0.0, r["rater"]))
    shown = ordered[:limit] if limit else ordered
    body = [rater_cells(r, ci) for r in shown]
    title = "Per rater (lowest mean PSA first" + (f"; {len(shown)} of {len(rows)})" if len(shown) < len(rows) else ")")
    return title, RATER_COLUMNS, body


def rater_cells(row: dict, interval) -> list[Any]:
    """One rater's cells; ``interval(holder, name)`` formats an interval (or nothing)."""
    others = row["against_others"]
    consensus = row.get("against_consensus")
    only = row.get("only_theirs")
    parts = ", ".join(f"{p['label']} ({p['gap']:+.2f})" for p in row["parts_most"] if p["gap"] < 0) or "-"
    return [
        row["rater"], row["documents"], row["spans"],
        num(row["mean_psa"]) + interval(row, "mean_psa"),
        f"{num(others['precision'])} / {num(others['recall'])} / {num(others['f'])}" + interval(others, "f"),
        num(consensus["f"]) + interval(consensus, "f") if consensus else "not computed",
        only["spans"] if only is not None else "not computed",
        parts,
    ]


def as_text(report: dict) -> str:
    """Plain-text tables for a terminal (wasabi)."""
    return tables_as_text(tables(report))


def as_markdown(report: dict) -> str:
    """GitHub-flavoured Markdown tables."""
    return tables_as_markdown(tables(report))
