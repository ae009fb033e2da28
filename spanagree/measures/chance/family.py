"""The chance-corrected family on raw ratings, with missing ratings, weights and standard errors.

Gwet (2014) writes every coefficient of the family as ``(p_a - p_e) / (1 - p_e)`` over the same
observed agreement and generalises it to items that not every rater rated. With ``r_i`` the
ratings of item i, ``r_ik`` those in category k, agreement weights ``w`` (identity when
unweighted; see :mod:`spanagree.measures.weights`), ``r*_ik = Σ_l w_kl r_il``, ``n`` the items
with at least one rating and ``n'`` those with at least two:
    p_a = (1/n') Σ_{i: r_i ≥ 2} Σ_k r_ik (r*_ik - 1) / (r_i (r_i - 1))
    π_k = (1/n) Σ_i r_ik / r_i

and the chance agreement ``p_e`` of each coefficient:

=====================  ==========================================================================
percent agreement      0
Brennan–Prediger       Σ_kl w_kl / q²  (unweighted: 1/q; multi-rater Randolph's free-marginal κ)
Fleiss' κ (π)          Σ_kl w_kl π_k π_l
Conger's κ             Σ_kl w_kl (p̄_k p̄_l - s²_kl / R), p_gk the share of category k among
                       rater g's ratings, p̄_k their mean and s²_kl their covariance over R raters
Gwet's AC1 / AC2       (Σ_kl w_kl) Σ_k π_k (1 - π_k) / (q (q - 1))
Krippendorff's α       on the n' items with r_i ≥ 2, r̄ their mean number of ratings and
                       ε = 1/Σ r_i: p_a = (1 - ε) p'_a + ε with p'_a as above but over r̄ (r_i - 1),
                       π_k = (1/n') Σ r_ik / r̄, p_e = Σ_kl w_kl π_k π_l
=====================  ==========================================================================

Standard errors (Gwet 2008; 2014, ch. 5-6) come from the linearised contribution of each item,

    κ_i  = (n/n') (p_a|i - p_e [r_i ≥ 2]) / (1 - p_e),    κ*_i = κ_i - 2 (1 - κ) (p_e|i - p_e)/(1 - p_e)
    v(κ) = (1 - f) / (n (n - 1)) Σ_i (κ*_i - κ)²

with ``f = n / N`` the sampling fraction when the items are a sample from a finite population of
``N`` items (``population``; default infinite, f = 0), ``p_a|i`` the item's agreement and
``p_e|i`` its contribution to the chance term (0 for Brennan–Prediger and percent agreement,
whose p_e is fixed). The interval is ``κ ± t_{n-1} SE`` with its upper end capped at 1, and the
p-value is one-sided, P(T_{n-1} ≥ κ/SE), as in the ``irrCAC`` R package's ``*.raw`` functions
(Gwet's own implementation; values checked against the package's Python port in the tests).

``missing="available"`` (the default) uses every rating as above; ``missing="complete"`` keeps
only the items every rater rated, which is the textbook (Fleiss 1971, Conger 1980) form. Items
with no rating are skipped and counted; items with one rating enter π (and n) only.

References: Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed. Advanced Analytics.
Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of high
agreement. Br. J. Math. Stat. Psychol. 61, 29-48. Definitions in our words: docs/chance-corrected.md.
"""
from __future__ import annotations

import math
from numbers import Real
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Iterable, Literal

import numpy as np
from numpy.typing import ArrayLike

from . import ratings as coding
from ...core.arrays import pairs_within_blocks
from .kappa_variance import cohen_kappa_uncertainty
from .krippendorff import alpha_array, coincidences
from .two_raters import cohen_kappa_array, kappa_disagreements
from .result import Agreement, finish
from ..student_t import t_cdf, t_quantile
from .weights import Weights, agreement_weights

__all__ = [
    "COEFFICIENTS",
    "RawRatings",
    "TABLE_COEFFICIENTS",
    "family",
    "fleiss_kappa_per_category",
    "light_kappa",
    "long_ratings",
    "raw_ratings",
    "table_family",
]

