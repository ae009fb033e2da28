"""Tests for spanagree.stats.

Three ways, as the project asks:

1. worked examples: SPEC section 5 and published values (Artstein & Poesio; Krippendorff 2011;
   Gwet 2014 / irrCAC; Fleiss' κ worked example);
2. independent implementations on hundreds of seeded random inputs, to 1e-9: NLTK's
   ``AnnotationTask``, the ``krippendorff`` package, statsmodels' ``inter_rater``, and plain-loop
   transcriptions of the formulas where no package exists (Gwet's AC1, Shah's κ_S and S);
3. properties (hypothesis): identical raters give 1, symmetry and permutation invariance,
   κ_S = Cohen's κ for two raters, the 2×2 closed form, κ(d) rising to PSA, degenerate input
   gives nan with UndefinedAgreementWarning, bad input raises ValueError.
"""

from __future__ import annotations

import math
from fractions import Fraction
import tracemalloc
import warnings

import krippendorff
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import binary_distance, interval_distance
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

import float_views as stats
from float_views import (
    AgreementParts,
    UndefinedAgreementWarning,
    bennett_s,
    code_ratings,
    cohen_kappa,
    cohen_kappa_parts,
    davies_fleiss_kappa,
    fleiss_kappa,
    fleiss_kappa_parts,
    gwet_ac1,
    gwet_ac1_parts,
    kappa_s,
    krippendorff_alpha,
    krippendorff_alpha_parts,
    negative_agreement,
    percent_agreement,
    positive_agreement,
    ratings_to_table,
    s_against_group,
    s_against_group_parts,
    scott_pi,
    weighted_kappa,
)

TOL = 1e-9
N_RANDOM = 200
PROPERTY_SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
nan = float("nan")

TABLE_FUNCTIONS = [percent_agreement, bennett_s, scott_pi, cohen_kappa, weighted_kappa]
RATINGS_FUNCTIONS = [fleiss_kappa, davies_fleiss_kappa, kappa_s, gwet_ac1, krippendorff_alpha]

