"""Agreement weights: one vocabulary for every weighted coefficient.

A weight ``w[k, l]`` in [0, 1] is the credit two ratings get when one is category k and the other
category l: 1 on the diagonal (full agreement), less for categories further apart. Unweighted
coefficients use the identity. The named families are those of Gwet (2014, ch. 3; the
``irrCAC`` package), defined on the category *values* x_k when the categories are numbers and on
their ranks 1..q otherwise; ``x_min`` and ``x_max`` are the smallest and largest value:

============ ==================================================================================
identity     1 if k = l else 0
linear       1 - |x_k - x_l| / (x_max - x_min)
quadratic    1 - (x_k - x_l)² / (x_max - x_min)²
radical      1 - sqrt|x_k - x_l| / sqrt(x_max - x_min)
ratio        1 - ((x_k - x_l)/(x_k + x_l))² / ((x_max - x_min)/(x_max + x_min))²
circular     1 - sin²(π (x_k - x_l) / U) / max, with U = x_max - x_min + 1
bipolar      1 - [(x_k - x_l)² / ((x_k + x_l - 2 x_min)(2 x_max - x_k - x_l))] / max (0 on the
             diagonal before the rescaling)
ordinal      1 - [M_kl (M_kl - 1) / 2] / max, with M_kl = |rank_k - rank_l| + 1 (ranks, not
             values)
============ ==================================================================================

"max" is the largest off-diagonal raw value, so the smallest weight is 0. A user matrix is a q×q
array of agreement weights in category order: finite, in [0, 1], 1 on the diagonal, symmetric.
:func:`disagreement` turns weights into the disagreement form (1 - w) used by weighted κ and by
Krippendorff's α (whose δ² is a disagreement; α is unchanged by rescaling δ²).

References: Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed., Advanced
Analytics, section 3.5 and the ``weights.gen`` functions of the ``irrCAC`` R package.
"""
from __future__ import annotations

import numbers
import reprlib
from typing import Union

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["NAMES", "agreement_weights", "disagreement", "Weights"]

#: The named weight families, in the order Gwet lists them.
NAMES = ("identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar")

Weights = Union[str, ArrayLike]


def _positions(categories: np.ndarray) -> np.ndarray:
    """Category values when they are all numbers, else ranks 1..q."""
    values = categories.tolist()
    if values and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values):
        return np.asarray(values, dtype=float)
    return np.arange(1, len(values) + 1, dtype=float)


def _rescale(raw: np.ndarray) -> np.ndarray:
    top = raw.max(initial=0.0)
    return np.ones_like(raw) if top == 0 else 1.0 - raw / top


def agreement_weights(weights: Weights, categories: ArrayLike) -> np.ndarray:
    """The q×q agreement-weight matrix for ``weights`` (a name in :data:`NAMES` or a matrix).

    >>> agreement_weights("linear", [1, 2, 3]).tolist()
    [[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]]
    >>> agreement_weights("quadratic", ["low", "mid", "high"])[0].tolist()
    [1.0, 0.75, 0.0]
    """
    cats = np.asarray(categories, dtype=object) if not isinstance(categories, np.ndarray) else categories
    q = len(cats)
    if not isinstance(weights, str):
        return _user_matrix(weights, q)
    if weights not in NAMES:
        raise ValueError(
            f"weights={weights!r} is not one of {', '.join(NAMES)} or a q×q matrix of agreement weights"
        )
    if weights == "identity" or q < 2:
        return np.eye(q)
    if weights == "ordinal":
        rank = np.arange(q, dtype=float)
        m = np.abs(rank[:, None] - rank[None, :]) + 1
        return _rescale(m * (m - 1) / 2)
    x = _positions(cats)
    lo, hi = float(x.min()), float(x.max())
    diff = x[:, None] - x[None, :]
    span = hi - lo
    if span == 0:
        raise ValueError(f"weights={weights!r} needs distinct category values; got {reprlib.repr(cats.tolist())}")
    if weights == "linear":
        return 1.0 - np.abs(diff) / span
    if weights == "quadratic":
        return 1.0 - (diff / span) ** 2
    if weights == "radical":
        return 1.0 - np.sqrt(np.abs(diff)) / np.sqrt(span)
    if weights == "ratio":
        if hi + lo == 0:  # the scale below divides by it
            raise ValueError("weights='ratio' needs category values that are not 0 (e.g. positive)")
        with np.errstate(divide="ignore", invalid="ignore"):
            raw = (diff / (x[:, None] + x[None, :])) ** 2 / (span / (hi + lo)) ** 2
        raw[np.eye(q, dtype=bool)] = 0.0
        if not np.isfinite(raw).all():
            raise ValueError("weights='ratio' needs category values that are not 0 (e.g. positive)")
        return 1.0 - raw
    if weights == "circular":
        return _rescale(np.sin(np.pi * diff / (span + 1)) ** 2)
    # bipolar
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = diff**2 / ((x[:, None] + x[None, :] - 2 * lo) * (2 * hi - x[:, None] - x[None, :]))
    raw[np.eye(q, dtype=bool)] = 0.0
    if not np.isfinite(raw).all():
        raise ValueError("weights='bipolar' is undefined for these category values (a zero denominator)")
    return _rescale(raw)


def _user_matrix(weights: ArrayLike, q: int) -> np.ndarray:
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"weights={reprlib.repr(weights)} is not one of {', '.join(NAMES)} or a q×q matrix of agreement weights"
        ) from exc
    if w.shape != (q, q):
        raise ValueError(f"a weight matrix must be {q}×{q} (one row and column per category); got shape {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any() or (w > 1).any():
        raise ValueError(f"agreement weights must be finite and in [0, 1]; got {w.tolist()}")
    if (np.diag(w) != 1).any():
        raise ValueError(
            f"agreement weights must be 1 on the diagonal; got diagonal {np.diag(w).tolist()}. "
            "For disagreement weights d (0 on the diagonal) pass 1 - d"
        )
    if not np.allclose(w, w.T):
        raise ValueError("agreement weights must be symmetric")
    return w


def disagreement(weights: Weights, categories: ArrayLike) -> np.ndarray:
    """1 - :func:`agreement_weights`: the disagreement form (0 on the diagonal).

    >>> disagreement("linear", [1, 2, 3])[0].tolist()
    [0.0, 0.5, 1.0]
    """
    return 1.0 - agreement_weights(weights, categories)
