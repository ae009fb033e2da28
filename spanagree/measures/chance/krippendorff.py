"""Krippendorff's metrics δ² and α over many coincidence matrices at once.

α's terms and standard error come from :func:`spanagree.measures.chance.family.family` in Gwet's
formulation, which equals Krippendorff's α for any agreement weights w; a metric δ² enters it as
``w = 1 − δ²/max δ²`` (α = 1 − D_o/D_e is invariant to rescaling δ²). Its value comes from
:func:`alpha_array` on the coincidence matrix, as every bootstrap replicate's does. The metrics
(Krippendorff 2004, ch. 11; 2011):

* ``"nominal"``: 0 if equal else 1;
* ``"ordinal"``: (Σ_{g=c}^{k} n_g − (n_c + n_k)/2)² over categories in order, with n_g the
  pairable values in category g (so it depends on the data: no fixed weight family is it);
* ``"interval"``: (c − k)²;  ``"ratio"``: ((c − k)/(c + k))²;
* or a k×k matrix of δ² (symmetric, non-negative, 0 on the diagonal).
"""
from __future__ import annotations

import numbers
import reprlib
from typing import Literal, Union

import numpy as np
from numpy.typing import ArrayLike

from ...core.arrays import expand
from .two_raters import disagreement_ratio

__all__ = ["METRICS", "Metric", "alpha_array", "check_metric", "coincidences", "metric_weights"]

#: Krippendorff's named metrics.
METRICS = ("nominal", "ordinal", "interval", "ratio")
Metric = Union[Literal["nominal", "ordinal", "interval", "ratio"], ArrayLike]


def _numeric_categories(cats: np.ndarray, metric: str) -> np.ndarray:
    if cats.dtype.kind in "iufb":
        return cats.astype(float)
    if cats.dtype == object and all(isinstance(c, numbers.Real) for c in cats.tolist()):
        return cats.astype(float)
    raise ValueError(
        f"metric={metric!r} needs numeric category values; got {reprlib.repr(cats.tolist())}."
        " Use metric='ordinal' with categories in order, or give a metric matrix"
    )