#: Coefficients of :func:`family`, in report order.
COEFFICIENTS = (
    "percent_agreement", "brennan_prediger", "fleiss_kappa", "conger_kappa", "gwet_ac", "krippendorff_alpha",
)
Missing = Literal["available", "complete"]
MISSING = ("available", "complete")

SKIP_UNRATED = "no ratings"
SKIP_SINGLE = "one rating (chance term only)"
SKIP_INCOMPLETE = "not rated by every rater (complete items only)"
SKIP_UNPAIRABLE = "fewer than two ratings"
GWET_METHOD = "Student t on Gwet's linearised variance"


@dataclass(frozen=True)
class RawRatings:
    """Ratings in long form (one row per rating), validated and coded once.

    ``item`` and ``rater`` index items and raters, ``code`` the categories; items and raters
    without any rating are allowed (they are skipped and counted). The items × categories counts
    made from them are kept with them (per ``missing``), so that every coefficient, standard error
    and call given the same ratings counts them once.
    """

    item: np.ndarray
    rater: np.ndarray
    code: np.ndarray
    n_items: int
    n_raters: int
    categories: tuple
    counted: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def q(self) -> int:
        return len(self.categories)


def raw_ratings(ratings: ArrayLike | RawRatings, categories: ArrayLike | None = None) -> RawRatings:
    """Code an items × raters matrix (labels, ``None``/``nan`` missing) into :class:`RawRatings`.

    A k×k contingency table or an items × categories count matrix is refused (see
    :func:`spanagree.stats.check_ratings`).
    """
    if isinstance(ratings, RawRatings):
        return ratings
    codes, cats = coding.code_ratings(ratings, categories)  # refuses tables and counts unless categories are given
    item, rater = np.nonzero(codes >= 0)
    return RawRatings(item, rater, codes[item, rater].astype(np.int64), codes.shape[0], codes.shape[1],
                      tuple(cats.tolist()))


def long_ratings(item: np.ndarray, rater: np.ndarray, code: np.ndarray, *, n_items: int, n_raters: int,
                 categories: Iterable) -> RawRatings:
    """:class:`RawRatings` from long-form integer arrays (used by the report on candidate items)."""
    return RawRatings(np.asarray(item, np.int64), np.asarray(rater, np.int64), np.asarray(code, np.int64),
                      int(n_items), int(n_raters), tuple(categories))


# ----------------------------------------------------------------------------------------------
# Shared per-item quantities
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Counted:
    """The ratings of one ``missing`` form counted per item: what every coefficient shares."""

    counts: np.ndarray  # (n, q) r_ik for the n items with at least one rating
    ri: np.ndarray  # (n,)
    item: np.ndarray  # ratings: item index into counts
    rater: np.ndarray  # ratings: rater index (raters with at least one rating)
    code: np.ndarray
    n_raters: int
    skipped: dict


@dataclass(frozen=True)
class _Prepared(Counted):
    """The counts with what a coefficient adds: the weights, the categories, the missing form."""

    w: np.ndarray
    weights: str
    categories: tuple
    missing: str

    @cached_property
    def sum_q(self) -> np.ndarray:
        """Σ_k r_ik (r*_ik - 1) per item (r* = r with identity weights: no matrix product)."""
        if np.array_equal(self.w, np.eye(len(self.w))):
            return (self.counts * (self.counts - 1.0)).sum(axis=1)
        return (self.counts * (self.counts @ self.w.T - 1.0)).sum(axis=1)

    @cached_property
    def observed(self) -> tuple[np.ndarray, float, int]:
        """Per-item agreement p_a|i (0 for r_i < 2), p_a, and n'."""
        two = self.ri >= 2
        pa_i = np.zeros(len(self.ri))
        pa_i[two] = self.sum_q[two] / (self.ri[two] * (self.ri[two] - 1.0))
        n2 = int(two.sum())
        return pa_i, (float(pa_i.sum() / n2) if n2 else math.nan), n2

    @cached_property
    def pi(self) -> np.ndarray:
        """π_k = (1/n) Σ_i r_ik / r_i."""
        return (self.counts / self.ri[:, None]).sum(axis=0) / len(self.ri)


