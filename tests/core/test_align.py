"""The aligner against a brute-force optimal matcher, and its symmetry and order properties."""
from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanagree.core.align import AlignmentRule, SpanColumns, align, align_spans, candidate_pairs
from spanagree.errors import UsageError

RULES = [
    AlignmentRule("exact", "strict"),
    AlignmentRule("exact", "ignore"),
    AlignmentRule("overlap", "strict"),
    AlignmentRule("overlap", "ignore", min_overlap=3),
    AlignmentRule("partial", "strict", partial_credit=0.5),
    AlignmentRule("partial", "ignore", partial_credit=0.25),
    AlignmentRule("proportional", "strict", proportional="jaccard"),
    AlignmentRule("proportional", "ignore", proportional="dice"),
]


def credit_of(rule: AlignmentRule, x, y) -> float:
    """The rule written out for one pair, straight from SPEC §2."""
    if rule.labels == "strict" and x[2] != y[2]:
        return 0.0
    overlap = min(x[1], y[1]) - max(x[0], y[0])
    same = x[0] == y[0] and x[1] == y[1]
    if rule.rule == "exact":
        return 1.0 if same else 0.0
    if rule.rule == "overlap":
        shorter = min(x[1] - x[0], y[1] - y[0])
        return 1.0 if overlap > 0 and overlap >= min(rule.min_overlap, shorter) else 0.0
    if overlap <= 0:
        return 0.0
    if rule.rule == "partial":
        return 1.0 if same else rule.partial_credit
    if rule.proportional == "jaccard":
        return overlap / (max(x[1], y[1]) - min(x[0], y[0]))
    return 2 * overlap / ((x[1] - x[0]) + (y[1] - y[0]))


def matchings(spans_a, spans_b, allowed):
    """Every one-to-one matching (as a list of index pairs) whose pairs are all ``allowed``."""
    n_a, n_b = len(spans_a), len(spans_b)
    yield []
    for k in range(1, min(n_a, n_b) + 1):
        for rows in itertools.combinations(range(n_a), k):
            for cols in itertools.permutations(range(n_b), k):
                pairs = list(zip(rows, cols))
                if all(allowed(spans_a[i], spans_b[j]) for i, j in pairs):
                    yield pairs


def brute_force(rule, spans_a, spans_b) -> tuple[float, int, int, int]:
    """The lexicographic best over every one-to-one matching (exhaustive): largest total credit,
    then most identical pairs, then most same-label pairs, then most pairs.

    Returns (credit, identical, same label, pairs)."""
    best = (0.0, 0, 0, 0)
    for pairs in matchings(spans_a, spans_b, lambda x, y: credit_of(rule, x, y) > 0):
        value = (
            sum(credit_of(rule, spans_a[i], spans_b[j]) for i, j in pairs),
            sum(spans_a[i] == spans_b[j] for i, j in pairs),
            sum(spans_a[i][2] == spans_b[j][2] for i, j in pairs),
            len(pairs),
        )
        if value[0] > best[0] + 1e-12 or abs(value[0] - best[0]) <= 1e-12 and value[1:] > best[1:]:
            best = value
    return best


span = st.tuples(st.integers(0, 30), st.integers(1, 8), st.sampled_from("XYZ")).map(
    lambda t: (t[0], t[0] + t[1], t[2])
)
span_lists = st.lists(span, max_size=5, unique=True)


@settings(max_examples=150, deadline=None)
@given(spans_a=span_lists, spans_b=span_lists, rule=st.sampled_from(RULES), search=st.sampled_from(["sweep", "tree"]))
def test_aligner_equals_brute_force(spans_a, spans_b, rule, search):
    columns_a, columns_b = SpanColumns.from_spans(spans_a), SpanColumns.from_spans(spans_b)
    labels = sorted({s[2] for s in spans_a + spans_b})
    # re-code labels on one shared vocabulary
    columns_a = _recode(spans_a, labels)
    columns_b = _recode(spans_b, labels)
    found = align(columns_a, columns_b, rule, search=search)
    total, identical, same_label, pairs = brute_force(rule, sorted(spans_a), sorted(spans_b))
    assert found.total == pytest.approx(total, abs=1e-9)
    assert len(found.credit) == pairs
    chosen = [(sorted(spans_a)[i], sorted(spans_b)[j]) for i, j in zip(found.a_index.tolist(), found.b_index.tolist())]
    assert sum(x == y for x, y in chosen) == identical
    assert sum(x[2] == y[2] for x, y in chosen) == same_label
    # one-to-one
    assert len(set(found.a_index.tolist())) == len(found.a_index)
    assert len(set(found.b_index.tolist())) == len(found.b_index)


