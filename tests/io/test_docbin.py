"""DocBin (.spacy) input and output: both layouts, ids by position, tokens, and the round trip."""
from __future__ import annotations

import json
import subprocess
import sys
import warnings

import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app
from spanagree.errors import InputError
from spanagree.io import detect_format, formats
from spanagree.io.docbin import write_docbin
from records import line

spacy = pytest.importorskip("spacy")
from spacy.tokens import DocBin, Span  # noqa: E402

NUMBERS = ("documents", "raters", "labels_seen", "rule", "overall", "macro", "pairs", "labels", "per_document")


def same_numbers(x: dict, y: dict) -> None:
    for key in NUMBERS:
        assert x[key] == y[key], key
    assert x["spans"]["scored"] == y["spans"]["scored"]


def save(docs, path):
    DocBin(store_user_data=True, docs=docs).to_disk(path)
    return path


@pytest.fixture
def nlp():
    return spacy.blank("en")


def test_docbin_is_a_format_detected_by_suffix(tmp_path, example_path):
    fmt = formats()["docbin"]
    assert not fmt.jsonl and fmt.write is not None
    out = tmp_path / "x.spacy"
    write_docbin(spanagree.read(example_path), out)
    assert detect_format(out) == "docbin"


@pytest.mark.parametrize(
    "options", [{"rule": "exact"}, {"rule": "partial"}, {"rule": "proportional", "unit": "token"}, {"rule": "overlap", "labels": "ignore"}]
)
def test_jsonl_to_docbin_to_score_equals_jsonl(tmp_path, example_path, options):
    corpus = spanagree.read(example_path)
    written = write_docbin(corpus, tmp_path / "news.spacy")
    assert written["documents"] == 50 and written["spans"] == corpus.n_spans
    assert not any(k.startswith("spans widened") for k in written)  # Prodigy tokens: spans align
    again = spanagree.read(tmp_path / "news.spacy")
    assert again.raters == corpus.raters and again.doc_ids == corpus.doc_ids
    same_numbers(spanagree.score(again, **options).to_dict(), spanagree.score(corpus, **options).to_dict())


def test_cli_scores_a_docbin_like_the_jsonl(tmp_path, example_path):
    write_docbin(spanagree.read(example_path), tmp_path / "news.spacy")
    runner = CliRunner()
    from_bin = runner.invoke(app, ["score", str(tmp_path / "news.spacy"), "--rule", "partial", "--output", "json"])
    from_jsonl = runner.invoke(app, ["score", str(example_path), "--rule", "partial", "--output", "json"])
    assert from_bin.exit_code == 0, from_bin.output
    same_numbers(json.loads(from_bin.stdout), json.loads(from_jsonl.stdout))


def test_convert_command_writes_a_docbin(tmp_path, example_path):
    runner = CliRunner()
    out = tmp_path / "news.spacy"
    converted = runner.invoke(app, ["convert", str(example_path), "-o", str(out)])
    assert converted.exit_code == 0, converted.output
    assert "wrote 141 annotations (461 spans, 50 documents, 3 raters)" in converted.stdout
    same_numbers(spanagree.score(out).to_dict(), spanagree.score(example_path).to_dict())


def test_one_docbin_per_rater_pairs_documents_by_position(tmp_path, nlp):
    texts = ["Alice met Bob in Paris.", "Carol flew to Rome on Monday."]
    alice, bob = [], []
    for text in texts:
        a, b = nlp(text), nlp(text)
        a.ents = [a.char_span(0, 5, "PER")]
        place = text.split()[-1].rstrip(".")
        b.ents = [b.char_span(0, 5, "PER"), b.char_span(text.index(place), text.index(place) + len(place), "LOC")]
        alice.append(a)
        bob.append(b)
    save(alice, tmp_path / "alice.spacy")
    save(bob, tmp_path / "bob.spacy")
    corpus = spanagree.read([tmp_path / "alice.spacy", tmp_path / "bob.spacy"])
    assert corpus.raters == ["alice", "bob"]
    assert corpus.doc_ids == ["doc-0001", "doc-0002"]
    report = spanagree.score(corpus).to_dict()
    assert report["pairs"][0]["documents"] == 2
    assert (report["overall"]["a"], report["overall"]["b"], report["overall"]["c"]) == (2.0, 0.0, 2.0)
    assert corpus.has_tokens()


