"""Mathet et al.'s γ: against pygamma-agreement's values (fixture), and properties."""
from __future__ import annotations

import json
from math import sqrt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree.errors import UsageError
from spanagree.measures.unitizing.gamma import SAMPLERS, Dissimilarity, _cat_disorders, best_alignment, gamma
from spanagree.measures.unitizing.samplers import continuum_statistics, statistical_samples
from locations import FIXTURES, ROOT

FIXTURE = json.loads((FIXTURES / "pygamma_gamma.json").read_text())
CASES = FIXTURE["cases"]


def columns(case):
    u = np.array(case["units"], dtype=np.int64).reshape(-1, 4)
    return u[:, 0], u[:, 1], u[:, 2], u[:, 3]


def dissimilarity(case):
    matrix = None if case["matrix"] is None else np.array(case["matrix"], dtype=np.float64)
    return Dissimilarity(alpha=case["alpha"], beta=case["beta"], categorical=matrix)


def align(case):
    rater, label, start, end = columns(case)
    return best_alignment(
        np.zeros(len(rater), np.int64), rater, label, start, end,
        n_raters=len(case["raters"]), dissimilarity=dissimilarity(case),
    )


def run_gamma(case, samples, seed=0, sampler="statistical"):
    rater, label, start, end = columns(case)
    return gamma(
        np.zeros(len(rater), np.int64), rater, label, start, end, np.array([int(end.max())]),
        n_raters=len(case["raters"]), n_labels=len(case["labels"]), dissimilarity=dissimilarity(case),
        samples=samples, seed=seed, sampler=sampler,
    )


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_observed_disorder_and_best_alignment(case):
    al = align(case)
    n_units, n_raters = len(case["units"]), len(case["raters"])
    # pygamma computes in float32
    assert al.total / (n_units / n_raters) == pytest.approx(case["observed_disorder"], rel=2e-6, abs=1e-6)
    ours = sorted(al.tuples.tolist())
    if ours != case["alignment"]:
        # a tie: the reference's alignment has the same disorder under our dissimilarity
        theirs = np.array(case["alignment"], dtype=np.int64)
        assert _total(case, theirs) == pytest.approx(al.total, rel=1e-9)


def _total(case, tuples):
    rater, label, start, end = columns(case)
    dis, n = dissimilarity(case), tuples.shape[1]
    pairs = n * (n - 1) / 2
    total = 0.0
    for row in tuples:
        for i in range(n):
            for j in range(i):
                u, v = row[i], row[j]
                total += 1.0 if u < 0 or v < 0 else float(dis(start[u], end[u], label[u], start[v], end[v], label[v]))
    return total / pairs


def test_most_best_alignments_are_the_same():
    same = sum(sorted(align(c).tuples.tolist()) == c["alignment"] for c in CASES)
    assert same >= len(CASES) - 6


def test_published_unitary_alignment_counts():
    # pygamma-agreement's own tests: 127 unitary alignments for 3by100 and 1085 for 2by1000 at alpha = 3
    for name, n in [("3by100", 127), ("2by1000", 1085)]:
        case = dict(next(c for c in CASES if c["name"] == name), alpha=3.0)
        assert len(align(case).tuples) == n


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_categorical_disorder_of_the_best_alignment(case):
    al = align(case)
    tuples = al.tuples
    if sorted(tuples.tolist()) != case["alignment"]:
        # a tie: another best alignment of the same disorder; score pygamma's own alignment
        tuples = np.asarray(case["alignment"], dtype=al.tuples.dtype)
    rater, label, start, end = columns(case)
    units = (label, start, end)
    group = np.zeros(len(tuples), np.int64)
    dis = dissimilarity(case)
    assert _cat_disorders(tuples, group, 1, units, dis, None)[0] == pytest.approx(case["cat_disorder"], rel=1e-5, abs=1e-6)
    for name, value in case["k_disorder"].items():
        k = case["labels"].index(name)
        assert _cat_disorders(tuples, group, 1, units, dis, k)[0] == pytest.approx(value, rel=1e-5, abs=1e-6)


SAMPLED = [c for c in CASES if "gamma" in c]


@pytest.mark.parametrize("case", SAMPLED, ids=[c["name"] for c in SAMPLED])
def test_shuffled_expected_disorder_within_sampling_precision(case):
    # the fixture's values come from pygamma-agreement's ShuffleContinuumSampler
    ref = case["gamma"]
    samples = 300 if len(case["units"]) < 50 else 30
    ours = run_gamma(case, samples, sampler="shuffle")
    se = sqrt(ref["expected_disorder_sd"] ** 2 / ref["samples"] + ours["expected_disorder_sd"] ** 2 / samples)
    assert abs(ours["expected_disorder"] - ref["expected_disorder"]) <= 4 * se + 1e-9
    assert ours["samples"] == samples and ours["precision"] is not None
    assert ours["value"] == pytest.approx(1 - ours["observed_disorder"] / ours["expected_disorder"])


