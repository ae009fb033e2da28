"""Two raters on a table: specific agreement, and Cohen's κ over many tables at once.

Positive specific agreement (PSA) and its negative twin on a 2×2 table ``[[a, b], [c, d]]``
(a: both raters said present, d: both said absent; Hripcsak & Rothschild 2005; Fleiss 1975):

    PSA = 2a / (2a + b + c),        NSA = 2d / (2d + b + c)

and Cohen's (weighted) κ of every table of a (…, k, k) array, one function for the point estimate
and the bootstrap's replicates: κ = 1 − D_o/D_e, D_o = Σ t_ab v_ab / n, D_e = Σ n_a m_b v_ab / n²
(v = 1 − w; n_a, m_b the row and column sums; Cohen 1960, 1968).
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ..psa.specific import psa
from .ratings import as_table
from .result import Agreement, finish

__all__ = ["cohen_kappa_array", "disagreement_ratio", "kappa_disagreements", "specific_agreement"]


def specific_agreement(name: str, table: ArrayLike, positive: int, *, negative: bool) -> Agreement:
    """PSA (``negative=False``) or NSA of a 2×2 table whose present category is row ``positive``."""
    t = as_table(table)
    if t.shape != (2, 2):
        raise ValueError(f"{name} needs a 2×2 table; got shape {t.shape}")
    if positive not in (0, 1) or isinstance(positive, bool):
        raise ValueError(f"positive={positive!r} must be 0 or 1 (the index of the present category)")
    if positive == 1:
        t = t[::-1, ::-1]
    (a, b), (c, d) = t.tolist()
    value = psa(d if negative else a, b, c)  # NSA is the PSA of the absent category
    common = dict(n_items=float(t.sum()), n_raters=2, categories=(0, 1), missing="complete")
    if value is None:
        cell = "2d + b + c" if negative else "2a + b + c"
        return finish(name, math.nan, 0.0, undefined=f"{cell} = 0", **common)
    return finish(name, value, 0.0, **common)


def kappa_disagreements(tables: np.ndarray, disagreement: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Cohen's ``Do`` and ``De`` (module docstring) of every (…, k, k) table, rows rater 1, with
    disagreement weights ``v`` (None: ``1 − I``); NaN for an empty table. Unweighted, every sum on
    counts is of whole numbers: exact in any order, one table or a replicate axis alike."""
    t = np.asarray(tables, dtype=float)
    k = t.shape[-1]
    n = t.sum(axis=(-1, -2))
    rows, columns = t.sum(axis=-1), t.sum(axis=-2)
    unweighted = disagreement is None or np.array_equal(disagreement, 1.0 - np.eye(k))
    with np.errstate(invalid="ignore", divide="ignore"):
        if unweighted:  # v = 1 − I: Do = 1 − Σ_c t_cc / n, De = Σ_c n_c (n − m_c) / n²
            observed = (n - np.trace(t, axis1=-2, axis2=-1)) / n
            expected = (rows * (n[..., None] - columns)).sum(axis=-1) / n**2
        else:
            observed = (t * disagreement).sum(axis=(-1, -2)) / n
            expected = ((rows @ disagreement) * columns).sum(axis=-1) / n**2
    return observed, expected


def disagreement_ratio(observed: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """``1 − Do/De`` element-wise, NaN where ``De`` is not positive (the coefficient is 0/0)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected > 0, 1 - observed / np.where(expected > 0, expected, 1), np.nan)


def cohen_kappa_array(tables: np.ndarray, disagreement: np.ndarray | None = None) -> np.ndarray:
    """Cohen's κ of every (…, k, k) table (any leading axes, e.g. replicates × pairs; one table
    for the point estimate), NaN where undefined; ``disagreement`` as in :func:`kappa_disagreements`.

    >>> cohen_kappa_array(np.array([[[2, 2], [1, 5]], [[3, 0], [0, 0]]])).round(4).tolist()
    [0.3478, nan]
    """
    return disagreement_ratio(*kappa_disagreements(tables, disagreement))

