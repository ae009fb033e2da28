"""The chance-corrected section of a report as tables (text and Markdown output).

Every row says which items and categories the coefficient used and what it skipped, with its
standard error, interval, p-value and its Landis–Koch band at 95 % probability (Gwet's
probabilistic benchmarking; docs/chance-corrected.md). For document labels (``--candidates
documents``) the span tables do not apply and are not shown.
"""
from __future__ import annotations

from typing import Any

from .tables import MAX_LABELS, MAX_PAIRS, Table, listed, num, shown_of

#: Rows of the family table: report key, name.
FAMILY_ROWS = (
    ("percent_agreement", "Percent agreement"),
    ("brennan_prediger", "Brennan–Prediger (Bennett's S, Randolph)"),
    ("fleiss_kappa", "Fleiss' κ (all ratings)"),
    ("fleiss_kappa_complete", "Fleiss' κ (complete items only)"),
    ("conger_kappa", "Conger's / Davies–Fleiss κ (all ratings)"),
    ("conger_kappa_complete", "Conger's κ (complete items only)"),
    ("gwet_ac1", "Gwet's AC1"),
    ("krippendorff_alpha", "Krippendorff's α (nominal)"),
    ("kappa_s", "Shah's κ_S (complete items)"),
    ("light_kappa", "Light's κ (mean pairwise Cohen's κ)"),
    ("s_against_group", "Shah's S, reference against the others"),
)
DOCUMENT_SCHEMES = ("multiclass", "multilabel")
SCHEME_WORDS = {
    "spans": "candidate items; NONE = not marked",
    "multiclass": "documents as items; the labels are the categories (no NONE)",
    "multilabel": "one binary item per (document, label): not chosen / chosen",
}


def interval_text(entry: dict) -> str:
    iv = entry.get("interval") or entry.get("analytic_interval")
    if not iv or iv.get("low") is None:
        return ""
    return f"[{iv['low']:.3f}, {iv['high']:.3f}]"


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


def family_rows(everyone: dict) -> list[list[Any]]:
    rows = []
    for key, name in FAMILY_ROWS:
        entry = everyone.get(key)
        if entry is None:
            continue
        if entry.get("value") is None:
            rows.append([name, f"undefined: {entry.get('undefined')}", "", "", "", items_text(entry), skipped_text(entry), ""])
            continue
        p_value = entry.get("p_value")
        rows.append([name, num(entry["value"]), num(entry.get("standard_error")) if entry.get("standard_error") is not None else "",
                     interval_text(entry), "" if p_value is None else f"{p_value:.2g}", items_text(entry), skipped_text(entry),
                     _band(entry)])
    return rows


def level(chance: dict) -> str:
    """The analytic intervals' level as a percentage, e.g. "95%"."""
    interval = (chance["all_raters"].get("gwet_ac1") or {}).get("analytic_interval") or {}
    return f"{interval.get('confidence', 0.95):.0%}"


def chance_tables(chance: dict) -> list[Table]:
    """The chance-corrected tables of a report (after the PSA tables, or alone for documents)."""
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
    header = ["coefficient", "value", "SE", ci, "p (>0)", "items used", "skipped", "Landis–Koch"]
    family = family_rows(chance["all_raters"])
    family += [[f"note: {note}", "", "", "", "", "", "", ""] for note in chance.get("band_notes", [])]
    out.append(("Chance-corrected family, all raters", header, family))
    per_category = chance["all_raters"].get("fleiss_kappa_per_category") or {}
    if per_category:
        shown = list(per_category)[:MAX_LABELS]
        cat_rows = [[name, num(e["value"]), "" if e.get("standard_error") is None else num(e["standard_error"]),
                     interval_text(e), items_text(e)] for name, e in ((name, per_category[name]) for name in shown)]
        note = shown_of(len(shown), len(per_category), "the first {n}")
        title = f"Fleiss' κ per category (one against the rest{'; ' + note if note else ''})"
        out.append((title, ["category", "κ", "SE", ci, "items"], cat_rows))
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
    docs = report["documents"]
    summary = [
        ["raters", len(report["raters"])],
        ["documents read", docs["read"]],
        ["labels", listed(chance.get("labels", []))],
    ]
    out: list[Table] = [("Agreement on document labels", ["", ""], summary)]
    return out + chance_tables(chance)