def test_identical_raters_give_one():
    units = [(2, 9, 0), (12, 15, 1), (20, 30, 0)]
    cols = np.array([(r, lab, s, e) for r in range(3) for s, e, lab in units])
    out = gamma(np.zeros(len(cols), int), cols[:, 0], cols[:, 1], cols[:, 2], cols[:, 3], [40], n_raters=3)
    assert out["value"] == 1.0 and out["observed_disorder"] == 0.0
    assert out["gamma_cat"] == 1.0


def test_adjacent_units_align():
    # no overlap, yet d = ((5 + 5) / 10)^2 = 1 < 2: aligned rather than left alone
    al = best_alignment(np.zeros(2, int), np.array([0, 1]), np.array([0, 0]), np.array([0, 5]), np.array([5, 10]), n_raters=2)
    assert al.tuples.tolist() == [[0, 1]] and al.total == pytest.approx(1.0)


def test_documents_never_align_across():
    # the same two units, once in one document and once split over two
    doc = np.array([0, 1])
    al = best_alignment(doc, np.array([0, 1]), np.array([0, 0]), np.array([0, 5]), np.array([5, 10]), n_raters=2)
    assert len(al.tuples) == 2 and al.total == 2.0


def test_undefined_and_bad_input():
    assert gamma([], [], [], [], [], [10], n_raters=2)["value"] is None
    with pytest.raises(UsageError, match="at least 2 raters"):
        gamma([], [], [], [], [], [10], n_raters=1)
    with pytest.raises(UsageError, match="non-empty"):
        gamma([0], [0], [0], [4], [4], [10], n_raters=2)
    with pytest.raises(UsageError, match="sampler must be one of 'statistical', 'shuffle', got 'mathet'"):
        gamma([0], [0], [0], [2], [4], [10], n_raters=2, sampler="mathet")


unit_lists = st.lists(
    st.tuples(st.integers(0, 1), st.integers(0, 2), st.integers(0, 1), st.integers(0, 25), st.integers(1, 6)),
    min_size=1, max_size=12,
)


@settings(max_examples=30, deadline=None)
@given(unit_lists, st.permutations([0, 1, 2]), st.randoms(use_true_random=False))
def test_invariant_to_rater_and_input_order(units, perm, rnd):
    def run(rows, sampler):
        cols = np.array(sorted(set(rows)) if rows is None else rows, dtype=np.int64).reshape(-1, 5)
        return gamma(cols[:, 0], cols[:, 1], cols[:, 2], cols[:, 3], cols[:, 3] + cols[:, 4], [40, 40],
                     n_raters=3, n_labels=2, samples=10, seed=3, sampler=sampler)

    units = sorted(set(units))
    rows = [(d, r, lab, s, n) for d, r, lab, s, n in units]
    moved = [(d, perm[r], lab, s, n) for d, r, lab, s, n in units]
    rnd.shuffle(moved)
    for sampler in SAMPLERS:
        a, b = run(rows, sampler), run(moved, sampler)
        for key in ("value", "observed_disorder", "expected_disorder", "gamma_cat"):
            assert a[key] == pytest.approx(b[key], rel=1e-9, abs=1e-12)