def check_metric(metric: Metric) -> np.ndarray | str:
    """Validate ``metric`` up front: a known name, or a square matrix."""
    if isinstance(metric, str):
        if metric not in METRICS:
            raise ValueError(
                f"metric={metric!r} is not one of {', '.join(map(repr, METRICS))} "
                "or a k×k matrix of squared metrics"
            )
        return metric
    not_allowed = (
        f"metric={reprlib.repr(metric)} is not one of {', '.join(map(repr, METRICS))} "
        "or a k×k matrix of squared metrics"
    )
    try:
        delta = np.asarray(metric, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(not_allowed) from exc
    if delta.ndim != 2 or delta.shape[0] != delta.shape[1]:
        raise ValueError(not_allowed)
    if not np.isfinite(delta).all() or (delta < 0).any():
        raise ValueError(f"a metric matrix must be finite and non-negative; got {delta.tolist()}")
    if (np.diag(delta) != 0).any():
        raise ValueError(
            f"a metric matrix must be 0 on the diagonal; got diagonal {np.diag(delta).tolist()}"
        )
    if not np.allclose(delta, delta.T):
        raise ValueError("a metric matrix must be symmetric")
    return delta


def _squared_metrics(
    metric: np.ndarray | str, cats: np.ndarray, marginals: np.ndarray
) -> np.ndarray:
    """δ²(c, k) for every pair of categories, shape (k, k)."""
    k = len(cats)
    if not isinstance(metric, str):
        if metric.shape != (k, k):
            raise ValueError(
                f"the metric matrix is {metric.shape[0]}×{metric.shape[1]} but there are "
                f"{k} categories {reprlib.repr(cats.tolist())}; pass categories= in the matrix's "
                "order"
            )
        return metric
    if metric == "nominal":
        return 1.0 - np.eye(k)
    if metric == "ordinal":
        # δ²(c, k) = (Σ_{g between c and k} n_g - (n_c + n_k)/2)², categories in order.
        index = np.arange(k)
        low, high = np.minimum.outer(index, index), np.maximum.outer(index, index)
        cumulative = np.r_[0.0, np.cumsum(marginals)]
        between = cumulative[high + 1] - cumulative[low]
        return (between - (marginals[:, None] + marginals[None, :]) / 2) ** 2
    values = _numeric_categories(cats, metric)
    difference = values[:, None] - values[None, :]
    if metric == "interval":
        return difference**2
    total = values[:, None] + values[None, :]  # ratio
    ratio = np.divide(difference, total, out=np.zeros_like(difference), where=total != 0)
    return ratio**2



def metric_weights(metric: np.ndarray | str, categories: np.ndarray, marginals: np.ndarray) -> np.ndarray:
    """Agreement weights ``1 − δ²/max δ²`` for a checked metric (see :func:`check_metric`);
    ``marginals`` are the pairable values per category (for ``"ordinal"``)."""
    if isinstance(metric, str) and metric != "nominal":
        values = _numeric_categories(categories, metric) if metric != "ordinal" else None
        if metric == "ratio" and (values < 0).any():
            raise ValueError(f"metric='ratio' needs non-negative values; got {values[values < 0][0]:g}")
    d2 = _squared_metrics(metric, categories, marginals)
    top = float(d2.max(initial=0.0))
    return np.ones_like(d2) if top == 0 else 1.0 - d2 / top


#: Up to this many categories the coincidences are summed over dense item blocks (k² terms an
#: item, no index arrays); above it, over each item's non-zero cells.
DENSE_CATEGORIES = 8
#: Items per dense block (a block holds items × k² terms).
BLOCK_TERMS = 1 << 20


def coincidences(counts: np.ndarray) -> np.ndarray:
    """Krippendorff's coincidence matrix (k, k) of items × categories counts ``n_uc``:
    ``o_ck = Σ_u n_uc (n_uk − [c = k]) / (m_u − 1)`` over the items with ``m_u ≥ 2`` (2011).

    Both ways of summing add the same terms item by item in item order, so they give the same
    bits: the dense one adds the zero terms too (x + 0 = x), along the items axis of each block,
    which NumPy sums in order.

    >>> coincidences(np.array([[2.0, 0.0], [1.0, 1.0], [0.0, 1.0]])).tolist()
    [[2.0, 1.0], [1.0, 0.0]]
    """
    counts = counts[counts.sum(axis=1) >= 2]
    k = counts.shape[1]
    if 0 < k <= DENSE_CATEGORIES:
        return _dense_coincidences(counts)
    unit, category = np.nonzero(counts)  # by item, then category
    value = counts[unit, category]
    bounds = np.searchsorted(unit, np.arange(len(counts) + 1))
    entry, partner = expand(bounds[unit], bounds[unit + 1])  # ordered pairs within an item, itself too
    weight = value[entry] * (value[partner] - (entry == partner)) / (counts.sum(axis=1)[unit[entry]] - 1)
    return np.bincount(category[entry] * k + category[partner], weights=weight, minlength=k * k).reshape(k, k)


def _dense_coincidences(counts: np.ndarray) -> np.ndarray:
    """:func:`coincidences` of few categories: each item's k × k terms, summed block by block."""
    k = counts.shape[1]
    eye = np.eye(k)
    total = np.zeros((k, k))
    step = max(1, BLOCK_TERMS // (k * k))
    for start in range(0, len(counts), step):
        block = counts[start:start + step]
        terms = block[:, :, None] * (block[:, None, :] - eye) / (block.sum(axis=1) - 1.0)[:, None, None]
        terms[0] += total  # the running sum goes first: every term is added in item order
        total = terms.sum(axis=0)
    return total


def alpha_array(o: np.ndarray, d2: np.ndarray | None = None) -> np.ndarray:
    """Krippendorff's α = 1 − Do/De of every (…, k, k) coincidence matrix under the squared
    metrics ``d2`` (None: nominal, ``1 − I``), ``Do = Σ o_ck δ²_ck / n`` and
    ``De = Σ n_c n_k δ²_ck / (n (n − 1))`` (Krippendorff 2011); NaN where undefined. The one
    implementation: the point estimate (``family``) and every bootstrap replicate call it.

    >>> float(alpha_array(np.array([[4.0, 2.0], [2.0, 4.0]])).round(4))
    0.3889
    """
    o = np.asarray(o, dtype=float)
    d2 = 1.0 - np.eye(o.shape[-1]) if d2 is None else d2
    marginals = o.sum(axis=-1)
    n = marginals.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (o * d2).sum(axis=(-1, -2)) / n
        expected = np.einsum("...c,ck,...k->...", marginals, d2, marginals) / (n * (n - 1))
    return disagreement_ratio(observed, expected)