#: Most cells of the categories² weights a coefficient builds (the items × categories counts may
#: hold five times as many: a million tokens with 250 labels).
MAX_CELLS = 50_000_000


def count(data: RawRatings, missing: str) -> Counted:
    """The items × categories counts of ``data`` under ``missing``, made once per ratings object
    (:attr:`RawRatings.counted`); the complete items are cut from the available counts when those
    were made already."""
    if missing not in MISSING:
        raise ValueError(f"missing={missing!r} is not one of {', '.join(map(repr, MISSING))}")
    made = data.counted.get(missing)
    if made is not None:
        return made
    q = data.q
    if q * q > MAX_CELLS or data.n_items * q > 5 * MAX_CELLS:
        raise ValueError(
            f"{q:,} categories on {data.n_items:,} items: the weights (categories², at most {MAX_CELLS:,}) or "
            f"the counts (items × categories, at most {5 * MAX_CELLS:,}) would be too large; merge categories"
        )
    available = data.counted.get("available")
    made = _complete_of(available, data.n_items) if missing == "complete" and available is not None else None
    if made is not None:
        data.counted[missing] = made
        return made
    item, rater, code = data.item, data.rater, data.code
    skipped: dict[str, int] = {}
    if missing == "complete":
        per_item = np.bincount(item, minlength=data.n_items)
        raters_seen = np.count_nonzero(np.bincount(rater, minlength=data.n_raters))
        full = per_item == raters_seen
        keep = full[item]
        skipped[SKIP_INCOMPLETE] = int(((per_item > 0) & ~full).sum())
        item, rater, code = item[keep], rater[keep], code[keep]
    # renumber the rated items and the raters with a rating (counting, not sorting)
    rated = np.bincount(item, minlength=data.n_items) > 0
    item = (np.cumsum(rated) - 1)[item]
    n = int(rated.sum())
    skipped[SKIP_UNRATED] = data.n_items - n - skipped.get(SKIP_INCOMPLETE, 0)
    seen = np.bincount(rater, minlength=data.n_raters) > 0
    rater = (np.cumsum(seen) - 1)[rater]
    counts = np.bincount(item * q + code, minlength=n * q).reshape(n, q).astype(float) if q else np.zeros((n, 0))
    ri = counts.sum(axis=1)
    skipped[SKIP_SINGLE] = int((ri == 1).sum())
    made = Counted(counts, ri, item, rater, code, int(seen.sum()), skipped)
    data.counted[missing] = made
    return made


def _complete_of(available: Counted, n_items: int) -> Counted | None:
    """The complete items' counts cut from the available ones: the items with as many ratings as
    raters (with a rating). When those items hold every such rater, the raters keep their numbers;
    else (a rater rated an item twice) None, and they are counted afresh."""
    full = available.ri == available.n_raters
    keep = full[available.item]
    n = int(full.sum())
    if n and not np.bincount(available.rater[keep], minlength=available.n_raters).all():
        return None
    counts, ri = available.counts[full], available.ri[full]
    skipped = {SKIP_INCOMPLETE: len(full) - n, SKIP_UNRATED: n_items - len(full), SKIP_SINGLE: int((ri == 1).sum())}
    return Counted(counts, ri, (np.cumsum(full) - 1)[available.item[keep]], available.rater[keep],
                    available.code[keep], available.n_raters if n else 0, skipped)


def _prepare(data: RawRatings, weights: Weights, missing: str) -> _Prepared:
    counted = count(data, missing)
    w = agreement_weights(weights, np.array(list(data.categories), dtype=object))
    name = weights if isinstance(weights, str) else "user matrix"
    return _Prepared(counted.counts, counted.ri, counted.item, counted.rater, counted.code, counted.n_raters,
                     dict(counted.skipped), w, name, data.categories, missing)