def test_shuffled_continua_match_the_exact_expectation():
    """Two raters: the shuffle's distribution enumerated exactly (every first pivot, the second
    pivot's integer values with their probabilities, every choice of copied raters), against
    the sampled mean."""
    units = np.array([(0, 0, 11, 18), (0, 1, 10, 13), (0, 1, 18, 22), (0, 1, 31, 32), (1, 0, 5, 6), (1, 1, 1, 3)])
    rater, label, start, end = units.T
    sup, half = int(end.max()), float((end - start).mean()) / 2
    groups, weights = [], []
    cols = {k: [] for k in ("group", "rater", "label", "start", "end")}
    for p1 in range(sup):  # int(uniform(0, sup))
        segments = [(a, b) for a, b in ((0, p1 - half), (p1 + half, sup)) if b > a]
        total = sum(b - a for a, b in segments)
        second: dict[int, float] = {}
        for a, b in segments:
            for k in range(int(np.floor(a)), int(np.ceil(b))):
                overlap = min(b, k + 1) - max(a, k)
                if overlap > 0:
                    second[k] = second.get(k, 0.0) + overlap / total
        for p2, prob in second.items():
            for c1 in (0, 1):
                for c2 in (0, 1):
                    g = len(groups)
                    groups.append(g)
                    weights.append(prob / (4 * sup))
                    for slot, (c, p) in enumerate(((c1, p1), (c2, p2))):
                        mine = rater == c
                        s, e = start[mine] + p, end[mine] + p
                        s, e = np.where(s > sup, s - sup, s), np.where(s > sup, e - sup, e)
                        cols["group"] += [g] * mine.sum()
                        cols["rater"] += [slot] * mine.sum()
                        cols["label"] += label[mine].tolist()
                        cols["start"] += s.tolist()
                        cols["end"] += e.tolist()
    c = {k: np.array(v, dtype=np.int64) for k, v in cols.items()}
    al = best_alignment(c["group"], c["rater"], c["label"], c["start"], c["end"], n_raters=2)
    per_group = np.bincount(al.group, weights=al.disorder, minlength=len(groups))
    n_units = np.bincount(c["group"], minlength=len(groups))
    w = np.array(weights)
    nonempty = n_units > 0  # an empty sample is drawn again
    exact = float((w[nonempty] * per_group[nonempty] / (n_units[nonempty] / 2)).sum() / w[nonempty].sum())
    sampled = gamma(np.zeros(6, int), rater, label, start, end, [sup], n_raters=2, samples=4000, seed=11, per_label=False,
                    sampler="shuffle")
    se = sampled["expected_disorder_sd"] / sqrt(4000)
    assert abs(sampled["expected_disorder"] - exact) <= 4 * se


# --- the statistical sampler (pygamma-agreement's default) ---------------------------------------

STATISTICAL = json.loads((FIXTURES / "pygamma_statistical.json").read_text())
SHARED_CASES = ROOT.parent / "shared" / "unitizing-cases"


def shared_case(name):
    """Units of a continuum in the shared unitizing cases (spanagree JSONL, one document)."""
    path = SHARED_CASES / name
    if not path.exists():
        pytest.skip(f"{path.name} is not in ../shared/unitizing-cases (the shared test data is absent)")
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    raters = sorted({r["annotator"] for r in rows})
    labels = sorted({s["label"] for r in rows for s in r["spans"]})
    units = sorted({(raters.index(r["annotator"]), labels.index(s["label"]), s["start"], s["end"])
                    for r in rows for s in r["spans"]})
    return {"raters": raters, "labels": labels, "units": [list(u) for u in units], "alpha": 1.0, "beta": 1.0,
            "matrix": None}


@pytest.mark.parametrize("ref", STATISTICAL["cases"], ids=[c["name"] for c in STATISTICAL["cases"]])
def test_statistical_sampler_agrees_with_pygamma(ref):
    """Expected disorder and γ within sampling error of pygamma-agreement's default sampler, on
    its own test continua and DKPro's γ fixtures (tests/fixtures/README.md: how they were made)."""
    case = shared_case(ref["file"])
    samples = 1000 if ref["units"] < 50 else 30
    ours = run_gamma(case, samples, seed=5)
    assert ours["sampler"].startswith("statistical")
    assert ours["observed_disorder"] == pytest.approx(ref["observed_disorder"], rel=2e-6, abs=1e-6)
    se = sqrt(ref["expected_disorder_sd"] ** 2 / ref["samples"] + ours["expected_disorder_sd"] ** 2 / samples)
    assert abs(ours["expected_disorder"] - ref["expected_disorder"]) <= 4 * se + 1e-9
    # the two sampled disorders spread alike (one sample's disorder, not the mean)
    assert ours["expected_disorder_sd"] == pytest.approx(ref["expected_disorder_sd"], rel=0.5, abs=0.02)
    if ref["gamma"] is not None and ours["observed_disorder"] > 0:
        # γ = 1 - δo/δe: its sampling error from δe's by the delta method
        gamma_se = ours["observed_disorder"] / ref["expected_disorder"] ** 2 * se
        assert abs(ours["value"] - ref["gamma"]) <= 4 * gamma_se + 1e-9


def test_dkpro_fixture_05_and_2by1000_as_pygamma_gives_them():
    """The two values that differed under the shuffling sampler: DKPro's fixture 05 (pygamma
    −0.15 ± 0.14 in the report of the difference) and pygamma's 2by1000 (0.466 ± 0.006)."""
    fixture_05 = run_gamma(shared_case("dkpro_gamma_05_larger_two_annotators.jsonl"), 1000, seed=2)
    assert abs(fixture_05["value"] - (-0.15)) <= 0.05
    by1000 = run_gamma(next(c for c in CASES if c["name"] == "2by1000"), 30, seed=2)
    assert abs(by1000["value"] - 0.466) <= 0.006