# Krippendorff (2011) reliability data, as units (rows) × coders A-D (columns).
KRIPPENDORFF_2011 = [
    [1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [nan, 5, 5, 5], [nan, nan, 1, 1], [nan, 3, nan, nan],
]  # fmt: skip
# Gwet (2014) / irrCAC cac.raw4raters: the same data with unit 12 rated by rater 3.
CAC_RAW4RATERS = KRIPPENDORFF_2011[:11] + [[nan, nan, 3, nan]]
# Gwet (2014) / irrCAC cont3x3abstractors.
CONT3X3 = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]
# Gwet (2014) / irrCAC distrib.6raters: raters per category, 15 subjects × 5 categories.
DISTRIB_6RATERS = [
    [0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
    [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
    [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1],
]  # fmt: skip
# Wikipedia's Fleiss' κ worked example: 10 subjects, 14 raters, 5 categories.
WIKIPEDIA_FLEISS = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]  # fmt: skip


def ratings_from_counts(counts) -> np.ndarray:
    """Items × raters ratings from an items × categories count matrix (same count per row)."""
    return np.array([np.repeat(np.arange(len(row)), row) for row in counts])


def ratings_from_table(table) -> np.ndarray:
    """Two raters' ratings reproducing a k×k table (rows rater 1, columns rater 2)."""
    table = np.asarray(table)
    i, j = np.indices(table.shape)
    return np.repeat(np.column_stack([i.ravel(), j.ravel()]), table.ravel(), axis=0)


def quiet(function, *args, **kwargs):
    """Call ``function``, silencing UndefinedAgreementWarning (for random inputs)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedAgreementWarning)
        return function(*args, **kwargs)


def random_ratings(rng, n, m, k, *, p_missing=0.0, agree=0.6) -> np.ndarray:
    """Items × raters float codes 0..k-1 that agree more than chance; NaN = missing."""
    truth = rng.integers(0, k, size=n)
    noise = rng.integers(0, k, size=(n, m))
    ratings = np.where(rng.random((n, m)) < agree, truth[:, None], noise).astype(float)
    ratings[rng.random((n, m)) < p_missing] = np.nan
    return ratings


def nltk_task(ratings, distance=binary_distance) -> AnnotationTask:
    """NLTK task from items × raters ratings; missing values are simply left out."""
    data = [
        (f"r{r}", f"i{i}", int(value))
        for i, row in enumerate(ratings)
        for r, value in enumerate(row)
        if not np.isnan(value)
    ]
    return AnnotationTask(data=data, distance=distance)


def close(a: float, b: float, tol: float = TOL) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


# ================================================================================================
# 1. Worked examples
# ================================================================================================


class TestWorkedExamples:
    def test_spec_artstein_poesio_table(self):
        # SPEC section 5: rows rater 2, columns rater 1; categories high/low.
        table = [[2, 2], [1, 5]]
        assert percent_agreement(table) == pytest.approx(0.7)
        assert round(bennett_s(table), 3) == 0.4
        assert round(scott_pi(table), 3) == 0.341
        assert round(cohen_kappa(table), 3) == 0.348

    def test_spec_psa_and_kappa(self):
        a, b, c, d = 227, 31, 50, 192
        assert round(positive_agreement([[a, b], [c, d]]), 3) == 0.849
        assert round(cohen_kappa([[a, b], [c, d]]), 3) == 0.675
        # The same table with "present" last, as ratings_to_table gives for 0/1 labels.
        psa = 2 * a / (2 * a + b + c)
        assert positive_agreement([[d, c], [b, a]], positive=1) == pytest.approx(psa)
        assert negative_agreement([[a, b], [c, d]]) == pytest.approx(2 * d / (2 * d + b + c))

    def test_irrcac_contingency_table(self):
        # Gwet (2014), irrCAC README: cont3x3abstractors.
        assert cohen_kappa(CONT3X3) == pytest.approx(0.7964094, abs=5e-8)
        assert scott_pi(CONT3X3) == pytest.approx(0.7962397, abs=5e-8)
        assert bennett_s(CONT3X3) == pytest.approx(0.835)
        assert percent_agreement(CONT3X3) == pytest.approx(0.89)
        assert gwet_ac1(ratings_from_table(CONT3X3)) == pytest.approx(0.8493305, abs=5e-8)

    def test_irrcac_distribution_six_raters(self):
        ratings = ratings_from_counts(DISTRIB_6RATERS)
        fleiss = fleiss_kappa_parts(ratings)
        assert fleiss.value == pytest.approx(0.4139265, abs=5e-8)
        assert fleiss.observed == pytest.approx(0.5511111, abs=5e-8)
        assert fleiss.expected == pytest.approx(0.2340741, abs=5e-8)
        ac1 = gwet_ac1_parts(ratings)
        assert ac1.value == pytest.approx(0.4448007, abs=5e-8)
        assert ac1.expected == pytest.approx(0.1914815, abs=5e-8)

    def test_wikipedia_fleiss_example(self):
        parts = fleiss_kappa_parts(ratings_from_counts(WIKIPEDIA_FLEISS))
        assert round(parts.observed, 3) == 0.378
        assert round(parts.expected, 3) == 0.213
        assert round(parts.value, 3) == 0.210

    def test_irrcac_raw_ratings_with_missing(self):
        ac1 = gwet_ac1_parts(CAC_RAW4RATERS)
        assert ac1.value == pytest.approx(0.77544, abs=5e-6)
        assert ac1.observed == pytest.approx(0.8181818, abs=5e-8)
        assert ac1.expected == pytest.approx(0.1903212, abs=5e-8)
        assert ac1.skipped == {"one rating (chance term only)": 1}
        assert krippendorff_alpha(CAC_RAW4RATERS) == pytest.approx(0.74342, abs=5e-6)

    @pytest.mark.parametrize(
        "distance, published",
        [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
    )
    def test_krippendorff_2011(self, distance, published):
        parts = krippendorff_alpha_parts(KRIPPENDORFF_2011, distance=distance)
        assert round(parts.value, 3) == published
        assert parts.n_items == 11 and parts.skipped == {"fewer than two ratings": 1}
        reference = krippendorff.alpha(
            np.array(KRIPPENDORFF_2011, dtype=float).T, level_of_measurement=distance
        )
        assert parts.value == pytest.approx(reference, abs=TOL)

    def test_krippendorff_2011_string_labels(self):
        names = {1: "very low", 2: "low", 3: "mid", 4: "high", 5: "very high"}
        ratings = [[None if v != v else names[v] for v in row] for row in KRIPPENDORFF_2011]
        assert round(krippendorff_alpha(ratings), 3) == 0.743
        ordered = list(names.values())
        ordinal = krippendorff_alpha(ratings, distance="ordinal", categories=ordered)
        assert round(ordinal, 3) == 0.815
        # A user matrix reproducing the interval metric on the scores 1..5.
        scores = np.arange(1, 6.0)
        matrix = (scores[:, None] - scores[None, :]) ** 2
        value = krippendorff_alpha(ratings, distance=matrix, categories=ordered)
        assert value == pytest.approx(krippendorff_alpha(KRIPPENDORFF_2011, distance="interval"))

    def test_kappa_s_two_raters_spec_example(self):
        ratings = ratings_from_table([[2, 2], [1, 5]])
        assert round(kappa_s(ratings), 3) == 0.348
        assert round(davies_fleiss_kappa(ratings), 3) == 0.348
        assert round(fleiss_kappa(ratings), 3) == 0.341  # Fleiss' κ is multi-π


# ================================================================================================
# 2. Independent implementations
# ================================================================================================


def gwet_ac1_loops(ratings) -> float:
    """Gwet (2014) AC1 with missing data, transcribed with plain loops."""
    rows = [[v for v in row if v == v] for row in np.asarray(ratings, dtype=float).tolist()]
    categories = sorted({v for row in rows for v in row})
    rated = [row for row in rows if len(row) >= 1]
    pairable = [row for row in rows if len(row) >= 2]
    pa = sum(
        sum(row.count(c) * (row.count(c) - 1) for c in categories) / (len(row) * (len(row) - 1))
        for row in pairable
    ) / len(pairable)
    pi = [sum(row.count(c) / len(row) for row in rated) / len(rated) for c in categories]
    pe = sum(p * (1 - p) for p in pi) / (len(categories) - 1)
    return (pa - pe) / (1 - pe)


def kappa_s_loops(ratings) -> float:
    """SPEC section 5's κ_S, as written: A_e averaged over ordered pairs p ≠ p'."""
    ratings = np.asarray(ratings)
    n, m = ratings.shape
    categories = np.unique(ratings)
    ao = sum(
        (row == c).sum() * ((row == c).sum() - 1) for row in ratings for c in categories
    ) / (n * m * (m - 1))
    ae = 0.0
    for c in categories:
        for p in range(m):
            for q in range(m):
                if p != q:
                    share_p = (ratings[:, p] == c).sum() / n
                    share_q = (ratings[:, q] == c).sum() / n
                    ae += share_p * share_q / (m * (m - 1))
    return (ao - ae) / (1 - ae)


def s_against_group_loops(outsider, group) -> float:
    """SPEC section 5's S of one rater against a fixed group, with plain loops."""
    group = np.asarray(group)
    n, m = group.shape
    categories = np.unique(np.concatenate([group.ravel(), outsider]))
    pairs = m * (m - 1)

    def pairs_agreeing_on(row, c):
        return (row == c).sum() * ((row == c).sum() - 1)

    ao = sum(pairs_agreeing_on(row, t) for row, t in zip(group, outsider)) / (n * pairs)
    amax = sum(max(pairs_agreeing_on(row, c) for c in categories) for row in group) / (n * pairs)
    ae = 0.0
    for c in categories:
        share = np.mean(np.asarray(outsider) == c)
        ae_c = sum(
            (group[:, p] == c).mean() * (group[:, q] == c).mean()
            for p in range(m)
            for q in range(m)
            if p != q
        ) / pairs
        ae += share * ae_c
    return (ao - ae) / (amax - ae)


class TestAgainstIndependentImplementations:
    def test_two_raters_against_nltk(self):
        # NLTK, two coders: S = Bennett's S with k = labels used; pi = Scott's π;
        # kappa = Cohen's κ (one pair, so its pairwise average is the pair);
        # weighted_kappa(distance) = Cohen's weighted κ with disagreement weights = distance.
        rng = np.random.default_rng(20240101)
        checked = 0
        for _ in range(N_RANDOM):
            k = int(rng.integers(2, 6))
            ratings = random_ratings(rng, int(rng.integers(5, 30)), 2, k)
            table = ratings_to_table(ratings).table  # categories used only, as NLTK's K
            if quiet(cohen_kappa, table) != quiet(cohen_kappa, table):  # nan: Ae = 1
                continue
            task = nltk_task(ratings)
            assert close(bennett_s(table), task.S())
            assert close(scott_pi(table), task.pi())
            assert close(cohen_kappa(table), task.kappa())
            full = ratings_to_table(ratings, categories=range(k)).table  # index = label value
            quadratic = nltk_task(ratings, interval_distance).weighted_kappa()
            assert close(weighted_kappa(full, weights="quadratic"), quadratic)
            linear = nltk_task(ratings, lambda a, b: abs(a - b)).weighted_kappa()
            assert close(weighted_kappa(full, weights="linear"), linear)
            checked += 1
        assert checked >= N_RANDOM * 0.9

    def test_multi_rater_against_nltk(self):
        # NLTK, m coders, complete data: pi is multi-π = Fleiss' κ (its average pairwise Ao
        # equals Fleiss' Ao); multi_kappa is Davies & Fleiss, which κ_S as written equals.
        # (NLTK's kappa/S average per-pair values and have no counterpart here.)
        rng = np.random.default_rng(7)
        for _ in range(N_RANDOM):
            m = int(rng.integers(2, 6))
            ratings = random_ratings(rng, int(rng.integers(4, 20)), m, int(rng.integers(2, 5)))
            if len(np.unique(ratings)) < 2:
                continue
            task = nltk_task(ratings)
            assert close(fleiss_kappa(ratings), task.pi())
            assert close(davies_fleiss_kappa(ratings), task.multi_kappa())
            assert close(kappa_s(ratings), task.multi_kappa())

    def test_alpha_with_missing_against_nltk(self):
        # NLTK's alpha (binary distance) drops items with fewer than two labels, like α here;
        # where α is undefined (one value among the pairable ones) NLTK returns 1 instead of nan.
        rng = np.random.default_rng(11)
        for _ in range(N_RANDOM):
            m = int(rng.integers(2, 6))
            k = int(rng.integers(1, 5))
            ratings = random_ratings(rng, int(rng.integers(3, 20)), m, k, p_missing=0.3)
            ours = quiet(krippendorff_alpha, ratings)
            task = nltk_task(ratings)
            if np.isnan(ours):  # NLTK: 1 for a single value, an error when nothing pairs
                try:
                    assert task.alpha() == 1
                except (ValueError, ZeroDivisionError):
                    pass
                continue
            assert close(ours, task.alpha())

    @pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
    def test_alpha_against_krippendorff_package(self, level):
        rng = np.random.default_rng({"nominal": 1, "ordinal": 2, "interval": 3, "ratio": 4}[level])
        compared = 0
        for _ in range(N_RANDOM):
            m, k = int(rng.integers(2, 7)), int(rng.integers(2, 7))
            ratings = random_ratings(rng, int(rng.integers(2, 40)), m, k, p_missing=0.3)
            # Unequally spaced, positive values so that interval and ratio differ from ordinal.
            values = np.sort(rng.choice(np.arange(1, 50) / 4, size=k, replace=False))
            present = ~np.isnan(ratings)
            ratings[present] = values[ratings[present].astype(int)]
            ours = quiet(krippendorff_alpha, ratings, distance=level)
            try:
                with np.errstate(all="ignore"):
                    reference = krippendorff.alpha(ratings.T, level_of_measurement=level)
            except ValueError:  # the package refuses: one value, or nothing pairable
                assert np.isnan(ours)
                continue
            assert close(ours, float(reference)), (ratings, ours, reference)
            compared += 1
        assert compared >= N_RANDOM * 0.8

    def test_fleiss_against_statsmodels(self):
        # statsmodels needs complete data; items with missing values are skipped here, so
        # statsmodels on the complete rows must give the same value.
        rng = np.random.default_rng(3)
        for _ in range(N_RANDOM):
            ratings = random_ratings(
                rng, int(rng.integers(4, 40)), int(rng.integers(2, 7)), int(rng.integers(2, 6)),
                p_missing=0.05,
            )
            complete = ratings[~np.isnan(ratings).any(axis=1)]
            parts = quiet(fleiss_kappa_parts, ratings)
            assert parts.n_items == len(complete)
            assert parts.n_skipped == len(ratings) - len(complete)
            if len(complete) == 0 or len(np.unique(complete)) < 2:
                assert np.isnan(parts.value)
                continue
            reference = sm_fleiss_kappa(aggregate_raters(complete)[0])
            assert close(parts.value, reference)

    def test_cohen_and_weighted_against_statsmodels(self):
        # statsmodels' cohens_kappa: weights=None → Cohen; wt="linear"/"quadratic" → weights on
        # the scores 0..k-1 (|i-j|/(k-1), (i-j)²/(k-1)²); a 2-D weights matrix = disagreement
        # weights, the convention of weighted_kappa(weights=matrix).
        rng = np.random.default_rng(5)
        for _ in range(N_RANDOM):
            k = int(rng.integers(2, 7))
            table = rng.integers(0, 12, size=(k, k)) + np.diag(rng.integers(0, 30, size=k))
            if quiet(cohen_kappa, table) != quiet(cohen_kappa, table):
                continue
            assert close(cohen_kappa(table), cohens_kappa(table, return_results=False))
            for wt in ("linear", "quadratic"):
                reference = cohens_kappa(table, wt=wt, return_results=False)
                assert close(weighted_kappa(table, weights=wt), reference)
            matrix = rng.random((k, k))
            matrix = matrix + matrix.T
            np.fill_diagonal(matrix, 0)
            reference = cohens_kappa(table, weights=matrix, return_results=False)
            assert close(weighted_kappa(table, weights=matrix), reference)
            assert close(weighted_kappa(table, weights=1 - np.eye(k)), cohen_kappa(table))

    def test_gwet_ac1_against_loops(self):
        rng = np.random.default_rng(13)
        for _ in range(N_RANDOM):
            ratings = random_ratings(
                rng, int(rng.integers(2, 25)), int(rng.integers(2, 6)), int(rng.integers(2, 6)),
                p_missing=0.3,
            )
            ours = quiet(gwet_ac1, ratings)
            if np.isnan(ours):
                per_item = (~np.isnan(ratings)).sum(axis=1)
                assert (per_item < 2).all() or len(np.unique(ratings[~np.isnan(ratings)])) < 2
                continue
            assert close(ours, gwet_ac1_loops(ratings))

    def test_kappa_s_and_s_against_loops(self):
        rng = np.random.default_rng(17)
        for _ in range(N_RANDOM):
            m, k = int(rng.integers(2, 6)), int(rng.integers(2, 5))
            ratings = random_ratings(rng, int(rng.integers(3, 20)), m + 1, k)
            outsider, group = ratings[:, 0], ratings[:, 1:]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedAgreementWarning)
                ours_kappa, ours_s = kappa_s(group), s_against_group(outsider, group)
            with np.errstate(all="ignore"):
                assert close(ours_kappa, kappa_s_loops(group))
                assert close(ours_s, s_against_group_loops(outsider, group))

    def test_psa_is_f1_with_either_rater_as_reference(self):
        rng = np.random.default_rng(19)
        for _ in range(N_RANDOM):
            a, b, c, d = rng.integers(1, 100, size=4).astype(float)
            f1_a = 2 * (a / (a + c)) * (a / (a + b)) / (a / (a + c) + a / (a + b))
            f1_b = 2 * (a / (a + b)) * (a / (a + c)) / (a / (a + b) + a / (a + c))
            assert close(positive_agreement([[a, b], [c, d]]), f1_a)
            assert close(positive_agreement([[a, c], [b, d]]), f1_b)