def _estimate(name: str, p: _Prepared, pa: float, pe: float, contributions: np.ndarray | None,
              n_used: int, n2: int, *, confidence: float, population: float, undefined: str | None = None,
              centre: float | None = None, df: int | None = None, value: float | None = None) -> Agreement:
    """Package a coefficient: value (default ``(pa − pe)/(1 − pe)``), and the variance from
    per-item contributions κ*_i.

    The sampling fraction is f = df / population, where df (default ``n_used``) counts the rated
    items; the degrees of freedom of t are df - 1."""
    if undefined is None and not n2:
        undefined = "no item has two or more ratings"
    if undefined is None and name != "percent_agreement" and len(p.categories) < 2:
        undefined = f"it needs at least two categories; got {list(p.categories)}"
    if undefined is None and not (1.0 - pe) > 1e-12:
        undefined = f"chance agreement p_e = {pe:.6g} is 1 (e.g. every rating is in one category), so it is 0/0"
    given, value, se, low, high, p_value = value, *[math.nan] * 5
    if undefined is None:
        value = pa if name == "percent_agreement" else (pa - pe) / (1.0 - pe) if given is None else given
        if contributions is not None and n_used >= 2:
            squares = float(((contributions - (value if centre is None else centre)) ** 2).sum())
            se, low, high, p_value = _t_spread(value, squares, n_used, n_used if df is None else df, confidence,
                                               population)
    return Agreement(
        coefficient=name, value=float(value), observed=float(pa), expected=float(pe), n_items=n_used,
        n_raters=p.n_raters, categories=p.categories, weights=p.weights, missing=p.missing,
        skipped={k: int(v) for k, v in p.skipped.items() if v}, undefined=undefined, standard_error=se, low=low,
        high=high, p_value=p_value, confidence=confidence, method=GWET_METHOD, n_pairable=n2,
    )


def _kappa_contributions(p: _Prepared, pa_i: np.ndarray, pe: float, value: float, pe_i: np.ndarray | None,
                         n2: int) -> np.ndarray:
    """κ*_i: each item's linearised contribution (module docstring)."""
    n = len(p.ri)
    base = (n / n2) * (pa_i - pe * (p.ri >= 2)) / (1.0 - pe)
    if pe_i is None:
        return base
    return base - 2.0 * (1.0 - value) * (pe_i - pe) / (1.0 - pe)


def _coefficient(name: str, p: _Prepared, confidence: float, population: float) -> Agreement:
    if name == "krippendorff_alpha":
        return _alpha(p, confidence, population)
    pa_i, pa, n2 = p.observed
    n, q = len(p.ri), len(p.categories)
    common = dict(confidence=confidence, population=population)
    if not n2 or (q < 2 and name != "percent_agreement"):
        return _estimate(name, p, pa, math.nan if q < 2 else 0.0, None, n, n2, **common)
    pi = p.pi
    sym = (p.w + p.w.T) / 2.0
    if name == "percent_agreement":
        return _estimate(name, p, pa, 0.0, (n / n2) * pa_i, n, n2, **common)
    if name == "brennan_prediger":
        pe, pe_i = float(p.w.sum() / q**2), None
    elif name == "fleiss_kappa":
        pe = float(pi @ p.w @ pi)
        pe_i = p.counts @ (sym @ pi) / p.ri
    elif name == "gwet_ac":
        scale = float(p.w.sum() / (q * (q - 1)))
        pe = scale * float((pi * (1.0 - pi)).sum())
        pe_i = scale * (p.counts @ (1.0 - pi)) / p.ri
    elif name == "conger_kappa":
        return _conger(p, pa_i, pa, n2, **common)
    else:  # pragma: no cover - guarded by family()
        raise ValueError(name)
    if not (1.0 - pe) > 1e-12:
        return _estimate(name, p, pa, pe, None, n, n2, **common)
    value = (pa - pe) / (1.0 - pe)
    return _estimate(name, p, pa, pe, _kappa_contributions(p, pa_i, pe, value, pe_i, n2), n, n2, **common)