def folded_normal_mean(mu, sd):
    """E|X| for X ~ N(mu, sd)."""
    from math import erf, exp, pi

    if sd == 0:
        return abs(mu)
    return sd * sqrt(2 / pi) * exp(-mu * mu / (2 * sd * sd)) + mu * erf(mu / (sd * sqrt(2)))


def test_statistical_samples_follow_the_continuums_statistics():
    """Independently of pygamma: many sampled continua, read back, have the numbers of units,
    gaps, lengths and label shares the sampler was given (folded normals where it takes |x|)."""
    case = next(c for c in CASES if c["name"] == "3by100")
    rater, label, start, end = columns(case)
    n_raters, n_labels = len(case["raters"]), len(case["labels"])
    given_stats = continuum_statistics(rater, label, start, end, n_raters, n_labels)
    samples = 400
    sample, s_rater, s_label, s_start, s_end = statistical_samples(
        np.random.default_rng(0), rater, label, start, end, n_raters, n_labels, samples)
    counts = np.bincount(sample * n_raters + s_rater, minlength=samples * n_raters)
    mu_n, sd_n = given_stats["units"]
    assert counts.mean() == pytest.approx(folded_normal_mean(mu_n, sd_n), rel=0.02)
    # back to the continuum's scale: the samples are scaled so that lengths are about 2^16 / mean
    mu_len, sd_len = given_stats["length"]
    scale = 2**16 / mu_len
    lengths = (s_end - s_start) / scale
    assert lengths.mean() == pytest.approx(folded_normal_mean(mu_len, sd_len), rel=0.01)
    # units come in the order drawn (a gap may be negative, so not always by start)
    run = sample * n_raters + s_rater
    same = run[1:] == run[:-1]
    gaps = ((s_start[1:] - s_end[:-1]) / scale)[same]
    mu_gap, sd_gap = given_stats["gap"]
    assert gaps.mean() == pytest.approx(mu_gap, abs=4 * sd_gap / sqrt(len(gaps)))
    assert gaps.std() == pytest.approx(sd_gap, rel=0.02)
    shares = np.bincount(s_label, minlength=n_labels) / len(s_label)
    assert np.allclose(shares, given_stats["label_share"], atol=0.01)
    assert (counts.reshape(samples, n_raters)[:, 0] >= 1).all()
    assert (s_end > s_start).all() and (s_start >= 0).all()


def test_continuum_statistics_by_hand():
    # rater 0: [2, 5) [4, 9) [12, 13); rater 1: [0, 3); gaps 0 (the one given), 4 - 5, 12 - 9,
    # and rater 0's first start 2 (rater 1's first start is 0: no gap)
    rater, label = np.array([0, 0, 0, 1]), np.array([0, 1, 1, 0])
    start, end = np.array([2, 4, 12, 0]), np.array([5, 9, 13, 3])
    got = continuum_statistics(rater, label, start, end, 3, 2)
    gaps = np.array([0, -1, 3, 2])
    assert got["gap"] == pytest.approx((gaps.mean(), gaps.std()))
    assert got["units"] == pytest.approx((np.mean([3, 1, 0]), np.std([3, 1, 0])))
    assert got["length"] == pytest.approx((np.mean([3, 5, 1, 3]), np.std([3, 5, 1, 3])))
    assert got["label_share"].tolist() == [0.5, 0.5]


def test_statistical_is_the_default_and_shuffle_an_option():
    case = next(c for c in CASES if c["name"] == "AlexPaulSuzan")
    assert run_gamma(case, 10)["sampler"] == SAMPLERS["statistical"]
    assert run_gamma(case, 10, sampler="shuffle")["sampler"] == SAMPLERS["shuffle"]


def test_gamma_cat_is_the_same_when_best_alignments_tie():
    """Rater 1 marks the same words twice with two labels; rater 0's two label-1 units can pair with
    either at the same total disorder, and the two alignments give different categorical
    disorders. The units' canonical order decides, so γ-cat does not depend on the input's order
    or the raters' names (found by the property test above)."""
    import itertools

    units = [(0, 0, 0, 2, 1), (0, 0, 1, 0, 1), (0, 0, 1, 0, 2), (0, 1, 0, 0, 1), (0, 1, 1, 0, 1)]
    seen = set()
    for perm in itertools.permutations([0, 1, 2]):
        for order in itertools.permutations(range(len(units))):
            rows = np.array([(d, perm[r], lab, s, s + n) for d, r, lab, s, n in (units[i] for i in order)])
            out = gamma(rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3], rows[:, 4], [40, 40], n_raters=3,
                        n_labels=2, samples=10, seed=3)
            seen.add((round(out["value"], 12), round(out["gamma_cat"], 12)))
    assert len(seen) == 1, seen
