"""The chance-corrected section of a report as tables (text and Markdown output).

Every row says which items and categories the coefficient used and what it skipped, with its
standard error, interval, p-value and its Landis–Koch band at 95 % probability (Gwet's
probabilistic benchmarking; docs/chance-corrected.md). For document labels (``--candidates
documents``) the span tables do not apply and are not shown.
"""
from __future__ import annotations

from typing import Any

from ..catalogue import STATISTICS, coefficient_interval, interval_method, replicates
from .tables import MAX_LABELS, MAX_PAIRS, Table, bounds, listed, num, shown_of

#: The rows of the family table: catalogue keys (:mod:`spanagree.catalogue`; its description names
#: the row), and Shah's S of a reference against the other raters, which has no catalogue entry.
FAMILY_ROWS = ("percent_agreement", "brennan_prediger", "fleiss_kappa", "fleiss_kappa_complete", "conger_kappa",
               "conger_kappa_complete", "gwet_ac1", "alpha", "kappa_s", "light_kappa", "s_against_group")
#: Report keys (in ``all_raters``) that differ from the catalogue's.
REPORT_KEYS = {"alpha": "krippendorff_alpha"}
SCHEME_WORDS = {
    "spans": "candidate items; NONE = not marked",
    "multiclass": "documents as items; the labels are the categories (no NONE)",
    "multilabel": "one binary item per (document, label): not chosen / chosen",
}


def interval_text(entry: dict, replicates: int | None = None) -> tuple[str, str]:
    """A coefficient's interval (:func:`~spanagree.catalogue.coefficient_interval`) as text, and
    the method that made it."""
    interval = coefficient_interval(entry)
    return bounds(interval).strip(), interval_method(interval, replicates)


def items_text(entry: dict) -> str:
    if "n_items" not in entry:
        return f"{entry['n_pairs']} pairs" if "n_pairs" in entry else ""
    text = str(int(entry["n_items"]))
    if "n_pairable" in entry and entry["n_pairable"] != entry["n_items"]:
        text += f" ({entry['n_pairable']} with 2+ ratings)"
    return text


def skipped_text(entry: dict) -> str:
    skipped = entry.get("skipped") or {}
    return "; ".join(f"{n} {reason}" for reason, n in skipped.items() if n) or "-"


def _band(entry: dict) -> str:
    bench = (entry.get("benchmark") or {}).get("landis_koch")
    if not bench:
        return ""
    if bench["band"] is None:
        return f"{bench['point_band']} (point)"
    if bench["band"] == bench["point_band"]:
        return bench["band"]
    return f"{bench['band']} at 95% (point: {bench['point_band']})"


def family_entries(everyone: dict, replicates: int | None = None) -> list[dict[str, Any]]:
    """Each coefficient of :data:`FAMILY_ROWS` the report has: its ``name`` and ``entry``, the
    value, why it is undefined, standard error, interval and its method, p-value, items used and
    what was skipped (the text tables and the HTML page)."""
    out = []
    for key in FAMILY_ROWS:
        entry = everyone.get(REPORT_KEYS.get(key, key))
        if entry is not None:
            name = STATISTICS[key].description if key in STATISTICS else "Shah's S, the reference against the others"
            interval, method = interval_text(entry, replicates)
            out.append({"name": name, "entry": entry, "value": entry.get("value"), "undefined": entry.get("undefined"),
                        "se": entry.get("standard_error"), "interval": interval, "method": method, "p": entry.get("p_value"),
                        "items_used": items_text(entry), "skipped": skipped_text(entry)})
    return out


def family_rows(everyone: dict, replicates: int | None = None) -> list[list[Any]]:
    return [
        [r["name"], f"undefined: {r['undefined']}", "", "", "", "", r["items_used"], r["skipped"], ""] if r["value"] is None
        else [r["name"], num(r["value"]), "" if r["se"] is None else num(r["se"]), r["interval"], r["method"],
              "" if r["p"] is None else f"{r['p']:.2g}", r["items_used"], r["skipped"], _band(r["entry"])]
        for r in family_entries(everyone, replicates)
    ]


