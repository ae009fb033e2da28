"""One summary: the report's point values and every bootstrap replicate, against a brute force.

The brute force below recomputes every PSA statistic of the report from the per-comparison counts with
plain Python loops (dicts of sums, one replicate at a time, from the same document draws), so it
shares no code with :mod:`spanagree.measures.psa.summary` or :mod:`spanagree.measures.psa.intervals`.
The corpus mixes rater pairs seen on one document (summed by document in the replicates) and
pairs seen on several (computed one by one).
"""
from __future__ import annotations

import json
import random
from collections import defaultdict

import numpy as np
import pytest

import spanagree
from spanagree.measures.psa import intervals
from spanagree.measures.psa import summary

REPLICATES = 60
SEED = 4
TEXT = "word " * 40


def _corpus(path, n_docs=18, n_raters=12, seed=7):
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as f:
        for d in range(n_docs):
            raters = rng.sample(range(n_raters), rng.randint(2, min(5, n_raters)))
            base = [(10 * s, 10 * s + 4, rng.choice("ABC")) for s in range(rng.randint(0, 4))]
            for r in raters:
                spans = [
                    {"start": s, "end": e + (rng.random() < 0.3), "label": lab if rng.random() > 0.15 else "D"}
                    for s, e, lab in base if rng.random() > 0.2
                ]
                if rng.random() < 0.2:
                    spans.append({"start": 5, "end": 8, "label": "A"})
                f.write(json.dumps({"doc_id": f"d{d:02d}", "text": TEXT, "annotator": f"r{r:02d}", "spans": spans}) + "\n")
    return path


def _psa(a, b, c):
    return None if 2 * a + b + c == 0 else 2 * a / (2 * a + b + c)


def _mean(pairs):
    """Weighted mean of (value, weight) over defined values with positive weight."""
    pairs = [(v, w) for v, w in pairs if v is not None and w > 0]
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total > 0 else None


def brute_force(report, weight):
    """Every PSA statistic with document ``d`` weighted ``weight[d]`` (1 everywhere: the data)."""
    counts, corpus = report.counts, report.corpus
    comparisons = counts.comparisons
    pair_sum = defaultdict(lambda: [0.0, 0.0, 0.0])
    drawn, seen = defaultdict(float), defaultdict(float)
    for u, (d, p) in enumerate(zip(comparisons.doc.tolist(), comparisons.pair.tolist())):
        for j in range(3):
            pair_sum[p][j] += weight[d] * float(counts.abc[u, j])
        drawn[p] += weight[d]
        seen[p] += 1
    omega = {p: drawn[p] / seen[p] for p in seen}
    cell = defaultdict(lambda: [0.0, 0.0, 0.0])
    for row, (u, k) in enumerate(zip(counts.label_comparison.tolist(), counts.label_code.tolist())):
        d, p = int(comparisons.doc[u]), int(comparisons.pair[u])
        for j in range(3):
            cell[p, k][j] += weight[d] * float(counts.label_abc[row, j])
    out = {("pairs", p, "psa"): _psa(*pair_sum[p]) for p in seen}
    out["overall", "pairwise_mean_psa"] = _mean((_psa(*pair_sum[p]), omega[p]) for p in seen)
    out["overall", "pooled_psa"] = _psa(*(sum(pair_sum[p][j] for p in seen) for j in range(3)))
    for k, name in enumerate(corpus.labels):
        keys = [key for key in cell if key[1] == k]
        out["labels", name, "pairwise_mean_psa"] = _mean((_psa(*cell[key]), omega[key[0]]) for key in keys)
        out["labels", name, "pooled_psa"] = _psa(*(sum(cell[key][j] for key in keys) for j in range(3)))
    for which in ("pairwise_mean_psa", "pooled_psa"):
        values = [out["labels", name, which] for name in corpus.labels if out["labels", name, which] is not None]
        out["macro", which] = sum(values) / len(values) if values else None
    for r in range(len(corpus.raters)):
        if corpus.raters[r] == report.reference:  # scored only in the reference section
            continue
        mine = [p for p in seen if r in comparisons.pairs[p].tolist()]
        out["raters", r, "mean_psa"] = _mean((_psa(*pair_sum[p]), omega[p]) for p in mine)
        a = own = other = 0.0
        for p in mine:
            pa, pb, pc = pair_sum[p]
            first = int(comparisons.pairs[p, 0]) == r
            a, own, other = a + pa, own + (pb if first else pc), other + (pc if first else pb)
        out["raters", r, "against_others", "f"] = _psa(a, own, other)
    return out


