"""spanagree's exact-rule counts equal nervaluate's strict counts on synthetic corpora.

nervaluate (``bench/peers.py`` runs it) compares rater A as "true" with rater B as "pred" over
the documents both submitted. Its strict evaluation is greedy: it walks B's spans in order and
gives each one the first unconsumed A span with the same start, end and label ("correct"),
else the first unconsumed A span it overlaps ("incorrect", which consumes that A span), else
calls it "spurious"; A spans left unconsumed are "missed".

Why greedy equals spanagree's optimal one-to-one matching here: in the synthetic corpora every
rater's spans are non-overlapping within a document (NER style). A greedy pass could lose an
exact pair (T in A, P in B, same start/end/label) only if T were consumed before P is reached:
 * by another B span with an exact match to T: it would have T's bounds, so it would overlap P,
   which B's spans never do;
 * as "incorrect" by an earlier B span P' overlapping T: P' would overlap P (P has T's bounds),
   which again B's spans never do.
So nervaluate's ``correct`` is the number of identical (start, end, label) pairs, which is the
maximum exact matching, i.e. spanagree's ``a``. Every "incorrect" consumes one A span and one B
span, so |A| = correct + incorrect + missed and |B| = correct + incorrect + spurious; with
``b = |A| - a`` and ``c = |B| - a`` that gives ``b = missed + incorrect`` and
``c = spurious + incorrect``. The same argument holds label by label (both sides restricted to
one label, as nervaluate's per-entity results and spanagree's per-label counts do).

nervaluate's ends are inclusive, so peers.py passes ``end - 1``; that leaves exact matches as
they are and keeps adjacent spans from counting as overlapping ("incorrect").
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

pytest.importorskip("nervaluate")
spanagree = pytest.importorskip("spanagree")

from spanagree.io.synthetic import generate_corpus, write_jsonl  # noqa: E402
from locations import ROOT

_PEERS_PATH = ROOT / "bench" / "peers.py"
_spec = importlib.util.spec_from_file_location("spanagree_bench_peers", _PEERS_PATH)
peers = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = peers  # dataclasses look their module up while the class is built
_spec.loader.exec_module(peers)


CORPORA = {
    "seed0": {"seed": 0},
    "seed1": {"seed": 1},
    "seed2-4raters-skips": {"seed": 2, "n_raters": 4, "p_skip_document": 0.35},
    "seed3-noisy": {"seed": 3, "p_miss": 0.2, "p_relabel": 0.2, "p_shift": 0.4, "p_spurious": 0.4},
}


@pytest.fixture(scope="module", params=sorted(CORPORA))
def scored(request, tmp_path_factory):
    """(lines, spanagree's exact-rule report as a dict, nervaluate's result per rater pair)
    for one generated corpus."""
    lines = list(generate_corpus(200, **CORPORA[request.param]))
    path = tmp_path_factory.mktemp("parity") / f"{request.param}.jsonl"
    write_jsonl(lines, path)
    corpus = spanagree.read([path])
    report = spanagree.score(corpus, rule="exact", labels="strict").to_dict()
    theirs = {peer.raters: peer for peer in peers.run_all_pairs(lines)}
    return lines, report, theirs


def test_pairs_are_all_rater_pairs(scored):
    lines, report, _ = scored
    assert sorted(tuple(p["raters"]) for p in report["pairs"]) == peers.rater_pairs(lines)


def test_exact_counts_equal_nervaluate_strict(scored):
    _, report, theirs = scored
    for pair in report["pairs"]:
        ra, rb = pair["raters"]
        peer = theirs[ra, rb]
        where = f"{ra} vs {rb}"
        assert pair["documents"] == peer.documents, where
        assert peer.partial == 0, where  # strict evaluation never reports partial
        assert pair["a"] == peer.correct, where
        assert pair["b"] == peer.missed + peer.incorrect, where
        assert pair["c"] == peer.spurious + peer.incorrect, where


def test_per_label_counts_equal_nervaluate_strict(scored):
    lines, report, theirs = scored
    labels = peers.labels_of(lines)
    for pair in report["pairs"]:
        ra, rb = pair["raters"]
        peer = theirs[ra, rb]
        assert sum(peer.labels[label]["correct"] for label in labels) == peer.correct
        zero = {"a": 0, "b": 0, "c": 0}
        for label in labels:
            ours, nerv = pair["labels"].get(label, zero), peer.labels[label]
            where = f"{ra} vs {rb}, {label}"
            assert ours["a"] == nerv["correct"], where
            assert ours["b"] == nerv["missed"] + nerv["incorrect"], where
            assert ours["c"] == nerv["spurious"] + nerv["incorrect"], where


def test_exact_match_is_the_identical_span_count(scored):
    """The identity the parity rests on, checked without either library's matcher."""
    lines, report, _ = scored
    spans: dict[str, dict[str, set]] = {}
    for line in lines:
        spans.setdefault(line["annotator"], {})[line["doc_id"]] = {
            (s["start"], s["end"], s["label"]) for s in line["spans"]
        }
    for pair in report["pairs"]:
        ra, rb = pair["raters"]
        shared = spans[ra].keys() & spans[rb].keys()
        assert pair["a"] == sum(len(spans[ra][d] & spans[rb][d]) for d in shared)


def test_adjacent_spans_do_not_count_as_overlapping(tmp_path):
    """Half-open ends: [0, 3) and [3, 7) touch but do not overlap (peers.py passes end - 1)."""
    text = "abcdefg hij"
    lines = [
        {"doc_id": "d", "text": text, "annotator": "r1",
         "spans": [{"start": 0, "end": 3, "label": "X"}]},
        {"doc_id": "d", "text": text, "annotator": "r2",
         "spans": [{"start": 3, "end": 7, "label": "X"}, {"start": 8, "end": 11, "label": "X"}]},
    ]
    peer = peers.run_nervaluate(lines, "r1", "r2", labels=["X"])
    assert peer.counts() == {"correct": 0, "incorrect": 0, "partial": 0, "missed": 1, "spurious": 2}
    path = tmp_path / "adjacent.jsonl"
    write_jsonl(lines, path)
    (pair,) = spanagree.score(spanagree.read([path]), rule="exact", labels="strict").to_dict()["pairs"]
    assert (pair["a"], pair["b"], pair["c"]) == (0, 1, 2)
