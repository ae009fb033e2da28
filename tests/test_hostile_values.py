"""Careless values at every boundary: numbers beyond 64 bits, empty names and paths, writes the
system refuses, exports that hold more than one reading, and arguments of the wrong type. Each
is a clear error (exit 2, or UsageError / InputError in Python), never a traceback, a wrong
number or a silent drop."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app
from spanagree.errors import InputError, UsageError
from spanagree.measures.psa.specific import beta_weights

runner = CliRunner()
HUGE = 2**63  # one past the largest 64-bit integer


def _two_raters(tmp_path: Path, name: str = "in.jsonl", raters=("a", "b")) -> Path:
    path = tmp_path / name
    rows = [
        {"doc_id": "d1", "text": "Alice met Bob in Paris.", "annotator": r,
         "spans": [{"start": 0, "end": 5, "label": "PER"}, {"start": 17, "end": 22, "label": "LOC"}]}
        for r in raters
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _fails_cleanly(args: list[str], expected: str):
    result = runner.invoke(app, args)
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert "Traceback" not in result.output
    assert expected in " ".join(result.stderr.split()), result.stderr
    return result


@pytest.mark.parametrize("value", [str(HUGE), "99999999999999999999999"])
def test_a_min_overlap_beyond_64_bits_is_a_usage_error(tmp_path, value):
    path = _two_raters(tmp_path)
    _fails_cleanly(["score", str(path), "--rule", "overlap", "--min-overlap", value], "from 1 to 2**63 - 1")
    with pytest.raises(UsageError, match="2\\*\\*63 - 1"):
        spanagree.score(path, rule="overlap", min_overlap=10**30)
    assert spanagree.score(path, rule="overlap", min_overlap=HUGE - 1).to_dict()["documents"]["scored"] == 1


def test_offsets_beyond_64_bits_in_tool_exports_are_input_errors(tmp_path):
    text = "Alice met Bob in Paris."
    studio = tmp_path / "export.json"
    studio.write_text(json.dumps([{
        "id": 1, "data": {"text": text},
        "annotations": [{"id": 1, "completed_by": 1, "result": [
            {"type": "labels", "from_name": "label", "to_name": "text",
             "value": {"start": 0, "end": HUGE, "labels": ["PER"]}}]}],
    }]), encoding="utf-8")
    _fails_cleanly(["score", str(studio)], "value.end")
    folder = tmp_path / "doccano"
    folder.mkdir()
    for member in ("alice", "bob"):
        spans = [[0, HUGE, "PER"]] + [[i, i + 1, "X"] for i in range(20)]  # past the few-span path
        (folder / f"{member}.jsonl").write_text(json.dumps({"id": 1, "text": "Ünïcödé 😀 " + text, "label": spans}) + "\n")
    _fails_cleanly(["score", str(folder), "--format", "doccano"], "label[0]")
    with pytest.raises(UsageError, match="2\\*\\*62"):
        spanagree.align_spans([(0, 2**64, "A")], [(0, 5, "A")])
    assert spanagree.align_spans([(0, 2**62, "A")], [(0, 2**62, "A")]) == [((0, 2**62, "A"), (0, 2**62, "A"), 1.0)]


def test_a_language_spacy_does_not_have_is_a_usage_error(tmp_path):
    path = _two_raters(tmp_path)
    _fails_cleanly(["consensus", str(path), "-k", "2", "-o", str(tmp_path / "gold.spacy"), "--language", "qqq"],
                   "no spaCy language 'qqq'")
    assert not (tmp_path / "gold.spacy").exists()
    assert not list(tmp_path.glob(".*.part"))


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("output", ["table", "json"])
def test_a_write_the_system_refuses_is_a_usage_error(tmp_path, output):
    path = _two_raters(tmp_path)
    _fails_cleanly(["score", str(path), "--output", output, "-o", "/dev/full"], "cannot write '/dev/full'")


def test_a_folder_that_takes_no_new_file_is_a_usage_error(tmp_path, monkeypatch):
    path = _two_raters(tmp_path)
    real_open = os.open

    def refuse(name, *args, **kwargs):
        if str(name).endswith(".part"):
            raise FileNotFoundError(2, "No such file or directory")
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    _fails_cleanly(["score", str(path), "-o", str(tmp_path / "out.txt")], "No such file or directory")


def test_an_unreachable_dask_scheduler_is_a_usage_error(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    from spanagree.engine import dask as dask_engine

    monkeypatch.setattr(dask_engine, "CONNECT_SECONDS", 1)
    path = _two_raters(tmp_path)
    _fails_cleanly(["score", str(path), "--engine", "dask", "--scheduler", "tcp://127.0.0.1:1"],
                   "cannot reach the Dask scheduler 'tcp://127.0.0.1:1'")


def test_empty_rater_names_are_refused_on_input_and_in_consensus(tmp_path):
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    doc = nlp("Alice met Bob")
    doc.spans[""] = [doc.char_span(0, 5, label="PER")]
    doc.spans["b"] = [doc.char_span(0, 5, label="PER")]
    DocBin(docs=[doc], store_user_data=True).to_disk(tmp_path / "x.spacy")
    _fails_cleanly(["score", str(tmp_path / "x.spacy")], "the rater name '' is empty")
    path = _two_raters(tmp_path)
    for name in ("", "  "):
        _fails_cleanly(["consensus", str(path), "-k", "2", "-o", str(tmp_path / "gold.jsonl"), "--name", name],
                       "the consensus name must be a non-empty string")
    assert not (tmp_path / "gold.jsonl").exists()


def test_a_json_min_region_without_labels_is_an_error_not_a_dropped_rater(tmp_path):
    regions = [{"start": 0, "end": 5, "text": "Alice", "labels": ["PER"]}, {"start": 10, "end": 13, "text": "Bob"}]
    rows = [{"id": 1, "text": "Alice met Bob in Paris.", "annotator": r, "annotation_id": i, "label": regions}
            for i, r in enumerate(("x", "y"))]
    path = tmp_path / "export-min.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    _fails_cleanly(["score", str(path)], "[0].label[1].labels': missing")


def test_f_beta_stays_finite_for_any_finite_beta():
    assert spanagree.f_beta(1, 1, 1, beta=1e154) == spanagree.f_beta(1, 1, 1, beta=1e300) == 0.5
    assert spanagree.f_beta(1, 3, 0, beta=1e200) == pytest.approx(1 / 4)  # recall: a / (a + b)
    assert spanagree.f_beta(1, 0, 3, beta=1e-200) == pytest.approx(1 / 4)  # precision: a / (a + c)
    assert beta_weights(1.0) == (0.5, 0.5)
    for beta in (1e-3, 0.5, 2.0, 7.0, 1e3):  # the weights are β²/(1+β²) and 1/(1+β²)
        on_b, on_c = beta_weights(beta)
        assert on_b == pytest.approx(beta**2 / (1 + beta**2)) and on_c == pytest.approx(1 / (1 + beta**2))
    for a, b, c in [(227, 31, 50), (8, 2, 0), (0, 3, 4), (5, 0, 0)]:  # F1 is PSA to the last bit
        assert spanagree.f_beta(a, b, c) == spanagree.psa(a, b, c)


def test_f_in_the_report_is_defined_for_a_huge_beta(tmp_path):
    path = _two_raters(tmp_path)
    rows = [{"doc_id": "d1", "text": "Alice met Bob in Paris.", "annotator": "a",
             "spans": [{"start": 0, "end": 5, "label": "PER"}, {"start": 10, "end": 13, "label": "PER"}]},
            {"doc_id": "d1", "text": "Alice met Bob in Paris.", "annotator": "b",
             "spans": [{"start": 0, "end": 5, "label": "PER"}, {"start": 17, "end": 22, "label": "LOC"}]}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    row = spanagree.score(path, reference="a", beta=1e200).to_dict()["reference"]["raters"]["b"]
    assert row["f"] == row["recall"] == 0.5  # F_β tends to recall as β grows


@pytest.mark.parametrize("call, message", [
    (lambda p: spanagree.read(p, answers=5), "answers must be"),
    (lambda p: spanagree.read(p, progress=5), "progress must be a callable"),
    (lambda p: spanagree.alt_test(p, candidate=5), "candidate must be a rater's name"),
    (lambda p: spanagree.alt_test(p, candidate=[5]), "candidate names must be strings"),
    (lambda p: spanagree.read(""), "a path is empty"),
    (lambda p: spanagree.read([p, ""]), "a path is empty"),
])
def test_api_arguments_of_the_wrong_type_are_usage_errors(tmp_path, call, message):
    path = _two_raters(tmp_path, raters=("a", "b", "c"))
    with pytest.raises(UsageError, match=message):
        call(path)


@pytest.mark.parametrize("command", ["score", "gate", "report", "disagreements", "convert", "consensus"])
def test_an_empty_path_on_the_command_line_is_a_usage_error(tmp_path, monkeypatch, command):
    _two_raters(tmp_path)  # the current folder holds input: '' must not stand for it
    monkeypatch.chdir(tmp_path)
    extra = {"gate": ["--min", "pooled_psa=0.1"], "consensus": ["-k", "2", "-o", "gold.jsonl"],
             "convert": ["-o", "out.jsonl"], "disagreements": ["-o", "d.jsonl"], "report": ["-o", "r.html"]}
    _fails_cleanly([command, "", *extra.get(command, [])], "a path is empty")


def test_files_a_folder_does_not_read_are_named(tmp_path):
    folder = tmp_path / "round"
    folder.mkdir()
    _two_raters(folder)
    (folder / "other.json").write_text("[]", encoding="utf-8")
    (folder / ".hidden").write_text("x", encoding="utf-8")
    with pytest.warns(UserWarning, match=r"1 file\(s\) not read .*: other.json$"):
        spanagree.read(folder)
    result = runner.invoke(app, ["score", str(folder)])
    assert result.exit_code == 0


def test_doccano_with_two_fields_of_annotations_is_an_input_error(tmp_path):
    folder = tmp_path / "doccano"
    folder.mkdir()
    both = {"id": 1, "text": "Alice met Bob.", "entities": [{"id": 1, "start_offset": 0, "end_offset": 5, "label": "PER"}],
            "label": [[10, 13, "PER"]]}
    (folder / "alice.jsonl").write_text(json.dumps(both) + "\n", encoding="utf-8")
    (folder / "bob.jsonl").write_text(json.dumps({"id": 1, "text": "Alice met Bob.", "label": [[0, 5, "PER"]]}) + "\n")
    _fails_cleanly(["score", str(folder), "--format", "doccano"], "both 'entities' and 'label' hold annotations")
    # an empty second field is no conflict: the filled one is read
    one = {**both, "label": []}
    (folder / "alice.jsonl").write_text(json.dumps(one) + "\n", encoding="utf-8")
    report = spanagree.score(folder, format="doccano").to_dict()
    assert report["spans"]["read"] == 2


def test_a_candidate_line_with_another_text_is_an_input_error(tmp_path):
    path = _two_raters(tmp_path)
    candidates = tmp_path / "cands.jsonl"
    candidates.write_text(json.dumps({"doc_id": "d1", "text": "Something else", "spans": [{"start": 0, "end": 5}]}) + "\n")
    _fails_cleanly(["score", str(path), "--candidates", str(candidates)], "field 'text'")
    candidates.write_text(json.dumps({"doc_id": "d1", "text": "Alice met Bob in Paris.", "spans": [{"start": 0, "end": 5}]}) + "\n")
    assert runner.invoke(app, ["score", str(path), "--candidates", str(candidates)]).exit_code == 0


def test_the_gate_never_appends_its_summary_to_an_input(tmp_path, monkeypatch):
    path = _two_raters(tmp_path)
    before = path.read_bytes()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(path))
    _fails_cleanly(["gate", str(path), "--min", "pooled_psa=0.1"], "$GITHUB_STEP_SUMMARY")
    assert path.read_bytes() == before
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert runner.invoke(app, ["gate", str(path), "--min", "pooled_psa=0.1"]).exit_code == 0
    assert "spanagree gate" in summary.read_text(encoding="utf-8")


def test_gamma_with_many_raters_on_one_span_is_undefined_not_endless(tmp_path):
    path = tmp_path / "crowd.jsonl"
    path.write_text("".join(
        json.dumps({"doc_id": "d1", "text": "Alice met Bob in Paris .", "annotator": f"r{i}",
                    "spans": [{"start": 0, "end": 5, "label": "P"}]}) + "\n" for i in range(20)
    ), encoding="utf-8")
    gamma = spanagree.score(path, unitizing=True).to_dict()["unitizing"]["gamma"]
    assert gamma["value"] is None and "too large for the exact γ alignment" in gamma["reason"]


def test_conll_with_carriage_returns_alone_reads_every_line(tmp_path):
    for rater, tags in (("a", ["B-PER", "O", "B-PER", "", "B-LOC", "O"]), ("b", ["B-PER", "O", "O", "", "B-LOC", "O"])):
        rows = [f"{token} {tag}" if tag else "" for token, tag in zip(["Alice", "met", "Bob", "", "Paris", "is"], tags)]
        (tmp_path / f"{rater}.conll").write_bytes("\r".join(rows).encode("utf-8") + b"\r")
    report = spanagree.score([tmp_path / "a.conll", tmp_path / "b.conll"], format="conll").to_dict()
    assert report["spans"]["read"] == 5 and report["overall"]["a"] == 2.0


def test_spanagree_jsonl_without_annotator_keeps_tokens_and_labels(tmp_path):
    tokens = [{"start": 0, "end": 5}, {"start": 6, "end": 9}, {"start": 10, "end": 13}]
    for rater, end in (("alice", 5), ("bob", 13)):
        (tmp_path / f"{rater}.jsonl").write_text(json.dumps(
            {"doc_id": "d1", "text": "Alice met Bob", "spans": [{"start": 0, "end": end, "label": "P"}], "tokens": tokens}
        ) + "\n", encoding="utf-8")
        (tmp_path / f"lab_{rater}.jsonl").write_text(json.dumps(
            {"doc_id": "d1", "text": "Alice met Bob", "spans": [], "labels": ["POS" if rater == "alice" else "NEG"]}
        ) + "\n", encoding="utf-8")
    report = spanagree.score([tmp_path / "alice.jsonl", tmp_path / "bob.jsonl"], unit="token").to_dict()
    assert report["spans"]["scored"] == 2
    corpus = spanagree.read([tmp_path / "lab_alice.jsonl", tmp_path / "lab_bob.jsonl"])
    assert sorted(corpus.doc_label_names) == ["NEG", "POS"]


def test_prodigy_blocks_with_spans_and_a_choice_keep_both(tmp_path):
    base = {"text": "Alice met Bob in Paris .", "_input_hash": 1, "answer": "accept", "_view_id": "blocks",
            "options": [{"id": "POS"}, {"id": "NEG"}]}
    rows = [{**base, "_annotator_id": "a", "spans": [], "accept": ["POS"]},
            {**base, "_annotator_id": "b", "spans": [{"start": 0, "end": 5, "label": "P"}], "accept": ["POS"]}]
    path = tmp_path / "blocks.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = spanagree.score(path).to_dict()
    assert report["documents"]["scored"] == 1 and report["overall"]["pooled_psa"] == 0.0  # a marked nothing
    kappa = spanagree.score(path, candidates="documents").to_dict()
    assert kappa["chance_corrected"]["items"]["ratings"] == 2


@pytest.mark.parametrize("args", [
    ["consensus", "{path}", "-k", str(HUGE), "-o", "{tmp}/gold.jsonl"],
    ["alt-test", "{path}", "--candidate", "a", "--min-documents-per-human", str(2**64)],
    ["disagreements", "{path}", "-o", "{tmp}/d.csv", "--context", str(HUGE)],
])
def test_every_whole_number_option_is_bounded(tmp_path, args):
    path = _two_raters(tmp_path, raters=("a", "b", "c"))
    result = runner.invoke(app, [a.format(path=path, tmp=tmp_path) for a in args])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output


def test_a_consensus_that_keeps_no_document_writes_nothing(tmp_path):
    path = _two_raters(tmp_path, raters=("a", "b", "c"))
    _fails_cleanly(["consensus", str(path), "-k", "4", "-o", str(tmp_path / "gold.jsonl")], "the consensus is empty")
    assert not (tmp_path / "gold.jsonl").exists()


def test_gate_config_keys_may_be_quoted(tmp_path):
    path = _two_raters(tmp_path)
    for key in ('"a~b"', "a~b"):
        config = tmp_path / "gate.cfg"
        config.write_text(f"[gate]\non = \"point\"\n\n[gate.min]\n\n[gate.min.pair]\n{key} = 0.5\n", encoding="utf-8")
        result = runner.invoke(app, ["gate", str(path), "--config", str(config)])
        assert result.exit_code == 0, result.output


def test_writers_without_a_place_for_document_labels_say_so(tmp_path):
    rows = [{"doc_id": "d1", "text": "Alice met Bob", "annotator": r, "labels": [lab],
             "spans": [{"start": 0, "end": 5, "label": "P"}]} for r, lab in (("a", "POS"), ("b", "NEG"))]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for out in ("out.prodigy.jsonl", "out.spacy"):
        to = "prodigy" if out.endswith("jsonl") else "docbin"
        result = runner.invoke(app, ["convert", str(path), "-o", str(tmp_path / out), "--output", to])
        assert result.exit_code == 0, result.output
        assert "document labels not written" in result.stdout + result.stderr


def test_prodigy_written_by_convert_reads_back_with_the_same_document_ids(tmp_path):
    path = _two_raters(tmp_path)
    out = tmp_path / "out.jsonl"
    assert runner.invoke(app, ["convert", str(path), "-o", str(out), "--output", "prodigy"]).exit_code == 0
    assert spanagree.read(out).doc_ids == spanagree.read(path).doc_ids == ["d1"]


def test_rater_corpus_and_scorer_arguments_are_checked():
    from spanagree.integrations.component import make_agreement_scorer
    from spanagree.integrations.corpus import make_rater_corpus

    for bad in ({"answers": 5}, {"spans_key": 5}, {"augmenter": 5}, {"reference": 3}):
        with pytest.raises(UsageError):
            make_rater_corpus("x.jsonl", **bad)
    with pytest.raises(UsageError, match="spans_key must be null or a non-empty string"):
        make_agreement_scorer(spans_key=5)


def test_rater_corpus_takes_the_default_answers_on_any_format(tmp_path):
    from spanagree.integrations.corpus import make_rater_corpus

    path = _two_raters(tmp_path)
    corpus = make_rater_corpus(str(path), reference="a", answers=["accept"])
    assert corpus.corpus().raters == ["a", "b"]


def test_a_brat_folder_of_ann_files_and_annotator_folders_is_refused(tmp_path):
    for folder in ("a1", "a2", "."):
        (tmp_path / "proj" / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / "proj" / folder / "doc.txt").write_text("Alice met Bob", encoding="utf-8")
        (tmp_path / "proj" / folder / "doc.ann").write_text("T1\tPER 0 5\tAlice\n", encoding="utf-8")
    _fails_cleanly(["score", str(tmp_path / "proj")], "holds .ann files and annotator folders (a1, a2)")
    (tmp_path / "proj" / "doc.ann").unlink()
    (tmp_path / "proj" / "a2" / "sub").mkdir()
    (tmp_path / "proj" / "a2" / "sub" / "doc.ann").write_text("T1\tPER 0 5\tAlice\n", encoding="utf-8")
    notes = spanagree.score(tmp_path / "proj").to_dict()["spans"]["notes"]
    assert any("brat folder inside an annotator's folder, not read" in reason for reason in notes), notes


def test_prodigy_tokens_are_converted_with_the_spans(tmp_path):
    text = "😀 Alice bob ."  # the emoji is two UTF-16 code units
    tokens = [{"start": 0, "end": 2}, {"start": 3, "end": 8}, {"start": 9, "end": 12}, {"start": 13, "end": 14}]
    rows = [{"text": text, "_input_hash": 1, "answer": "accept", "_annotator_id": r, "tokens": tokens,
             "spans": [{"start": 3, "end": end, "label": "X", "token_start": 1, "token_end": last}]}
            for r, end, last in (("a", 8, 1), ("b", 12, 2))]
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    corpus = spanagree.read(path, offsets="utf16")
    assert [text[s:e] for s, e in corpus.doc_tokens[0].tolist()] == ["😀", "Alice", "bob", "."]
    report = spanagree.score(path, read_options={"offsets": "utf16"}, unit="token").to_dict()
    assert report["overall"]["a"] == 0.0 and report["spans"]["scored"] == 2


def test_convert_says_when_raters_gave_different_tokens(tmp_path):
    rows = [{"doc_id": "d1", "text": "Alice met Bob", "annotator": r, "spans": [{"start": 0, "end": 5, "label": "P"}],
             "tokens": toks} for r, toks in (("a", [{"start": 0, "end": 5}, {"start": 6, "end": 9}]),
                                             ("b", [{"start": 0, "end": 5}, {"start": 10, "end": 13}]))]
    path = tmp_path / "x.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = runner.invoke(app, ["convert", str(path), "-o", str(tmp_path / "out.jsonl")])
    assert result.exit_code == 0 and "raters gave different tokens" in result.stdout + result.stderr
    _fails_cleanly(["score", str(path), "--unit", "token"], "x.jsonl:2: document 'd1'")


def test_docbin_copies_must_name_span_groups_of_the_doc(tmp_path):
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    for name, copies in (("self.spacy", {"a": "b", "b": "a"}), ("bad.spacy", {"a": 5})):
        doc = nlp("Alice met Bob")
        doc.spans["a"] = [doc.char_span(0, 5, label="PER")]
        doc.spans["b"] = [doc.char_span(0, 5, label="PER")]
        doc.user_data["spanagree_copies"] = copies
        DocBin(docs=[doc], store_user_data=True).to_disk(tmp_path / name)
        _fails_cleanly(["score", str(tmp_path / name)], "spanagree_copies")


def test_the_engine_notes_a_rater_without_spans_as_reading_in_memory_does(tmp_path):
    path = tmp_path / "h.jsonl"
    rows = [{"doc_id": f"d{d}", "text": "Alice met Bob", "annotator": r,
             "spans": [] if r == "c" else [{"start": 0, "end": 5, "label": "P"}]} for d in range(20) for r in "abc"]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    in_memory = spanagree.score(path).to_dict()
    streamed = spanagree.score(path, stream=True, jobs=2).to_dict()
    assert in_memory["spans"]["notes"] == streamed["spans"]["notes"] == {"rater 'c' has no span in any document": 1}


def test_a_comma_list_with_an_empty_name_is_refused(tmp_path):
    path = tmp_path / "x.conll"
    path.write_text("Alice B-PER B-PER\nmet O O\n", encoding="utf-8")
    _fails_cleanly(["score", str(path), "--format", "conll", "--columns", "r1,"], "columns")


def test_a_lower_case_docstart_starts_a_document(tmp_path):
    for rater in ("a", "b"):
        (tmp_path / f"{rater}.conll").write_text(
            "-docstart- O\n\nAlice B-PER\n\n-docstart- O\n\nBob B-PER\n", encoding="utf-8")
    report = spanagree.score([tmp_path / "a.conll", tmp_path / "b.conll"], format="conll").to_dict()
    assert report["documents"]["read"] == 2 and report["spans"]["read"] == 4


def test_convert_refuses_an_empty_span_group_key(tmp_path):
    path = _two_raters(tmp_path)
    _fails_cleanly(["convert", str(path), "-o", str(tmp_path / "out.spacy"), "--ents-from", "a", "--out-spans-key", ""],
                   "spans_key must be a non-empty span group key")


def test_a_position_id_that_is_another_docs_given_id_is_an_error(tmp_path):
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    docs = []
    for text, given in (("Alice met Bob", None), ("Paris is big", "doc-0001")):
        doc = nlp(text)
        if given:
            doc.user_data["doc_id"] = given
        doc.spans["a"] = [doc.char_span(0, 5, label="X")]
        doc.spans["b"] = [doc.char_span(0, 5, label="X")]
        docs.append(doc)
    DocBin(docs=docs, store_user_data=True).to_disk(tmp_path / "x.spacy")
    _fails_cleanly(["score", str(tmp_path / "x.spacy")], "give every Doc a user_data['doc_id']")
    component = nlp.add_pipe("span_agreement")
    component(docs[0])
    with pytest.raises(InputError, match="give every Doc a user_data"):
        component(docs[1])


@pytest.mark.parametrize("args", [
    ["score", "{long}"], ["score", "{long}", "--jobs", "2"], ["score", "{long}", "--stream"],
    ["gate", "{long}", "--min", "pooled_psa=0.1"], ["convert", "{long}", "-o", "{tmp}/c.jsonl"],
    ["consensus", "{long}", "-k", "2", "-o", "{tmp}/g.jsonl"], ["report", "{long}", "-o", "{tmp}/r.html"],
    ["score", "{path}", "--config", "{long}"], ["score", "{path}", "-o", "{long}"],
    ["score", "{long}", "--format", "brat"],
])
def test_a_name_the_system_refuses_is_an_error_in_every_command(tmp_path, args):
    path = _two_raters(tmp_path)
    long = str(tmp_path / ("x" * 300))  # longer than any file system's name limit
    result = runner.invoke(app, [a.format(long=long, tmp=tmp_path, path=path) for a in args])
    assert result.exit_code == 2, (result.output, result.exception)
    assert "Traceback" not in result.output and "too long" in result.stderr.lower(), result.stderr


def test_statistics_refuse_expansions_and_tables_too_large_to_build():
    from spanagree import stats
    cac = stats  # the family is the same API

    with pytest.raises(ValueError, match="expand into"):
        stats.table_to_ratings([[2**62, 2**62], [2**62, 2**62]])
    with pytest.raises(ValueError, match="expand into"):
        stats.counts_to_ratings([[10**10, 0]])
    ratings = [[f"x{2 * i}", f"x{2 * i + 1}"] for i in range(5000)]  # 10,000 categories
    with pytest.raises(ValueError, match="categories"):
        cac.gwet_ac(ratings)
    with pytest.raises(ValueError, match="needs category values that are not 0"):
        cac.fleiss_kappa([[-1, 0, 1], [0, 0, 1], [-1, -1, -1]], weights="ratio")
    for bad in ({"confidence": "0.9"}, {"population": None}):
        with pytest.raises(ValueError):
            cac.family([["a", "a"], ["a", "b"]], **bad)


def test_psa_and_f_with_counts_near_the_float_limit():
    assert spanagree.psa(1e308, 1e308, 1e308) == 0.5
    assert spanagree.f_beta(1e308, 1e308, 1e308, beta=1e-300) == 0.5


def test_candidate_tables_too_large_are_a_usage_error(tmp_path):
    text = " ".join(f"t{i}" for i in range(7500))  # 7,501 categories: 56M cells for one pair
    tokens, spans, start = [], [], 0
    for i, word in enumerate(text.split(" ")):
        tokens.append({"start": start, "end": start + len(word)})
        spans.append({"start": start, "end": start + len(word), "label": f"L{i}"})
        start += len(word) + 1
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps({"doc_id": "d", "text": text, "annotator": r, "spans": spans, "tokens": tokens}) + "\n"
                            for r in ("a", "b")), encoding="utf-8")
    _fails_cleanly(["score", str(path), "--candidates", "tokens"], "k × k table per pair")


def test_unitizing_text_output_when_no_document_has_every_rater(tmp_path):
    rows = [{"doc_id": f"d{i}", "text": "Alice met Bob", "annotator": r, "spans": [{"start": 0, "end": 5, "label": "P"}]}
            for i, r in ((1, "a"), (2, "b"))]
    path = tmp_path / "x.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for output in ("table", "markdown"):
        result = runner.invoke(app, ["score", str(path), "--unitizing", "--output", output])
        assert result.exit_code == 0 and "Traceback" not in result.output, result.output


def test_report_to_a_folder_or_empty_name_is_a_usage_error(tmp_path, monkeypatch):
    path = _two_raters(tmp_path)
    monkeypatch.chdir(tmp_path)
    for out in ("", "."):
        _fails_cleanly(["report", str(path), "-o", out], "is a folder")


def test_a_unitizing_table_in_the_config_is_checked_and_used(tmp_path):
    path = _two_raters(tmp_path)
    _fails_cleanly(["score", str(path), "--unitizing.on", '{"samples": 5, "bogus": 2}'], "unknown unitizing option(s) bogus")
    result = runner.invoke(app, ["score", str(path), "--unitizing.on", '{"samples": 5}', "--output", "json"])
    assert json.loads(result.stdout)["unitizing"]["gamma"]["samples"] == 5


@pytest.mark.parametrize("options, accept, field", [
    (5, ["POS"], "options"), ([{"id": None}, {"id": {"x": 1}}], [], "options"), ([{"id": "POS"}], ["NEG"], "accept"),
])
def test_prodigy_options_are_checked(tmp_path, options, accept, field):
    rows = [{"text": "Alice met Bob", "_input_hash": 1, "answer": "accept", "_annotator_id": r, "options": options,
             "accept": accept} for r in ("a", "b")]
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    _fails_cleanly(["score", str(path)], f"field '{field}'")


def test_api_arguments_of_the_report_and_aligner_are_checked(tmp_path):
    path = _two_raters(tmp_path)
    with pytest.raises(UsageError):
        spanagree.score(path, read_options=5)
    for kwargs in ({"rule": 5}, {"bogus": 1}):
        with pytest.raises(UsageError):
            spanagree.align_spans([(0, 5, "A")], [(0, 5, "A")], **kwargs)
    report = spanagree.score(path)
    for call in (lambda: report.summary(max_pairs="x"), lambda: report.summary(max_pairs=-1),
                 lambda: report.with_pairs([5]), lambda: report.pairs_written(None)):
        with pytest.raises(UsageError):
            call()


def test_dash_writes_the_output_to_standard_output(tmp_path, monkeypatch):
    path = _two_raters(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["score", str(path), "-o", "-", "--output", "json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["documents"]["read"] == 1
    assert not (tmp_path / "-").exists()


def test_statistics_refuse_labels_that_are_not_labels_and_odd_arguments():
    from spanagree import stats
    from spanagree.measures.chance import family as cac

    for ratings in ([[frozenset({1}), frozenset({1})], [frozenset({2}), frozenset({1})]], [[{"a": 1}, {"a": 1}]]):
        with pytest.raises(ValueError, match="must hold labels"):
            stats.fleiss_kappa(ratings)
    for kwargs in ({"coefficients": 5}, {"categories": 5}):
        with pytest.raises(ValueError):
            cac.family([["a", "a"], ["a", "b"]], **kwargs)