def _replicate_weights(report, options):
    """The document weights of each replicate, drawn as the bootstrap draws them."""
    n = len(np.unique(report.counts.comparisons.doc))
    rng = np.random.default_rng(options.seed)
    rows, done = [], 0
    while done < options.replicates:
        block = min(intervals.BLOCK, options.replicates - done)
        draws = rng.integers(0, n, size=(block, n), dtype=np.int32)
        rows += [np.bincount(drawn, minlength=n) for drawn in draws]
        done += block
    return np.unique(report.counts.comparisons.doc), rows


def _lookup(report_dict, report, path):
    """The value and interval of ``path`` in the report dict."""
    if path[0] == "pairs":
        names = [report.corpus.raters[i] for i in report.counts.comparisons.pairs[path[1]].tolist()]
        row = next(r for r in report_dict["pairs"] if r["raters"] == names)
        return row["psa"], row.get("psa_interval")
    if path[0] == "raters":
        row = next(r for r in report_dict["per_rater"] if r["rater"] == report.corpus.raters[path[1]])
        if path[2] == "mean_psa":
            return row["mean_psa"], row.get("mean_psa_interval")
        return row["against_others"]["f"], row["against_others"].get("f_interval")
    holder = report_dict[path[0]] if path[0] != "labels" else report_dict["labels"][path[1]]
    return holder[path[-1]], holder.get(f"{path[-1]}_interval")


@pytest.fixture(scope="module")
def crowd(tmp_path_factory):
    path = _corpus(tmp_path_factory.mktemp("crowd") / "crowd.jsonl")
    report = spanagree.score(path, rule="overlap", bootstrap=REPLICATES, seed=SEED, per_rater=True, reference="r03")
    return report, report.to_dict()


def test_the_corpus_has_both_kinds_of_pair(crowd):
    report, _ = crowd
    per_pair = np.bincount(report.counts.comparisons.pair)
    assert (per_pair == 1).sum() >= 10 and (per_pair > 1).sum() >= 10


def test_point_values_and_every_interval_match_a_brute_force(crowd):
    report, data = crowd
    point = brute_force(report, defaultdict(lambda: 1.0))
    docs, rows = _replicate_weights(report, report.interval_options)
    replicates = [brute_force(report, dict(zip(docs.tolist(), w.tolist()))) for w in rows]
    alpha = (1 - report.interval_options.level) / 2
    for path, expected in point.items():
        value, interval = _lookup(data, report, path)
        assert value == pytest.approx(expected, abs=1e-12), path
        defined = [r[path] for r in replicates if r[path] is not None]
        assert interval is not None, path
        assert interval["value"] == pytest.approx(expected, abs=1e-12), path
        assert interval.get("undefined_replicates", 0) == REPLICATES - len(defined), path
        if defined:
            assert interval["low"] == pytest.approx(float(np.quantile(defined, alpha)), abs=1e-12), path
            assert interval["high"] == pytest.approx(float(np.quantile(defined, 1 - alpha)), abs=1e-12), path
        else:
            assert interval["low"] is None and interval["high"] is None


def test_reference_and_pair_counts_match_a_brute_force(crowd):
    report, data = crowd
    ref = report.corpus.raters.index("r03")
    assert ref not in report.counts.comparisons.pairs  # the headline's pairs leave the reference out
    comparisons, counts = report.reference_counts.comparisons, report.reference_counts
    sums = defaultdict(lambda: np.zeros(3))
    for u, p in enumerate(comparisons.pair.tolist()):
        sums[p] += counts.abc[u]
    expected = {}
    for p, (x, y) in enumerate(comparisons.pairs.tolist()):
        if ref in (x, y):
            a, b, c = sums[p] if x == ref else sums[p][[0, 2, 1]]
            expected[report.corpus.raters[y if x == ref else x]] = (
                a / (a + c) if a + c else None, a / (a + b) if a + b else None, _psa(a, b, c))
    got = data["reference"]["raters"]
    assert set(got) == set(expected)
    for name, (precision, recall, f) in expected.items():
        assert (got[name]["precision"], got[name]["recall"], got[name]["f"]) == pytest.approx((precision, recall, f))


def test_summaries_of_a_few_pairs_and_of_all_agree(crowd):
    report, data = crowd
    few = report.with_pairs(np.array([0, 3]))
    assert [row["raters"] for row in few["pairs"]] == [data["pairs"][0]["raters"], data["pairs"][3]["raters"]]
    assert few["pairs"][1] == data["pairs"][3]
    assert few["overall"] == data["overall"] and few["labels"] == data["labels"]