# ================================================================================================
# 3. Properties
# ================================================================================================


@st.composite
def tables(draw, min_k=1, max_k=5):
    k = draw(st.integers(min_k, max_k))
    cells = draw(st.lists(st.integers(0, 30), min_size=k * k, max_size=k * k))
    return np.array(cells, dtype=float).reshape(k, k)


@st.composite
def rating_matrices(draw, min_raters=2, max_raters=4, missing=False):
    n = draw(st.integers(1, 12))
    m = draw(st.integers(min_raters, max_raters))
    k = draw(st.integers(1, 4))
    values = st.integers(0, k - 1).map(float)
    if missing:
        values = st.one_of(values, st.just(nan))
    cells = draw(st.lists(values, min_size=n * m, max_size=n * m))
    return np.array(cells, dtype=float).reshape(n, m)


class TestProperties:
    @PROPERTY_SETTINGS
    @given(rating_matrices(max_raters=1, min_raters=1))
    def test_identical_raters_give_one(self, column):
        for m in (2, 3):
            ratings = np.repeat(column, m, axis=1)
            table = ratings_to_table(ratings[:, :2]).table
            functions = (percent_agreement, bennett_s, scott_pi, cohen_kappa)
            values = [quiet(f, table) for f in functions]
            values += [quiet(weighted_kappa, table, weights=w) for w in ("linear", "quadratic")]
            values += [quiet(f, ratings) for f in RATINGS_FUNCTIONS[:-1]]
            values += [
                quiet(krippendorff_alpha, ratings, distance=d) for d in stats.DISTANCES
            ]
            values.append(quiet(s_against_group, column[:, 0], ratings))
            for value in values:
                assert np.isnan(value) or value == pytest.approx(1.0), values

    @PROPERTY_SETTINGS
    @given(rating_matrices(min_raters=2, max_raters=2))
    def test_kappa_s_equals_cohen_for_two_raters(self, ratings):
        table = ratings_to_table(ratings).table
        assert close(quiet(kappa_s, ratings), quiet(cohen_kappa, table))
        assert close(quiet(davies_fleiss_kappa, ratings), quiet(cohen_kappa, table))
        assert close(quiet(fleiss_kappa, ratings), quiet(scott_pi, table))

    @PROPERTY_SETTINGS
    @given(rating_matrices(max_raters=5))
    def test_kappa_s_equals_davies_fleiss(self, ratings):
        # The SPEC's erratum: κ_S as written is the Davies-Fleiss coefficient. (Categories named:
        # a random matrix whose rows all sum alike would otherwise be refused as counts.)
        categories = np.unique(ratings)
        assert close(quiet(kappa_s, ratings, categories=categories), quiet(davies_fleiss_kappa, ratings, categories=categories))

    @PROPERTY_SETTINGS
    @given(rating_matrices(max_raters=4, missing=True), st.randoms(use_true_random=False))
    def test_invariant_to_permuting_raters_and_items(self, ratings, random):
        raters = list(range(ratings.shape[1]))
        items = list(range(ratings.shape[0]))
        random.shuffle(raters)
        random.shuffle(items)
        shuffled = ratings[items][:, raters]
        for function in RATINGS_FUNCTIONS:
            assert close(quiet(function, ratings), quiet(function, shuffled)), function
        for distance in ("ordinal", "interval", "ratio"):
            a = quiet(krippendorff_alpha, ratings, distance=distance)
            assert close(a, quiet(krippendorff_alpha, shuffled, distance=distance))
        outsider, group = ratings[:, 0], ratings[:, 1:]
        shuffled_group = group[:, random.sample(range(group.shape[1]), group.shape[1])]
        s = quiet(s_against_group, outsider, group)
        assert close(s, quiet(s_against_group, outsider, shuffled_group))
        assert close(s, quiet(s_against_group, outsider[items], group[items]))

    @PROPERTY_SETTINGS
    @given(tables())
    def test_table_coefficients_are_symmetric(self, table):
        # Swapping the raters transposes the table; every table coefficient here is symmetric.
        for function in TABLE_FUNCTIONS:
            assert close(quiet(function, table), quiet(function, table.T)), function
        if table.shape == (2, 2):
            for function in (positive_agreement, negative_agreement):
                assert close(quiet(function, table), quiet(function, table.T)), function

    @PROPERTY_SETTINGS
    @given(tables(min_k=2, max_k=2))
    def test_two_by_two_closed_form(self, table):
        (a, b), (c, d) = table
        denominator = (a + c) * (c + d) + (b + d) * (a + b)
        value = quiet(cohen_kappa, table)
        if denominator == 0:
            assert np.isnan(value)
        else:
            assert value == pytest.approx(2 * (a * d - b * c) / denominator, abs=1e-12)
            for weights in ("linear", "quadratic"):  # any weighting of a 2×2 is Cohen's κ
                assert close(weighted_kappa(table, weights=weights), value)

    @PROPERTY_SETTINGS
    @given(st.integers(1, 1000), st.integers(0, 1000), st.integers(0, 1000))
    @example(a=1, b=0, c=1)  # Ao and Ae both ≈ 1: (Ao - Ae)/(1 - Ae) would lose 8 digits here
    def test_kappa_rises_to_psa_as_d_grows(self, a, b, c):
        # dκ/dd ∝ 2a(a + c)c + 2ab(a + b) + 2bc(2a + b + c) ≥ 0, and κ → 2a/(2a + b + c).
        psa = positive_agreement([[a, b], [c, 0]])
        ds = np.unique(np.geomspace(1, 1e9, 40).round())
        kappas = np.array([cohen_kappa([[a, b], [c, d]]) for d in ds])
        assert (np.diff(kappas) >= -1e-12).all()
        assert (kappas <= psa + 1e-12).all()
        assert kappas[-1] == pytest.approx(psa, abs=1e-5)
        d = 10**9
        exact = Fraction(2 * (a * d - b * c), (a + c) * (c + d) + (b + d) * (a + b))
        assert kappas[-1] == pytest.approx(float(exact), rel=1e-13)

    @pytest.mark.parametrize(
        "function, argument",
        [
            (cohen_kappa, [[5]]),
            (cohen_kappa, [[3, 0], [0, 0]]),
            (scott_pi, [[0, 0], [0, 4]]),
            (bennett_s, [[4]]),
            (weighted_kappa, [[3, 0], [0, 0]]),
            (percent_agreement, [[0, 0], [0, 0]]),
            (cohen_kappa, np.zeros((0, 0))),
            (positive_agreement, [[0, 0], [0, 5]]),
            (negative_agreement, [[5, 0], [0, 0]]),
            (fleiss_kappa, [[1, 1], [1, 1]]),
            (fleiss_kappa, [[None, None], [1, None]]),
            (fleiss_kappa, [[1], [2]]),
            (fleiss_kappa, np.empty((0, 3))),
            (davies_fleiss_kappa, [["x", "x", "x"]]),
            (kappa_s, [[1, None]]),
            (krippendorff_alpha, [[None, None], [None, None]]),
            (krippendorff_alpha, [[1, None], [2, None]]),
            (krippendorff_alpha, [[1, 1], [1, 1]]),
            (gwet_ac1, [[1, 1], [1, 1]]),
            (gwet_ac1, [[1, None], [2, None]]),
        ],
    )
    def test_degenerate_input_gives_nan_and_warns(self, function, argument):
        with pytest.warns(UndefinedAgreementWarning, match="undefined") as record:
            value = function(argument)
        assert math.isnan(value)
        # the warning points at the caller of the public function (here the float view)
        assert record[0].filename.endswith("float_views.py")

    def test_degenerate_parts_say_why(self):
        with pytest.warns(UndefinedAgreementWarning):
            parts = cohen_kappa_parts([[3, 0], [0, 0]])
        assert parts.undefined and not parts.defined
        assert parts.to_dict()["value"] is None
        with pytest.warns(UndefinedAgreementWarning):
            parts = s_against_group_parts([1, 1], [[1, 1], [1, 1]])
        assert "maximum" in parts.undefined
        with pytest.warns(UndefinedAgreementWarning, match="two group raters"):
            s_against_group([1, 2], [[1], [2]])

    def test_defined_edge_cases_are_not_nan(self):
        # One category used, but two declared: Bennett's S and AC1 are defined (chance < 1).
        assert bennett_s([[3, 0], [0, 0]]) == 1.0
        assert gwet_ac1([[0, 0], [0, 0]], categories=[0, 1]) == 1.0
        with warnings.catch_warnings():
            warnings.simplefilter("error", UndefinedAgreementWarning)
            assert percent_agreement([[5]]) == 1.0

    @pytest.mark.parametrize(
        "call, message",
        [
            (lambda: cohen_kappa([[1, 2, 3], [4, 5, 6]]), r"square.*\(2, 3\)"),
            (lambda: cohen_kappa([1, 2]), "square"),
            (lambda: cohen_kappa([[1, -1], [0, 2]]), "non-negative.*-1"),
            (lambda: cohen_kappa([[1, nan], [0, 2]]), "finite"),
            (lambda: cohen_kappa([["a", "b"], ["c", "d"]]), "numbers"),
            (lambda: weighted_kappa([[1, 2], [3, 4]], weights="cubic"), "'cubic'.*linear"),
            (lambda: weighted_kappa([[1, 2], [3, 4]], weights=np.ones((2, 2))), "diagonal.*1 - d"),
            (lambda: weighted_kappa([[1, 2], [3, 4]], weights=np.zeros((3, 3))), r"2×2.*\(3, 3\)"),
            (lambda: weighted_kappa([[1, 2], [3, 4]], weights=[[0, -1], [-1, 0]]), r"in \[0, 1\]"),
            (lambda: positive_agreement(np.ones((3, 3))), "2×2"),
            (lambda: positive_agreement([[1, 2], [3, 4]], positive=2), "positive=2"),
            (lambda: krippendorff_alpha([[1, 2]], distance="nomimal"), "'nomimal'.*'nominal'"),
            (lambda: krippendorff_alpha([[1, 2]], distance=None), "None.*'nominal'"),
            (lambda: krippendorff_alpha([["a", "b"]], distance="ordinal"), "ordinal.*in order"),
            (
                lambda: krippendorff_alpha([["a", "b"]], distance="ratio", categories=["a", "b"]),
                "numeric",
            ),
            (lambda: krippendorff_alpha([[-1, 2]], distance="ratio"), "non-negative"),
            (lambda: krippendorff_alpha([[1, 2]], distance=np.zeros((3, 3))), "3×3.*2 categories"),
            (lambda: krippendorff_alpha([[1, 2]], distance=np.ones((2, 2))), "diagonal"),
            (lambda: krippendorff_alpha([[1, 2]], distance=[[0, 1], [2, 0]]), "symmetric"),
            (lambda: fleiss_kappa([1, 2, 3]), "2-D items × raters"),
            (lambda: fleiss_kappa(np.zeros((2, 2, 2))), "2-D"),
            (lambda: fleiss_kappa([[1, 2], [3, 4]], categories=[1, 2, 3]), "not in categories.*4"),
            (lambda: gwet_ac1([[1, 2]], categories=[1, 2, 1]), "distinct"),
            (lambda: gwet_ac1([[1, 2]], categories=[1, None]), "None or nan"),
            (lambda: ratings_to_table([[1, 2, 3]]), "two raters"),
            (lambda: s_against_group([1, 2, 3], [[1, 2], [2, 1]]), "one value per item"),
        ],
    )
    def test_bad_input_raises(self, call, message):
        with pytest.raises(ValueError, match=message):
            call()