def _conger(p: _Prepared, pa_i, pa, n2, *, confidence, population) -> Agreement:
    n, q, r = len(p.ri), len(p.categories), p.n_raters
    common = dict(confidence=confidence, population=population)
    if r < 2:
        return _estimate("conger_kappa", p, pa, math.nan, None, n, n2,
                         undefined=f"it needs at least two raters; got {r}", **common)
    classified = np.bincount(p.rater * q + p.code, minlength=r * q).reshape(r, q).astype(float)
    n_g = classified.sum(axis=1)
    share = classified / n_g[:, None]  # p_gk
    total = share.sum(axis=0)
    pe = float(((np.outer(total, total) - share.T @ share) * p.w).sum() / (r * (r - 1)))
    if not (1.0 - pe) > 1e-12:
        return _estimate("conger_kappa", p, pa, pe, None, n, n2, **common)
    value = (pa - pe) / (1.0 - pe)
    # p_e|i: each rating moves the chance term through its rater's shares p_gk (Gwet 2014; the
    # irrCAC function conger.kappa.raw), summed per item without a loop over categories
    a = total[None, :] - share  # (R, q): Σ_h p_hk - p_gk
    b = a @ p.w  # b[g, c] = Σ_k a_gk w_kc
    c = (a * (share @ p.w.T)).sum(axis=1)  # Σ_k a_gk (w p_g)_k
    per_rating = (n / n_g[p.rater]) * (b[p.rater, p.code] - c[p.rater])
    pe_i = (c.sum() + np.bincount(p.item, weights=per_rating, minlength=n)) / (r * (r - 1))
    return _estimate("conger_kappa", p, pa, pe, _kappa_contributions(p, pa_i, pe, value, pe_i, n2), n, n2,
                     **common)


def _alpha(p: _Prepared, confidence: float, population: float) -> Agreement:
    keep = p.ri >= 2
    counts, ri = p.counts[keep], p.ri[keep]
    n0, n, q = len(p.ri), int(keep.sum()), len(p.categories)
    skipped = dict(p.skipped)
    skipped.pop(SKIP_SINGLE, None)
    skipped[SKIP_UNPAIRABLE] = n0 - n
    p2 = _Prepared(counts, ri, p.item, p.rater, p.code, p.n_raters, skipped, p.w, p.weights, p.categories, p.missing)
    sum_q = p.sum_q[keep]
    common = dict(confidence=confidence, population=population)
    if not n or q < 2:
        return _estimate("krippendorff_alpha", p2, math.nan, math.nan, None, n, n, **common)
    mean_r = float(ri.mean())
    eps = 1.0 / float(ri.sum())
    pa_prime = float((sum_q / (mean_r * (ri - 1.0))).sum() / n)
    pa = (1.0 - eps) * pa_prime + eps
    pi = counts.sum(axis=0) / (n * mean_r)
    pe = float(pi @ p.w @ pi)
    if not (1.0 - pe) > 1e-12:
        return _estimate("krippendorff_alpha", p2, pa, pe, None, n, n, **common)
    alpha_prime = (pa_prime - pe) / (1.0 - pe)
    pa_i = sum_q / (mean_r * (ri - 1.0)) - pa_prime * (ri - mean_r) / mean_r
    pe_i = counts @ (((p.w + p.w.T) / 2.0) @ pi) / mean_r - pe * (ri - mean_r) / mean_r
    contributions = (pa_i - pe) / (1.0 - pe) - 2.0 * (1.0 - alpha_prime) * (pe_i - pe) / (1.0 - pe)
    value = float(alpha_array(coincidences(counts), 1.0 - p.w))  # the bootstrap's α on one matrix
    # the sampling fraction and the degrees of freedom count every rated item (as irrCAC does)
    return _estimate("krippendorff_alpha", p2, pa, pe, contributions, n, n, centre=alpha_prime, df=n0, value=value,
                     **common)


# ----------------------------------------------------------------------------------------------
# Public API
# ----------------------------------------------------------------------------------------------


