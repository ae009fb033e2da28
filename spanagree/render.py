"""The report dict as readable tables: plain text for the terminal, or Markdown."""
from __future__ import annotations

from typing import Any

#: How many pairs and documents the tables show (the JSON output has them all).
MAX_PAIRS = 20
MAX_DOCUMENTS = 10

Table = tuple[str, list[str], list[list[Any]]]


def tables(report: dict) -> list[Table]:
    """The sections of a score report, each as ``(title, header, rows)``."""
    rule = report["rule"]
    options = ", ".join(f"{k}={v}" for k, v in rule.items())
    docs = report["documents"]
    overall = report["overall"]
    summary = [
        ["rule", options],
        ["raters", len(report["raters"])],
        ["documents scored / read", f"{docs['scored']} / {docs['read']}"],
        ["rater pairs", overall["pairs"]],
        ["pairwise mean PSA", _num(overall["pairwise_mean_psa"]) + _ci(overall, "pairwise_mean_psa")],
        ["pooled PSA", _num(overall["pooled_psa"]) + _ci(overall, "pooled_psa")],
        ["macro PSA (mean over labels)", _num(report["macro"]["pairwise_mean_psa"]) + _ci(report["macro"], "pairwise_mean_psa")],
        ["a / b / c", f"{_num(overall['a'], 2)} / {_num(overall['b'], 2)} / {_num(overall['c'], 2)}"],
    ]
    if "unitizing" in report:
        from .measures.unitizing import headline_rows

        summary += headline_rows(report["unitizing"], _num)
    if overall["pairs_undefined"]:
        summary.append(["pairs with PSA undefined (no spans)", overall["pairs_undefined"]])
    if "intervals" in report:
        iv = report["intervals"]
        summary.append(["intervals", f"{iv['level']:.0%} percentile bootstrap over documents, {iv['replicates']} replicates, seed {iv['seed']}"])
    out: list[Table] = [("Agreement", ["", ""], summary)]

    pairs = sorted(report["pairs"], key=lambda p: -p["documents"])
    n_pairs = report["overall"]["pairs"]
    rows = [
        [f"{p['raters'][0]} ~ {p['raters'][1]}", p["documents"], _num(p["psa"]) + _ci(p, "psa"), _num(p["a"], 2), _num(p["b"], 2),
         _num(p["c"], 2), *p["outcomes"].values()]
        for p in pairs[:MAX_PAIRS]
    ]
    title = "Per pair" + (f" (the {MAX_PAIRS} sharing most documents, of {n_pairs})" if n_pairs > MAX_PAIRS else "")
    outcome_names = list(report["overall"]["outcomes"])
    out.append((title, ["pair", "docs", "PSA", "a", "b", "c", *outcome_names], rows))

    rows = [
        [name, _num(v["pairwise_mean_psa"]) + _ci(v, "pairwise_mean_psa"), _num(v["pooled_psa"]), _num(v["a"], 2),
         _num(v["b"], 2), _num(v["c"], 2)]
        for name, v in report["labels"].items()
    ]
    out.append(("Per label (labels strict)", ["label", "pairwise mean PSA", "pooled PSA", "a", "b", "c"], rows))

    if "reference" in report:
        ref = report["reference"]
        rows = [
            [name, _num(v["precision"]), _num(v["recall"]), _num(v["f"])] for name, v in ref["raters"].items()
        ]
        out.append((f"Against reference {ref['rater']!r}", ["rater", "precision", "recall", f"F{ref['beta']:g}"], rows))

    worst = sorted(
        (d for d in report["per_document"] if d["pairwise_mean_psa"] is not None),
        key=lambda d: d["pairwise_mean_psa"],
    )[:MAX_DOCUMENTS]
    rows = [[d["doc_id"], d["raters"], _num(d["pairwise_mean_psa"]), _num(d["a"], 2), _num(d["b"], 2), _num(d["c"], 2)]
            for d in worst]
    out.append((f"Lowest-agreement documents (up to {MAX_DOCUMENTS})", ["document", "raters", "PSA", "a", "b", "c"], rows))

    if "chance_corrected" in report:
        out.extend(_chance_tables(report["chance_corrected"]))
    if "unitizing" in report:
        from .measures.unitizing import tables as unitizing_tables

        out.extend(unitizing_tables(report["unitizing"], _num))

    rows = [
        [kind, reason, n]
        for kind in ("documents", "annotations", "spans")
        for reason, n in report[kind]["excluded"].items()
    ]
    rows += [["spans", f"note: {reason}", n] for reason, n in report["spans"].get("notes", {}).items()]
    out.append(("Excluded, and why", ["what", "reason", "count"], rows or [["-", "nothing was excluded", 0]]))
    return out


