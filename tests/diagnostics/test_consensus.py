"""Consensus by vote: brute force under the exact rule, plurality and ties under the loose rules."""
from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app
from spanagree.diagnostics.consensus import consensus, write
from spanagree.errors import UsageError
from spanagree.core.builder import CorpusBuilder
from records import line

TEXT = "President Maria Lopez met growers in Kellsbridge on Monday."
runner = CliRunner()


def corpus_of(annotations, text=TEXT):
    """``{doc_id: {rater: [(start, end, label), ...]}}`` as a Corpus."""
    builder = CorpusBuilder()
    for doc_id, by_rater in annotations.items():
        for rater, spans in by_rater.items():
            builder.add(doc_id, doc_id, text, rater, spans, None)
    return builder.build()


def majority(annotations, k):
    """Brute force: per document with >= k raters, the (start, end, label) that >= k raters marked."""
    result = {}
    for doc_id, by_rater in annotations.items():
        if len(by_rater) < k:
            continue
        votes = Counter(span for spans in by_rater.values() for span in set(spans))
        result[doc_id] = sorted(span for span, n in votes.items() if n >= k)
    return result


def spans_by_doc(gold, name="consensus"):
    return {doc_id: gold.spans_of(doc_id, name) for doc_id in gold.doc_ids}


span = st.tuples(st.integers(0, 14), st.integers(1, 6), st.sampled_from(["A", "B"])).map(lambda t: (t[0], t[0] + t[1], t[2]))
rater_spans = st.lists(span, max_size=6)
annotations = st.dictionaries(
    st.sampled_from(["d1", "d2", "d3"]),
    st.dictionaries(st.sampled_from(["r1", "r2", "r3", "r4"]), rater_spans, min_size=1),
    min_size=1,
)


@settings(max_examples=300, deadline=None)
@given(annotations, st.integers(1, 4))
def test_exact_rule_consensus_is_the_brute_force_majority(data, k):
    gold, report = consensus(corpus_of(data), min_raters=k)
    assert spans_by_doc(gold) == majority(data, k)
    assert report["ties"] == [] and report["clusters"]["tied"] == 0
    assert report["clusters"]["kept"] == gold.n_spans


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(["d1", "d2"]), st.fixed_dictionaries({"a": rater_spans, "b": rater_spans}), min_size=1))
def test_two_raters_exact_min_2_is_their_common_spans(data):
    gold, _ = consensus(corpus_of(data), min_raters=2)
    assert spans_by_doc(gold) == {d: sorted(set(r["a"]) & set(r["b"])) for d, r in data.items()}


def test_overlap_rule_takes_the_plurality_boundaries():
    data = {"d1": {
        "alice": [(0, 21, "PERSON"), (37, 48, "GPE")],
        "bob": [(10, 21, "PERSON"), (37, 48, "GPE")],
        "carol": [(10, 21, "PERSON")],
    }}
    gold, report = consensus(corpus_of(data), min_raters=2, rule="overlap")
    assert gold.spans_of("d1", "consensus") == [(10, 21, "PERSON"), (37, 48, "GPE")]
    assert report["spans"]["support"] == {"2": 1, "3": 1}
    gold3, report3 = consensus(corpus_of(data), min_raters=3, rule="partial")
    assert gold3.spans_of("d1", "consensus") == [(10, 21, "PERSON")]
    assert report3["clusters"] == {"total": 2, "kept": 1, "below_min_raters": 1, "tied": 0}
    exact, _ = consensus(corpus_of(data), min_raters=2)
    assert exact.spans_of("d1", "consensus") == [(10, 21, "PERSON"), (37, 48, "GPE")]


def test_boundary_tie_is_left_out_and_listed():
    data = {"d1": {"alice": [(0, 21, "PERSON"), (37, 48, "GPE")], "bob": [(10, 21, "PERSON"), (37, 48, "GPE")]}}
    gold, report = consensus(corpus_of(data), min_raters=2, rule="overlap")
    assert gold.spans_of("d1", "consensus") == [(37, 48, "GPE")]
    assert report["clusters"]["tied"] == 1
    (tie,) = report["ties"]
    assert tie["doc_id"] == "d1" and tie["kind"] == "boundaries" and tie["support"] == 2
    assert [(c["start"], c["end"], c["text"], c["raters"]) for c in tie["candidates"]] == [
        (0, 21, "President Maria Lopez", ["alice"]),
        (10, 21, "Maria Lopez", ["bob"]),
    ]


def test_label_tie_with_labels_ignored():
    data = {"d1": {"alice": [(37, 48, "GPE")], "bob": [(37, 48, "ORG")], "carol": [(37, 48, "GPE")], "dan": [(37, 48, "ORG")]}}
    gold, report = consensus(corpus_of(data), min_raters=2, labels="ignore")
    assert gold.spans_of("d1", "consensus") == []
    (tie,) = report["ties"]
    assert tie["kind"] == "label" and (tie["start"], tie["end"], tie["text"]) == (37, 48, "Kellsbridge")
    assert {c["label"]: c["raters"] for c in tie["candidates"]} == {"GPE": ["alice", "carol"], "ORG": ["bob", "dan"]}
    del data["d1"]["dan"]
    gold, report = consensus(corpus_of(data), min_raters=2, labels="ignore")
    assert gold.spans_of("d1", "consensus") == [(37, 48, "GPE")] and not report["ties"]


