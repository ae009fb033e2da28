"""The one coefficient API (``spanagree.stats``): one function per coefficient, both missing forms,
the figures the peers give, and the report's figures equal to the API's on the same items.

The published values of tests/measures/test_stats.py and test_cac.py run through the same
functions (their float views are one-liners over this API); here: what is new with it.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa, aggregate_raters

import spanagree
from spanagree import stats
from test_cac import dataset, diagnoses

nan = float("nan")
CAC_RAW4RATERS_GWET = {  # Gwet (2014), irrCAC on cac.raw4raters: value, standard error
    "fleiss_kappa": (0.76117, 0.15302), "conger_kappa": (0.76282, None), "gwet_ac": (0.77544, None),
}


def test_one_function_per_coefficient_and_one_result_type():
    ratings = dataset("raw_4raters")
    for name in ("percent_agreement", "brennan_prediger", "fleiss_kappa", "conger_kappa", "gwet_ac",
                 "krippendorff_alpha"):
        result = getattr(stats, name)(ratings)
        assert isinstance(result, stats.Agreement) and result.coefficient == name
        assert float(result) == result.value
        assert result.standard_error is not None and result.low <= result.value <= result.high
    # no second implementation is exported under another name
    for gone in ("gwet_ac1", "davies_fleiss_kappa", "kappa_s", "weighted_kappa", "bennett_s", "scott_pi",
                 "fleiss_kappa_parts", "AgreementParts", "Estimate"):
        assert not hasattr(stats, gone), gone


@pytest.mark.parametrize("name", sorted(CAC_RAW4RATERS_GWET))
def test_available_form_gives_gwets_published_values(name):
    value, se = CAC_RAW4RATERS_GWET[name]
    result = getattr(stats, name)(dataset("raw_4raters"))
    assert result.missing == "available" and round(result.value, 5) == value
    if se is not None:
        assert round(result.standard_error, 5) == se


def test_complete_form_is_the_textbook_form():
    data = dataset("raw_4raters")
    complete_rows = data[~np.isnan(data).any(axis=1)]
    result = stats.fleiss_kappa(data, missing="complete")
    assert result.n_items == len(complete_rows) and result.skipped[stats.SKIP_INCOMPLETE] == 4
    table, _ = aggregate_raters(complete_rows.astype(int))
    assert result.value == pytest.approx(sm_fleiss_kappa(table, method="fleiss"), abs=1e-12)
    # on complete data both forms are the published textbook value (Fleiss 1971: 0.430)
    full = diagnoses()
    for missing in ("available", "complete"):
        assert round(stats.fleiss_kappa(full, missing=missing).value, 3) == 0.430


def test_the_two_fleiss_kappas_of_the_issue_are_one_function_with_two_forms():
    # 5 items × 3 raters, two ratings missing: the two forms differ, and each says which it is
    ratings = [["a", "a", "b"], ["b", "b", "b"], ["a", None, "a"], ["b", "a", None], ["a", "a", "a"]]
    available, complete = stats.fleiss_kappa(ratings), stats.fleiss_kappa(ratings, missing="complete")
    assert available.missing == "available" and complete.missing == "complete"
    assert complete.n_items == 3 and available.n_items == 5
    assert available.value != pytest.approx(complete.value)


def test_fleiss_z_as_irr_reports_it():
    # R irr::kappam.fleiss on Fleiss (1971)'s diagnoses: kappa 0.43, z = 17.65 (Fleiss, Nee & Landis 1979)
    result = stats.fleiss_kappa(diagnoses())
    assert round(result.z, 2) == 17.65


def test_randolph_kappa_counts_the_categories_named():
    ratings = [["a", "a"]] * 6 + [["a", "b"]]
    assert round(stats.brennan_prediger(ratings).value, 3) == 0.714
    assert round(stats.brennan_prediger(ratings, categories=["a", "b", "c"]).value, 3) == 0.786


def test_cohen_kappa_max_by_hand_and_bounds():
    table = [[0.25, 0.13, 0.12], [0.02, 0.20, 0.03], [0.03, 0.02, 0.20]]
    assert stats.cohen_kappa_max(table) == pytest.approx(0.475 / 0.675)
    rng = np.random.default_rng(3)
    for _ in range(50):
        t = rng.integers(0, 9, (3, 3)).astype(float) + np.eye(3)
        assert stats.cohen_kappa(t).value <= stats.cohen_kappa_max(t) + 1e-12
        # a table with the same marginals and the most agreement reaches κ_max (2×2: closed form)
    assert stats.cohen_kappa_max([[5, 0], [0, 5]]) == pytest.approx(1.0)


@pytest.mark.parametrize("weights", ["identity", "linear", "quadratic"])
def test_cohen_kappa_and_its_standard_error_match_statsmodels(weights):
    rng = np.random.default_rng(7)
    for _ in range(30):
        t = rng.integers(0, 20, (4, 4)) + np.diag(rng.integers(5, 30, 4))
        ours = stats.cohen_kappa(t, weights=weights)
        peer = sm_cohens_kappa(t, wt=None if weights == "identity" else weights)
        assert ours.value == pytest.approx(peer.kappa, abs=1e-12)
        assert ours.standard_error == pytest.approx(peer.std_kappa, abs=1e-12)
        if weights == "identity":
            assert ours.z == pytest.approx(peer.z_value, abs=1e-9)


def test_cohen_kappa_of_ratings_in_both_forms():
    ratings = [["a", "a"], ["a", "b"], ["b", "b"], ["b", None], ["a", "a"]]
    complete = stats.cohen_kappa(ratings=ratings, missing="complete")
    table, _, skipped = stats.ratings_to_table(ratings)
    assert complete.value == pytest.approx(stats.cohen_kappa(table).value) and skipped == 1
    available = stats.cohen_kappa(ratings=ratings)
    assert available.value == pytest.approx(stats.conger_kappa(ratings).value)
    with pytest.raises(ValueError, match="exactly two raters"):
        stats.cohen_kappa(ratings=[["a", "b", "c"]])


def test_one_input_at_a_time():
    with pytest.raises(ValueError, match="exactly one"):
        stats.fleiss_kappa([["a", "b"]], table=[[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="exactly one"):
        stats.gwet_ac()


def test_table_and_expanded_ratings_agree():
    table = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
    ratings = stats.table_to_ratings(table)
    for name in ("percent_agreement", "brennan_prediger", "fleiss_kappa", "gwet_ac"):
        a, b = getattr(stats, name)(table=table), getattr(stats, name)(ratings, categories=[0, 1, 2])
        assert a.value == pytest.approx(b.value, abs=1e-12)
        assert a.standard_error == pytest.approx(b.standard_error, abs=1e-12)
    assert stats.conger_kappa(table=table).value == pytest.approx(stats.conger_kappa(ratings).value, abs=1e-12)
    assert stats.krippendorff_alpha(table=table).value == pytest.approx(stats.krippendorff_alpha(ratings).value)


def test_undefined_is_nan_with_a_reason_and_a_warning():
    with pytest.warns(stats.UndefinedAgreementWarning, match="undefined"):
        result = stats.cohen_kappa([[3, 0], [0, 0]])
    assert math.isnan(result.value) and result.undefined and result.to_dict()["value"] is None


def test_report_figures_equal_the_api_on_the_same_items(example_path):
    report = spanagree.score(example_path, candidates="tokens")
    section = report.to_dict()["chance_corrected"]
    items = report.items
    dense = np.full((items.n_items, len(report.raters)), nan)
    dense[items.rating_item, items.rating_rater] = items.rating_code
    categories = np.arange(len(items.categories), dtype=float)
    everyone = section["all_raters"]
    for key, name in (("fleiss_kappa", "fleiss_kappa"), ("conger_kappa", "conger_kappa"), ("gwet_ac1", "gwet_ac"),
                      ("krippendorff_alpha", "krippendorff_alpha"), ("percent_agreement", "percent_agreement"),
                      ("brennan_prediger", "brennan_prediger")):
        api = getattr(stats, name)(dense, categories=categories)
        assert everyone[key]["value"] == pytest.approx(api.value, abs=1e-12), key
        assert everyone[key]["standard_error"] == pytest.approx(api.standard_error, abs=1e-12), key
    complete = stats.fleiss_kappa(dense, categories=categories, missing="complete")
    assert everyone["fleiss_kappa_complete"]["value"] == pytest.approx(complete.value, abs=1e-12)
    for pair in section["pairs"]:
        table = np.array(pair["table"])
        coefficients = pair["coefficients"]
        assert coefficients["cohen_kappa"]["value"] == pytest.approx(stats.cohen_kappa(table).value, abs=1e-12)
        assert coefficients["scott_pi"]["value"] == pytest.approx(stats.fleiss_kappa(table=table).value, abs=1e-12)
        assert coefficients["bennett_s"]["value"] == pytest.approx(
            stats.brennan_prediger(table=table).value, abs=1e-12)


def test_report_prints_in_a_line(example_path):
    report = spanagree.score(example_path)
    text = repr(report)
    assert len(text) < 300 and "3 raters" in text and "50 documents" in text and "0.8" in text
    assert len(repr(report.corpus)) < 300 and "50 documents" in repr(report.corpus)


def test_toxic_spans_report_prints_in_a_line(real_dir):
    report = spanagree.score(real_dir / "toxic_spans.jsonl")
    assert len(repr(report)) < 300 and len(repr(report.corpus)) < 300


@pytest.mark.parametrize("function", [stats.krippendorff_alpha, stats.fleiss_kappa, stats.gwet_ac])
def test_infinite_values_are_refused_not_nan(function):
    with pytest.raises(ValueError, match=r"inf at \(item, rater\) \(1, 0\)"):
        function([[1.0, 2.0], [float("inf"), 1.0], [2.0, 2.0]])
    with pytest.raises(ValueError, match="must be finite"):
        stats.cohen_kappa([[1, float("inf")], [0, 2]])
