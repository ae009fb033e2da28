"""The chance-corrected family on raw ratings (spanagree.measures.chance.family): published values, irrCAC's
values (a committed fixture), independent implementations, properties, and the CLI paths."""
from __future__ import annotations

import csv
import json
import math
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import spanagree
import float_views as stats
from spanagree.app.cli import app
from spanagree import stats as cac
from spanagree.measures.chance.benchmark import SCALES, benchmark
from spanagree.measures.chance.kappa_variance import cohen_kappa_uncertainty
from spanagree.measures.student_t import t_cdf, t_quantile
from spanagree.measures.chance.weights import NAMES, agreement_weights
from locations import FIXTURES as ALL_FIXTURES

FIXTURES = ALL_FIXTURES / "irrcac"
REFERENCE = json.loads((FIXTURES / "irrcac_reference.json").read_text())
nan = float("nan")
runner = CliRunner()


def dataset(name: str) -> np.ndarray:
    return np.array([[nan if x is None else x for x in row] for row in REFERENCE["data"][name]], dtype=float)


def diagnoses() -> np.ndarray:
    """Fleiss (1971)'s 30 patients × 6 psychiatrists (1 depression, 2 personality disorder,
    3 schizophrenia, 4 neurosis, 5 other), R irr's data set as the test-only ``pyirr`` package
    ships it (its cells read "4. Neurosis")."""
    from importlib.resources import files

    with files("pyirr").joinpath("data", "diagnoses.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    return np.array([[int(cell.split(".", 1)[0]) for cell in row[1:]] for row in rows])


# ================================================================================================
# 1. Published values
# ================================================================================================


class TestPublished:
    def test_cac_raw4raters_gwet_handbook(self):
        # Gwet (2014) / irrCAC documentation: AC1 0.77544 (SE 0.14295), Fleiss 0.76117 (SE 0.15302),
        # AC2 with bipolar weights 0.90037 (SE 0.10582); p_a 0.81818 throughout
        data = dataset("raw_4raters")
        ac1, fleiss = cac.gwet_ac(data), cac.fleiss_kappa(data)
        assert (round(ac1.value, 5), round(ac1.standard_error, 5)) == (0.77544, 0.14295)
        assert (round(fleiss.value, 5), round(fleiss.standard_error, 5)) == (0.76117, 0.15302)
        assert round(ac1.observed, 5) == 0.81818 and round(ac1.expected, 5) == 0.19032
        ac2 = cac.gwet_ac(data, weights="bipolar")
        assert (round(ac2.value, 5), round(ac2.standard_error, 5)) == (0.90037, 0.10582)
        assert (round(ac2.observed, 5), round(ac2.expected, 5)) == (0.96836, 0.68244)

    def test_fleiss_1971_diagnoses(self):
        # Fleiss (1971): 30 patients, 6 psychiatrists; κ 0.430 and the per-category κ_j of R's irr
        # (kappam.fleiss(detail=TRUE)); irrCAC's AC1 0.44788
        data = diagnoses()
        assert round(cac.fleiss_kappa(data).value, 3) == 0.430
        assert round(cac.gwet_ac(data).value, 5) == 0.44788
        per = cac.fleiss_kappa_per_category(data)
        assert [round(per[c].value, 3) for c in (1, 2, 3, 4, 5)] == [0.245, 0.245, 0.520, 0.471, 0.566]

    def test_two_documents_example(self):
        # x: POS, NEG; y: POS, POS (the categories are POS and NEG): S = 0, AC1 = 0.2
        ratings = [["POS", "POS"], ["NEG", "POS"]]
        assert cac.brennan_prediger(ratings).value == 0.0
        assert cac.gwet_ac(ratings).value == pytest.approx(0.2, abs=1e-12)

    def test_altman_benchmark_example(self):
        out = benchmark(0.67, 0.15, "altman")
        assert [round(b["cumulative"], 5) for b in out["bands"]] == [0.18168, 0.67511, 0.96356, 0.99912, 1.0]
        assert out["band"] == "moderate" and out["point_band"] == "good"


# ================================================================================================
# 2. irrCAC's values (fixture generated once; see fixtures/irrcac/README.md)
# ================================================================================================


CASES = sorted({(r["data"], r["weights"]) for r in REFERENCE["records"]})


@pytest.mark.parametrize("name,weights", CASES, ids=[f"{d}-{w}" for d, w in CASES])
def test_against_irrcac(name, weights):
    data = dataset(name)
    out = cac.family(data, weights=weights)
    complete = not np.isnan(data).any()
    for record in (r for r in REFERENCE["records"] if (r["data"], r["weights"]) == (name, weights)):
        est = out[record["coefficient"]]
        assert est.value == pytest.approx(record["value"], abs=1e-11)
        assert est.observed == pytest.approx(record["pa"], abs=1e-11)
        assert est.expected == pytest.approx(record["pe"], abs=1e-11)
        if record["coefficient"] != "krippendorff_alpha" or complete:
            # the Python port centres α's per-item agreement on p_a where Gwet's R code uses p'_a;
            # they agree when every item has the same number of ratings (we follow the R code)
            assert est.standard_error == pytest.approx(record["se"], abs=1e-11)


def test_interval_and_p_value_follow_student_t():
    est = cac.gwet_ac(dataset("raw_4raters"))
    half = t_quantile(0.975, est.n_items - 1) * est.standard_error
    assert est.low == pytest.approx(est.value - half) and est.high == min(1.0, est.value + half)
    assert est.p_value == pytest.approx(1 - t_cdf(est.value / est.standard_error, est.n_items - 1))
    # a finite population of N items shrinks the variance by (1 - n/N); N = n leaves none
    assert cac.gwet_ac(dataset("raw_4raters"), population=12).standard_error == 0.0
    shrunk = cac.gwet_ac(dataset("raw_4raters"), population=24).standard_error
    assert shrunk == pytest.approx(est.standard_error * math.sqrt(0.5))


def test_student_t_against_scipy():
    stats_t = pytest.importorskip("scipy.stats").t
    for df in (1, 2, 5, 29, 200, 10_000):
        for t in (-8.0, -1.3, 0.0, 0.4, 2.0, 25.0):
            assert t_cdf(t, df) == pytest.approx(stats_t.cdf(t, df), abs=1e-10)
        for p in (0.005, 0.5, 0.9, 0.975, 0.999):
            assert t_quantile(p, df) == pytest.approx(stats_t.ppf(p, df), rel=1e-9)


# ================================================================================================
# 3. Independent implementations (live)
# ================================================================================================


def random_ratings(rng, n, m, k, p_missing=0.0):
    truth = rng.integers(0, k, n)
    out = np.where(rng.random((n, m)) < 0.6, truth[:, None], rng.integers(0, k, (n, m))).astype(float)
    out[rng.random((n, m)) < p_missing] = nan
    return out


class TestIndependent:
    def test_complete_data_matches_statsmodels_nltk_and_stats(self):
        inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
        agreement = pytest.importorskip("nltk.metrics.agreement")
        rng = np.random.default_rng(5)
        for _ in range(40):
            m, k = int(rng.integers(2, 6)), int(rng.integers(2, 6))
            ratings = random_ratings(rng, int(rng.integers(5, 40)), m, k)
            cats = np.arange(k).astype(float)
            out = cac.family(ratings, categories=cats)
            table, _ = inter_rater.aggregate_raters(ratings.astype(int), n_cat=k)
            assert out["fleiss_kappa"].value == pytest.approx(inter_rater.fleiss_kappa(table), abs=1e-10)
            randolph = inter_rater.fleiss_kappa(table, method="randolph")
            assert out["brennan_prediger"].value == pytest.approx(randolph, abs=1e-10)
            task = agreement.AnnotationTask(data=[(str(r), str(i), int(ratings[i, r])) for i in range(len(ratings))
                                                  for r in range(m)])
            assert out["conger_kappa"].value == pytest.approx(task.multi_kappa(), abs=1e-10)
            assert out["gwet_ac"].value == pytest.approx(stats.gwet_ac1(ratings, categories=cats), abs=1e-12)
            assert out["krippendorff_alpha"].value == pytest.approx(stats.krippendorff_alpha(ratings), abs=1e-12)
            if m == 2:
                t = stats.ratings_to_table(ratings, categories=cats).table
                assert out["brennan_prediger"].value == pytest.approx(stats.bennett_s(t), abs=1e-12)
                assert out["fleiss_kappa"].value == pytest.approx(stats.scott_pi(t), abs=1e-12)
                assert out["conger_kappa"].value == pytest.approx(stats.cohen_kappa(t), abs=1e-12)
                assert cac.light_kappa(ratings) == pytest.approx(stats.cohen_kappa(t), abs=1e-12)

    def test_weighted_conger_two_raters_is_weighted_kappa(self):
        # one weights vocabulary: Conger's weighted κ of two raters on complete data is Cohen's
        # weighted κ of their table, for every weight family (categories 1..k)
        inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
        rng = np.random.default_rng(10)
        for _ in range(10):
            k = int(rng.integers(3, 6))
            ratings = random_ratings(rng, int(rng.integers(10, 40)), 2, k) + 1
            cats = np.arange(1, k + 1).astype(float)
            table = stats.ratings_to_table(ratings, categories=cats).table
            for name in NAMES:
                ours = cac.conger_kappa(ratings, categories=cats, weights=name).value
                assert ours == pytest.approx(stats.weighted_kappa(table, weights=name), abs=1e-10), name
            assert stats.weighted_kappa(table, weights="identity") == pytest.approx(stats.cohen_kappa(table))
            assert stats.weighted_kappa(table, weights="quadratic") == pytest.approx(
                inter_rater.cohens_kappa(table, wt="quadratic").kappa, abs=1e-10)

    def test_alpha_with_missing_and_weights_matches_krippendorff(self):
        krippendorff = pytest.importorskip("krippendorff")
        rng = np.random.default_rng(6)
        for _ in range(30):
            k = int(rng.integers(2, 6))
            ratings = random_ratings(rng, int(rng.integers(6, 40)), int(rng.integers(2, 6)), k, p_missing=0.3) + 1
            if (np.sum(~np.isnan(ratings), axis=1) >= 2).sum() < 2 or len(np.unique(ratings[~np.isnan(ratings)])) < 2:
                continue
            cats = np.arange(1, k + 1).astype(float)
            nominal = krippendorff.alpha(reliability_data=ratings.T, level_of_measurement="nominal", value_domain=cats)
            assert cac.krippendorff_alpha(ratings, categories=cats).value == pytest.approx(nominal, abs=1e-10)
            # quadratic agreement weights are 1 - δ²/max δ² of the interval metric: α is unchanged by the scale
            interval = krippendorff.alpha(reliability_data=ratings.T, level_of_measurement="interval")
            weighted = cac.krippendorff_alpha(ratings, categories=cats, weights="quadratic").value
            assert weighted == pytest.approx(interval, abs=1e-10)
            ratio = cac.krippendorff_alpha(ratings, categories=cats, weights="ratio").value
            assert ratio == pytest.approx(stats.krippendorff_alpha(ratings, distance="ratio"), abs=1e-10)

    def test_cohen_kappa_variance_matches_statsmodels(self):
        inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
        rng = np.random.default_rng(7)
        for _ in range(100):
            k = int(rng.integers(2, 7))
            table = rng.integers(0, 15, (k, k)) + np.diag(rng.integers(0, 40, k))
            ours, theirs = cohen_kappa_uncertainty(table), inter_rater.cohens_kappa(table)
            assert ours["value"] == pytest.approx(theirs.kappa, abs=1e-12)
            assert ours["standard_error"] == pytest.approx(theirs.std_kappa, abs=1e-12)
            assert ours["standard_error_null"] == pytest.approx(theirs.std_kappa0, abs=1e-12)
            assert (ours["low"], ours["high"]) == pytest.approx((theirs.kappa_low, theirs.kappa_upp), abs=1e-9)
            assert ours["p_value_two_sided"] == pytest.approx(theirs.pvalue_two_sided, abs=1e-12)

    def test_counts_and_tables_as_ratings(self):
        inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
        # statsmodels' test data (Wikipedia's Fleiss κ example): 10 items × 5 categories, 14 raters
        counts = np.array([[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
                           [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])
        with pytest.raises(ValueError, match="counts_to_ratings"):
            stats.fleiss_kappa(counts)
        with pytest.raises(ValueError, match="counts_to_ratings"):
            cac.fleiss_kappa(counts)
        ratings = stats.counts_to_ratings(counts)
        assert stats.fleiss_kappa(ratings) == pytest.approx(inter_rater.fleiss_kappa(counts), abs=1e-12)
        assert round(cac.fleiss_kappa(ratings).value, 3) == 0.210
        table = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]
        with pytest.raises(ValueError, match="table_to_ratings"):
            stats.gwet_ac1(table)
        ratings = stats.table_to_ratings(table)
        assert stats.ratings_to_table(ratings).table.tolist() == table
        assert cac.conger_kappa(ratings).value == pytest.approx(stats.cohen_kappa(table), abs=1e-12)
        # given categories, the values are labels and are taken as they are
        assert not math.isnan(stats.fleiss_kappa(counts, categories=np.arange(15)))


# ================================================================================================
# 4. Properties
# ================================================================================================


class TestProperties:
    @pytest.mark.parametrize("missing", ["available", "complete"])
    def test_per_category_kappa_is_fleiss_on_the_binary_recoding(self, missing):
        # each category's κ_j is Fleiss' κ with the ratings recoded to "j" and "other"
        # (cut from one items × categories table; here recoded and computed from scratch)
        rng = np.random.default_rng(11)
        for _ in range(30):
            data = random_ratings(rng, int(rng.integers(2, 40)), int(rng.integers(2, 6)), int(rng.integers(2, 6)), 0.2)
            per = cac.fleiss_kappa_per_category(data, missing=missing)
            for label, est in per.items():
                binary = np.where(np.isnan(data), nan, (data != label).astype(float))
                expected = cac.fleiss_kappa(binary, categories=[0.0, 1.0], missing=missing)
                for field in ("value", "standard_error", "observed", "expected", "n_items", "n_pairable"):
                    got, want = getattr(est, field), getattr(expected, field)
                    assert got == pytest.approx(want, rel=1e-12, abs=1e-15, nan_ok=True), (label, field)
                assert est.skipped == expected.skipped and est.undefined == expected.undefined

    def test_identical_raters_give_one(self):
        rng = np.random.default_rng(8)
        column = rng.integers(1, 5, 25).astype(float)
        column[:4] = [1, 2, 3, 4]
        ratings = np.repeat(column[:, None], 3, axis=1)
        ratings[rng.random(ratings.shape) < 0.2] = nan
        for weights in NAMES:
            for name, est in cac.family(ratings, weights=weights).items():
                assert est.value == pytest.approx(1.0), (weights, name)

    def test_invariant_to_item_and_rater_order(self):
        rng = np.random.default_rng(9)
        for _ in range(20):
            ratings = random_ratings(rng, int(rng.integers(6, 30)), int(rng.integers(2, 6)), 4, p_missing=0.25)
            shuffled = ratings[rng.permutation(len(ratings))][:, rng.permutation(ratings.shape[1])]
            cats = np.arange(4).astype(float)
            a, b = cac.family(ratings, categories=cats), cac.family(shuffled, categories=cats)
            for name in cac.COEFFICIENTS:
                for field in ("value", "standard_error"):
                    x, y = getattr(a[name], field), getattr(b[name], field)
                    assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, abs=1e-12)

    def test_table_family_equals_family_on_expanded_ratings(self):
        rng = np.random.default_rng(11)
        for _ in range(40):
            k = int(rng.integers(2, 6))
            table = rng.integers(0, 8, (k, k)) + np.diag(rng.integers(0, 10, k))
            for weights in ("identity", "quadratic", "circular"):
                direct = cac.table_family(table, weights=weights)
                expanded = cac.family(stats.table_to_ratings(table), categories=np.arange(k), weights=weights,
                                      coefficients=[c for c in cac.TABLE_COEFFICIENTS if c in cac.COEFFICIENTS])
                for name in expanded:
                    for field in ("value", "standard_error", "low", "high", "p_value"):
                        x, y = getattr(direct[name], field), getattr(expanded[name], field)
                        assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, abs=1e-12)

    def test_complete_items_option(self):
        data = dataset("raw_4raters")
        complete = cac.fleiss_kappa(data, missing="complete")
        assert complete.n_items == 8 and complete.skipped[cac.SKIP_INCOMPLETE] == 4
        assert complete.value == pytest.approx(stats.fleiss_kappa(data), abs=1e-12)
        full = diagnoses()
        for name in cac.COEFFICIENTS:
            a = cac.family(full, coefficients=[name])[name]
            b = cac.family(full, missing="complete", coefficients=[name])[name]
            assert (a.value, a.standard_error) == pytest.approx((b.value, b.standard_error))

    def test_weights_are_agreement_weights(self):
        for name in NAMES:
            for cats in ([1, 2, 3, 4, 5], [1.0, 2.5, 4.0, 7.0], ["a", "b", "c"]):
                w = agreement_weights(name, cats)
                assert np.allclose(np.diag(w), 1) and np.allclose(w, w.T) and (w >= -1e-12).all() and (w <= 1).all()
        with pytest.raises(ValueError, match="one of identity"):
            agreement_weights("cubic", [1, 2])
        with pytest.raises(ValueError, match="1 on the diagonal"):
            agreement_weights([[0, 1], [1, 0]], [1, 2])

    def test_benchmark_cumulative_probabilities(self):
        for value, se in ((0.3, 0.1), (0.9, 0.02), (-0.2, 0.3)):
            for scale in SCALES:
                out = benchmark(value, se, scale)
                cumulative = [b["cumulative"] for b in out["bands"]]
                assert all(x <= y + 1e-12 for x, y in zip(cumulative, cumulative[1:]))
                assert cumulative[-1] == pytest.approx(1.0)

    def test_undefined_is_nan_with_a_reason(self):
        one = cac.family([["a", "a"], ["a", "a"]])
        assert math.isnan(one["fleiss_kappa"].value) and one["fleiss_kappa"].undefined
        assert one["percent_agreement"].value == 1.0
        assert one["fleiss_kappa"].to_dict()["value"] is None
        lonely = cac.gwet_ac([["a", None], [None, "b"]])
        assert math.isnan(lonely.value) and "two or more" in lonely.undefined
        with pytest.raises(ValueError, match="missing="):
            cac.gwet_ac([["a", "b"]], missing="pairwise")