def test_one_document_many_raters_costs_a_weighted_sum(tmp_path):
    """Every pair is seen on one document: no pair is computed one by one in a replicate."""
    lines = [
        {"doc_id": "d", "text": TEXT, "annotator": f"r{r:03d}", "spans": [{"start": 5 * (r % 7), "end": 5 * (r % 7) + 4, "label": "A"}]}
        for r in range(40)
    ]
    path = tmp_path / "one.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    report = spanagree.score(path, bootstrap=20, per_rater=True)
    counts = intervals.DocumentCounts(report)
    assert len(counts.multi) == 0 and counts.width < 1000
    data = report.to_dict()
    point = brute_force(report, defaultdict(lambda: 1.0))
    assert data["overall"]["pairwise_mean_psa"] == pytest.approx(point["overall", "pairwise_mean_psa"])
    assert data["overall"]["pairwise_mean_psa_interval"]["low"] == pytest.approx(point["overall", "pairwise_mean_psa"])
    assert all(row["psa_interval"]["low"] == row["psa"] for row in data["pairs"] if row["psa"] is not None)


def test_summarize_takes_a_replicate_axis():
    layout = summary.Layout(np.array([[0, 1], [0, 2]]), np.array([0, 1]), np.array([0, 0]), 1, 3)
    pair_abc = np.array([[[1.0, 1, 0], [0, 0, 0]], [[2.0, 0, 0], [1, 1, 1]]])
    s = summary.summarize(layout, pair_abc, pair_abc, pair_abc.sum(axis=1), pair_abc.sum(axis=1)[:, None],
                          pair_weight=np.array([[1.0, 1.0], [2.0, 1.0]]), raters=True)
    assert s.pairwise_mean.tolist() == pytest.approx([2 / 3, (2 * 1.0 + 1 * 0.5) / 3])
    assert np.isnan(s.rater_mean[0, 2]) and s.rater_mean[1, 2] == pytest.approx(0.5)
    assert s.label_mean[:, 0].tolist() == pytest.approx([2 / 3, (2 * 1.0 + 0.5) / 3])


def test_replicate_kappa_and_alpha_are_the_point_estimates_code():
    """The replicates' κ and α (arrays over any leading axes) are the point estimates' code: the
    same values to the last bit, and α's coincidences equal a loop over the units."""
    import float_views as stats

    rng = np.random.default_rng(0)
    tables = rng.integers(0, 6, size=(20, 3, 3)).astype(float)
    kappas = stats.cohen_kappa_array(tables)
    for table, kappa in zip(tables, kappas):
        assert np.isnan(kappa) if np.isnan(stats.cohen_kappa(table)) else kappa == stats.cohen_kappa(table)
    ratings = rng.integers(0, 3, size=(30, 4)).astype(float)
    ratings[rng.random(ratings.shape) < 0.2] = np.nan
    codes = stats.code_ratings(ratings, [0.0, 1.0, 2.0])[0]
    o = np.zeros((3, 3))  # Krippendorff's coincidences, by a loop over units: pairs weighted 1/(m_u - 1)
    for row in codes:
        values = row[row >= 0]
        for i in range(len(values)):
            for j in range(len(values)):
                if i != j:
                    o[values[i], values[j]] += 1.0 / (len(values) - 1)
    counts = np.stack([(codes == c).sum(axis=1) for c in range(3)], axis=1).astype(float)
    assert stats.coincidences(counts) == pytest.approx(o, abs=1e-12)
    assert float(stats.alpha_array(stats.coincidences(counts))) == stats.krippendorff_alpha(ratings)
    assert float(stats.alpha_array(o)) == pytest.approx(stats.krippendorff_alpha(ratings), abs=1e-12)


def test_chance_intervals_sit_beside_their_coefficients(tmp_path):
    path = _corpus(tmp_path / "c.jsonl", n_docs=12, n_raters=4, seed=2)
    data = spanagree.score(path, candidates="tokens", bootstrap=40, seed=1).to_dict()
    chance = data["chance_corrected"]
    for pair in chance["pairs"]:
        kappa = pair["coefficients"]["cohen_kappa"]
        if kappa["value"] is not None:
            assert kappa["interval"]["value"] == kappa["value"]  # one implementation: the same bits
    alpha = chance["all_raters"]["krippendorff_alpha"]
    assert alpha["interval"]["value"] == pytest.approx(alpha["value"], abs=1e-12)  # sums in another order
    assert alpha["interval"]["low"] <= alpha["interval"]["high"]


