"""The chance-corrected coefficients, one public function each: ``spanagree.stats``.

Every function takes the same inputs and returns one result type, :class:`Agreement` (value, the
terms it came from, items used and skipped and why, standard error, interval, p-value;
``float(result)`` is the value):

``ratings``
    an items × raters matrix of labels, ``None``/``nan`` missing (see
    :mod:`spanagree.measures.chance.ratings`); or
``table=``
    a k×k contingency table of two raters (rows rater 1), where the coefficient allows it.

Cohen's κ and the specific agreements are two-rater coefficients whose natural input is the table
(first argument), with ``ratings=`` for an items × 2 matrix. The options are one vocabulary:

``missing``
    ``"available"`` (default): Gwet's (2014) missing-ratings forms, every rating used (items with
    one rating enter the chance term only); ``"complete"``: only the items every rater rated, the
    textbook forms of Fleiss (1971), Conger (1980) and Cohen (1960). Why the default: it uses
    every rating the raters gave and equals the textbook form on complete data; on span
    candidates a rater who did not submit a document leaves its items missing, and dropping
    those items would drop the other raters' judgements too.
``weights``
    Gwet's agreement-weight families (``"identity"``, ``"linear"``, ``"quadratic"``,
    ``"ordinal"``, ``"radical"``, ``"ratio"``, ``"circular"``, ``"bipolar"``;
    :mod:`spanagree.measures.chance.weights`) or a q×q agreement-weight matrix (1 on the diagonal).
    Cohen's weighted κ is ``cohen_kappa(table, weights="linear")``.
``categories``
    The categories a rater could choose, in order. Coefficients whose chance term counts the
    categories (Brennan–Prediger / Randolph's κ: p_e = 1/q; Gwet's AC1) change when a category
    nobody used is named: with three categories and two used, Randolph's κ is 0.786 where the two
    seen give 0.714. Name every category the raters were offered.
``confidence``, ``population``
    The interval's level, and the size of a finite population the items were drawn from
    (Gwet's finite-population correction; default infinite).

The definitions and sources are in the modules that compute them and in docs/chance-corrected.md:
:mod:`.family` (Gwet's family on ratings and on tables, with standard errors),
:mod:`.kappa_variance` (Cohen's κ's variance), :mod:`.krippendorff` (Krippendorff's metrics),
:mod:`.two_raters` (specific agreement), :mod:`.fixed_group` (Shah's S).
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from . import family as _family
from .family import SKIP_INCOMPLETE, SKIP_SINGLE, SKIP_UNPAIRABLE, SKIP_UNRATED, COEFFICIENTS, TABLE_COEFFICIENTS, \
    RawRatings, family, fleiss_kappa_per_category, light_kappa, long_ratings, table_family
from .fixed_group import s_against_group as _s_against_group
from .krippendorff import METRICS, Metric, check_metric, metric_weights
from .ratings import (CodedRatings, as_table, RatingsTable, check_ratings, code_ratings, counts_to_ratings, ratings_to_table,
                      table_to_ratings)
from .result import Agreement, UndefinedAgreementWarning, warn_undefined
from .two_raters import specific_agreement
from .weights import NAMES as WEIGHTS
from .weights import Weights

__all__ = [
    "Agreement", "CodedRatings", "SKIP_INCOMPLETE", "SKIP_SINGLE", "SKIP_UNPAIRABLE", "SKIP_UNRATED", "COEFFICIENTS", "METRICS", "MISSING", "RatingsTable", "TABLE_COEFFICIENTS",
    "UndefinedAgreementWarning", "WEIGHTS", "brennan_prediger", "check_ratings", "code_ratings", "cohen_kappa",
    "cohen_kappa_max", "conger_kappa", "counts_to_ratings", "family", "fleiss_kappa", "fleiss_kappa_per_category",
    "gwet_ac", "krippendorff_alpha", "light_kappa", "negative_agreement", "percent_agreement",
    "positive_agreement", "RawRatings", "long_ratings", "ratings_to_table", "s_against_group", "table_family", "table_to_ratings",
]

MISSING = _family.MISSING


def _told(result: Agreement) -> Agreement:
    """Warn when the result is undefined (the value is nan and says why)."""
    if not result.defined:
        warn_undefined(f"{result.coefficient} is undefined: {result.undefined}; returning nan")
    return result


def _one_input(name: str, ratings: Any, table: Any) -> None:
    if (ratings is None) == (table is None):
        raise ValueError(f"{name} takes either ratings (items × raters) or table= (a k×k table of two raters), "
                         "exactly one of them")


def _coefficient(name: str, ratings: Any, table: Any, *, categories: ArrayLike | None, weights: Weights,
                 missing: str, confidence: float, population: float) -> Agreement:
    _one_input(name, ratings, table)
    if table is not None:
        if missing not in MISSING:
            raise ValueError(f"missing={missing!r} is not one of {', '.join(map(repr, MISSING))}")
        return table_family(table, weights=weights, categories=categories, confidence=confidence,
                            population=population, coefficients=[name])[name]
    return family(ratings, categories=categories, weights=weights, missing=missing, confidence=confidence,
                  population=population, coefficients=[name])[name]


def percent_agreement(ratings: ArrayLike | RawRatings | None = None, *, table: ArrayLike | None = None,
                      categories: ArrayLike | None = None, weights: Weights = "identity",
                      missing: str = "available", confidence: float = 0.95,
                      population: float = math.inf) -> Agreement:
    """Percent agreement p_a: the chance that two ratings of an item agree (weighted: partial credit).

    p_a = (1/n') Σ_{i: r_i ≥ 2} Σ_k r_ik (r*_ik − 1) / (r_i (r_i − 1)), the share of the table's
    diagonal for two raters; standard error as irrCAC's ``pa.coeff.raw`` (Gwet 2014).

    >>> percent_agreement(table=[[2, 2], [1, 5]]).value  # Artstein & Poesio (2008)
    0.7
    >>> round(percent_agreement([[1, 1, 2], [2, 2, 2], [1, None, 1]]).value, 4)
    0.7778
    """
    return _told(_coefficient("percent_agreement", ratings, table, categories=categories, weights=weights,
                              missing=missing, confidence=confidence, population=population))


def brennan_prediger(ratings: ArrayLike | RawRatings | None = None, *, table: ArrayLike | None = None,
                     categories: ArrayLike | None = None, weights: Weights = "identity",
                     missing: str = "available", confidence: float = 0.95,
                     population: float = math.inf) -> Agreement:
    """Brennan & Prediger's coefficient: chance agreement from q equally likely categories,
    p_e = Σ_kl w_kl / q² (1/q unweighted).

    Also Bennett, Alpert & Goldstein's S (1954) for two raters and Randolph's free-marginal
    multi-rater κ (2005). q is the number of categories: name them all (module docstring).

    >>> round(brennan_prediger(table=[[2, 2], [1, 5]]).value, 3)
    0.4
    >>> round(brennan_prediger(table=[[13, 0, 0], [0, 20, 7], [0, 4, 56]]).value, 3)  # Gwet (2014)
    0.835
    >>> ratings = [["a", "a", "a"], ["a", "a", "b"], ["b", "b", "b"]]
    >>> round(brennan_prediger(ratings).value, 3), round(brennan_prediger(ratings, categories=["a", "b", "c"]).value, 3)
    (0.556, 0.667)
    """
    return _told(_coefficient("brennan_prediger", ratings, table, categories=categories, weights=weights,
                              missing=missing, confidence=confidence, population=population))


def fleiss_kappa(ratings: ArrayLike | RawRatings | None = None, *, table: ArrayLike | None = None,
                 categories: ArrayLike | None = None, weights: Weights = "identity", missing: str = "available",
                 confidence: float = 0.95, population: float = math.inf) -> Agreement:
    """Fleiss' κ (multi-rater π; Scott's π for two raters): chance from the pooled category shares,
    p_e = Σ_kl w_kl π_k π_l (Fleiss 1971; Gwet 2014's missing-ratings form and standard error,
    irrCAC ``fleiss.kappa.raw``).

    When every item has the same number of ratings m, ``z`` is κ over its standard error under
    κ = 0 (Fleiss, Nee & Landis 1979), as R's ``irr::kappam.fleiss`` reports:
    var_0 = 2 [(Σ_j p_j q_j)² − Σ_j p_j q_j (q_j − p_j)] / (n m (m − 1) (Σ_j p_j q_j)²), with p_j
    the share of category j among all ratings and q_j = 1 − p_j (unweighted only).

    >>> round(fleiss_kappa(table=[[2, 2], [1, 5]]).value, 3)  # Scott's π, Artstein & Poesio
    0.341
    >>> nan = float("nan")
    >>> data = [[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    ...         [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [nan, 5, 5, 5], [nan, nan, 1, 1], [nan, nan, 3, nan]]
    >>> est = fleiss_kappa(data)  # Gwet (2014) cac.raw4raters
    >>> round(est.value, 5), round(est.standard_error, 5)
    (0.76117, 0.15302)
    """
    if table is None and ratings is not None:  # coded once, for κ and its z
        ratings, categories = _family.raw_ratings(ratings, categories), None
    result = _coefficient("fleiss_kappa", ratings, table, categories=categories, weights=weights, missing=missing,
                          confidence=confidence, population=population)
    if table is None and result.defined and (isinstance(weights, str) and weights == "identity"):
        result = _with_fleiss_z(result, ratings, categories, missing)
    return _told(result)


def _with_fleiss_z(result: Agreement, ratings: Any, categories: ArrayLike | None, missing: str) -> Agreement:
    """Add Fleiss, Nee & Landis (1979)'s z when every used item has the same number of ratings
    (from the counts κ was computed on)."""
    rated = _family.count(_family.raw_ratings(ratings, categories), missing)
    per_item = rated.ri
    if len(per_item) < 1 or per_item.min() != per_item.max() or per_item[0] < 2:
        return result
    n, m = len(per_item), int(per_item[0])
    p = rated.counts.sum(axis=0) / float(per_item.sum())
    pq = p * (1.0 - p)
    total = float(pq.sum())
    if total <= 0:
        return result
    var0 = 2.0 * (total**2 - float((pq * (1.0 - 2.0 * p)).sum())) / (n * m * (m - 1) * total**2)
    z = result.value / math.sqrt(var0) if var0 > 0 else math.nan
    return replace(result, z=z)


def conger_kappa(ratings: ArrayLike | RawRatings | None = None, *, table: ArrayLike | None = None,
                 categories: ArrayLike | None = None, weights: Weights = "identity", missing: str = "available",
                 confidence: float = 0.95, population: float = math.inf) -> Agreement:
    """Conger's κ (1980): Cohen's κ for m raters, each rater's own category shares in the chance
    term; on complete items it is Davies & Fleiss' κ (1982) and Shah's fixed-expert κ_S (2011, as
    its formula is written), and for two raters Cohen's κ. Gwet's missing-ratings form and
    standard error (irrCAC ``conger.kappa.raw``). A table gives Cohen's κ (:func:`cohen_kappa`).

    >>> nan = float("nan")
    >>> data = [[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    ...         [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [nan, 5, 5, 5], [nan, nan, 1, 1], [nan, nan, 3, nan]]
    >>> round(conger_kappa(data).value, 5)
    0.76282
    """
    if table is not None and ratings is None:
        return cohen_kappa(table, categories=categories, weights=weights, confidence=confidence)
    return _told(_coefficient("conger_kappa", ratings, None, categories=categories, weights=weights,
                              missing=missing, confidence=confidence, population=population))


def gwet_ac(ratings: ArrayLike | RawRatings | None = None, *, table: ArrayLike | None = None,
            categories: ArrayLike | None = None, weights: Weights = "identity", missing: str = "available",
            confidence: float = 0.95, population: float = math.inf) -> Agreement:
    """Gwet's AC1 (unweighted) or AC2 (weighted): p_e = (Σ w / (q (q − 1))) Σ_k π_k (1 − π_k)
    (Gwet 2008; 2014, irrCAC ``gwet.ac1.raw``). q counts the categories: name them all.

    >>> round(gwet_ac([["POS", "POS"], ["NEG", "POS"]]).value, 10)
    0.2
    >>> nan = float("nan")
    >>> data = [[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    ...         [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [nan, 5, 5, 5], [nan, nan, 1, 1], [nan, nan, 3, nan]]
    >>> ac1 = gwet_ac(data)  # Gwet (2014) cac.raw4raters: p_a 0.8181818, p_e 0.1903212
    >>> round(ac1.value, 5), round(ac1.observed, 7), round(ac1.expected, 7)
    (0.77544, 0.8181818, 0.1903212)
    """
    return _told(_coefficient("gwet_ac", ratings, table, categories=categories, weights=weights, missing=missing,
                              confidence=confidence, population=population))


def krippendorff_alpha(ratings: ArrayLike | RawRatings | None = None, *, table: ArrayLike | None = None,
                       categories: ArrayLike | None = None, weights: Weights = "identity",
                       metric: Metric = "nominal", missing: str = "available", confidence: float = 0.95,
                       population: float = math.inf) -> Agreement:
    """Krippendorff's α, in Gwet's formulation with its standard error (irrCAC ``krippen.alpha.raw``).

    On the n' items with two or more ratings, r̄ their mean number of ratings and ε = 1/Σ r_i:
    p_a = (1 − ε) p'_a + ε, π_k = (1/n') Σ r_ik / r̄, p_e = Σ w_kl π_k π_l, α = (p_a − p_e)/(1 − p_e),
    which equals Krippendorff's 1 − D_o/D_e with δ² = 1 − w (Gwet 2014, ch. 2).

    ``metric`` is Krippendorff's own δ² (``"nominal"``, ``"ordinal"``, ``"interval"``, ``"ratio"``
    or a k×k matrix; :mod:`.krippendorff`): his ordinal metric depends on the data's marginals, so
    it is not one of the weight families. Give a metric or non-identity weights, not both.

    >>> nan = float("nan")
    >>> data = [[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    ...         [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [nan, 5, 5, 5], [nan, nan, 1, 1], [nan, 3, nan, nan]]
    >>> [round(krippendorff_alpha(data, metric=m).value, 3) for m in ("nominal", "ordinal", "interval", "ratio")]
    [0.743, 0.815, 0.849, 0.797]
    """
    _one_input("krippendorff_alpha", ratings, table)
    if table is not None:
        ratings = table_to_ratings(table)
    checked = check_metric(metric)
    if not (isinstance(checked, str) and checked == "nominal"):
        if not (isinstance(weights, str) and weights == "identity"):
            raise ValueError(f"krippendorff_alpha takes a metric ({metric!r}) or weights ({weights!r}), not both")
        data = _family.raw_ratings(ratings, categories)
        per_item = np.bincount(data.item, minlength=data.n_items)
        pairable = per_item[data.item] >= 2
        marginals = np.bincount(data.code[pairable], minlength=data.q).astype(float)
        cats = np.array(list(data.categories), dtype=object)
        if categories is None and isinstance(checked, str) and checked == "ordinal":
            metric_weights("interval", cats, marginals)  # sorted order means something only for numbers
        weights = metric_weights(checked, cats, marginals)
        ratings, categories = data, None
    return _told(_coefficient("krippendorff_alpha", ratings, None, categories=categories, weights=weights,
                              missing=missing, confidence=confidence, population=population))


def cohen_kappa(table: ArrayLike | None = None, *, ratings: ArrayLike | None = None,
                categories: ArrayLike | None = None, weights: Weights = "identity", missing: str = "available",
                confidence: float = 0.95) -> Agreement:
    """Cohen's κ (1960), weighted κ with ``weights`` (Cohen 1968): chance from each rater's own
    category shares, p_e = Σ_kl w_kl r_k c_l; the standard error, interval and z (under κ = 0) of
    Fleiss, Cohen & Everitt (1969), as statsmodels' ``cohens_kappa``.

    On a 2×2 table ``[[a, b], [c, d]]``: κ = 2(ad − bc) / ((a + c)(c + d) + (b + d)(a + b)).
    With ``ratings=`` (items × 2): ``missing="complete"`` cross-tabulates the items both raters
    rated; ``"available"`` is Conger's κ of the two raters with Gwet's missing-ratings form
    (the same value on complete items).

    >>> round(cohen_kappa([[2, 2], [1, 5]]).value, 3)  # Artstein & Poesio (2008)
    0.348
    >>> k = cohen_kappa([[227, 31], [50, 192]])
    >>> round(k.value, 3), round(k.standard_error, 3)
    (0.675, 0.033)
    >>> round(cohen_kappa([[13, 0, 0], [0, 20, 7], [0, 4, 56]], weights="quadratic").value, 4)  # Gwet (2014)
    0.8922
    """
    if (table is None) == (ratings is None):
        raise ValueError("cohen_kappa takes either a table (k×k, two raters) or ratings= (items × 2), exactly one")
    if ratings is not None:
        coded = code_ratings(ratings, categories)
        if coded.codes.shape[1] != 2:
            raise ValueError(f"cohen_kappa needs exactly two raters (columns); got {coded.codes.shape[1]}: "
                             "for more, use conger_kappa or fleiss_kappa")
        if missing == "available":
            result = family(coded, weights=weights, coefficients=["conger_kappa"], confidence=confidence)
            return _told(replace(result["conger_kappa"], coefficient="cohen_kappa"))
        if missing not in MISSING:
            raise ValueError(f"missing={missing!r} is not one of {', '.join(map(repr, MISSING))}")
        table, _, _ = ratings_to_table(coded)
        categories = coded.categories
    return _told(table_family(table, weights=weights, categories=categories, confidence=confidence,
                              coefficients=["cohen_kappa"])["cohen_kappa"])


def cohen_kappa_max(table: ArrayLike) -> float:
    """The largest Cohen's κ the table's marginals allow (Cohen 1960): the observed agreement is at
    most p_max = Σ_k min(r_k, c_k), so κ_max = (p_max − p_e)/(1 − p_e).

    Rows .50/.25/.25 and columns .30/.35/.35: p_max = .30 + .25 + .25 = .80, p_e = .325, so
    κ_max = .475/.675 = 0.7037 (κ itself is 0.4815 here).

    >>> round(cohen_kappa_max([[0.25, 0.13, 0.12], [0.02, 0.20, 0.03], [0.03, 0.02, 0.20]]), 4)
    0.7037
    """
    t = as_table(table)
    n = float(t.sum())
    if n == 0:
        warn_undefined("cohen_kappa_max is undefined: the table is empty; returning nan")
        return math.nan
    rows, columns = t.sum(axis=1) / n, t.sum(axis=0) / n
    pe = float(rows @ columns)
    if not (1.0 - pe) > 1e-12:
        warn_undefined("cohen_kappa_max is undefined: chance agreement is 1; returning nan")
        return math.nan
    return (float(np.minimum(rows, columns).sum()) - pe) / (1.0 - pe)


def positive_agreement(table: ArrayLike, *, positive: int = 0) -> Agreement:
    """Positive specific agreement PSA = 2a / (2a + b + c) on a 2×2 table ``[[a, b], [c, d]]``: the
    F1 of either rater against the other, defined where d is not (Hripcsak & Rothschild 2005).
    ``positive`` is the index of the *present* category (1 for a table of 0/1 or False/True labels
    from ``ratings_to_table``). Undefined (nan) when 2a + b + c = 0.

    >>> round(positive_agreement([[227, 31], [50, 192]]).value, 3)
    0.849
    """
    return _told(specific_agreement("positive_agreement", table, positive, negative=False))


def negative_agreement(table: ArrayLike, *, positive: int = 0) -> Agreement:
    """Negative specific agreement NSA = 2d / (2d + b + c): PSA of the *absent* category.

    >>> round(negative_agreement([[227, 31], [50, 192]]).value, 3)
    0.826
    """
    return _told(specific_agreement("negative_agreement", table, positive, negative=True))


def s_against_group(outsider: ArrayLike, ratings: ArrayLike, *, categories: ArrayLike | None = None) -> Agreement:
    """Shah's S (2011): one rater or system against a fixed group (:mod:`.fixed_group`).

    Worked by hand (the paper's numeric examples do not follow its formulas): three experts, four
    items; the outsider matches the unanimous experts on items 1 and 3 and the minority on 2 and 4:
    A_o = 1/2, A_max = 2/3, A_e = 11/48, S = 13/21.

    >>> group = [["a", "a", "a"], ["a", "a", "b"], ["b", "b", "b"], ["a", "b", "b"]]
    >>> round(s_against_group(["a", "b", "b", "a"], group).value, 3)
    0.619
    """
    return _told(_s_against_group(outsider, ratings, categories=categories))