def test_documents_with_too_few_raters_are_left_out_and_counted():
    data = {"d1": {"a": [(0, 9, "X")], "b": [(0, 9, "X")]}, "d2": {"a": [(0, 9, "X")]}}
    gold, report = consensus(corpus_of(data), min_raters=2)
    assert gold.doc_ids == ["d1"]
    assert report["documents"] == {"read": 2, "in_consensus": 1, "excluded": {"fewer than min_raters raters submitted it": 1}}


def test_token_unit_votes_in_tokens_and_writes_characters(write_jsonl):
    tokens = [{"start": s, "end": e} for s, e in [(0, 9), (10, 15), (16, 21), (22, 25)]]
    text = "President Maria Lopez met"
    path = write_jsonl([
        {**line("d1", r, spans, text=text), "tokens": tokens}
        for r, spans in (("a", [(10, 21, "PERSON")]), ("b", [(10, 20, "PERSON")]), ("c", [(0, 21, "PERSON")]))
    ])
    gold, report = consensus(spanagree.read(path), min_raters=2, rule="overlap", unit="token")
    assert gold.spans_of("d1", "consensus") == [(10, 21, "PERSON")]  # a and b agree in tokens
    assert report["notes"] == {"spans widened to whole tokens": 1}


def test_bad_options():
    corpus = corpus_of({"d1": {"consensus": [], "b": []}})
    with pytest.raises(UsageError, match="already a rater"):
        consensus(corpus, min_raters=2)
    for bad in (0, 1.5, "2"):
        with pytest.raises(UsageError, match="min_raters"):
            consensus(corpus, min_raters=bad, name="gold")
    with pytest.raises(UsageError, match="rule must be one of"):
        consensus(corpus, min_raters=2, rule="fuzzy", name="gold")


def test_written_as_spanagree_jsonl(tmp_path):
    gold, _ = consensus(corpus_of({"d1": {"a": [(0, 9, "X")], "b": [(0, 9, "X")]}}), min_raters=2)
    assert write(gold, tmp_path / "gold.jsonl") == {"documents": 1, "annotations": 1, "spans": 1}
    (record,) = [json.loads(x) for x in (tmp_path / "gold.jsonl").read_text().splitlines()]
    assert record == {"doc_id": "d1", "text": TEXT, "annotator": "consensus", "spans": [{"start": 0, "end": 9, "label": "X"}]}
    with pytest.raises(UsageError, match=r"\.jsonl or a \.spacy"):
        write(gold, tmp_path / "gold.txt")


# --- the command line ---------------------------------------------------------------------------


@pytest.fixture
def three_raters(write_jsonl):
    return write_jsonl([
        line("d1", "alice", [(0, 5, "PER"), (10, 13, "PER"), (17, 22, "LOC")]),
        line("d1", "bob", [(0, 5, "PER"), (17, 22, "LOC")]),
        line("d1", "carol", [(0, 5, "PER"), (10, 13, "ORG")]),
        line("d2", "alice", [(0, 5, "PER")]),
        line("d2", "bob", []),
        line("d2", "carol", [(0, 5, "PER")]),
    ], name="raters.jsonl")


