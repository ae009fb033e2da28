"""The relations and attributes section (``docs/structure.md``) as table rows."""
from __future__ import annotations

from typing import Any, Callable, Mapping

from ..measures.structure.means import mean_pair_kappa
from .tables import MAX_PAIRS, Table, ci, largest, shown_of, spans_marked


def tables(section: Mapping[str, Any], num: Callable) -> list[Table]:
    """The section as ``(title, header, rows)`` tables for the text and Markdown outputs."""
    relations, attributes = section.get("relations"), section.get("attributes")
    if relations is None:
        rows = [["", "not available: " + "; ".join(section["lost"]) if section.get("lost") else section.get("note", "none")]]
        for kind, reasons in section.get("excluded", {}).items():
            rows += [[f"{kind} excluded: {reason}", n] for reason, n in reasons.items()]
        return [("Relations and attributes", ["", ""], rows)]
    out: list[Table] = []
    overall, both = relations["overall"], relations["both_spans_marked"]
    counted = relations["relations"]
    rows = [
        ["relations read / compared", f"{counted['read']} / {counted['compared']}"],
        ["pairwise mean PSA", num(overall["pairwise_mean_psa"]) + ci(overall, "pairwise_mean_psa")],
        ["pooled PSA", num(overall["pooled_psa"]) + ci(overall, "pooled_psa")],
        ["a / b / c", f"{num(overall['a'], 2)} / {num(overall['b'], 2)} / {num(overall['c'], 2)}"],
        ["both spans marked: pairwise mean / pooled PSA", f"{num(both['pairwise_mean_psa'])} / {num(both['pooled_psa'])}"],
        ["both spans marked: a / b / c", f"{num(both['a'], 2)} / {num(both['b'], 2)} / {num(both['c'], 2)}"],
    ]
    if overall["pairs_undefined"]:
        rows.append(["pairs with relation PSA undefined (no relations)", overall["pairs_undefined"]])
    rows += [[f"relations excluded: {reason}", n] for reason, n in counted["excluded"].items()]
    if section.get("lost"):
        rows += [["not available", why] for why in section["lost"]]
    out.append(("Relations (on the span alignment)", ["", ""], rows))
    pairs = sorted(relations["pairs"], key=lambda p: -p["documents"])
    note = f" (the {MAX_PAIRS} sharing most documents, of {len(pairs)})" if len(pairs) > MAX_PAIRS else ""
    out.append((
        "Relations per pair" + note,
        ["pair (A ~ B)", "docs", "PSA", "a", "b", "c", "PSA, both spans marked"],
        [[f"{p['raters'][0]} ~ {p['raters'][1]}", p["documents"], num(p["psa"]) + ci(p, "psa"), num(p["a"], 2),
          num(p["b"], 2), num(p["c"], 2), num(p["both_spans_marked"]["psa"])] for p in pairs[:MAX_PAIRS]],
    ))
    labels = relations["labels"]
    shown = largest(list(labels), lambda name: spans_marked(labels[name]))
    note = shown_of(len(shown), len(labels), "the {n} with most relations")
    out.append((
        "Relations per label" + (f" ({note})" if note else ""),
        ["label", "pairwise mean PSA", "pooled PSA", "a", "b", "c"],
        [[name, num(labels[name]["pairwise_mean_psa"]), num(labels[name]["pooled_psa"]), num(labels[name]["a"], 2),
          num(labels[name]["b"], 2), num(labels[name]["c"], 2)] for name in shown],
    ))
    if attributes is not None and attributes["attributes"]:
        rows = []
        for name, entry in attributes["attributes"].items():
            alpha = entry["all_raters"].get("krippendorff_alpha") or {}
            items = sum(p["items"] for p in entry["pairs"])
            agree = [p["percent_agreement"]["value"] for p in entry["pairs"] if p.get("percent_agreement")]
            skipped: dict[str, int] = {}
            for p in entry["pairs"]:
                for reason, n in p["skipped"].items():
                    skipped[reason] = skipped.get(reason, 0) + n
            rows.append([
                name, entry["scale"] + (" (binary)" if entry["binary"] else ""), items,
                num(sum(agree) / len(agree)) if agree else num(None),
                num(mean_pair_kappa(entry)),
                num(alpha.get("value")), alpha.get("n_items", 0),
                "; ".join(f"{reason}: {n}" for reason, n in skipped.items()) or "-",
            ])
        out.append((
            "Attributes on matched spans",
            ["attribute", "scale", "pair items", "mean % agreement", "mean Cohen's κ", "α (all raters)", "α items", "pair items skipped"],
            rows,
        ))
        if attributes["excluded"]:
            out.append(("Attributes excluded", ["reason", "count"], [[r, n] for r, n in attributes["excluded"].items()]))
    return out
