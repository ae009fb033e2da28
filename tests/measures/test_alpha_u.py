"""Krippendorff's α_U: the published worked examples, edge cases and properties."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree.errors import UsageError
from spanagree.measures.unitizing.alpha_u import alpha_u, reduce_overlaps
from locations import FIXTURES


def run(units, length, n_raters=2, doc_length=None):
    """units: (doc, rater, label, start, length) tuples, label a string."""
    names = sorted({u[2] for u in units})
    code = {n: i for i, n in enumerate(names)}
    cols = np.array([(d, r, code[lab], s, s + n) for d, r, lab, s, n in units], dtype=np.int64).reshape(-1, 5)
    doc_length = np.array(doc_length if doc_length is not None else [length])
    out = alpha_u(*cols.T, doc_length, n_raters=n_raters, n_labels=len(names))
    out["by_name"] = {names[k]: v for k, v in out["per_label"].items()}
    return out


def krippendorff_1995(stretch: float):
    """Krippendorff (1995: 57): four labels, two raters each, on a continuum of 24 (stretched)."""
    raw = [
        (2, 8, 0, "A"), (14, 6, 0, "A"), (4, 4, 1, "A"), (15, 2, 1, "A"),
        (0, 18, 0, "B"), (0, 2, 1, "B"), (2, 1, 1, "B"), (3, 1, 1, "B"), (4, 1, 1, "B"),
        (5, 1, 1, "B"), (6, 3, 1, "B"), (9, 1, 1, "B"),
        (2, 6, 0, "C"), (10, 2, 0, "C"), (14, 4, 0, "C"), (20, 2, 0, "C"),
        (0, 2, 1, "C"), (4, 4, 1, "C"), (10, 4, 1, "C"), (16, 2, 1, "C"), (20, 2, 1, "C"),
        (0, 2, 0, "D"), (2, 8, 0, "D"), (10, 4, 0, "D"), (14, 6, 0, "D"), (20, 4, 0, "D"),
        (0, 4, 1, "D"), (4, 4, 1, "D"), (8, 7, 1, "D"), (15, 2, 1, "D"), (17, 7, 1, "D"),
    ]
    units = [(0, r, lab, int(s * stretch), int(n * stretch)) for s, n, r, lab in raw]
    return run(units, int(24 * stretch))


def test_krippendorff_1995_observed():
    # D_o per label as DKPro Statistics' Krippendorff1995Test states them
    out = krippendorff_1995(1)["by_name"]
    for lab, value in {"A": 0.03125, "B": 2.26736, "C": 0.02777, "D": 0.38715}.items():
        assert out[lab]["observed"] == pytest.approx(value, abs=1e-5)


def test_krippendorff_1995_expected_and_alpha():
    # stretched 50 times (the published D_e is the limit of a long continuum)
    out = krippendorff_1995(1200000 / 24)["by_name"]
    expected = {"A": 0.06990, "B": 1.17731, "C": 0.08642, "D": 0.41445}
    alpha = {"A": 0.553, "B": -0.926, "C": 0.679, "D": 0.066}
    for lab in "ABCD":
        assert out[lab]["expected"] == pytest.approx(expected[lab], abs=0.005)
        assert out[lab]["value"] == pytest.approx(alpha[lab], abs=0.02)


@pytest.mark.parametrize(
    "stretch, expected, alpha",
    [(12 / 24, 0.05494, 0.494), (120 / 24, 0.08234, 0.663), (1200 / 24, 0.08600, 0.677), (12000 / 24, 0.08638, 0.678)],
)
def test_krippendorff_1995_varying_lengths(stretch, expected, alpha):
    c = krippendorff_1995(stretch)["by_name"]["C"]
    assert c["observed"] == pytest.approx(0.02777, abs=1e-5)
    assert c["expected"] == pytest.approx(expected, abs=1e-5 if stretch == 0.5 else 0.005)
    assert c["value"] == pytest.approx(alpha, abs=0.02)


def krippendorff_2004():
    """Krippendorff (2004: 254): labels c and k, continuum [150, 450)."""
    units = [
        (225, 70, 0, "c"), (370, 30, 0, "c"), (220, 80, 1, "c"), (355, 20, 1, "c"), (400, 20, 1, "c"),
        (180, 60, 0, "k"), (300, 50, 0, "k"), (180, 60, 1, "k"), (300, 50, 1, "k"),
    ]
    return run([(0, r, lab, s - 150, n) for s, n, r, lab in units], 300)


def test_krippendorff_2004():
    out = krippendorff_2004()
    assert out["value"] == pytest.approx(0.8591, abs=0.0005)
    c, k = out["by_name"]["c"], out["by_name"]["k"]
    assert (c["observed"], c["expected"], c["value"]) == pytest.approx((0.0144, 0.0532, 0.7286), abs=1e-4)
    assert (k["observed"], k["expected"], k["value"]) == pytest.approx((0.0, 0.0490, 1.0), abs=1e-4)
    # overall: 1 - mean D_o / mean D_e, not the mean of per-label values
    assert out["value"] == pytest.approx(1 - (c["observed"] + k["observed"]) / (c["expected"] + k["expected"]))
    assert out["value"] != pytest.approx((c["value"] + k["value"]) / 2, abs=1e-3)


def test_short_example():
    # r0: -11111111-   r1: --1-1-1---   (DKPro Statistics' UnitizingAgreementTest)
    out = run([(0, 0, "A", 1, 8), (0, 1, "A", 2, 1), (0, 1, "A", 4, 1), (0, 1, "A", 6, 1)], 10)
    a = out["by_name"]["A"]
    assert (a["observed"], a["expected"], a["value"]) == pytest.approx((0.9100, 0.5351, -0.7003), abs=1e-4)


def test_single_unit_is_zero_exactly():
    # three raters, one unit: D_o equals D_e exactly, so α is 0 (not a rounding residue)
    out = run([(0, 0, "X", 0, 1)], 20, n_raters=3)
    assert out["value"] == 0.0
    assert out["observed"] == out["expected"]


def test_no_units_is_undefined():
    out = run([], 20, n_raters=3)
    assert out["value"] is None and out["reason"] == "no units"
    assert out["per_document_mean"]["value"] is None


def test_identical_raters_give_one():
    units = [(0, r, lab, s, n) for r in range(3) for lab, s, n in [("A", 2, 5), ("B", 4, 3), ("A", 10, 1)]]
    out = run(units, 20, n_raters=3)
    assert out["value"] == 1.0 and out["observed"] == 0.0


def test_overlapping_units_of_one_rater_are_reduced_and_counted():
    # INCEpTION's rule: by start, longer first; a unit overlapping an earlier one (kept or not) is left out
    assert reduce_overlaps(np.zeros(3, int), np.array([0, 0, 3]), np.array([2, 5, 9])).tolist() == [False, True, False]
    out = run([(0, 0, "A", 0, 5), (0, 0, "A", 0, 2), (0, 1, "A", 0, 5)], 10)
    assert out["overlapping_units_left_out"] == 1
    assert out["value"] == 1.0


def test_documents_laid_end_to_end():
    # two documents equal one continuum with offsets shifted; gaps run across the boundary
    units = [(0, 0, "A", 2, 3), (0, 1, "A", 3, 3), (1, 0, "A", 1, 4), (1, 1, "A", 6, 2)]
    two = run(units, None, doc_length=[10, 8])
    one = run([(0, r, lab, s + 10 * d, n) for d, r, lab, s, n in units], 18)
    assert two["value"] == one["value"] and two["expected"] == one["expected"]
    first = run(units[:2], 10)["value"]
    second = run([(0, r, lab, s, n) for _, r, lab, s, n in units[2:]], 8)["value"]
    assert two["per_document_mean"]["value"] == pytest.approx((first + second) / 2)
    assert two["per_document_mean"]["documents"] == 2


def test_bad_input():
    with pytest.raises(UsageError, match="at least 2 raters"):
        alpha_u([], [], [], [], [], [10], n_raters=1)
    with pytest.raises(UsageError, match="within its document"):
        alpha_u([0], [0], [0], [5], [12], [10], n_raters=2)


unit_lists = st.lists(
    st.tuples(st.integers(0, 1), st.integers(0, 2), st.integers(0, 1), st.integers(0, 15), st.integers(1, 5)),
    max_size=14,
)


@settings(max_examples=60, deadline=None)
@given(unit_lists, st.permutations([0, 1, 2]), st.randoms(use_true_random=False))
def test_invariant_to_rater_and_input_order(units, perm, rnd):
    units = [(d, r, lab, s, min(n, 20 - s)) for d, r, lab, s, n in units]
    base = run([(d, r, str(lab), s, n) for d, r, lab, s, n in units], None, n_raters=3, doc_length=[20, 20])
    shuffled = list(units)
    rnd.shuffle(shuffled)
    moved = run([(d, perm[r], str(lab), s, n) for d, r, lab, s, n in shuffled], None, n_raters=3, doc_length=[20, 20])
    for key in ("value", "observed", "expected", "overlapping_units_left_out"):
        assert base[key] == moved[key]
    assert base["per_document_mean"] == moved["per_document_mean"]


@settings(max_examples=60, deadline=None)
@given(unit_lists)
def test_matches_a_direct_walk(units):
    """Against a position-by-position walk of each rater pair's segments (Krippendorff 2004)."""
    L = 20
    units = [(0, r, lab, s, min(n, L - s)) for _, r, lab, s, n in units]
    out = run([(d, r, str(lab), s, n) for d, r, lab, s, n in units], L, n_raters=3)
    cols = np.array([(r, lab, s, s + n) for _, r, lab, s, n in units], dtype=np.int64).reshape(-1, 4)
    keep = reduce_overlaps(cols[:, 0] * 2 + cols[:, 1], cols[:, 2], cols[:, 3]) if len(cols) else []
    cols = cols[keep]
    for lab in {int(x) for x in cols[:, 1]}:
        mine = cols[cols[:, 1] == lab]
        total = 0
        for r1 in range(3):
            for r2 in range(3):
                if r1 == r2:
                    continue
                a = [(s, e) for r, _, s, e in mine if r == r1]
                b = [(s, e) for r, _, s, e in mine if r == r2]
                for s, e in a:
                    hits = [(t, f) for t, f in b if t < e and s < f]
                    if not hits:
                        total += (e - s) ** 2
                    elif r1 < r2:
                        total += sum((s - t) ** 2 + (e - f) ** 2 for t, f in hits)
        observed = 2 * total / (3 * 2 * L * L)
        assert out["by_name"][str(lab)]["observed"] == pytest.approx(observed)