def level(chance: dict) -> str:
    """The analytic intervals' level as a percentage, e.g. "95%"."""
    interval = (chance["all_raters"].get("gwet_ac1") or {}).get("analytic_interval") or {}
    return f"{interval.get('confidence', 0.95):.0%}"


def chance_tables(chance: dict, replicates: int | None = None) -> list[Table]:
    """The chance-corrected tables of a report (after the PSA tables, or alone for documents);
    ``replicates``: the report's bootstrap replicates, named beside a bootstrap interval."""
    items = chance["items"]
    ci = f"{level(chance)} CI"
    scheme = chance.get("scheme", "spans")
    rows = [
        ["candidates", chance["source"]],
        ["items and categories", SCHEME_WORDS.get(scheme, scheme)],
        ["categories", listed(chance["categories"])],
        ["items (candidates + extra)", f"{items['total']} ({items['candidates']} + {items['extra']})"],
        ["ratings", items["ratings"]],
    ]
    pooled = chance["pooled"]
    if "a" in pooled:
        what = "chosen / not chosen" if scheme == "multilabel" else "marked / NONE"
        rows += [
            [f"pooled {what} table a / b / c / d", f"{pooled['a']} / {pooled['b']} / {pooled['c']} / {pooled['d']}"],
            [f"Cohen's κ, pooled ({what})", num(pooled["cohen_kappa"]["value"])],
            ["PSA on the same table (κ's limit as d grows)", num(pooled["positive_agreement"])],
        ]
    rows += [[f"note: {reason}", n] for reason, n in items["notes"].items()]
    out: list[Table] = [("Chance-corrected: items", ["", ""], rows)]
    header = ["coefficient", "value", "SE (Gwet)", ci, "interval method", "p (>0)", "items used", "skipped", "Landis–Koch"]
    family = family_rows(chance["all_raters"], replicates)
    family += [[f"note: {note}", *[""] * 8] for note in chance.get("band_notes", [])]
    out.append(("Chance-corrected family, all raters", header, family))
    per_category = chance["all_raters"].get("fleiss_kappa_per_category") or {}
    if per_category:
        shown = list(per_category)[:MAX_LABELS]
        cat_rows = [[name, num(e["value"]), "" if e.get("standard_error") is None else num(e["standard_error"]),
                     *interval_text(e, replicates), items_text(e)] for name, e in ((name, per_category[name]) for name in shown)]
        note = shown_of(len(shown), len(per_category), "the first {n}")
        title = f"Fleiss' κ per category (one against the rest{'; ' + note if note else ''})"
        out.append((title, ["category", "κ", "SE (Gwet)", ci, "interval method", "items"], cat_rows))
    pair_rows = []
    for p in chance["pairs"][:MAX_PAIRS]:
        c = p["coefficients"]
        row = [f"{p['raters'][0]} ~ {p['raters'][1]}", p["items"], num(c["percent_agreement"]["value"]),
               num(c["bennett_s"]["value"]), num(c["scott_pi"]["value"]), num(c["cohen_kappa"]["value"]),
               "" if c["cohen_kappa"].get("standard_error") is None else num(c["cohen_kappa"]["standard_error"]),
               num(c["gwet_ac1"]["value"]) if "gwet_ac1" in c else ""]
        if "marked" in p:
            row += [p["marked"]["d"], num(p["marked"]["cohen_kappa"]["value"]), num(p["marked"]["positive_agreement"])]
        pair_rows.append(row)
    header = ["pair", "items", "Ao", "S", "π", "κ", "κ SE", "AC1"]
    if chance["pairs"] and "marked" in chance["pairs"][0]:
        header += ["d", "κ marked", "PSA marked"]
    out.append(("Chance-corrected per pair", header, pair_rows))
    return out


def document_tables(report: dict) -> list[Table]:
    """A report on document labels: the coefficients that apply, without the span tables."""
    chance = report["chance_corrected"]
    summary = [["raters", len(report["raters"])], ["documents read", report["documents"]["read"]],
               ["labels", listed(chance.get("labels", []))]]
    return [("Agreement on document labels", ["", ""], summary), *chance_tables(chance, replicates(report))]
