"""The token unit: one token list per document whatever the input order, merged and excluded
spans counted the same in the alignment and in the bookkeeping."""
from __future__ import annotations

import numpy as np
import pytest

import spanagree
from spanagree.core.counts import MERGED, NO_TOKEN
from spanagree.errors import InputError
from spanagree.core.builder import CorpusBuilder

TEXT = "Alice met Bob  here"  # tokens: Alice 0-5, met 6-9, Bob 10-13, here 15-19 (two spaces)
TOKENS = np.array([[0, 5], [6, 9], [10, 13], [15, 19]])


def corpus_of(lines):
    """``lines``: (rater, spans, tokens) in input order, one document."""
    builder = CorpusBuilder()
    for rater, spans, tokens in lines:
        builder.add("d1", "d1", TEXT, rater, spans, None, tokens)
    return builder.build()


@pytest.mark.parametrize("order", [1, -1])
def test_different_token_lists_are_an_error_whatever_the_order(order):
    other = np.array([[0, 9], [10, 13], [15, 19]])  # "Alice met" as one token
    lines = [("ann", [(0, 5, "X")], TOKENS), ("bob", [(0, 9, "X")], other)][::order]
    corpus = corpus_of(lines)
    with pytest.raises(InputError) as err:
        spanagree.score(corpus, unit="token")
    message = str(err.value)
    assert "'d1'" in message and "'ann'" in message and "'bob'" in message and "tokens" in message
    # the character unit does not need tokens
    assert spanagree.score(corpus, unit="char").to_dict()["overall"]["pairwise_mean_psa"] == 0.0


def test_spans_that_coincide_in_tokens_are_merged_and_counted():
    # ann marks Alice twice: whole, and inside; both widen to the token Alice
    report = spanagree.score(corpus_of([
        ("ann", [(0, 5, "X"), (1, 4, "X")], TOKENS),
        ("bob", [(0, 5, "X")], TOKENS),
    ]), unit="token").to_dict()
    assert report["overall"]["pairwise_mean_psa"] == 1.0
    assert report["spans"]["scored"] == 2
    assert report["spans"]["excluded"] == {MERGED: 1}
    assert report["overall"]["outcomes"]["correct"] == 1 and report["overall"]["outcomes"]["missed"] == 0


def test_white_space_spans_are_excluded_in_alignment_and_bookkeeping():
    report = spanagree.score(corpus_of([
        ("ann", [(0, 5, "X"), (13, 15, "X")], TOKENS),  # 13-15: the two spaces
        ("bob", [(6, 9, "X")], TOKENS),
    ]), unit="token").to_dict()
    assert report["overall"]["pairwise_mean_psa"] == 0.0
    assert report["spans"]["scored"] == 2
    assert report["spans"]["excluded"] == {NO_TOKEN: 1}
    assert "spans covering no token" not in report["spans"].get("notes", {})
    assert report["spans"]["read"] == report["spans"]["scored"] + sum(report["spans"]["excluded"].values())