def test_cli_consensus_then_score_against_it(three_raters, tmp_path):
    out = tmp_path / "gold.jsonl"
    result = runner.invoke(app, ["consensus", str(three_raters), "--min-raters", "2", "-o", str(out), "--report-file", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    assert "wrote 3 consensus spans in 2 documents" in result.stderr
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(x["doc_id"], x["annotator"], [(s["start"], s["end"], s["label"]) for s in x["spans"]]) for x in lines] == [
        ("d1", "consensus", [(0, 5, "PER"), (17, 22, "LOC")]),
        ("d2", "consensus", [(0, 5, "PER")]),
    ]
    assert json.loads((tmp_path / "r.json").read_text())["clusters"]["below_min_raters"] == 2
    scored = runner.invoke(app, ["score", str(three_raters), str(out), "--reference", "consensus", "--output", "json"])
    against = json.loads(scored.stdout)["reference"]["raters"]
    assert against["alice"]["recall"] == 1.0 and against["alice"]["precision"] == 0.75
    assert against["bob"]["recall"] == pytest.approx(2 / 3) and against["bob"]["precision"] == 1.0


def test_cli_consensus_to_docbin(three_raters, tmp_path):
    pytest.importorskip("spacy")
    out = tmp_path / "gold.spacy"
    result = runner.invoke(app, ["consensus", str(three_raters), "-k", "3", "--rule", "overlap", "--labels", "ignore", "-o", str(out)])
    assert result.exit_code == 0, result.output
    gold = spanagree.read(out)
    assert gold.raters == ["consensus"] and gold.spans_of("d1", "consensus") == [(0, 5, "PER")]


@pytest.mark.parametrize(
    "args", [["--min-raters", "0", "-o", "x.jsonl"], ["--min-raters", "2", "-o", "x.txt"], ["--min-raters", "2"], ["-o", "x.jsonl"]]
)
def test_cli_consensus_usage_errors(three_raters, tmp_path, args):
    result = runner.invoke(app, ["consensus", str(three_raters), *[str(tmp_path / a) if a.startswith("x.") else a for a in args]])
    assert result.exit_code == 2


# --- the span_consensus component ---------------------------------------------------------------


def test_span_consensus_component():
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    component = nlp.add_pipe("span_consensus", config={"min_raters": 2, "rule": "overlap"})
    doc = nlp.make_doc(TEXT)
    for rater, spans in {"alice": [(0, 21, "PERSON"), (37, 48, "GPE")], "bob": [(10, 21, "PERSON"), (37, 48, "GPE")], "carol": [(10, 21, "PERSON")]}.items():
        doc.spans[rater] = [doc.char_span(s, e, lab) for s, e, lab in spans]
    doc = nlp(doc)
    assert [(s.start_char, s.end_char, s.label_) for s in doc.spans["consensus"]] == [(10, 21, "PERSON"), (37, 48, "GPE")]
    assert [(e.text, e.label_) for e in doc.ents] == [("Maria Lopez", "PERSON"), ("Kellsbridge", "GPE")]
    assert doc._.consensus["kept"] == 2 and doc._.consensus["ties"] == []
    again = nlp(doc)  # its own output group is not a rater
    assert [s.text for s in again.spans["consensus"]] == ["Maria Lopez", "Kellsbridge"]
    tied = nlp.make_doc(TEXT)
    tied.spans["alice"] = [tied.char_span(0, 21, "PERSON")]
    tied.spans["bob"] = [tied.char_span(10, 21, "PERSON")]
    tied = nlp(tied)
    assert list(tied.spans["consensus"]) == [] and len(tied._.consensus["ties"]) == 1
    assert component.report()["tied"] == 1 and component.report()["documents"] == 3


def test_span_consensus_overlapping_result_is_not_put_in_ents():
    spacy = pytest.importorskip("spacy")
    nlp = spacy.blank("en")
    nlp.add_pipe("span_consensus", config={"min_raters": 1, "rater_keys": ["a", "b"]})
    doc = nlp.make_doc(TEXT)
    doc.spans["a"] = [doc.char_span(0, 21, "PERSON")]
    doc.spans["b"] = [doc.char_span(10, 21, "NAME")]
    doc = nlp(doc)
    assert len(doc.spans["consensus"]) == 2 and not doc.ents and doc._.consensus["ents"] is False


def test_consensus_keeps_relations_and_attributes_by_vote(tmp_path):
    import json

    text = "Ann Lee works for Acme in Paris."
    spans = [{"start": 0, "end": 7, "label": "PER", "id": "p"}, {"start": 18, "end": 22, "label": "ORG", "id": "o"},
             {"start": 26, "end": 31, "label": "LOC", "id": "l"}]

    def line(rater, relations, kinds, flag):
        marked = [dict(s, attributes={"kind": k, **({"neg": True} if flag else {})}) for s, k in zip(spans, kinds)]
        return {"doc_id": "d", "text": text, "annotator": rater, "spans": marked, "relations": relations}

    works = {"head": "p", "child": "o", "label": "works_for"}
    near = {"head": "o", "child": "l", "label": "near", "symmetric": True}
    near_back = {"head": "l", "child": "o", "label": "near", "symmetric": True}
    lines = [line("a", [works, near], ["x", "y", "z"], True), line("b", [works, near_back], ["x", "w", "z"], True),
             line("c", [near], ["x", "v", "q"], False)]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    gold, report = consensus(spanagree.read(path), min_raters=2)
    held = gold.structure
    # works_for: 2 of 3; near (symmetric, either way): 3 of 3
    assert sorted((r.head, r.child, r.label) for r in held.relations) == [
        ((0, 7, "PER"), (18, 22, "ORG"), "works_for"), ((18, 22, "ORG"), (26, 31, "LOC"), "near"),
    ]
    values = {(a.span, a.name): a.value for a in held.attributes}
    assert values[(0, 7, "PER"), "kind"] == "x" and values[(26, 31, "LOC"), "kind"] == "z"  # z, z, q
    assert ((18, 22, "ORG"), "kind") not in values  # y, w, v: a tie, left out and counted
    assert report["structure"]["left_out"]["attribute values tied (left out)"] == 1
    assert values.get(((0, 7, "PER"), "neg")) is True  # the flag: 2 set, 1 absent
    assert report["structure"]["relations"] == {"read": 5, "in_consensus": 2}