def test_per_rater_files_in_different_orders_are_caught(tmp_path, nlp):
    texts = ["Alice met Bob.", "Carol flew to Rome."]
    save([nlp(t) for t in texts], tmp_path / "alice.spacy")
    save([nlp(t) for t in reversed(texts)], tmp_path / "bob.spacy")
    with pytest.raises(InputError, match="text differs"):
        spanagree.read([tmp_path / "alice.spacy", tmp_path / "bob.spacy"])


def test_doc_id_from_user_data_lines_up_files_in_any_order(tmp_path, nlp):
    texts = {"d1": "Alice met Bob.", "d2": "Carol flew to Rome."}
    for rater, order in (("alice", ["d1", "d2"]), ("bob", ["d2", "d1"])):
        docs = []
        for doc_id in order:
            doc = nlp(texts[doc_id])
            doc.user_data["doc_id"] = doc_id
            doc.ents = [doc.char_span(0, 5, "PER")]
            docs.append(doc)
        save(docs, tmp_path / f"{rater}.spacy")
    report = spanagree.score([tmp_path / "alice.spacy", tmp_path / "bob.spacy"]).to_dict()
    assert report["overall"]["pooled_psa"] == 1.0 and report["documents"]["scored"] == 2


def test_per_rater_spans_key(tmp_path, nlp):
    for rater, end in (("alice", 5), ("bob", 9)):
        doc = nlp("Alice met Bob.")
        doc.spans["sc"] = [doc.char_span(0, end, "PER", alignment_mode="expand")]
        save([doc], tmp_path / f"{rater}.spacy")
    paths = [tmp_path / "alice.spacy", tmp_path / "bob.spacy"]
    report = spanagree.score(spanagree.read(paths, spans_key="sc"), rule="overlap").to_dict()
    assert report["raters"] == ["alice", "bob"] and report["overall"]["pooled_psa"] == 1.0
    # without spans_key the span group is read as a rater named "sc", twice: an error, not a guess
    with pytest.raises(InputError, match="two different annotations"):
        spanagree.read(paths)


def test_span_groups_are_raters_absent_group_is_not_submitted(tmp_path, nlp):
    first, second = nlp("Alice met Bob."), nlp("Carol left.")
    first.spans["alice"] = [first.char_span(0, 5, "PER")]
    first.spans["bob"] = []  # submitted, nothing marked
    first.spans["sc"] = [first.char_span(10, 13, "PER")]
    second.spans["alice"] = [second.char_span(0, 5, "PER")]  # bob did not submit this one
    first.ents = [first.char_span(10, 13, "PER")]
    save([first, second], tmp_path / "all.spacy")
    corpus = spanagree.read(tmp_path / "all.spacy", span_keys=["alice", "bob"])
    assert corpus.raters == ["alice", "bob"]
    report = spanagree.score(corpus).to_dict()
    assert report["documents"]["scored"] == 1
    assert (report["overall"]["a"], report["overall"]["b"], report["overall"]["c"]) == (0.0, 1.0, 0.0)
    assert spanagree.read(tmp_path / "all.spacy", span_keys="alice,bob").raters == ["alice", "bob"]
    assert spanagree.read(tmp_path / "all.spacy").raters == ["alice", "bob", "sc"]  # every group


def test_span_without_label_is_an_error(tmp_path, nlp):
    doc = nlp("Alice met Bob.")
    doc.spans["alice"] = [doc.char_span(0, 5)]
    save([doc], tmp_path / "x.spacy")
    with pytest.raises(InputError, match="no label"):
        spanagree.read(tmp_path / "x.spacy")