# ================================================================================================
# Coding and containers
# ================================================================================================


class TestCoding:
    def test_missing_values_and_labels(self):
        codes, categories = code_ratings([[1, None], [nan, 2.0], [2, 1]])
        assert codes.tolist() == [[0, -1], [-1, 1], [1, 0]]
        assert categories.tolist() == [1, 2]

    def test_mixed_unorderable_labels_keep_first_seen_order(self):
        codes, categories = code_ratings([["x", 1], [1, "x"], [None, (2, 3)]])
        assert categories.tolist() == ["x", 1, (2, 3)]
        assert codes.tolist() == [[0, 1], [1, 0], [-1, 2]]

    def test_numpy_string_nan_is_a_label(self):
        # Documented: numpy turns NaN into "nan" in a string array; it is then a label.
        codes, categories = code_ratings(np.array([["a", np.nan]]))
        assert categories.tolist() == ["a", "nan"]
        assert (codes >= 0).all()

    def test_ratings_to_table_counts_skipped(self):
        result = ratings_to_table([[0, 1], [1, 1], [None, 0]], categories=[0, 1, 2])
        assert result.table.tolist() == [[0, 1, 0], [0, 1, 0], [0, 0, 0]]
        assert result.n_skipped == 1
        assert bennett_s(result.table) == pytest.approx((0.5 - 1 / 3) / (1 - 1 / 3))

    def test_parts_are_frozen_and_plain_is_parts_value(self):
        parts = cohen_kappa_parts([[2, 2], [1, 5]])
        assert isinstance(parts, AgreementParts)
        with pytest.raises(AttributeError):
            parts.value = 0.0
        assert parts.value == cohen_kappa([[2, 2], [1, 5]])
        assert parts.value == pytest.approx(
            (parts.observed - parts.expected) / (parts.maximum - parts.expected)
        )
        alpha = krippendorff_alpha_parts(KRIPPENDORFF_2011)  # Gwet's formulation: p_a, p_e
        assert alpha.basis == "agreement" and alpha.maximum == 1.0
        assert alpha.value == pytest.approx((alpha.observed - alpha.expected) / (1 - alpha.expected))
        assert isinstance(hash(parts), int)

    def test_fractional_counts(self):
        # Partial credit gives fractional a, b, c (SPEC section 3).
        assert positive_agreement([[2.5, 0.5], [1.0, 0.0]]) == pytest.approx(5 / 6.5)


