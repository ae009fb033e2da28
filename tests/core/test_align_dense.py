"""Dense overlap: the sparse assignment path of the aligner against dynamic programming and brute force.

Components whose smaller side has more than ``DP_MAX_SIDE`` spans are solved by a sparse
assignment on folded whole-number weights (``spanagree.core.matching``); stars (one span on one
side) are chosen directly. Each path must give the same lexicographic optimum (credit, identical
pairs, same-label pairs, pairs) as the others and as exhaustive search, in every group of a batch.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_align import RULES, brute_force

from spanagree.core import align as align_module
from spanagree.core.align import AlignmentRule, SpanColumns, align, match


@contextmanager
def dp_max_side(value: int):
    held = align_module.DP_MAX_SIDE
    align_module.DP_MAX_SIDE = value
    try:
        yield
    finally:
        align_module.DP_MAX_SIDE = held


def columns(groups: list[list[tuple[int, int, str]]], labels: list[str]) -> tuple[SpanColumns, list[list[tuple[int, int, str]]]]:
    """Several groups of spans, each in canonical order, labels coded on ``labels``."""
    groups = [sorted(set(g)) for g in groups]
    rows = [(k, *s) for k, g in enumerate(groups) for s in g]
    return SpanColumns(
        group=np.array([r[0] for r in rows], np.int64),
        start=np.array([r[1] for r in rows], np.int64),
        end=np.array([r[2] for r in rows], np.int64),
        label=np.array([labels.index(r[3]) for r in rows], np.int64),
    ), groups


def summary(a: SpanColumns, b: SpanColumns, found, n_groups: int) -> list[tuple[float, int, int, int]]:
    """Per group: (credit, identical pairs, same-label pairs, pairs) of a matching, checked one-to-one."""
    ia, ib = found.a_index, found.b_index
    assert len(set(ia.tolist())) == len(ia) and len(set(ib.tolist())) == len(ib)
    assert np.array_equal(a.group[ia], b.group[ib])
    same_label = a.label[ia] == b.label[ib]
    identical = same_label & (a.start[ia] == b.start[ib]) & (a.end[ia] == b.end[ib])
    g = a.group[ia]
    return [
        (
            round(float(found.credit[g == k].sum()), 9),
            int(identical[g == k].sum()),
            int(same_label[g == k].sum()),
            int((g == k).sum()),
        )
        for k in range(n_groups)
    ]


def aligned(a_groups, b_groups, rule, side):
    """Per-group summaries of ``align`` with ``DP_MAX_SIDE = side``, and the groups as aligned."""
    labels = sorted({s[2] for g in [*a_groups, *b_groups] for s in g})
    a, a_groups = columns(a_groups, labels)
    b, b_groups = columns(b_groups, labels)
    with dp_max_side(side):
        found = align(a, b, rule)
    return summary(a, b, found, len(a_groups)), a_groups, b_groups


dense_span = st.tuples(st.integers(0, 12), st.integers(1, 8), st.sampled_from("XY")).map(
    lambda t: (t[0], t[0] + t[1], t[2])
)
few = st.lists(dense_span, max_size=5)
many = st.lists(dense_span, min_size=3, max_size=10)


@settings(max_examples=120, deadline=None)
@given(a_groups=st.lists(few, min_size=1, max_size=4), b_groups=st.lists(few, min_size=1, max_size=4),
       rule=st.sampled_from(RULES))
def test_sparse_path_equals_brute_force_in_every_group(a_groups, b_groups, rule):
    n = min(len(a_groups), len(b_groups))
    a_groups, b_groups = a_groups[:n], b_groups[:n]
    sparse, a_sorted, b_sorted = aligned(a_groups, b_groups, rule, side=0)
    default, _, _ = aligned(a_groups, b_groups, rule, side=align_module.DP_MAX_SIDE)
    expected = [tuple(round(x, 9) if isinstance(x, float) else x for x in brute_force(rule, a, b))
                for a, b in zip(a_sorted, b_sorted)]
    assert sparse == expected
    assert default == expected


@settings(max_examples=60, deadline=None)
@given(a_groups=st.lists(many, min_size=1, max_size=3), b_groups=st.lists(many, min_size=1, max_size=3),
       rule=st.sampled_from(RULES))
def test_sparse_path_equals_dynamic_programming_on_dense_groups(a_groups, b_groups, rule):
    # up to 10 spans a side, often all overlapping one another: solved by DP (side 10) and sparse (side 0)
    n = min(len(a_groups), len(b_groups))
    sparse, _, _ = aligned(a_groups[:n], b_groups[:n], rule, side=0)
    dp, _, _ = aligned(a_groups[:n], b_groups[:n], rule, side=10)
    default, _, _ = aligned(a_groups[:n], b_groups[:n], rule, side=align_module.DP_MAX_SIDE)
    assert sparse == dp
    assert default == dp


@pytest.mark.parametrize("rule", RULES, ids=lambda r: f"{r.rule}-{r.labels}-{r.proportional}")
def test_ties_identical_pairs_are_kept_in_large_components(rule):
    # 12 nested spans a side: rater B repeats A's spans, some relabelled, and adds shifted copies
    # that tie with them on credit; every identical pair must be kept, as the DP keeps it
    a_spans = [(k, 40 - k, "XY"[k % 2]) for k in range(12)]
    b_spans = [(s, e, lab if k % 3 else "XY"[(k + 1) % 2]) for k, (s, e, lab) in enumerate(a_spans)]
    b_spans += [(s + 1, e + 1, lab) for s, e, lab in a_spans[::2]]
    sparse, a_sorted, b_sorted = aligned([a_spans], [b_spans], rule, side=0)
    dp, _, _ = aligned([a_spans], [b_spans], rule, side=12)
    assert sparse == dp
    # where a lexicographic optimum provably keeps every identical pair (docs/alignment.md)
    if rule.rule == "exact" or rule.rule == "partial" and rule.partial_credit <= 0.5 or rule.proportional == "jaccard" and rule.rule == "proportional":
        assert sparse[0][1] == sum(s in set(b_spans) for s in a_spans)


def test_large_component_counts_in_a_batch_equal_each_alone():
    rng = np.random.default_rng(3)
    groups_a, groups_b = [], []
    for _ in range(6):
        base = [(int(s), int(s) + int(rng.integers(2, 9)), "XYZ"[int(rng.integers(0, 3))]) for s in rng.integers(0, 60, 25)]
        groups_a.append(base)
        groups_b.append([(s + int(rng.integers(-1, 2)) if rng.random() < 0.3 else s, e, lab) for s, e, lab in base])
    groups_b = [[(max(0, s), max(s + 1, e), lab) for s, e, lab in g] for g in groups_b]
    for rule in RULES:
        together, _, _ = aligned(groups_a, groups_b, rule, side=align_module.DP_MAX_SIDE)
        alone = [aligned([ga], [gb], rule, side=align_module.DP_MAX_SIDE)[0][0] for ga, gb in zip(groups_a, groups_b)]
        assert together == alone


def test_fold_keeps_the_credit_exact_when_levels_do_not_fit():
    # a component too large for every tie-break level: the credit order survives, and whole credits stay whole
    credit = np.array([0.5, 1.0, 0.25])
    keys = np.array([[0, 1, 1], [1, 1, 1], [0, 0, 1]])
    weight = align_module._fold(credit, keys, 10**6, 10**6)
    assert weight[1] > weight[0] > weight[2] > 0
    assert np.all(weight == np.round(weight))
    small = align_module._fold(credit, keys, 3, 3)
    # with room, the levels are kept: identical (1) and same label (1) add to the whole credit
    assert small[1] > 2 * small[0]


def test_stars_pick_the_best_edge_then_the_earliest():
    # A's (0, 10) overlaps three spans of B; the identical one wins, then the earliest
    a = SpanColumns.from_spans([(0, 10, "X")])
    b = SpanColumns.from_spans([(0, 4, "X"), (0, 10, "X"), (5, 9, "X")])
    for rule in ("overlap", "partial", "proportional"):
        found = align(a, b, AlignmentRule(rule))
        assert found.b_index.tolist() == [1]
    b = SpanColumns.from_spans([(2, 6, "X"), (4, 8, "X")])
    found = align(a, b, AlignmentRule("overlap"))
    assert found.b_index.tolist() == [0]


def test_matching_module_solves_a_chain_exactly():
    from spanagree.core.matching import max_weight_matching

    # a path r0-c0-r1-c1-r2: {r0c0, r1c1} = 2 + 3 beats {r1c0, r2c1} = 3 + 1 and r1c0 alone
    rows = np.array([0, 1, 1, 2])
    cols = np.array([0, 0, 1, 1])
    assert max_weight_matching(rows, cols, np.array([2.0, 3.0, 3.0, 1.0]), 3, 2).tolist() == [0, 2]
    assert max_weight_matching(rows, cols, np.array([1.0, 5.0, 1.0, 1.0]), 3, 2).tolist() == [1, 3]
    # two components in one call, each on its own scale
    group = np.array([0, 0, 0, 0, 1])
    rows, cols = np.append(rows, 3), np.append(cols, 2)
    picked = max_weight_matching(rows, cols, np.array([2.0, 3.0, 3.0, 1.0, 2.0**40]), 4, 3, group=group)
    assert picked.tolist() == [0, 2, 4]


@settings(max_examples=60, deadline=None)
@given(edges=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9), st.integers(1, 6), st.integers(0, 1)),
                      min_size=1, max_size=40, unique_by=lambda e: e[:2]),
       exact=st.booleans())
def test_match_on_credits_that_are_not_small_fractions(edges, exact):
    # gamma passes arbitrary real weights: those are compared on a 2^-36 grid, so the credit total
    # must equal the DP's; with fraction credits (k/7) every level must too
    edges = sorted(edges)
    ia = np.array([e[0] for e in edges])
    ib = np.array([e[1] for e in edges])
    credit = np.array([e[2] / 7 if exact else np.sqrt(e[2]) / 3 for e in edges])
    levels = np.array([[e[3]] for e in edges])
    found = {}
    for side in (0, 10):
        with dp_max_side(side):
            m = match(ia, ib, credit, 10, 10, levels=levels)
        assert len(set(m.a_index.tolist())) == len(m.a_index) and len(set(m.b_index.tolist())) == len(m.b_index)
        picked = {(a, b) for a, b in zip(m.a_index.tolist(), m.b_index.tolist())}
        found[side] = (m.total, sum(e[3] for e in edges if e[:2] in picked), len(picked))
    assert found[0][0] == pytest.approx(found[10][0], abs=1e-9)
    if exact:
        assert found[0][1:] == found[10][1:]


@pytest.mark.parametrize("rule", [AlignmentRule("proportional", "ignore"), AlignmentRule("proportional", "strict", proportional="dice"),
                                  AlignmentRule("partial", "ignore", partial_credit=0.7), AlignmentRule("overlap", "ignore")],
                         ids=lambda r: f"{r.rule}-{r.labels}-{r.proportional}")
def test_one_large_component_total_equals_an_independent_assignment_solver(rule):
    # 1,000 spans a side, 10 to 40 long, one starting every 3 units: large components. The largest
    # total credit must equal SciPy's dense linear_sum_assignment (the dense Hungarian algorithm
    # this replaced rounded credits coarsely in components this large and fails here)
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(7)
    a_spans = [(3 * i, 3 * i + int(rng.integers(10, 40)), "XY"[i % 2]) for i in range(1000)]
    b_spans = sorted({(s + int(rng.integers(0, 9)), e + int(rng.integers(0, 9)), lab) if rng.random() < 0.8 else (s, e, lab)
                      for s, e, lab in a_spans})
    labels = ["X", "Y"]
    a, _ = columns([a_spans], labels)
    b, _ = columns([b_spans], labels)
    found = align(a, b, rule)
    ia, ib = align_module.candidate_pairs(a, b, by_label=rule.by_label)
    dense = np.zeros((len(a), len(b)))
    dense[ia, ib] = rule.credit(a.start[ia], a.end[ia], b.start[ib], b.end[ib])
    r, c = linear_sum_assignment(dense, maximize=True)
    assert found.total == pytest.approx(dense[r, c].sum(), abs=1e-9)