def test_not_a_docbin(tmp_path):
    bad = tmp_path / "bad.spacy"
    bad.write_bytes(b"not a docbin")
    with pytest.raises(InputError, match="not a readable spaCy DocBin"):
        spanagree.read(bad)


def test_writer_without_tokens_widens_and_counts(tmp_path, write_jsonl):
    path = write_jsonl([
        line("d1", "alice", [(0, 5, "PER"), (10, 12, "PER")]),  # "Bo" is inside the token "Bob"
        line("d1", "bob", [(0, 5, "PER"), (10, 13, "PER")]),
    ])
    corpus = spanagree.read(path)
    with pytest.warns(UserWarning, match="1 spans widened to token boundaries"):
        written = write_docbin(corpus, tmp_path / "out.spacy")
    assert written["spans widened to token boundaries"] == 1
    again = spanagree.read(tmp_path / "out.spacy")
    assert again.spans_of("d1", "alice") == [(0, 5, "PER"), (10, 13, "PER")]
    assert again.doc_tokens[0] is not None


def test_writer_keeps_input_tokens_and_documents_without_annotations(tmp_path, write_jsonl):
    text = "New  York is big."
    tokens = [{"start": 0, "end": 3}, {"start": 5, "end": 9}, {"start": 10, "end": 12}, {"start": 13, "end": 16}, {"start": 16, "end": 17}]
    rec = line("d1", "alice", [(0, 9, "GPE")], text=text)
    path = write_jsonl([{**rec, "tokens": tokens}, {**line("d1", "bob", [(5, 9, "GPE")], text=text), "tokens": tokens}])
    corpus = spanagree.read(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_docbin(corpus, tmp_path / "out.spacy")
    doc = next(DocBin().from_disk(tmp_path / "out.spacy").get_docs(spacy.blank("en").vocab))
    assert doc.text == text and doc.user_data["doc_id"] == "d1"
    assert [t.text for t in doc] == ["New", " ", "York", "is", "big", "."]
    assert set(doc.spans) == {"alice", "bob"}
    token_report = spanagree.score(spanagree.read(tmp_path / "out.spacy"), rule="proportional", unit="token").to_dict()
    # the second space of "New  York" is a token of its own in the Doc (spaCy's convention), so
    # alice's span has 3 tokens and bob's 1: Jaccard 1/3
    assert token_report["overall"]["a"] == pytest.approx(1 / 3)


def test_reading_jsonl_does_not_import_spacy_even_with_docbin_registered(example_path):
    probe = (
        "import sys, spanagree, spanagree.io; spanagree.io.formats(); "
        "spanagree.score(spanagree.read(sys.argv[1])); print('spacy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe, str(example_path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_zero_length_spans_are_read_left_out_and_counted(tmp_path, nlp):
    # spaCy allows a span of no tokens; the reader leaves it out and counts it (align_spans, given
    # such a span directly, refuses it instead: tests/core/test_validation.py)
    for rater in ("alice", "bob"):
        doc = nlp("Alice met Bob.")
        doc.spans["sc"] = [doc.char_span(0, 5, "PER")] + ([Span(doc, 1, 1, "PER")] if rater == "alice" else [])
        assert doc.spans["sc"][-1].start_char == doc.spans["sc"][-1].end_char or rater == "bob"
        save([doc], tmp_path / f"{rater}.spacy")
    report = spanagree.score(spanagree.read([tmp_path / "alice.spacy", tmp_path / "bob.spacy"], spans_key="sc")).to_dict()
    assert report["spans"]["excluded"] == {"empty spaCy span (no characters)": 1}
    assert report["spans"]["read"] == 3 and report["spans"]["scored"] == 2
    assert report["overall"]["pooled_psa"] == 1.0