def _check_options(confidence: float, population: float) -> None:
    if isinstance(confidence, bool) or not isinstance(confidence, Real) or not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence={confidence!r} must be a number between 0 and 1 (e.g. 0.95)")
    if isinstance(population, bool) or not isinstance(population, Real) or not population > 0:
        raise ValueError(f"population={population!r} must be a positive number of items (default: infinite)")


def family(ratings: ArrayLike | RawRatings, *, categories: ArrayLike | None = None, weights: Weights = "identity",
           missing: Missing = "available", confidence: float = 0.95, population: float = math.inf,
           coefficients: Iterable[str] = COEFFICIENTS) -> dict[str, Agreement]:
    """Every coefficient of the family on the same items, categories and weights.

    >>> out = family([["a", "a"], ["a", "b"], ["b", "b"], ["b", None]])
    >>> sorted(out) == sorted(COEFFICIENTS)
    True
    >>> round(out["gwet_ac"].value, 4), out["gwet_ac"].n_items, out["gwet_ac"].n_pairable
    (0.3725, 4, 3)
    """
    _check_options(confidence, population)
    names = _checked_names(coefficients, COEFFICIENTS)
    prepared = _prepare(raw_ratings(ratings, categories), weights, missing)
    return {name: _coefficient(name, prepared, confidence, population) for name in names}


#: Coefficients of :func:`table_family` (two raters, a k×k table).
TABLE_COEFFICIENTS = ("percent_agreement", "brennan_prediger", "fleiss_kappa", "gwet_ac", "cohen_kappa")
EMPTY_TABLE = "the table is empty (no items)"
FCE_METHOD = "Fleiss, Cohen & Everitt (1969), normal"


def table_family(table: ArrayLike, *, weights: Weights = "identity", categories: ArrayLike | None = None,
                 confidence: float = 0.95, population: float = math.inf,
                 coefficients: Iterable[str] = TABLE_COEFFICIENTS) -> dict[str, Agreement]:
    """The family of two raters from their k×k table (rows rater 1), with standard errors.

    Every item of a cell (a, b) contributes alike, so the formulas of the module docstring become
    sums over cells weighted by their counts t_ab: p_a|ab = (w_ab + w_ba)/2, π_k = (t_k. + t_.k)/(2n);
    Scott's π is Fleiss' κ of two raters, p_e|ab = (π̃_a + π̃_b)/2 with π̃ = ((w + wᵀ)/2) π; for AC1
    p_e|ab = (Σw/(q(q-1))) (2 - π_a - π_b)/2. Cohen's (weighted) κ has p_e = Σ_kl w_kl r_k c_l with
    the row and column shares r and c (Cohen 1960, 1968) and its own variance
    (:mod:`spanagree.measures.chance.kappa_variance`). Every value is ``1 - D_o/D_e`` with
    D_o = Σ_ab t_ab (1 - w_ab) / n and D_e the chance term's complement summed from non-negative
    terms, exact when d is huge. The values and Gwet's standard errors equal those of
    :func:`family` on the expanded ratings (``table_to_ratings``), without expanding.
    Weights are computed on the category values when ``categories`` are numbers, else on the
    positions 1..k.

    >>> out = table_family([[2, 2], [1, 5]])  # rows rater 2, columns rater 1 (Artstein & Poesio)
    >>> round(out["brennan_prediger"].value, 3), round(out["fleiss_kappa"].value, 3), round(out["cohen_kappa"].value, 3)
    (0.4, 0.341, 0.348)
    """
    _check_options(confidence, population)
    names = _checked_names(coefficients, TABLE_COEFFICIENTS)
    t = coding.as_table(table)
    q = t.shape[0]
    if categories is None:
        cats, positions = tuple(range(q)), np.arange(1, q + 1)
    else:
        cats = tuple(coding.as_categories(categories).tolist())
        if len(cats) != q:
            raise ValueError(f"categories has {len(cats)} labels for a {q}×{q} table; give one per row")
        positions = np.array(cats, dtype=object)
    w = agreement_weights(weights, positions)
    v = 1.0 - w
    n = float(t.sum())
    common = dict(n_items=n, n_raters=2, categories=cats, weights=weights if isinstance(weights, str) else "user matrix",
                  missing="complete")
    out = {}
    for name in names:
        if n == 0:
            out[name] = finish(name, math.nan, math.nan, undefined=EMPTY_TABLE, **common)
            continue
        if q < 2 and name != "percent_agreement":
            out[name] = finish(name, math.nan, math.nan, undefined=f"it needs at least two categories; got {q}",
                               **common)
            continue
        out[name] = _table_coefficient(name, t, w, v, n, common, confidence, population)
    return out