DKPRO = json.loads((FIXTURES / "dkpro_alpha_u.json").read_text())["cases"]


@pytest.mark.parametrize("case", DKPRO, ids=[f"dkpro-{k}" for k in range(len(DKPRO))])
def test_matches_dkpro_statistics(case):
    """Random corpora (several documents laid end to end) against DKPro Statistics' own values."""
    u = np.array(case["units"], dtype=np.int64).reshape(-1, 5)
    out = alpha_u(u[:, 0], u[:, 1], u[:, 2], u[:, 3], u[:, 4], case["lengths"], n_raters=case["raters"],
                  n_labels=case["labels"])
    assert out["value"] == pytest.approx(case["value"], rel=1e-9, abs=1e-12)
    for name, value in case["per_label"].items():
        assert out["per_label"][int(name[1:])]["value"] == pytest.approx(value, rel=1e-9, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(unit_lists, st.integers(0, 10_000))
def test_a_bootstrap_replicate_is_alpha_u_of_the_resampled_corpus(units, seed):
    """One replicate, redone by hand: documents drawn with replacement, laid end to end in id order."""
    lengths = np.array([20, 12, 30])
    units = [(d, r, lab, s, min(n, lengths[d] - s)) for d, r, lab, s, n in units if s < lengths[d]]
    cols = np.array([(d, r, lab, s, s + n) for d, r, lab, s, n in units], dtype=np.int64).reshape(-1, 5)
    args = (cols[:, 0], cols[:, 1], cols[:, 2], cols[:, 3], cols[:, 4], lengths)
    got = alpha_u(*args, n_raters=3, n_labels=2, replicates=1, seed=seed).get("interval")
    rng = np.random.default_rng(seed)
    w = np.bincount(rng.integers(0, 3, 3), minlength=3)
    copies = np.repeat(np.arange(3), w)
    rows = [(k, r, lab, s, e) for k, d in enumerate(copies) for dd, r, lab, s, e in cols.tolist() if dd == d]
    resampled = np.array(rows, dtype=np.int64).reshape(-1, 5)
    expected = alpha_u(*resampled.T, lengths[copies], n_raters=3, n_labels=2)["value"]
    if got is None:  # no units at all: no value, no interval
        assert not len(cols)
    elif expected is None:
        assert got["low"] is None and got["undefined_replicates"] == 1
    else:
        assert got["low"] == got["high"] == pytest.approx(expected, rel=1e-12, abs=1e-12)