# ================================================================================================
# 5. Through the CLI
# ================================================================================================


def score_json(path, *args):
    result = runner.invoke(app, ["score", str(path), "--candidates", "documents", "--output", "json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["chance_corrected"]


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_cli_two_documents(tmp_path):
    records = [{"doc_id": d, "text": "t", "annotator": rater, "labels": [label]}
               for d, x, y in (("1", "POS", "POS"), ("2", "NEG", "POS")) for rater, label in (("x", x), ("y", y))]
    chance = score_json(write(tmp_path / "two.jsonl", records))
    assert chance["categories"] == ["NEG", "POS"]
    assert chance["pairs"][0]["coefficients"]["bennett_s"]["value"] == 0.0
    assert chance["all_raters"]["brennan_prediger"]["value"] == 0.0
    assert chance["all_raters"]["gwet_ac1"]["value"] == pytest.approx(0.2, abs=1e-12)
    text = runner.invoke(app, ["score", str(tmp_path / "two.jsonl"), "--candidates", "documents"]).stdout
    assert "Gwet's AC1" in text and "0.200" in text and "pairwise mean PSA" not in text


def test_cli_diagnoses_and_gate(tmp_path):
    names = {1: "depression", 2: "personality disorder", 3: "schizophrenia", 4: "neurosis", 5: "other"}
    records = [{"doc_id": f"p{i}", "text": f"patient {i}", "annotator": f"r{r}", "labels": [names[int(v)]]}
               for i, row in enumerate(diagnoses()) for r, v in enumerate(row)]
    path = write(tmp_path / "diagnoses.jsonl", records)
    everyone = score_json(path)["all_raters"]
    ref = {r["coefficient"]: r for r in REFERENCE["records"] if r["data"] == "diagnoses" and r["weights"] == "identity"}
    for key, name in (("gwet_ac1", "gwet_ac"), ("fleiss_kappa", "fleiss_kappa"), ("conger_kappa", "conger_kappa"),
                      ("brennan_prediger", "brennan_prediger"), ("krippendorff_alpha", "krippendorff_alpha")):
        assert everyone[key]["value"] == pytest.approx(ref[name]["value"], abs=1e-11)
        assert everyone[key]["standard_error"] == pytest.approx(ref[name]["se"], abs=1e-11)
    assert round(everyone["gwet_ac1"]["value"], 5) == 0.44788
    assert everyone["gwet_ac1"]["n_items"] == 30 and everyone["gwet_ac1"]["categories"] == sorted(names.values())
    assert round(everyone["fleiss_kappa_per_category"]["other"]["value"], 3) == 0.566
    pair = score_json(path)["pairs"][0]
    assert pair["raters"] == ["r0", "r1"]
    direct = cac.family(diagnoses()[:, :2], categories=[1, 2, 3, 4, 5], coefficients=["gwet_ac", "fleiss_kappa"])
    assert pair["coefficients"]["gwet_ac1"]["value"] == pytest.approx(direct["gwet_ac"].value, abs=1e-12)
    assert pair["coefficients"]["scott_pi"]["standard_error"] == pytest.approx(direct["fleiss_kappa"].standard_error)
    assert runner.invoke(app, ["gate", str(path), "--candidates", "documents", "--min", "gwet_ac1=0.46"]).exit_code == 1
    assert runner.invoke(app, ["gate", str(path), "--candidates", "documents", "--min", "gwet_ac1=0.44"]).exit_code == 0


def test_cli_multilabel_with_missing_ratings(tmp_path):
    # labels as lists (every label judged) for x and y; z answers Prodigy-style one label at a time,
    # so z's unjudged labels are missing ratings, not "not chosen"
    records = [
        {"doc_id": "1", "text": "one", "annotator": "x", "labels": ["A", "B"]},
        {"doc_id": "1", "text": "one", "annotator": "y", "labels": ["A"]},
        {"doc_id": "2", "text": "two", "annotator": "x", "labels": []},
        {"doc_id": "2", "text": "two", "annotator": "y", "labels": ["B"]},
        {"doc_id": "3", "text": "three", "annotator": "x", "labels": ["B"]},
        {"doc_id": "3", "text": "three", "annotator": "y", "labels": ["B"]},
    ]
    chance = score_json(write(tmp_path / "ml.jsonl", records))
    assert chance["scheme"] == "multilabel" and chance["categories"] == ["not chosen", "chosen"]
    # items (1,A) (1,B) (2,A) (2,B) (3,A) (3,B); x: 1 1 0 0 0 1, y: 1 0 0 1 0 1
    ratings = [[1, 1], [1, 0], [0, 0], [0, 1], [0, 0], [1, 1]]
    expected = cac.family(ratings)
    for key, name in (("gwet_ac1", "gwet_ac"), ("fleiss_kappa", "fleiss_kappa"),
                      ("krippendorff_alpha", "krippendorff_alpha")):
        assert chance["all_raters"][key]["value"] == pytest.approx(expected[name].value, abs=1e-12)
    # the "marked" table is the same binary items: κ there equals the pair's κ over the categories
    pair = chance["pairs"][0]
    assert pair["marked"]["cohen_kappa"]["value"] == pytest.approx(pair["coefficients"]["cohen_kappa"]["value"])


def test_prodigy_binary_answers_leave_missing_ratings(tmp_path):
    import zlib

    def task(text, rater, label, answer):
        return {"text": text, "_input_hash": zlib.crc32(text.encode()), "_annotator_id": rater, "label": label,
                "answer": answer}

    records = [task("t1", "x", "A", "accept"), task("t1", "y", "A", "accept"), task("t1", "z", "A", "reject"),
               task("t2", "x", "A", "reject"), task("t2", "y", "A", "reject"),
               task("t1", "x", "B", "reject"), task("t1", "y", "B", "accept"),
               task("t2", "z", "B", "accept"), task("t2", "x", "B", "accept")]
    path = tmp_path / "prodigy.jsonl"
    write(path, records)
    chance = score_json(path)
    ac1 = chance["all_raters"]["gwet_ac1"]
    # items (t1,A): x1 y1 z0; (t1,B): x0 y1; (t2,A): x0 y0; (t2,B): z1 x1 — raters skip items
    expected = cac.gwet_ac([[1, 1, 0], [0, 1, None], [0, 0, None], [1, None, 1]])
    assert ac1["value"] == pytest.approx(expected.value, abs=1e-12)
    assert ac1["n_items"] == 4 and chance["all_raters"]["fleiss_kappa_complete"]["n_items"] == 1


def test_report_lists_items_categories_and_skips(example_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chance = spanagree.score(spanagree.read(example_path), candidates="tokens").to_dict()["chance_corrected"]
    everyone = chance["all_raters"]
    assert chance["categories"][0] == "NONE" and chance["scheme"] == "spans"
    assert everyone["fleiss_kappa"]["n_items"] == chance["items"]["total"]
    complete = everyone["fleiss_kappa_complete"]
    assert complete["n_items"] + complete["skipped"][cac.SKIP_INCOMPLETE] == chance["items"]["total"]
    assert everyone["krippendorff_alpha"]["value"] == pytest.approx(
        stats.krippendorff_alpha(stats.CodedRatings(_dense(chance, example_path), np.arange(6))), abs=1e-12)
    assert everyone["light_kappa"]["value"] == pytest.approx(
        np.mean([p["coefficients"]["cohen_kappa"]["value"] for p in chance["pairs"]]))


def _dense(chance, example_path):
    from spanagree.io.candidates import document_tokens
    from spanagree.measures.chance.candidates import build_items

    corpus = spanagree.read(example_path)
    items = build_items(corpus, "tokens", spanagree.AlignmentRule(), tokens=document_tokens(corpus, "en"))
    dense = np.full((items.n_items, len(corpus.raters)), -1)
    dense[items.rating_item, items.rating_rater] = items.rating_code
    return dense


def test_contradicting_bands_are_explained(tmp_path):
    # one category dominates: κ-type chance terms are large, AC1's small, so the bands part ways
    records = []
    for d in range(40):
        for rater in ("x", "y", "z"):
            label = "B" if (d == 0 and rater != "z") or (d in (1, 2) and rater == "x") else "A"
            records.append({"doc_id": str(d), "text": f"doc {d}", "annotator": rater, "labels": [label]})
    chance = score_json(write(tmp_path / "skewed.jsonl", records))
    everyone = chance["all_raters"]
    assert everyone["gwet_ac1"]["value"] > 0.8 > everyone["fleiss_kappa"]["value"]
    assert chance["band_notes"] and "'A' takes" in chance["band_notes"][0]
    text = runner.invoke(app, ["score", str(tmp_path / "skewed.jsonl"), "--candidates", "documents"]).stdout
    assert "The bands differ" in text
    pytest.importorskip("matplotlib")
    out = tmp_path / "skewed.html"
    result = runner.invoke(app, ["report", str(tmp_path / "skewed.jsonl"), "--candidates", "documents",
                                 "--bootstrap", "20", "-o", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert "Chance-corrected family" in page and "The bands differ" in page and "Landis–Koch: <b>" in page


def test_crowd_tokens_use_every_rating(real_dir):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chance = spanagree.score(spanagree.read(real_dir / "btc_crowd.jsonl"), candidates="tokens").summary()[
            "chance_corrected"]
    everyone = chance["all_raters"]
    # Fleiss' κ on every rating uses the items α uses (two or more ratings); the complete-items form far fewer
    assert everyone["fleiss_kappa"]["n_pairable"] == everyone["krippendorff_alpha"]["n_items"]
    assert everyone["fleiss_kappa_complete"]["n_items"] < everyone["fleiss_kappa"]["n_pairable"]
    assert everyone["fleiss_kappa"]["standard_error"] > 0


def test_cli_interval_level(tmp_path):
    records = [{"doc_id": str(d), "text": "t", "annotator": r, "labels": [label]}
               for d, pair in enumerate((("A", "A"), ("A", "B"), ("B", "B"), ("A", "A"), ("B", "B"), ("B", "A")))
               for r, label in zip("xy", pair)]
    path = write(tmp_path / "level.jsonl", records)
    narrow = score_json(path, "--ci", "0.8")["all_raters"]["gwet_ac1"]
    wide = score_json(path)["all_raters"]["gwet_ac1"]
    assert narrow["analytic_interval"]["confidence"] == 0.8 and wide["analytic_interval"]["confidence"] == 0.95
    assert narrow["analytic_interval"]["low"] > wide["analytic_interval"]["low"]
    assert runner.invoke(app, ["score", str(path), "--candidates", "documents", "--ci", "1.5"]).exit_code == 2


def test_prodigy_choice_options_are_the_categories(tmp_path):
    import zlib

    options = [{"id": "SPORT", "text": "Sport"}, {"id": "NEWS", "text": "News"}, {"id": "ARTS", "text": "Arts"}]

    def task(text, rater, chosen):
        return {"text": text, "_input_hash": zlib.crc32(text.encode()), "_annotator_id": rater, "options": options,
                "accept": [chosen], "answer": "accept"}

    records = [task("t1", "x", "SPORT"), task("t1", "y", "SPORT"), task("t2", "x", "NEWS"), task("t2", "y", "SPORT")]
    chance = score_json(write(tmp_path / "choice.jsonl", records))
    # ARTS was offered but nobody chose it: still a category (q = 3), so S = (1/2 - 1/3)/(2/3)
    assert chance["scheme"] == "multiclass" and sorted(chance["categories"]) == ["ARTS", "NEWS", "SPORT"]
    assert chance["all_raters"]["brennan_prediger"]["value"] == pytest.approx(0.25)