def _checked_names(coefficients: Iterable[str], allowed: tuple[str, ...]) -> list[str]:
    if isinstance(coefficients, str) or not isinstance(coefficients, Iterable):
        raise ValueError(f"coefficients must be a list of names from {', '.join(allowed)}; got {coefficients!r}")
    names = list(coefficients)
    unknown = [c for c in names if c not in allowed]
    if unknown:
        raise ValueError(f"unknown coefficient(s) {unknown}; choose from {', '.join(allowed)}")
    return names


def _table_coefficient(name: str, t: np.ndarray, w: np.ndarray, v: np.ndarray, n: float, common: dict,
                       confidence: float, population: float) -> Agreement:
    """One coefficient of :func:`table_family` on a non-empty table."""
    q = t.shape[0]
    a, b = np.nonzero(t > 0)
    count = t[a, b]
    pa_i = (w[a, b] + w[b, a]) / 2.0
    pa = float((count * pa_i).sum() / n)
    observed_disagreement = float((count * (v[a, b] + v[b, a]) / 2.0).sum() / n)
    pi = (t.sum(axis=0) + t.sum(axis=1)) / (2.0 * n)
    pe_i = None
    if name == "percent_agreement":
        est = finish(name, pa, 0.0, **common)
        return _weighted_spread(est, pa_i, count, confidence, population)
    if name == "cohen_kappa":
        rows, columns = t.sum(axis=1) / n, t.sum(axis=0) / n
        do, de = kappa_disagreements(t, v)  # the bootstrap's κ on one table
        est = finish(name, pa, float(rows @ w @ columns), disagreement=(float(do), float(de)), **common)
        if not est.defined:
            return est
        spread = cohen_kappa_uncertainty(t, confidence, weights=w)
        return replace(est, standard_error=spread["standard_error"], low=spread["low"], high=spread["high"],
                       p_value=spread["p_value"], z=spread["z"], confidence=confidence, method=FCE_METHOD)
    if name == "brennan_prediger":
        pe, de = float(w.sum() / q**2), float(v.sum() / q**2)
    elif name == "fleiss_kappa":
        pe, de = float(pi @ w @ pi), float(pi @ v @ pi)
        smooth = ((w + w.T) / 2.0) @ pi
        pe_i = (smooth[a] + smooth[b]) / 2.0
    else:  # gwet_ac
        scale = float(w.sum() / (q * (q - 1)))
        pe = scale * float((pi * (1.0 - pi)).sum())
        de = 1.0 - pe
        pe_i = scale * (2.0 - pi[a] - pi[b]) / 2.0
    est = finish(name, pa, pe, disagreement=(observed_disagreement, de), **common)
    if not est.defined:
        return est
    contributions = (pa_i - pe) / (1.0 - pe)
    if pe_i is not None:
        contributions = contributions - 2.0 * (1.0 - est.value) * (pe_i - pe) / (1.0 - pe)
    return _weighted_spread(est, contributions, count, confidence, population)


def _weighted_spread(est: Agreement, contributions: np.ndarray, count: np.ndarray, confidence: float,
                     population: float) -> Agreement:
    """Gwet's variance with each contribution standing for ``count`` items."""
    n = float(count.sum())
    se = low = high = p_value = math.nan
    if n >= 2:
        squares = float((count * (contributions - est.value) ** 2).sum())
        se, low, high, p_value = _t_spread(est.value, squares, n, n, confidence, population)
    return replace(est, standard_error=se, low=low, high=high, p_value=p_value, confidence=confidence,
                   method=GWET_METHOD)