@settings(max_examples=100, deadline=None)
@given(spans_a=span_lists, spans_b=span_lists, rule=st.sampled_from(RULES))
def test_symmetric_and_order_independent(spans_a, spans_b, rule):
    forward = sum(w for *_, w in align_spans(spans_a, spans_b, rule))
    backward = sum(w for *_, w in align_spans(spans_b, spans_a, rule))
    shuffled_a, shuffled_b = spans_a[::-1], random.Random(0).sample(spans_b, len(spans_b))
    again = sum(w for *_, w in align_spans(shuffled_a, shuffled_b, rule))
    assert forward == pytest.approx(backward, abs=1e-9)
    assert forward == pytest.approx(again, abs=1e-9)


def _recode(spans, labels) -> SpanColumns:
    spans = sorted(spans)
    return SpanColumns(
        group=np.zeros(len(spans), np.int64),
        start=np.array([s[0] for s in spans], np.int64),
        end=np.array([s[1] for s in spans], np.int64),
        label=np.array([labels.index(s[2]) for s in spans], np.int64),
    )


def _random_groups(rng, n_groups, max_spans, max_len):
    rows = []
    for g in range(n_groups):
        for _ in range(rng.integers(0, max_spans + 1)):
            s = int(rng.integers(0, 60))
            rows.append((g, s, s + int(rng.integers(1, max_len + 1)), int(rng.integers(0, 3))))
    rows.sort()
    arr = np.array(rows, dtype=np.int64).reshape(-1, 4)
    return SpanColumns(group=arr[:, 0], start=arr[:, 1], end=arr[:, 2], label=arr[:, 3])


@pytest.mark.parametrize("by_label", [True, False])
@pytest.mark.parametrize("exact", [True, False])
def test_sweep_and_tree_find_the_same_candidates_in_many_groups(by_label, exact):
    rng = np.random.default_rng(7)
    a = _random_groups(rng, 200, 6, 12)
    b = _random_groups(rng, 200, 6, 12)
    sweep = candidate_pairs(a, b, by_label=by_label, exact=exact, search="sweep")
    tree = candidate_pairs(a, b, by_label=by_label, exact=exact, search="tree")
    brute = [
        (i, j)
        for i in range(len(a))
        for j in range(len(b))
        if a.group[i] == b.group[j]
        and (not by_label or a.label[i] == b.label[j])
        and (a.start[i] == b.start[j] and a.end[i] == b.end[j] if exact else a.start[i] < b.end[j] and b.start[j] < a.end[i])
    ]
    assert list(zip(*map(np.ndarray.tolist, sweep))) == brute
    assert list(zip(*map(np.ndarray.tolist, tree))) == brute


def test_large_components_use_the_hungarian_path_and_stay_optimal():
    # 12 spans on each side, all overlapping each other: one component larger than the DP limit
    spans_a = [(i, 40 + i, "X") for i in range(12)]
    spans_b = [(2 * i, 30 + 2 * i, "X") for i in range(12)]
    rule = AlignmentRule("proportional")
    pairs = align_spans(spans_a, spans_b, rule)
    assert len(pairs) == 12
    # compare with an exact assignment solver
    from scipy.optimize import linear_sum_assignment

    weights = np.array([[credit_of(rule, x, y) for y in spans_b] for x in spans_a])
    r, c = linear_sum_assignment(weights, maximize=True)
    assert sum(w for *_, w in pairs) == pytest.approx(weights[r, c].sum(), abs=1e-8)


