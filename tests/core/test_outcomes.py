"""Outcomes are the best explanation: brute force over every maximum label-blind overlap matching,
and the stacked-label cases that an arbitrary matching got wrong."""
from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import spanagree
from spanagree.diagnostics import disagreements
from spanagree.core.align import SpanColumns
from spanagree.core.outcomes import best_explanation
from records import line
from test_align import matchings

span = st.tuples(st.integers(0, 20), st.integers(1, 6), st.sampled_from("XYZ")).map(
    lambda t: (t[0], t[0] + t[1], t[2])
)
span_lists = st.lists(span, max_size=5)


def overlaps(x, y) -> bool:
    return x[0] < y[1] and y[0] < x[1]


def brute_outcomes(spans_a, spans_b) -> tuple[int, int, int]:
    """(pairs, correct, partial): the most pairs over every label-blind overlap matching, then
    the most identical pairs among those, then the most same-label pairs among those."""
    best = (0, 0, 0)
    for pairs in matchings(spans_a, spans_b, overlaps):
        correct = sum(spans_a[i] == spans_b[j] for i, j in pairs)
        same = sum(spans_a[i][2] == spans_b[j][2] for i, j in pairs)
        best = max(best, (len(pairs), correct, same - correct))
    return best


def columns(spans, labels) -> SpanColumns:
    return SpanColumns(
        group=np.zeros(len(spans), np.int64),
        start=np.array([s[0] for s in spans], np.int64),
        end=np.array([s[1] for s in spans], np.int64),
        label=np.array([labels.index(s[2]) for s in spans], np.int64),
    )


def outcome_counts(spans_a, spans_b) -> dict[str, int]:
    """The outcome counts of one document, spans in the given order (no canonical sort)."""
    labels = sorted({s[2] for s in spans_a + spans_b})
    found = best_explanation(
        np.zeros(1), columns(spans_a, labels), np.arange(len(spans_a)), columns(spans_b, labels),
        np.arange(len(spans_b)),
    )
    return found.kind_counts()


@settings(max_examples=200, deadline=None)
@given(spans_a=span_lists, spans_b=span_lists)
def test_outcomes_equal_the_brute_force_best_explanation(spans_a, spans_b):
    spans_a, spans_b = sorted(spans_a), sorted(spans_b)
    got = outcome_counts(spans_a, spans_b)
    pairs, correct, partial = brute_outcomes(spans_a, spans_b)
    assert got["correct"] == correct
    assert got["partial"] == partial
    assert got["correct"] + got["partial"] + got["wrong_label"] == pairs
    assert got["missed"] == len(spans_a) - pairs
    assert got["spurious"] == len(spans_b) - pairs


@settings(max_examples=100, deadline=None)
@given(spans_a=span_lists, spans_b=span_lists, seed=st.integers(0, 1000))
def test_outcome_counts_do_not_depend_on_rater_order_or_span_order(spans_a, spans_b, seed):
    spans_a, spans_b = sorted(spans_a), sorted(spans_b)
    forward = outcome_counts(spans_a, spans_b)
    backward = outcome_counts(spans_b, spans_a)
    assert backward == {**forward, "missed": forward["spurious"], "spurious": forward["missed"]}
    rng = random.Random(seed)
    shuffled = outcome_counts(rng.sample(spans_a, len(spans_a)), rng.sample(spans_b, len(spans_b)))
    assert shuffled == forward


def score(write_jsonl, records, **options):
    return spanagree.score(spanagree.read(write_jsonl(records)), rule="overlap", **options)


def test_a_span_marked_identically_is_correct_beside_a_stacked_label(write_jsonl):
    # B marks Alice both ORG and PER; A marks PER: the PER pair is correct, ORG is B's alone
    report = score(write_jsonl, [
        line("d1", "A", [(0, 5, "PER")]),
        line("d1", "B", [(0, 5, "ORG"), (0, 5, "PER")]),
    ])
    assert report.to_dict()["overall"]["outcomes"] == {
        "correct": 1, "wrong_label": 0, "partial": 0, "missed": 0, "spurious": 1,
    }


def test_stacked_labels_read_as_agreement_and_the_confusion_is_diagonal(write_jsonl):
    # both raters mark the same names twice, as name and as name.first (stacked layers)
    spans = [(0, 5, "name"), (0, 5, "name.first"), (10, 13, "name"), (10, 13, "name.first")]
    for order in (spans, spans[::-1]):
        report = score(write_jsonl, [line("d1", "A", spans), line("d1", "B", order)])
        assert report.to_dict()["overall"]["outcomes"] == {
            "correct": 4, "wrong_label": 0, "partial": 0, "missed": 0, "spurious": 0,
        }
        confusion = disagreements.label_confusion(report.corpus, disagreements.from_report(report))
        assert confusion.tolist() == [[2, 0], [0, 2]]


def test_nested_layers_pair_by_label(write_jsonl):
    # a sentiment span holding an emotion span, marked by both, one with other boundaries
    a = [(0, 32, "sentiment"), (10, 13, "emotion")]
    b = [(0, 30, "sentiment"), (10, 13, "emotion")]
    report = score(write_jsonl, [line("d1", "A", a), line("d1", "B", b)])
    assert report.to_dict()["overall"]["outcomes"] == {
        "correct": 1, "wrong_label": 0, "partial": 1, "missed": 0, "spurious": 0,
    }


def test_the_report_and_the_disagreements_share_one_alignment(write_jsonl):
    report = score(write_jsonl, [line("d1", "A", [(0, 5, "PER")]), line("d1", "B", [(0, 5, "ORG"), (0, 5, "PER")])])
    assert disagreements.from_report(report) is report.counts.outcome_pairs


def test_labels_ignored_score_a_set_of_positions(write_jsonl):
    # ann marks Alice as PER and as ORG; bob marks Alice once: positions agree completely
    records = [line("d1", "ann", [(0, 5, "ORG"), (0, 5, "PER")]), line("d1", "bob", [(0, 5, "PER")])]
    report = score(write_jsonl, records, labels="ignore").to_dict()
    assert report["overall"]["pairwise_mean_psa"] == 1.0
    assert report["pairs"][0]["a"] == 1 and report["pairs"][0]["b"] == 0 and report["pairs"][0]["c"] == 0
    assert sum("several labels" in note for note in report["spans"]["notes"]) == 1
    # labels strict: the ORG span is ann's alone
    strict = score(write_jsonl, records).to_dict()
    assert strict["overall"]["pairwise_mean_psa"] == 2 / 3


def test_potts_nested_layers_read_as_agreement(real_dir):
    # PotTS: two raters, sentiment spans holding emotion spans; an arbitrary maximum matching
    # called 3,929 pairs wrong_label
    report = spanagree.score(spanagree.read(real_dir / "potts.jsonl"), rule="overlap")
    outcomes = report.to_dict()["overall"]["outcomes"]
    assert outcomes["wrong_label"] < 1000 and outcomes["correct"] > 7500
    confusion = disagreements.label_confusion(report.corpus, disagreements.from_report(report))
    assert np.trace(confusion) > 0.9 * confusion.sum()
