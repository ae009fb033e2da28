"""Positive specific agreement from summed counts, and its per-rater orientation.

With ``a`` the matched credit and ``b``, ``c`` each rater's unmatched spans (definitions in
``docs/agreement.md``):

- ``PSA = 2a / (2a + b + c)`` (Hripcsak & Rothschild 2005), equal to F1 with either rater as the
  reference, undefined (``None``, NaN in arrays) when ``2a + b + c = 0``;
- with rater A as the reference, ``recall = a / (a + b)``, ``precision = a / (a + c)`` and
  ``F_beta = (1 + β²)·P·R / (β²·P + R)`` (van Rijsbergen 1979).

The array functions take any leading axes (a bootstrap replicate axis among them), so the point
estimate and every replicate are computed by the same code.
"""
from __future__ import annotations

import numpy as np

from ..core import validate


def psa(a: float, b: float, c: float) -> float | None:
    """Positive specific agreement ``2a / (2a + b + c)``; None when undefined.

    Hripcsak & Rothschild (2005), "Agreement, the F-measure, and reliability in information
    retrieval", JAMIA 12(3):296-298.

    >>> round(psa(227, 31, 50), 3)
    0.849
    >>> psa(0, 0, 0) is None
    True
    """
    a, b, c = (validate.count(name, v) for name, v in (("a", a), ("b", b), ("c", c)))
    denominator = 2 * a + b + c
    return None if denominator == 0 else 2 * a / denominator


def f_beta(a: float, b: float, c: float, beta: float = 1.0) -> float | None:
    """F-beta of rater B against reference A: ``(1 + β²)·P·R / (β²·P + R)``; None when undefined.

    ``P = a / (a + c)``, ``R = a / (a + b)`` (van Rijsbergen 1979). With ``beta = 1`` this is PSA.
    When ``a = 0`` but ``b + c > 0`` the raters share nothing and F is 0.

    >>> round(f_beta(227, 31, 50), 3)
    0.849
    >>> round(f_beta(8, 2, 0, beta=2.0), 4)
    0.8333
    """
    a, b, c = (validate.count(name, v) for name, v in (("a", a), ("b", b), ("c", c)))
    validate.positive("beta", beta)
    b2 = beta * beta
    denominator = (1 + b2) * a + b2 * b + c
    return None if denominator == 0 else (1 + b2) * a / denominator


def psa_array(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Element-wise PSA, NaN where undefined."""
    denominator = 2 * a + b + c
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, 2 * a / np.where(denominator > 0, denominator, 1), np.nan)



def oriented(pair_values: np.ndarray, pairs: np.ndarray, n_raters: int, axis: int = 0) -> np.ndarray:
    """Sums per rater of ``(a, own, other)`` from per-pair ``(a, b, c)`` (b = the pair's first
    rater's unmatched spans). ``pair_values`` has the pairs (``pairs``, shape (n_pairs, 2)) on
    ``axis`` and (a, b, c) last; the result has a rater axis in place of the pair axis."""
    first, second = pairs[:, 0], pairs[:, 1]
    swapped = pair_values[..., [0, 2, 1]]
    moved_a = np.moveaxis(pair_values, axis, 0)
    moved_b = np.moveaxis(swapped, axis, 0)
    out = np.zeros((n_raters, *moved_a.shape[1:]))
    add_rows(out, first, moved_a)
    add_rows(out, second, moved_b)
    return np.moveaxis(out, 0, axis)


def add_rows(out: np.ndarray, index: np.ndarray, values: np.ndarray) -> None:
    """``np.add.at(out, index, values)`` along the first axis, by one segment sum per target
    row (equal up to rounding; many times faster for large arrays)."""
    if not len(index):
        return
    order = np.argsort(index, kind="stable")
    ordered = index[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    out[ordered[starts]] += np.add.reduceat(values[order], starts, axis=0)


def mean_psa(pair_psa: np.ndarray, pairs: np.ndarray, n_raters: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Per rater, the mean over its pairs of the defined pair PSAs; NaN when none is defined.
    ``pair_psa`` has shape (..., n_pairs); ``weights`` (same shape), the pairs' weights in a
    bootstrap replicate (see :mod:`spanagree.measures.intervals`), 1 when not given."""
    defined = ~np.isnan(pair_psa)
    weight = defined.astype(float) if weights is None else np.where(defined, weights, 0.0)
    values = np.where(defined, pair_psa, 0.0) * weight
    moved_v, moved_d = np.moveaxis(values, -1, 0), np.moveaxis(weight, -1, 0)
    total = np.zeros((n_raters, *moved_v.shape[1:]))
    count = np.zeros_like(total)
    for column in (pairs[:, 0], pairs[:, 1]):
        add_rows(total, column, moved_v)
        add_rows(count, column, moved_d)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.moveaxis(np.where(count > 0, total / np.where(count > 0, count, 1), np.nan), 0, -1)


def prf(a: float, own: float, other: float) -> dict[str, float | None]:
    """Precision, recall and F of a rater with ``a`` matched, ``own`` unconfirmed spans and
    ``other`` spans of the reference it did not mark; None where undefined."""
    return {
        "precision": a / (a + own) if a + own else None,
        "recall": a / (a + other) if a + other else None,
        "f": 2 * a / (2 * a + own + other) if 2 * a + own + other else None,
        "a": float(a),
        "own": float(own),
        "other": float(other),
    }


def interval_statistics(
    pair_abc: np.ndarray, pairs: np.ndarray, n_raters: int, weights: np.ndarray | None = None
) -> list[tuple[list[tuple], np.ndarray]]:
    """Per-rater statistics per bootstrap replicate, from per-replicate pair sums (R, P, 3) and
    the pairs' weights in each replicate (R, P): groups of (names, values (R, raters))."""

    pair_psa = psa_array(pair_abc[..., 0], pair_abc[..., 1], pair_abc[..., 2])
    mean = mean_psa(pair_psa, pairs, n_raters, weights)  # (R, raters)
    summed = oriented(pair_abc, pairs, n_raters, axis=1)  # (R, raters, 3)
    f = psa_array(summed[..., 0], summed[..., 1], summed[..., 2])
    return [
        ([("raters", r, "mean_psa") for r in range(n_raters)], mean),
        ([("raters", r, "against_others", "f") for r in range(n_raters)], f),
    ]