@pytest.mark.parametrize("small, grouped", [(10**9, 16), (0, 16), (0, 1), (0, 0)])
def test_every_way_of_summing_the_replicates_gives_the_same_intervals(crowd, monkeypatch, small, grouped):
    """Without the dense count matrix (many rater pairs), the replicates' sums come from a small
    dense matrix and the nonzero entries, grouped by their number per column or counted one by
    one: the intervals are those of the dense path (checked against the brute force above); the
    jackknife needs the dense matrix, so only its standard errors are missing."""
    report, _ = crowd
    options = intervals.IntervalOptions(replicates=REPLICATES, seed=SEED)
    expected = intervals.bootstrap(report, options)
    monkeypatch.setattr(intervals, "DENSE_CELLS", 0)
    monkeypatch.setattr(intervals, "SMALL_DENSE_CELLS", small)
    monkeypatch.setattr(intervals, "GROUPED_MAX", grouped)
    got = intervals.bootstrap(report, options)
    assert set(got) == set(expected)
    for path, entry in expected.items():
        assert got[path].keys() == entry.keys(), path
        for key, value in entry.items():
            if key == "se":
                assert got[path][key] in (None, 0.0), path
            elif value is None:
                assert got[path][key] is None, path
            else:
                assert got[path][key] == pytest.approx(value, abs=1e-12), (path, key)


@pytest.mark.parametrize("n_labels, n_pairs", [(3, 4), (50, 200), (3000, 3000)])  # table; table; sort
def test_label_cells_in_blocks_equal_one_sort(n_labels, n_pairs):
    rng = np.random.default_rng(n_labels)
    n_comparisons, n_rows = 500, 4000
    comparison_pair = rng.integers(0, n_pairs, n_comparisons).astype(np.int32)
    label_comparison = np.sort(rng.integers(0, n_comparisons, n_rows)).astype(np.int32)
    label_code = rng.integers(0, n_labels, n_rows).astype(np.int32)
    keys, expected_of = np.unique(label_code.astype(np.int64) * n_pairs + comparison_pair[label_comparison], return_inverse=True)
    for block in (7, 1000, 1 << 20):
        cell_pair, cell_label, cell_of = summary.label_cells(comparison_pair, label_comparison, label_code, n_pairs, block=block)
        assert cell_label.tolist() == (keys // n_pairs).tolist()
        assert cell_pair.tolist() == (keys % n_pairs).tolist()
        assert cell_of.tolist() == expected_of.reshape(-1).tolist()


@pytest.mark.parametrize("dtype", [np.uint8, np.float64])
def test_sums_in_blocks_equal_one_pass(dtype):
    from spanagree.core.counts import comparison_totals

    rng = np.random.default_rng(1)
    index = np.sort(rng.integers(0, 300, 5000))
    values = (rng.integers(0, 4, (5000, 3)) if dtype == np.uint8 else rng.random((5000, 3)) / 7).astype(dtype)
    one_pass = np.stack([np.bincount(index, weights=values[:, j].astype(np.float64), minlength=310) for j in range(3)], 1)
    for block in (13, 999, 1 << 20):
        assert np.array_equal(summary.bin_rows(index, values, 310, block=block), one_pass)  # bit for bit
        assert np.array_equal(comparison_totals(index, values, 310, block=block), one_pass)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("block", [1, 3, 7, 1 << 20])
def test_bin_psa_in_blocks_is_one_pass_to_the_bit(seed, block):
    """bin_psa in blocks gives the sums and counts of one pass over every row (sorted bins: the
    blocks are cut where the bin changes; unsorted: one pass), integer and fractional counts."""
    rng = np.random.default_rng(seed)
    n_rows, n_bins = int(rng.integers(0, 60)), int(rng.integers(1, 9))
    index = rng.integers(0, n_bins, n_rows)
    if seed % 2:
        index = np.sort(index)
    abc = rng.integers(0, 3, (n_rows, 3))
    if seed % 3 == 0:
        abc = abc * rng.random((n_rows, 3))
    values = summary.row_psa(np.asarray(abc, dtype=np.float64))
    undefined = np.isnan(values)
    expected_sum = np.bincount(index, weights=np.where(undefined, 0.0, values), minlength=n_bins)
    expected_n = np.bincount(index[~undefined], minlength=n_bins)
    total, defined = summary.bin_psa(index, abc, n_bins, block=block)
    assert total.tobytes() == expected_sum.tobytes()
    assert defined.tolist() == expected_n.tolist()