# ================================================================================================
# Scale
# ================================================================================================


def test_large_ratings_run_in_memory_linear_in_ratings():
    """600,000 items × 3 raters, 5 categories and missing values: every function runs."""
    rng = np.random.default_rng(600_000)
    ratings = random_ratings(rng, 600_000, 3, 5, p_missing=0.05, agree=0.7)
    for function in RATINGS_FUNCTIONS:
        assert -1 <= function(ratings) <= 1
    for distance in ("ordinal", "interval", "ratio"):
        assert -1 <= krippendorff_alpha(ratings, distance=distance) <= 1
    assert -1 <= s_against_group(ratings[:, 0], ratings[:, 1:]) <= 1
    table = ratings_to_table(ratings[:, :2]).table
    assert table.sum() + ratings_to_table(ratings[:, :2]).n_skipped == 600_000
    assert -1 <= cohen_kappa(table) <= 1


def test_many_categories_never_build_items_by_categories_squared():
    """50,000 items × 3 raters over 1,000 categories: an items × k² array would need 400 GB."""
    rng = np.random.default_rng(1000)
    n, m, k = 50_000, 3, 1000
    ratings = random_ratings(rng, n, m, k, p_missing=0.1, agree=0.5)
    tracemalloc.start()
    try:
        for function in RATINGS_FUNCTIONS:
            assert -1 <= function(ratings) <= 1
        assert -1 <= krippendorff_alpha(ratings, distance="ordinal") <= 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Memory grows with the ratings (n·m), with the items × categories counts of Gwet's family
    # (bounded by family.MAX_CELLS) and with k² once (the weights).
    assert peak < 200 * n * m + 3 * 8 * n * k + 64 * k * k
