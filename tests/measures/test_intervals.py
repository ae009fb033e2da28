"""Bootstrap and jackknife intervals over documents (SPEC §6)."""
from __future__ import annotations

import numpy as np
import pytest

import spanagree
from spanagree.measures.psa import intervals
from spanagree.measures.psa.intervals import DocumentCounts, IntervalOptions, analytic_psa_se


@pytest.fixture(scope="module")
def report(example_path=None):
    from conftest import EXAMPLE

    return spanagree.score(spanagree.read(EXAMPLE), rule="overlap", candidates="tokens", bootstrap=300, seed=1)


def test_same_seed_same_interval_other_seed_other_interval(report):
    first = intervals.bootstrap(report, IntervalOptions(replicates=300, seed=1))
    again = intervals.bootstrap(report, IntervalOptions(replicates=300, seed=1))
    other = intervals.bootstrap(report, IntervalOptions(replicates=300, seed=2))
    assert first == again
    assert first["overall", "pairwise_mean_psa"]["low"] != other["overall", "pairwise_mean_psa"]["low"]


def test_intervals_contain_the_point_estimate_and_match_the_report(report):
    result = report.to_dict()
    for holder, name in [(result["overall"], "pairwise_mean_psa"), (result["overall"], "pooled_psa"),
                         (result["macro"], "pairwise_mean_psa"), *[(v, "pairwise_mean_psa") for v in result["labels"].values()],
                         *[(p, "psa") for p in result["pairs"]]]:
        interval = holder[f"{name}_interval"]
        assert interval["value"] == pytest.approx(holder[name], abs=1e-12)
        assert interval["low"] <= holder[name] <= interval["high"]
        assert interval["se"] > 0
    chance = result["chance_corrected"]
    alpha = chance["all_raters"]["krippendorff_alpha"]
    assert alpha["interval"]["value"] == pytest.approx(alpha["value"], abs=1e-9)
    for pair in chance["pairs"]:
        kappa = pair["coefficients"]["cohen_kappa"]
        assert kappa["interval"]["value"] == pytest.approx(kappa["value"], abs=1e-9)
        assert kappa["interval"]["low"] <= kappa["value"] <= kappa["interval"]["high"]
    assert result["intervals"] == {"method": intervals.METHOD,
                                   "level": 0.95, "replicates": 300, "seed": 1}


def test_without_bootstrap_the_report_is_unchanged(example_path):
    plain = spanagree.score(spanagree.read(example_path)).to_dict()
    assert "intervals" not in plain and "pairwise_mean_psa_interval" not in plain["overall"]


def test_dense_and_segment_sum_paths_agree(report, monkeypatch):
    dense = DocumentCounts(report)
    monkeypatch.setattr(intervals, "DENSE_CELLS", 0)
    sparse = DocumentCounts(report)
    assert dense.matrix is not None and sparse.matrix is None
    weights = np.random.default_rng(0).integers(0, 3, size=(7, dense.n_documents)).astype(float)
    for name, values in dense.sums(weights).items():
        np.testing.assert_allclose(sparse.sums(weights)[name], values, atol=1e-9)


def test_replicate_sums_are_the_same_by_every_path(report, monkeypatch):
    """The dense product, the small dense matrix beside the entries, the entries grouped by how
    many each column has and the long columns' weighted counts give equal sums."""
    weights = np.random.default_rng(1).integers(0, 4, size=(11, DocumentCounts(report).n_documents)).astype(float)
    expected = DocumentCounts(report).sums(weights)
    monkeypatch.setattr(intervals, "DENSE_CELLS", 0)
    for small, grouped in ((10**9, 16), (0, 16), (0, 1), (0, 0)):
        monkeypatch.setattr(intervals, "SMALL_DENSE_CELLS", small)
        monkeypatch.setattr(intervals, "GROUPED_MAX", grouped)
        got = DocumentCounts(report).sums(weights)
        assert set(got) == set(expected)
        for name, values in expected.items():
            np.testing.assert_allclose(got[name], values, atol=1e-9, err_msg=f"{name} {small} {grouped}")


def test_jackknife_matches_leaving_each_document_out(report):
    counts = DocumentCounts(report)
    loo = counts.statistics(counts.leave_one_out())["overall", "pooled_psa"]
    for row in (0, 5, counts.n_documents - 1):
        weights = np.ones((1, counts.n_documents))
        weights[0, row] = 0
        assert loo[row] == pytest.approx(counts.statistics(counts.sums(weights))["overall", "pooled_psa"][0])


def test_analytic_se_and_options():
    assert analytic_psa_se(227, 31, 50) == pytest.approx(2 * np.sqrt(227 * 81 * 308) / 535**2)
    with pytest.raises(spanagree.UsageError):
        IntervalOptions(level=1.5)
    with pytest.raises(spanagree.UsageError):
        IntervalOptions(replicates=1)


def test_labels_with_dots_and_colons(tmp_path):
    from records import line

    path = tmp_path / "dots.jsonl"
    import json

    path.write_text("".join(json.dumps(r) + "\n" for r in [
        line("d", "x", [(0, 5, "ORG.SUB"), (10, 13, "U.S.")]), line("d", "y", [(0, 5, "ORG.SUB")]),
        line("e", "x", [(0, 5, "a:b")]), line("e", "y", [(0, 5, "a:b")]),
    ]))
    report = spanagree.score(path, bootstrap=50).to_dict()
    assert report["labels"]["ORG.SUB"]["pairwise_mean_psa_interval"]["value"] == 1.0
    assert report["labels"]["U.S."]["pooled_psa_interval"]["value"] == 0.0


def test_pairwise_mean_intervals_cover_the_truth_with_sparse_rater_pairs(monkeypatch):
    """Crowd-like corpora (rater pairs seen on one document): the percentile interval of the
    pairwise mean PSA holds the model's value about 95% of the time. Averaging, in each
    replicate, over the pairs that happen to be defined, each once, is too narrow here."""
    import coverage_model

    assert coverage_model.coverage(120, 60, 200, seed=1) >= 0.9
    monkeypatch.setattr(intervals, "pair_weights", lambda drawn, seen: (drawn > 0).astype(float))
    assert coverage_model.coverage(120, 60, 200, seed=1) < 0.9


def test_a_pair_weighs_the_share_of_its_documents_drawn():
    drawn = np.array([[0.0, 2.0, 3.0], [1.0, 0.0, 0.0]])
    np.testing.assert_array_equal(intervals.pair_weights(drawn, np.array([1.0, 2.0, 0.0])),
                                  [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    values = np.array([[0.5, np.nan, 1.0]])
    from spanagree.measures.psa.summary import ratio, weighted_sums

    assert ratio(*weighted_sums(values, np.array([[1.0, 5.0, 3.0]])))[0] == pytest.approx(0.875)
    assert np.isnan(ratio(*weighted_sums(values, np.array([[0.0, 1.0, 0.0]])))[0])


def test_row_quantiles_are_numpys(report):
    values = np.random.default_rng(3).normal(size=(40, 57))
    values[values > 1.5] = np.nan
    values[7] = np.nan
    low, high, spread, n = intervals._row_quantiles(values, 0.025)
    for row in range(len(values)):
        defined = values[row][~np.isnan(values[row])]
        assert n[row] == len(defined)
        if len(defined):
            assert low[row] == pytest.approx(np.quantile(defined, 0.025), abs=1e-15)
            assert high[row] == pytest.approx(np.quantile(defined, 0.975), abs=1e-15)
            assert spread[row] == pytest.approx(defined.std(ddof=1), abs=1e-12)
