"""Equal total credit: identical pairs first, then more pairs (partial and proportional credit)."""
from __future__ import annotations

import pytest

from spanagree.core.align import align_spans
from spanagree.diagnostics.consensus import consensus
from spanagree.core.builder import CorpusBuilder

# A's [0, 10) and B's [0, 10) are identical; A's [8, 12) overlaps only B's [0, 10) and B's [2, 4)
# only A's [0, 10). Two half-credit pairs and the one identical pair both total 1.
A = [(0, 10, "X"), (8, 12, "X")]
B = [(0, 10, "X"), (2, 4, "X")]


def test_partial_credit_keeps_the_identical_pair_on_equal_credit():
    assert align_spans(A, B, "partial") == [((0, 10, "X"), (0, 10, "X"), 1.0)]
    assert align_spans(B, A, "partial") == [((0, 10, "X"), (0, 10, "X"), 1.0)]


def test_proportional_credit_keeps_the_identical_pair_on_equal_credit():
    # Jaccard: [0,4)~[0,8) = 0.5 and [4,8)~[0,8) = 0.5 against the identical [0,8) = 1
    a = [(0, 8, "X"), (0, 4, "X")]
    b = [(0, 8, "X"), (4, 8, "X")]
    # [0,4)-[0,8) and [0,8)-[4,8): 0.5 + 0.5; the identical pair alone: 1
    assert align_spans(a, b, "proportional") == [((0, 8, "X"), (0, 8, "X"), 1.0)]


def test_labels_ignored_prefer_the_same_label_on_equal_credit():
    a = [(0, 5, "PER")]
    b = [(0, 5, "ORG"), (0, 5, "PER")]
    assert align_spans(a, b, "exact", labels="ignore") == [((0, 5, "PER"), (0, 5, "PER"), 1.0)]
    assert align_spans(a, b[::-1], "partial", labels="ignore") == [((0, 5, "PER"), (0, 5, "PER"), 1.0)]


@pytest.mark.parametrize("rule", ["partial", "proportional"])
def test_consensus_keeps_what_both_raters_marked(rule):
    builder = CorpusBuilder()
    for rater, spans in (("a", A), ("b", B)):
        builder.add("d1", "d1", "x" * 20, rater, spans, None)
    gold, report = consensus(builder.build(), min_raters=2, rule=rule)
    assert (0, 10, "X") in gold.spans_of("d1", "consensus")
