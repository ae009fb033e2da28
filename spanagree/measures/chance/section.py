"""The chance-corrected family on candidate items, and how κ approaches PSA (docs/chance-corrected.md).

From an :class:`~spanagree.measures.candidates.ItemMatrix` this builds, for every rater pair, the k×k
table of categories (``NONE`` and the labels) over the items of the documents both submitted,
the 2×2 table of "marked / not marked" and one 2×2 table per label; and for all raters together
the ratings per item. The coefficients come from :mod:`spanagree.measures.stats`.

κ and PSA. On a 2×2 table with ``a`` (both marked), ``b``, ``c`` (one marked) and ``d``
(neither), Cohen's κ = 2(ad − bc) / ((a + c)(c + d) + (b + d)(a + b)) and, as ``d`` grows with
``a, b, c`` fixed, κ → 2a / (2a + b + c) = PSA (Hripcsak & Rothschild 2005). :func:`kappa_curve`
gives κ(d) from the observed d up to a large multiple, with PSA as the asymptote.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import coefficients as stats
from ...core.arrays import expand, pairs_within_blocks
from .candidates import ItemMatrix, set_bits
from ...errors import UsageError
from . import family as cac
from ..psa.specific import psa, reported
from .benchmark import benchmarks
from .two_raters import cohen_kappa_array
from .result import Agreement

#: Raters above which the dense items × raters matrix (Davies–Fleiss, κ_S, S) is not built.
MAX_DENSE_RATERS = 64
#: How far the κ(d) curve goes: up to this multiple of the observed d (or of a + b + c).
CURVE_MULTIPLE = 1000
CURVE_POINTS = 25


def kappa_curve(a: float, b: float, c: float, d: float, *, points: int = CURVE_POINTS,
                multiple: float = CURVE_MULTIPLE) -> dict[str, Any]:
    """Cohen's κ on the 2×2 table (a, b, c, d') for d' from ``d`` up to ``multiple`` × d.

    κ(d) = 2(ad − bc) / ((a + c)(c + d) + (b + d)(a + b)) (:func:`cohen_kappa_array` on each
    table); its limit as d → ∞ is PSA = 2a / (2a + b + c) (Hripcsak & Rothschild 2005). The grid is
    geometric, starting at the observed d (or at 1 when d = 0, and then reaching ``multiple`` ×
    (a + b + c)).

    >>> curve = kappa_curve(227, 31, 50, 192)
    >>> round(curve["kappa"][0], 3), round(curve["psa"], 3)
    (0.675, 0.849)
    >>> curve["kappa"][-1] > curve["kappa"][0]
    True
    """
    start = max(float(d), 1.0)
    stop = start * multiple if d > 0 else max(a + b + c, 1.0) * multiple
    grid = np.unique(np.concatenate([[float(d)], np.geomspace(start, stop, points)]))
    kappa = cohen_kappa_array(np.stack(np.broadcast_arrays(*map(float, (a, b, c)), grid), axis=-1).reshape(-1, 2, 2))
    return {
        "d": grid.tolist(),
        "kappa": [reported(k) for k in kappa],
        "psa": psa(a, b, c),
    }


#: Most cells of the per-pair k × k tables (8 bytes each): about 7,000 categories for one rater pair.
MAX_TABLE_CELLS = 50_000_000


def chance_corrected(items: ItemMatrix, raters: list[str], *, reference: str | None = None,
                     confidence: float = 0.95) -> dict[str, Any]:
    """Every coefficient that applies to the items, per pair, pooled and for all raters.

    Every coefficient uses the same items and categories (``categories``; ``scheme`` says how they
    were made: span/token candidates with ``NONE``, single-label documents with the labels as
    categories, multi-label (document, label) binary items). The 2×2 "marked" tables exist only
    where category 0 means "not marked" (``NONE`` or "not chosen"). ``confidence`` is the level
    of the analytic intervals.
    """
    if not 0 < confidence < 1:
        raise UsageError(f"the interval level must be between 0 and 1, got {confidence!r}")
    k = len(items.categories)
    with warnings.catch_warnings():
        # undefined values are reported as such in each coefficient's "undefined" field
        warnings.simplefilter("ignore", stats.UndefinedAgreementWarning)
        pairs, pair_index, first, second = rating_pair_rows(items, len(raters))
        if len(pairs) * k * k > MAX_TABLE_CELLS:
            raise UsageError(
                f"{k:,} categories and {len(pairs):,} rater pairs: the chance-corrected family's k × k table per "
                f"pair would hold {len(pairs) * k * k:,} cells (at most {MAX_TABLE_CELLS:,}); score without "
                "candidate items, or with fewer labels (docs/robustness.md)"
            )
        tables = np.bincount(
            pair_index * k * k + items.rating_code[first] * k + items.rating_code[second], minlength=len(pairs) * k * k
        ).reshape(len(pairs), k, k)
        label_tables = _label_tables(items, pair_index, first, second, len(pairs))
        pair_results = [
            _pair_result([raters[ra], raters[rb]], tables[p], label_tables[p], items.labels, items.has_none, confidence)
            for p, (ra, rb) in enumerate(pairs.tolist())
        ]
        pooled_labels = label_tables.sum(axis=0)
        pooled: dict[str, Any] = {}
        if items.has_none:
            pooled.update(_two_by_two(presence(tables).sum(axis=0)))
        pooled["labels"] = {name: _two_by_two(pooled_labels[l].reshape(-1)) for l, name in enumerate(items.labels)}
        everyone = _all_raters(items, raters, reference, confidence)
        defined_pairs = [p["coefficients"]["cohen_kappa"]["value"] for p in pair_results
                         if p["coefficients"]["cohen_kappa"]["value"] is not None]
        # Light (1971): the mean of the pairwise Cohen's κ (each pair on the items both rated)
        everyone["light_kappa"] = {
            "coefficient": "light_kappa", "value": float(np.mean(defined_pairs)) if defined_pairs else None,
            "n_pairs": len(defined_pairs),
            "undefined": None if defined_pairs else "no rater pair has a defined Cohen's κ",
        }
        result = {
            "source": items.source,
            "scheme": items.scheme,
            "items": {
                "total": items.n_items,
                "candidates": int((~items.extra).sum()),
                "extra": int(items.extra.sum()),
                "ratings": int(len(items.rating_item)),
                "notes": dict(sorted(items.notes.items())),
            },
            "categories": list(items.categories),
            "labels": list(items.labels),
            "pairs": pair_results,
            "pooled": pooled,
            "all_raters": everyone,
            "band_notes": family_notes(everyone, items),
        }
    return result


def rating_pair_rows(items: ItemMatrix, n_raters: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of ratings of the same item (ratings are sorted by item, then rater)."""
    first, second = pairs_within_blocks(items.rating_item)
    key = items.rating_rater[first] * n_raters + items.rating_rater[second]
    keys, pair_index = np.unique(key, return_inverse=True)
    pairs = np.stack([keys // n_raters, keys % n_raters], axis=1).reshape(-1, 2)
    return pairs, pair_index.reshape(-1), first, second


def _label_tables(items: ItemMatrix, pair_index, first, second, n_pairs: int) -> np.ndarray:
    """(n_pairs, n_labels, 2, 2) tables; index 0 is "marked with the label" (so [0, 0] is a).

    Built from the labels the ratings carry, not from one pass over every rating per label: the
    cost grows with the marked ratings, not with ratings × labels.
    """
    n_labels = len(items.labels)
    if items.item_label is not None:
        # multi-label: a rating pair is on one (document, label) item, and counts in that label's
        # table only; code 1 is "chosen"
        label = items.item_label[items.rating_item[first]]
        cell = (items.rating_code[first] == 0).astype(np.int64) * 2 + (items.rating_code[second] == 0)
        index = (pair_index * n_labels + label) * 4 + cell
        return np.bincount(index, minlength=n_pairs * n_labels * 4).reshape(n_pairs, n_labels, 2, 2)
    # every label's table covers every item: a both marked, b the first only, c the second only,
    # d the pair's other rows
    rating, label = set_bits(items.rating_labels)
    order = np.argsort(rating, kind="stable")
    rating, label = rating[order], label[order]
    ptr = np.searchsorted(rating, np.arange(len(items.rating_labels) + 1))
    # (row, label) for each label of each row's first, then second, rating
    side = [expand(ptr[ratings], ptr[ratings + 1]) for ratings in (first, second)]
    keys = [row * n_labels + label[at] for row, at in side]
    both = np.intersect1d(keys[0], keys[1], assume_unique=True)
    size = n_pairs * n_labels

    def per_cell(key: np.ndarray) -> np.ndarray:
        return np.bincount(pair_index[key // n_labels] * n_labels + key % n_labels, minlength=size)

    a = per_cell(both)
    b = per_cell(keys[0]) - a
    c = per_cell(keys[1]) - a
    d = np.repeat(np.bincount(pair_index, minlength=n_pairs), n_labels) - a - b - c
    return np.stack([a, b, c, d], axis=1).reshape(n_pairs, n_labels, 2, 2)


def presence(tables: np.ndarray) -> np.ndarray:
    """(…, 4) = (a, b, c, d) of "marked" (any label) against NONE (category 0) from (…, k, k)
    tables, for the point estimate and for the bootstrap's replicates."""
    return np.stack([tables[..., 1:, 1:].sum(axis=(-1, -2)), tables[..., 1:, 0].sum(axis=-1),
                     tables[..., 0, 1:].sum(axis=-1), tables[..., 0, 0]], axis=-1)


def _two_by_two(abcd) -> dict[str, Any]:
    """κ, PSA, negative agreement and the κ(d) curve on a 2×2 (a, b, c, d)."""
    a, b, c, d = (int(x) for x in abcd)
    table = np.array([[a, b], [c, d]])
    return {
        "a": a, "b": b, "c": c, "d": d,
        "cohen_kappa": _kappa(table),
        "positive_agreement": psa(a, b, c),
        "negative_agreement": psa(d, b, c),  # NSA: the PSA of the absent category
        "kappa_curve": kappa_curve(a, b, c, d),
    }


def _kappa(table: np.ndarray, confidence: float = 0.95, kappa: Agreement | None = None) -> dict[str, Any]:
    """Cohen's κ with its Fleiss–Cohen–Everitt standard error, interval and p-value."""
    kappa = kappa or stats.cohen_kappa(table, confidence=confidence)
    return _table_entry(kappa, "cohen_kappa")


def _table_entry(estimate: Agreement, key: str) -> dict[str, Any]:
    """A two-rater coefficient as the report writes it: its parts, standard error, p-value and
    interval (``analytic_interval``), under the report's name ``key``."""
    out = {**estimate.parts(), "coefficient": key}
    full = estimate.to_dict()
    interval = full.get("interval") or {"low": None, "high": None, "confidence": estimate.confidence,
                                         "method": estimate.method}
    out["standard_error"] = full.get("standard_error")
    out["analytic_interval"] = interval
    out["p_value"] = full.get("p_value")
    return out


def _pair_result(names: list[str], table: np.ndarray, label_tables: np.ndarray, labels: list[str],
                 has_none: bool = True, confidence: float = 0.95) -> dict:
    # two raters, every shared item: the family on the table, with Gwet's (and for Cohen's κ
    # Fleiss, Cohen & Everitt's) standard errors
    spread = cac.table_family(table, confidence=confidence)
    out = {
        "raters": names,
        "items": int(table.sum()),
        "table": table.tolist(),
        "coefficients": {
            key: _table_entry(spread[name], key)
            for key, name in (("percent_agreement", "percent_agreement"), ("bennett_s", "brennan_prediger"),
                              ("scott_pi", "fleiss_kappa"))
        },
        "labels": {name: _two_by_two(label_tables[l].reshape(-1)) for l, name in enumerate(labels)},
    }
    out["coefficients"]["cohen_kappa"] = _kappa(table, confidence, spread["cohen_kappa"])
    out["coefficients"]["gwet_ac1"] = _family_entry(spread["gwet_ac"])
    if has_none:
        out["marked"] = _two_by_two(presence(table))
    return out


#: The report's multi-rater coefficients from the family, by report key.
FAMILY_KEYS = {
    "percent_agreement": "percent_agreement", "brennan_prediger": "brennan_prediger",
    "fleiss_kappa": "fleiss_kappa", "conger_kappa": "conger_kappa", "gwet_ac1": "gwet_ac",
    "krippendorff_alpha": "krippendorff_alpha",
}


def _family_entry(estimate: Agreement) -> dict[str, Any]:
    out = estimate.to_dict()
    out["analytic_interval"] = out.pop("interval")
    if estimate.coefficient != "percent_agreement":
        out["benchmark"] = benchmarks(out["value"], out["standard_error"])
    return out


def _all_raters(items: ItemMatrix, raters: list[str], reference: str | None, confidence: float = 0.95) -> dict[str, Any]:
    """Multi-rater coefficients on every rating (Gwet's missing-ratings forms, with standard errors),
    their complete-items forms, per-category Fleiss' κ, and for a modest number of raters the
    coefficients of the items × raters matrix (κ_S, S against a group)."""
    categories = np.arange(len(items.categories))
    data = cac.long_ratings(items.rating_item, items.rating_rater, items.rating_code, n_items=items.n_items,
                            n_raters=len(raters), categories=items.categories)
    available = cac.family(data, confidence=confidence)
    complete = cac.family(data, missing="complete", coefficients=["fleiss_kappa", "conger_kappa"],
                          confidence=confidence)
    out: dict[str, Any] = {key: _family_entry(available[name]) for key, name in FAMILY_KEYS.items()}
    # Davies & Fleiss' κ is Conger's κ (the same chance term), kept under its earlier name
    out["davies_fleiss_kappa"] = {**out["conger_kappa"], "coefficient": "davies_fleiss_kappa"}
    out["fleiss_kappa_complete"] = _family_entry(complete["fleiss_kappa"])
    out["conger_kappa_complete"] = _family_entry(complete["conger_kappa"])
    out["fleiss_kappa_per_category"] = _per_category(items, data, confidence)
    # Shah's κ_S as its formula is written is Conger's κ on the complete items (stats.conger_kappa)
    out["kappa_s"] = {**complete["conger_kappa"].parts(), "coefficient": "kappa_s"}
    if len(raters) > MAX_DENSE_RATERS:
        return out
    dense = np.full((items.n_items, len(raters)), -1, dtype=np.int64)
    dense[items.rating_item, items.rating_rater] = items.rating_code
    if reference is not None and reference in raters:
        r = raters.index(reference)
        as_float = np.where(dense >= 0, dense, np.nan)  # S takes labels, with nan for missing
        out["s_against_group"] = {
            "outsider": reference,
            **stats.s_against_group(
                as_float[:, r], np.delete(as_float, r, axis=1), categories=categories.astype(float)
            ).to_dict(),
        }
    return out


def _per_category(items: ItemMatrix, data: cac.RawRatings, confidence: float) -> dict[str, Any]:
    """Fleiss' κ of each category against the rest; for multi-label items, of each label on its
    own (document, label) items."""
    if items.item_label is None:
        per = cac.fleiss_kappa_per_category(data, confidence=confidence)
        return {str(label): _family_entry(est) for label, est in per.items()}
    out = {}
    of_rating = items.item_label[items.rating_item]
    by_label = np.argsort(of_rating, kind="stable")  # each label's ratings, in their order
    ends = np.searchsorted(of_rating[by_label], np.arange(len(items.labels) + 1))
    for l, name in enumerate(items.labels):
        keep = by_label[ends[l] : ends[l + 1]]
        # the label's items numbered among themselves (not among every label's: the work per label
        # would grow with all items)
        own, item = np.unique(data.item[keep], return_inverse=True)
        subset = cac.long_ratings(item.reshape(-1), data.rater[keep], data.code[keep], n_items=len(own),
                                  n_raters=data.n_raters, categories=data.categories)
        est = cac.family(subset, coefficients=["fleiss_kappa"], confidence=confidence)["fleiss_kappa"]
        entry = _family_entry(est)
        entry["skipped"].pop(cac.SKIP_UNRATED, None)  # other labels' items are not this label's
        out[name] = entry
    return out


def family_notes(everyone: dict[str, Any], items: ItemMatrix) -> list[str]:
    """Plain-words explanations when the Landis–Koch bands of the family disagree.

    The coefficients share p_a and differ only in p_e: κ-type chance terms (Fleiss, Conger, α)
    grow when one category takes most ratings, Gwet's AC1 shrinks and Brennan–Prediger's is
    fixed at 1/q, so one data set can read "moderate" in κ and "almost perfect" in AC1 (the
    kappa paradoxes: Feinstein & Cicchetti 1990; Gwet 2008).
    """
    names = {"fleiss_kappa": "Fleiss' κ", "conger_kappa": "Conger's κ", "gwet_ac1": "Gwet's AC1",
             "brennan_prediger": "Brennan–Prediger", "krippendorff_alpha": "Krippendorff's α"}
    read = {}
    for key, name in names.items():
        bench = everyone.get(key, {}).get("benchmark")
        if bench and bench.get("landis_koch"):
            read[key] = (bench["landis_koch"]["band"] or bench["landis_koch"]["point_band"], everyone[key])
    if len({band for band, _ in read.values()}) < 2:
        return []
    shares = np.bincount(items.rating_code, minlength=len(items.categories))
    top = int(shares.argmax()) if shares.sum() else 0
    share = float(shares[top] / shares.sum()) if shares.sum() else 0.0
    listing = "; ".join(f"{names[k]} {entry['value']:.3f} ({band}, p_e {entry['expected']:.3f})"
                        for k, (band, entry) in read.items())
    return [
        f"The bands differ: {listing}. All share the observed agreement p_a; they differ only in the chance "
        f"term p_e. Category {items.categories[top]!r} takes {share:.0%} of the ratings: with one category this "
        "common, κ-type chance terms (Fleiss, Conger, α) are large and pull κ down, while Gwet's AC1 treats such "
        "agreement as less likely to be chance and Brennan–Prediger's chance term is fixed at 1/q (the kappa "
        "paradoxes; docs/chance-corrected.md)."
    ]