def _chance_tables(chance: dict) -> list[Table]:
    """Headline chance-corrected coefficients next to PSA (candidates configured)."""
    items = chance["items"]
    pooled = chance["pooled"]
    rows = [
        ["candidates", chance["source"]],
        ["items (candidates + extra)", f"{items['total']} ({items['candidates']} + {items['extra']})"],
        ["pooled marked/NONE table a / b / c / d", f"{pooled['a']} / {pooled['b']} / {pooled['c']} / {pooled['d']}"],
        ["Cohen's κ, pooled (marked vs NONE)", _num(pooled["cohen_kappa"]["value"])],
        ["PSA on the same table (κ's limit as d grows)", _num(pooled["positive_agreement"])],
    ]
    names = {
        "krippendorff_alpha": "Krippendorff's α (nominal, all raters)",
        "fleiss_kappa": "Fleiss' κ (all raters)",
        "davies_fleiss_kappa": "Davies–Fleiss κ (all raters)",
        "gwet_ac1": "Gwet's AC1 (all raters)",
        "s_against_group": "Shah's S, reference against the others",
    }
    for key, name in names.items():
        if key in chance["all_raters"]:
            value = chance["all_raters"][key]
            rows.append([name, _num(value["value"]) if value["value"] is not None else f"undefined: {value['undefined']}"])
    rows += [[f"note: {reason}", n] for reason, n in items["notes"].items()]
    out: list[Table] = [("Chance-corrected (candidates)", ["", ""], rows)]
    pair_rows = [
        [f"{p['raters'][0]} ~ {p['raters'][1]}", p["items"], p["marked"]["d"],
         _num(p["coefficients"]["percent_agreement"]["value"]), _num(p["coefficients"]["cohen_kappa"]["value"]),
         _num(p["coefficients"]["scott_pi"]["value"]), _num(p["marked"]["cohen_kappa"]["value"]),
         _num(p["marked"]["positive_agreement"])]
        for p in chance["pairs"][:MAX_PAIRS]
    ]
    out.append(("Chance-corrected per pair", ["pair", "items", "d", "Ao", "κ", "π", "κ marked", "PSA marked"], pair_rows))
    return out


def as_text(report: dict) -> str:
    """Plain-text tables for a terminal (wasabi)."""
    from wasabi import table

    parts = []
    for title, header, rows in tables(report):
        parts.append(f"\n{title}\n{'=' * len(title)}")
        parts.append(table(rows, header=header if any(header) else None, divider=any(header), max_col=80))
    return "\n".join(parts)


def as_markdown(report: dict) -> str:
    """GitHub-flavoured Markdown tables."""
    parts = []
    for title, header, rows in tables(report):
        parts.append(f"### {title}\n")
        head = header if any(header) else ["", ""]
        parts.append("| " + " | ".join(map(str, head)) + " |")
        parts.append("|" + "|".join("---" for _ in head) + "|")
        parts.extend("| " + " | ".join(_cell(v) for v in row) + " |" for row in rows)
        parts.append("")
    return "\n".join(parts)


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|")


def _ci(holder: dict, name: str) -> str:
    """`` [low, high]`` when the statistic has an interval, else nothing."""
    interval = holder.get(f"{name}_interval")
    if not interval or interval["low"] is None:
        return ""
    return f" [{interval['low']:.3f}, {interval['high']:.3f}]"


def _num(value: float | None, digits: int = 3) -> str:
    """A probability to ``digits`` places; a count without decimals when it is whole."""
    if value is None:
        return "undefined"
    if digits != 3 and float(value).is_integer():
        return str(int(value))
    return f"{value:.{digits}f}"
