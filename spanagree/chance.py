"""The chance-corrected family on candidate items, and how κ approaches PSA (SPEC §4–5).

From an :class:`~spanagree.candidates.ItemMatrix` this builds, for every rater pair, the k×k
table of categories (``NONE`` and the labels) over the items of the documents both submitted,
the 2×2 table of "marked / not marked" and one 2×2 table per label; and for all raters together
the ratings per item. The coefficients come from :mod:`spanagree.stats`.

κ and PSA. On a 2×2 table with ``a`` (both marked), ``b``, ``c`` (one marked) and ``d``
(neither), Cohen's κ = 2(ad − bc) / ((a + c)(c + d) + (b + d)(a + b)) and, as ``d`` grows with
``a, b, c`` fixed, κ → 2a / (2a + b + c) = PSA (Hripcsak & Rothschild 2005). :func:`kappa_curve`
gives κ(d) from the observed d up to a large multiple, with PSA as the asymptote.
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import stats
from ._arrays import pairs_within_blocks
from .candidates import ItemMatrix

#: Raters above which the dense items × raters matrix (Davies–Fleiss, κ_S, S) is not built.
MAX_DENSE_RATERS = 64
#: How far the κ(d) curve goes: up to this multiple of the observed d (or of a + b + c).
CURVE_MULTIPLE = 1000
CURVE_POINTS = 25


def kappa_curve(a: float, b: float, c: float, d: float, *, points: int = CURVE_POINTS,
                multiple: float = CURVE_MULTIPLE) -> dict[str, Any]:
    """Cohen's κ on the 2×2 table (a, b, c, d') for d' from ``d`` up to ``multiple`` × d.

    κ(d) = 2(ad − bc) / ((a + c)(c + d) + (b + d)(a + b)); its limit as d → ∞ is PSA =
    2a / (2a + b + c) (Hripcsak & Rothschild 2005). The grid is geometric, starting at the
    observed d (or at 1 when d = 0, and then reaching ``multiple`` × (a + b + c)).

    >>> curve = kappa_curve(227, 31, 50, 192)
    >>> round(curve["kappa"][0], 3), round(curve["psa"], 3)
    (0.675, 0.849)
    >>> curve["kappa"][-1] > curve["kappa"][0]
    True
    """
    start = max(float(d), 1.0)
    stop = start * multiple if d > 0 else max(a + b + c, 1.0) * multiple
    grid = np.unique(np.concatenate([[float(d)], np.geomspace(start, stop, points)]))
    numerator = 2 * (a * grid - b * c)
    denominator = (a + c) * (c + grid) + (b + grid) * (a + b)
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa = np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan)
    total = 2 * a + b + c
    return {
        "d": grid.tolist(),
        "kappa": [None if np.isnan(k) else float(k) for k in kappa],
        "psa": None if total == 0 else 2 * a / total,
    }


def chance_corrected(items: ItemMatrix, raters: list[str], *, reference: str | None = None) -> dict[str, Any]:
    """Every coefficient that applies to the items, per pair, pooled and for all raters."""
    k = len(items.categories)
    with warnings.catch_warnings():
        # undefined values are reported as such in each coefficient's "undefined" field
        warnings.simplefilter("ignore", stats.UndefinedAgreementWarning)
        pairs, pair_index, first, second = _pair_rows(items, len(raters))
        tables = np.bincount(
            pair_index * k * k + items.rating_code[first] * k + items.rating_code[second], minlength=len(pairs) * k * k
        ).reshape(len(pairs), k, k)
        label_tables = _label_tables(items, pair_index, first, second, len(pairs))
        pair_results = [
            _pair_result([raters[ra], raters[rb]], tables[p], label_tables[p], items.labels)
            for p, (ra, rb) in enumerate(pairs.tolist())
        ]
        presence = np.array([_presence(t) for t in tables]).reshape(-1, 4).sum(axis=0)
        pooled_labels = label_tables.sum(axis=0)
        result = {
            "source": items.source,
            "items": {
                "total": items.n_items,
                "candidates": int((~items.extra).sum()),
                "extra": int(items.extra.sum()),
                "ratings": int(len(items.rating_item)),
                "notes": dict(sorted(items.notes.items())),
            },
            "categories": list(items.categories),
            "pairs": pair_results,
            "pooled": {
                **_two_by_two(presence),
                "labels": {name: _two_by_two(pooled_labels[l].reshape(-1)) for l, name in enumerate(items.labels)},
            },
            "all_raters": _all_raters(items, raters, reference),
        }
    return result


def _pair_rows(items: ItemMatrix, n_raters: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of ratings of the same item (ratings are sorted by item, then rater)."""
    first, second = pairs_within_blocks(items.rating_item)
    key = items.rating_rater[first] * n_raters + items.rating_rater[second]
    keys, pair_index = np.unique(key, return_inverse=True)
    pairs = np.stack([keys // n_raters, keys % n_raters], axis=1).reshape(-1, 2)
    return pairs, pair_index.reshape(-1), first, second


def _label_tables(items: ItemMatrix, pair_index, first, second, n_pairs: int) -> np.ndarray:
    """(n_pairs, n_labels, 2, 2) tables; index 0 is "marked with the label" (so [0, 0] is a)."""
    out = np.zeros((n_pairs, len(items.labels), 2, 2), dtype=np.int64)
    for label in range(len(items.labels)):
        has = items.has_label(label)
        cell = (~has[first]).astype(np.int64) * 2 + (~has[second]).astype(np.int64)
        out[:, label] = np.bincount(pair_index * 4 + cell, minlength=n_pairs * 4).reshape(n_pairs, 2, 2)
    return out


def _presence(table: np.ndarray) -> tuple[int, int, int, int]:
    """(a, b, c, d) of "marked" (any label) against NONE (category 0) from a k×k table."""
    return (
        int(table[1:, 1:].sum()),
        int(table[1:, 0].sum()),
        int(table[0, 1:].sum()),
        int(table[0, 0]),
    )


def _two_by_two(abcd) -> dict[str, Any]:
    """κ, PSA, negative agreement and the κ(d) curve on a 2×2 (a, b, c, d)."""
    a, b, c, d = (int(x) for x in abcd)
    table = np.array([[a, b], [c, d]])
    return {
        "a": a, "b": b, "c": c, "d": d,
        "cohen_kappa": stats.cohen_kappa_parts(table).to_dict(),
        "positive_agreement": _value(stats.positive_agreement_parts(table)),
        "negative_agreement": _value(stats.negative_agreement_parts(table)),
        "kappa_curve": kappa_curve(a, b, c, d),
    }


def _pair_result(names: list[str], table: np.ndarray, label_tables: np.ndarray, labels: list[str]) -> dict:
    return {
        "raters": names,
        "items": int(table.sum()),
        "table": table.tolist(),
        "coefficients": {
            name: fn(table).to_dict()
            for name, fn in (
                ("percent_agreement", stats.percent_agreement_parts),
                ("bennett_s", stats.bennett_s_parts),
                ("scott_pi", stats.scott_pi_parts),
                ("cohen_kappa", stats.cohen_kappa_parts),
            )
        },
        "marked": _two_by_two(_presence(table)),
        "labels": {name: _two_by_two(label_tables[l].reshape(-1)) for l, name in enumerate(labels)},
    }


def _all_raters(items: ItemMatrix, raters: list[str], reference: str | None) -> dict[str, Any]:
    """Multi-rater coefficients: from the ratings per item (α, AC1, Fleiss) and, for a modest
    number of raters, from the items × raters matrix (Davies–Fleiss, κ_S, S against a group)."""
    categories = np.arange(len(items.categories))
    slots = _slots(items)
    coded = stats.CodedRatings(slots, categories)
    out: dict[str, Any] = {
        "krippendorff_alpha": stats.krippendorff_alpha_parts(coded).to_dict(),
        "gwet_ac1": stats.gwet_ac1_parts(coded).to_dict(),
        # Fleiss' κ needs the same number of ratings per item: items with fewer than the most
        # ratings are skipped and counted (Krippendorff's α uses them all)
        "fleiss_kappa": stats.fleiss_kappa_parts(coded).to_dict(),
    }
    if len(raters) > MAX_DENSE_RATERS:
        reason = f"more than {MAX_DENSE_RATERS} raters: no items × raters matrix is built for rater-specific coefficients"
        out["davies_fleiss_kappa"] = out["kappa_s"] = {"value": None, "undefined": reason}
        return out
    dense = np.full((items.n_items, len(raters)), -1, dtype=np.int64)
    dense[items.rating_item, items.rating_rater] = items.rating_code
    coded = stats.CodedRatings(dense, categories)
    out["davies_fleiss_kappa"] = stats.davies_fleiss_kappa_parts(coded).to_dict()
    out["kappa_s"] = stats.kappa_s_parts(coded).to_dict()
    if reference is not None and reference in raters:
        r = raters.index(reference)
        as_float = np.where(dense >= 0, dense, np.nan)  # S takes labels, with nan for missing
        out["s_against_group"] = {
            "outsider": reference,
            **stats.s_against_group_parts(
                as_float[:, r], np.delete(as_float, r, axis=1), categories=categories.astype(float)
            ).to_dict(),
        }
    return out


def _slots(items: ItemMatrix) -> np.ndarray:
    """The ratings of each item left-aligned in an (n_items, most ratings per item) matrix."""
    item = items.rating_item
    counts = np.bincount(item, minlength=items.n_items)
    width = int(counts.max(initial=0))
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    slot = np.arange(len(item)) - start[item]
    out = np.full((items.n_items, max(width, 1)), -1, dtype=np.int64)
    out[item, slot] = items.rating_code
    return out


def _value(parts: stats.AgreementParts) -> float | None:
    return parts.value if parts.defined else None