def test_worked_rules():
    a = [(0, 5, "PER"), (10, 20, "ORG"), (30, 35, "LOC")]
    b = [(0, 5, "PER"), (12, 20, "ORG"), (30, 35, "PER")]
    assert [w for *_, w in align_spans(a, b, "exact")] == [1.0]
    assert [w for *_, w in align_spans(a, b, "overlap")] == [1.0, 1.0]
    assert [w for *_, w in align_spans(a, b, "overlap", labels="ignore")] == [1.0, 1.0, 1.0]
    assert [w for *_, w in align_spans(a, b, "partial")] == [1.0, 0.5]
    assert [w for *_, w in align_spans(a, b, "proportional")] == [1.0, 0.8]
    assert [w for *_, w in align_spans(a, b, "proportional", proportional="dice")] == [1.0, pytest.approx(16 / 18)]
    # min_overlap: ORG shares 8 characters; PER is identical (5), and a span wholly shared matches
    assert len(align_spans(a, b, "overlap", min_overlap=8)) == 2
    assert align_spans(a, b, "overlap", min_overlap=9) == [
        ((0, 5, "PER"), (0, 5, "PER"), 1.0),  # identical, shorter than 9
        ((10, 20, "ORG"), (12, 20, "ORG"), 1.0),  # B's span is wholly inside A's
    ]
    assert align_spans([(10, 20, "X")], [(12, 22, "X")], "overlap", min_overlap=9) == []
    assert align_spans([(0, 20, "X")], [(5, 9, "X")], "overlap", min_overlap=5) == [((0, 20, "X"), (5, 9, "X"), 1.0)]
    assert align_spans([(0, 20, "X")], [(15, 25, "X")], "overlap", min_overlap=8) == []


def test_one_to_one_prefers_the_matching_with_more_credit():
    # B's long span overlaps both of A's; the exact one must win the long span's partner
    a = [(0, 10, "X"), (0, 4, "X")]
    b = [(0, 10, "X")]
    assert align_spans(a, b, "partial") == [((0, 10, "X"), (0, 10, "X"), 1.0)]


@pytest.mark.parametrize(
    "options",
    [{"rule": "fuzzy"}, {"labels": "loose"}, {"min_overlap": 0}, {"partial_credit": 0}, {"partial_credit": 1.5},
     {"proportional": "cosine"}],
)
def test_bad_rule_options_are_usage_errors(options):
    with pytest.raises(UsageError) as err:
        AlignmentRule(**options)
    assert repr(list(options.values())[0]) in str(err.value)


def test_exact_pairs_of_nested_spans_are_only_the_identical_ones():
    # every span starts at 0: pairing by start alone would list n * n candidates
    n = 3000
    spans = SpanColumns(group=np.zeros(n, np.int64), start=np.zeros(n, np.int64),
                        end=np.arange(1, n + 1, dtype=np.int64), label=np.zeros(n, np.int64))
    ia, ib = candidate_pairs(spans, spans, by_label=True, exact=True)
    assert ia.tolist() == ib.tolist() == list(range(n))


def test_too_many_overlapping_pairs_in_one_document_is_an_input_error_naming_it(monkeypatch, tmp_path):
    import json

    import spanagree
    import spanagree.core.align as align_module
    from spanagree.errors import InputError

    rows = [{"doc_id": doc, "text": "x" * 60, "annotator": rater,
             "spans": [{"start": 0, "end": k, "label": "A"} for k in range(1, 41 if doc == "deep" else 3)]}
            for doc in ("flat", "deep") for rater in ("r1", "r2")]
    path = tmp_path / "nested.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    monkeypatch.setattr(align_module, "MAX_PAIRS_PER_GROUP", 40 * 40 - 1)
    with pytest.raises(InputError, match="document 'deep': raters 'r1' and 'r2': 1,600 pairs of overlapping spans"):
        spanagree.score(path, rule="overlap")
    monkeypatch.setattr(align_module, "MAX_PAIRS_PER_GROUP", 40 * 40)
    assert spanagree.score(path, rule="overlap").to_dict()["overall"]["pooled_psa"] == 1.0
