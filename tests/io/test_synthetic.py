"""The synthetic corpus generator: determinism, format and the guarantees its users rely on."""

from __future__ import annotations

import collections
import itertools
import json

import pytest

from spanagree.io.synthetic import DEFAULT_LABELS, generate_corpus, write_jsonl

BOUNDARY_AFTER = " ,."  # what may follow the last character of a word


def corpus(n: int = 150, **kwargs):
    return list(generate_corpus(n, **kwargs))


def test_same_seed_same_lines():
    assert corpus(seed=7) == corpus(seed=7)
    assert corpus(seed=7, p_skip_document=0.3) == corpus(seed=7, p_skip_document=0.3)


def test_different_seeds_differ():
    a, b = corpus(seed=1), corpus(seed=2)
    assert [line["text"] for line in a] != [line["text"] for line in b]
    assert [line["spans"] for line in a] != [line["spans"] for line in b]


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"seed": 3, "n_raters": 5},
        {"seed": 4, "n_raters": 2, "labels": ("A",)},
        {"seed": 5, "p_miss": 0.3, "p_relabel": 0.3, "p_shift": 0.9, "p_spurious": 0.9},
        {"seed": 6, "n_raters": 4, "p_skip_document": 0.5},
    ],
)
def test_format(kwargs):
    labels = set(kwargs.get("labels", DEFAULT_LABELS))
    n_raters = kwargs.get("n_raters", 3)
    lines = corpus(200, **kwargs)
    texts: dict[str, str] = {}
    order = []
    for line in lines:
        assert set(line) == {"doc_id", "text", "annotator", "spans"}
        text = line["text"]
        assert texts.setdefault(line["doc_id"], text) == text  # same text for every rater
        assert 25 <= len(text.split(" ")) <= 60
        order.append((line["doc_id"], int(line["annotator"].removeprefix("rater_"))))
        previous_end = 0
        for span in line["spans"]:
            assert set(span) == {"start", "end", "label"}
            start, end = span["start"], span["end"]
            assert isinstance(start, int) and isinstance(end, int)
            assert 0 <= start < end <= len(text)
            assert span["label"] in labels
            # on word boundaries: a word starts at `start`, a word ends at `end`
            assert start == 0 or text[start - 1] == " "
            assert end == len(text) or text[end] in BOUNDARY_AFTER
            assert text[start] not in BOUNDARY_AFTER and text[end - 1] not in BOUNDARY_AFTER
            # sorted and non-overlapping (hence no duplicates) within the rater's document
            assert start >= previous_end
            previous_end = end
    assert order == sorted(order)  # by document, then rater
    assert len(set(order)) == len(order)
    assert {rater for _, rater in order} <= set(range(n_raters))
    assert len(texts) == 200


@pytest.mark.parametrize("p_skip", [0.0, 0.4, 0.7, 1.0])
def test_every_document_has_two_raters(p_skip):
    lines = corpus(300, n_raters=4, seed=11, p_skip_document=p_skip)
    raters_per_doc = collections.Counter(line["doc_id"] for line in lines)
    assert len(raters_per_doc) == 300
    assert min(raters_per_doc.values()) >= 2
    if p_skip == 0.0:
        assert set(raters_per_doc.values()) == {4}
    elif p_skip == 1.0:
        assert set(raters_per_doc.values()) == {2}
    else:
        assert min(raters_per_doc.values()) == 2 < max(raters_per_doc.values())


def test_skipping_changes_lines_not_spans():
    """A rater's spans for a document do not depend on whether other lines were skipped."""
    full = {(x["doc_id"], x["annotator"]): x for x in corpus(100, seed=9)}
    for line in corpus(100, seed=9, p_skip_document=0.5):
        assert full[line["doc_id"], line["annotator"]] == line


def test_default_agreement_is_realistic():
    """Pairwise exact-match PSA near 0.7, and about 3.6 spans per rater and document.

    With non-overlapping spans per rater, the exact one-to-one matching is the set intersection
    of (document, start, end, label) tuples, so this needs no aligner.
    """
    lines = corpus(1000, seed=0)
    spans = collections.defaultdict(set)
    for line in lines:
        for s in line["spans"]:
            spans[line["annotator"]].add((line["doc_id"], s["start"], s["end"], s["label"]))
    for ra, rb in itertools.combinations(sorted(spans), 2):
        a = len(spans[ra] & spans[rb])
        psa = 2 * a / (len(spans[ra]) + len(spans[rb]))
        assert 0.6 <= psa <= 0.8, (ra, rb, psa)
    for rater_spans in spans.values():
        assert 3.0 <= len(rater_spans) / 1000 <= 4.2


def test_perturbations_can_be_switched_off():
    """Without perturbations every rater marks exactly the truth."""
    lines = corpus(
        100, seed=2, p_miss=0.0, p_relabel=0.0, p_shift=0.0, p_spurious=0.0
    )
    by_doc = collections.defaultdict(list)
    for line in lines:
        by_doc[line["doc_id"]].append(line["spans"])
    assert all(all(s == spans[0] for s in spans) for spans in by_doc.values())
    assert sum(len(spans[0]) for spans in by_doc.values()) > 0


def test_write_jsonl_round_trip(tmp_path):
    lines = corpus(20, seed=3)
    path = tmp_path / "c.jsonl"
    assert write_jsonl(iter(lines), path) == len(lines)
    with open(path, encoding="utf-8") as f:
        assert [json.loads(x) for x in f] == lines


@pytest.mark.parametrize(
    "kwargs",
    [{"n_raters": 1}, {"p_miss": 1.5}, {"p_skip_document": -0.1}, {"labels": ()},
     {"labels": ("A", "A")}],
)
def test_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        list(generate_corpus(3, **kwargs))
