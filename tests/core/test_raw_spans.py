"""Span lists as read: the block check of ``CorpusBuilder.add_unchecked`` against the line-by-line
``parse_spans`` (the same corpus, or the same first error), and the check itself."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from spanagree.core.builder import CorpusBuilder
from spanagree.core.raw_spans import parse_spans, span_columns
from spanagree.errors import InputError, Location

LABELS = ["PER", "ORG", " ", "", "per"]
value = st.one_of(
    st.integers(-3, 14), st.sampled_from([True, 2.0, None, "3", 2**64, -(2**63) - 1]),
)
span = st.one_of(
    st.fixed_dictionaries({"start": st.integers(0, 12), "end": st.integers(1, 14), "label": st.sampled_from(LABELS[:2])}),
    st.fixed_dictionaries({"start": value, "end": value, "label": st.one_of(st.sampled_from(LABELS), st.none(), st.integers())}),
    st.sampled_from([[0, 3, "PER"], "span", 5, None, {"start": 0, "end": 3}, {"end": 3, "label": "PER"}]),
)
good_span = st.builds(lambda s, n, label: {"start": s, "end": s + n, "label": label},
                      st.integers(0, 9), st.integers(1, 4), st.sampled_from(LABELS[:2]))
line = st.tuples(st.sampled_from(["d1", "d2", "d3"]), st.sampled_from(["r1", "r2"]), st.lists(good_span, max_size=5))


def _outcome(build):
    try:
        corpus = build()
    except InputError as err:
        return "error", str(err)
    return "corpus", (
        corpus.doc_ids, corpus.raters, corpus.labels, corpus.ann_doc.tolist(), corpus.ann_rater.tolist(),
        corpus.ann_ptr.tolist(), corpus.span_start.tolist(), corpus.span_end.tolist(), corpus.span_label.tolist(),
        corpus.n_spans_read, corpus.n_annotations_read,
        {kind: dict(getattr(corpus.exclusions, kind)) for kind in ("documents", "annotations", "spans", "notes")},
    )


TEXTS = {"d1": "0123456789abcd", "d2": "0123456789abcd", "d3": "0123456789"}


def _text(doc, rater):
    """Each document's text; rater r3 sees another text of d2 (an error)."""
    return "0123456789abcX" if (doc, rater) == ("d2", "r3") else TEXTS.get(doc, TEXTS["d1"])


def _both(lines, block=None):
    def unchecked():
        builder = CorpusBuilder()
        if block:
            builder.UNCHECKED_LINES = block
        try:
            for number, (doc, rater, raw) in enumerate(lines, 1):
                builder.add_unchecked(doc, doc, _text(doc, rater), rater, raw, Location("f", number))
        except InputError:
            builder.check_spans()
            raise
        return builder.build()

    def checked():
        builder = CorpusBuilder()
        for number, (doc, rater, raw) in enumerate(lines, 1):
            where = Location("f", number)
            text = _text(doc, rater)
            builder.add(doc, doc, text, rater, parse_spans(raw, len(text), where, doc), where)
        return builder.build()

    return _outcome(unchecked), _outcome(checked)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["d1", "d2", "d3"]), st.sampled_from(["r1", "r2", "r3"]),
                          st.lists(span, max_size=4)), max_size=8), st.sampled_from([None, 1, 2]))
def test_block_check_gives_what_the_line_check_gives(lines, block):
    fast, slow = _both(lines, block=block)
    assert fast == slow


@settings(max_examples=200, deadline=None)
@given(st.lists(line, max_size=12), st.sampled_from([None, 1, 3]))
def test_good_lines_same_corpus_duplicates_and_repeats_included(lines, block):
    fast, slow = _both(lines, block=block)
    assert fast == slow


def test_a_bad_span_comes_before_a_later_lines_error_across_blocks():
    good = [{"start": 0, "end": 2, "label": "PER"}]
    lines = [(f"d{i}", "r1", good) for i in range(3000)]
    lines[1500] = ("d1500", "r1", [{"start": 0, "end": 99, "label": "PER"}])
    lines[1600] = ("d5", "r1", [{"start": 0, "end": 3, "label": "PER"}])  # d5 again, other spans
    fast, slow = _both(lines)
    assert fast == slow
    assert fast[1].startswith("f:1501: document 'd1500', field 'spans[0].end'")


def test_span_columns():
    starts, ends, labels = span_columns([{"start": 1, "end": 2, "label": "A", "text": "x"}])
    assert starts.tolist() == [1] and ends.tolist() == [2] and labels == ["A"]
    assert starts.dtype == np.int64
    for bad in ([{"start": True, "end": 2, "label": "A"}], [{"start": 1, "end": 2**63, "label": "A"}],
                [{"start": 1, "end": 2, "label": 3}], [[1, 2, "A"]], [{"start": 1, "end": 2}]):
        assert span_columns(bad) is None


@pytest.mark.parametrize("raw", [[{"start": 0, "end": 3, "label": "A"}] * 3, []])
def test_duplicates_are_kept_once_and_counted(raw):
    builder = CorpusBuilder()
    builder.add_unchecked("d", "d", "abcdef", "r", raw, Location("f", 1))
    corpus = builder.build()
    assert corpus.n_spans == min(len(raw), 1) and corpus.n_spans_read == len(raw)
    assert dict(corpus.exclusions.spans) == ({"duplicate span of the same rater (kept once)": 2} if raw else {})