def _t_spread(value: float, squares: float, n: float, rated: float, confidence: float,
              population: float) -> tuple[float, float, float, float]:
    """Gwet's ``v = (1 - f)/(n (n - 1)) · squares`` with ``f = rated/population``, as ``(se, low, high,
    p)``: the interval ``value ± t_{rated-1} se`` capped at 1 and the one-sided p-value (module docstring)."""
    f = 0.0 if math.isinf(population) else rated / population
    se = math.sqrt(max((1.0 - f) / (n * (n - 1.0)) * squares, 0.0))
    half = se * t_quantile(1.0 - (1.0 - confidence) / 2.0, rated - 1)
    if se > 0:
        p_value = 1.0 - t_cdf(value / se, rated - 1)
    else:
        p_value = 0.0 if value > 0 else 1.0 if value != 0 else math.nan
    return se, value - half, min(1.0, value + half), p_value


def fleiss_kappa_per_category(ratings: ArrayLike | RawRatings, *, categories: ArrayLike | None = None,
                              missing: Missing = "available", confidence: float = 0.95,
                              population: float = math.inf) -> dict[Any, Agreement]:
    """Fleiss' κ of each category against the rest (Fleiss 1971, κ_j), with standard errors.

    κ_j = 1 - Σ_i r_ij (r_i - r_ij) / (r_i (r_i - 1)) / (n' π_j (1 - π_j)): Fleiss' κ on the
    two categories "j" and "not j", so the missing-ratings form and the variance carry over.

    >>> out = fleiss_kappa_per_category([["a", "a"], ["a", "b"], ["b", "b"], ["c", "c"]])
    >>> {k: round(v.value, 3) for k, v in out.items()}
    {'a': 0.467, 'b': 0.467, 'c': 1.0}
    """
    _check_options(confidence, population)
    data = raw_ratings(ratings, categories)
    try:  # the items × categories counts once; each category's two columns are cut from them
        whole = _prepare(data, "identity", missing)
    except ValueError:  # too many categories for one table: each category on its own
        whole = None
    out = {}
    for k, label in enumerate(data.categories):
        if whole is None:
            binary = long_ratings(data.item, data.rater, (data.code != k).astype(np.int64), n_items=data.n_items,
                                  n_raters=data.n_raters, categories=(label, "other"))
            out[label] = family(binary, missing=missing, confidence=confidence, population=population,
                                coefficients=["fleiss_kappa"])["fleiss_kappa"]
            continue
        counts = np.stack([whole.counts[:, k], whole.ri - whole.counts[:, k]], axis=1)
        binary = _Prepared(counts, whole.ri, whole.item, whole.rater, (whole.code != k).astype(np.int64),
                           whole.n_raters, dict(whole.skipped), np.eye(2), whole.weights, (label, "other"), missing)
        out[label] = _coefficient("fleiss_kappa", binary, confidence, population)
    return out


def light_kappa(ratings: ArrayLike | RawRatings, *, categories: ArrayLike | None = None) -> float:
    """Light's κ (Light 1971): the mean of Cohen's κ over all rater pairs, each pair on the items
    both rated. ``nan`` when no pair has a defined κ.

    >>> round(light_kappa([["a", "a", "a"], ["a", "b", "a"], ["b", "b", "b"], ["b", "a", "b"]]), 4)
    0.3333
    """
    data = raw_ratings(ratings, categories)
    q, r = data.q, data.n_raters
    order = np.lexsort((data.rater, data.item))
    item, rater, code = data.item[order], data.rater[order], data.code[order]
    first, second = pairs_within_blocks(item)  # every two ratings of one item, raters in order
    pairs, pair = np.unique(rater[first] * r + rater[second], return_inverse=True)
    cells = pair.reshape(-1) * q * q + code[first] * q + code[second]
    tables = np.bincount(cells, minlength=len(pairs) * q * q).reshape(-1, q, q)
    values = cohen_kappa_array(tables)  # the pair axis as the replicate axis
    values = values[~np.isnan(values)]
    return float(np.mean(values)) if len(values) else math.nan
