"""Positive specific agreement from summed counts; its aggregations are in spanagree.measures.summary.

With ``a`` the matched credit and ``b``, ``c`` each rater's unmatched spans (definitions in
``docs/agreement.md``):

- ``PSA = 2a / (2a + b + c)`` (Hripcsak & Rothschild 2005), equal to F1 with either rater as the
  reference, undefined (``None``, NaN in arrays) when ``2a + b + c = 0``;
- with rater A as the reference, ``recall = a / (a + b)``, ``precision = a / (a + c)`` and
  ``F_beta = (1 + β²)·P·R / (β²·P + R)`` (van Rijsbergen 1979).

:func:`psa` is the one place PSA is computed: on numbers for a point value and on arrays of any
shape (a bootstrap replicate axis among them), so the point estimate and every replicate are
computed by the same code, under the same undefined policy.
"""
from __future__ import annotations

import numpy as np

from ...core import validate


def psa(a: float | np.ndarray, b: float | np.ndarray, c: float | np.ndarray) -> float | None | np.ndarray:
    """Positive specific agreement ``2a / (2a + b + c)``.

    Hripcsak & Rothschild (2005), "Agreement, the F-measure, and reliability in information
    retrieval", JAMIA 12(3):296-298.

    The one undefined policy (docs/agreement.md): when ``2a + b + c = 0`` (neither rater marked
    anything) PSA is undefined, neither 0 nor 1: ``None`` for numbers (checked; a ``Fraction``
    gives a ``Fraction``), NaN in arrays of any shape (a replicate axis among them).

    >>> round(psa(227, 31, 50), 3)
    0.849
    >>> psa(0, 0, 0) is None
    True
    >>> psa(np.array([1.0, 0.0, 0.0]), np.array([1.0, 0.0, 2.0]), 0.0).tolist()
    [0.6666666666666666, nan, 0.0]
    """
    if any(isinstance(x, np.ndarray) for x in (a, b, c)):
        a = np.asarray(a, dtype=np.float64)
    else:
        a, b, c = _scaled(*(validate.count(name, v) for name, v in (("a", a), ("b", b), ("c", c))))
        if 2 * a + (b + c) == 0:
            return None
    with np.errstate(invalid="ignore", divide="ignore"):  # arrays: 0/0 is NaN where undefined
        return 2 * a / (2 * a + (b + c))  # b + c first: symmetric in b and c to the last bit


def reported(value: float) -> float | None:
    """A value as the report writes it: None where it is undefined (NaN), else a float."""
    return None if value != value else float(value)


def spans_marked(entry: dict) -> float:
    """The spans a per-label entry's pooled counts hold: each match pairs two spans (2a + b + c),
    the denominator of PSA."""
    return 2 * entry["a"] + entry["b"] + entry["c"]


def _scaled(a: float, b: float, c: float) -> tuple[float, float, float]:
    """Counts near the float limit divided by the largest, so that no sum overflows (the
    ratios do not change); others as given, so that results stay exact to the last bit."""
    largest = max(a, b, c)
    if largest > 1e300:
        return a / largest, b / largest, c / largest
    return a, b, c


def f_beta(a: float | np.ndarray, b: float | np.ndarray, c: float | np.ndarray, beta: float = 1.0) -> float | None | np.ndarray:
    """F-beta of rater B against reference A: ``(1 + β²)·P·R / (β²·P + R)`` as ``a / (a + (w_b·b +
    w_c·c))`` (:func:`beta_weights`), on numbers or arrays, undefined as for :func:`psa`.

    ``P = a / (a + c)``, ``R = a / (a + b)`` (van Rijsbergen 1979). With ``beta = 1`` this is PSA.
    When ``a = 0`` but ``b + c > 0`` the raters share nothing and F is 0.

    >>> round(f_beta(227, 31, 50), 3)
    0.849
    >>> round(f_beta(8, 2, 0, beta=2.0), 4)
    0.8333
    """
    validate.positive("beta", beta)
    on_b, on_c = beta_weights(beta)
    if not any(isinstance(x, np.ndarray) for x in (a, b, c)):
        a, b, c = _scaled(*(validate.count(name, v) for name, v in (("a", a), ("b", b), ("c", c))))
        if a + (on_b * b + on_c * c) == 0:
            return None
    with np.errstate(invalid="ignore", divide="ignore"):
        return a / (a + (on_b * b + on_c * c))


def prf_arrays(abc: np.ndarray, beta: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision ``a / (a + c)``, recall ``a / (a + b)`` and :func:`f_beta` of every (…, 3) row,
    with the reference as side A (b: its unmatched spans); NaN where a denominator is 0."""
    a, b, c = abc[..., 0], abc[..., 1], abc[..., 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        return a / (a + c), a / (a + b), f_beta(a, b, c, beta)


def beta_weights(beta: float) -> tuple[float, float]:
    """``(β² / (1 + β²), 1 / (1 + β²))``, the weights of b and c in ``F_β = a / (a + w_b·b + w_c·c)``
    (the formula above divided by ``1 + β²``), computed without squaring a large β: for any
    finite β they are finite, so a β of 1e200 gives recall, not NaN. β = 1 gives 0.5 and 0.5,
    and F₁ is PSA to the last bit.

    >>> beta_weights(1.0), beta_weights(1e200)
    ((0.5, 0.5), (1.0, 0.0))
    """
    if beta >= 1:
        inverse = (1 / beta) ** 2
        return 1 / (1 + inverse), inverse / (1 + inverse)
    square = beta * beta
    return square / (1 + square), 1 / (1 + square)


def add_rows(out: np.ndarray, index: np.ndarray, values: np.ndarray) -> None:
    """``np.add.at(out, index, values)`` along the first axis, by one segment sum per target
    row (equal up to rounding; many times faster for large arrays)."""
    if not len(index):
        return
    order = np.argsort(index, kind="stable")
    ordered = index[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    out[ordered[starts]] += np.add.reduceat(values[order], starts, axis=0)


def prf(a: float, own: float, other: float) -> dict[str, float | None]:
    """Precision, recall and F of a rater with ``a`` matched, ``own`` unconfirmed spans and
    ``other`` spans of the reference it did not mark (:func:`prf_arrays`); None where undefined."""
    precision, recall, f = map(reported, prf_arrays(np.array([a, other, own], dtype=np.float64)))
    return {"precision": precision, "recall": recall, "f": f, "a": float(a), "own": float(own), "other": float(other)}
