"""Genuine exports of the annotation tools (tests/fixtures/<tool>/, each with a README naming the
tool, version and command), read right or refused with a message that names the option."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import spanagree
from spanagree.errors import InputError, UsageError
from spanagree.io import detect_format
from spanagree.io.offsets import FEW, UNITS, boundaries, convert_spans, length, risky, to_codepoints
from locations import FIXTURES


# --- offset units ----------------------------------------------------------------------------


def test_offset_units_on_emoji_flag_and_crlf():
    text = "I \U0001F69A a \U0001F1EB\U0001F1F7 b\r\nc"
    assert length(text, "codepoint") == 13
    assert length(text, "utf16") == 16  # three characters beyond U+FFFF count two each
    assert length(text, "grapheme") == 11  # the flag and CRLF count one each
    # 'c', the last character, in each unit
    for unit, start in (("codepoint", 12), ("utf16", 15), ("grapheme", 10)):
        s, e, ok = to_codepoints(text, [start], [start + 1], unit)
        assert ok.all() and text[s[0]:e[0]] == "c", unit
    # an offset inside a surrogate pair is no boundary
    assert not to_codepoints(text, [3], [4], "utf16")[2][0]
    assert risky(text) and risky("cafe\u0301") and not risky("caf\u00e9 \u00fcber") and not risky("plain")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["a", " ", "\r\n", "\U0001F69A", "e\u0301", "\u00e9", "\U0001F1EB\U0001F1F7"]),
                max_size=12).map("".join))
def test_offset_units_round_trip(text):
    # every boundary in every unit converts to the code-point boundary it stands for
    for unit in UNITS:
        b = boundaries(text, unit)
        if unit == "utf16":
            units = np.array([len(text[:i].encode("utf-16-le")) // 2 for i in range(len(text) + 1)])
            s, e, ok = to_codepoints(text, units[:-1], units[1:], unit)
            assert ok.all() and s.tolist() == list(range(len(text)))
        else:
            idx = np.arange(len(b))
            s, e, ok = to_codepoints(text, idx[:-1], idx[1:], unit)
            assert ok.all() and s.tolist() == b[:-1].tolist() and e.tolist() == b[1:].tolist()
        if unit != "utf16":
            assert length(text, unit) == len(b) - 1
    # the readers' path (few spans one by one, many with arrays) gives the same
    long = (text or "a") * (FEW + 1)
    units = [len(long[:i].encode("utf-16-le")) // 2 for i in range(len(long) + 1)]
    for n in (1, len(text) or 1, len(long)):
        spans = [(units[i], units[i + 1], "X") for i in range(n)]
        assert convert_spans(spans, long, "utf16", None, None, "spans") == [(i, i + 1, "X") for i in range(n)]


def test_an_unknown_unit_names_the_option(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text(json.dumps({"id": 1, "text": "x", "label": [[0, 1, "X"]]}) + "\n")
    with pytest.raises(UsageError, match=r"offsets='bytes': expected one of codepoint, utf16, grapheme"):
        spanagree.read(path, offsets="bytes")


# --- doccano (made with doccano 1.8.4's own export code) -------------------------------------

DOCCANO = FIXTURES / "doccano"


def covered(corpus):
    """{(doc, rater): [covered text, ...]} for every annotation."""
    out = {}
    for doc, text in zip(corpus.doc_ids, corpus.texts):
        for rater in corpus.raters:
            try:
                out[doc, rater] = [text[s:e] for s, e, _ in corpus.spans_of(doc, rater)]
            except KeyError:
                pass
    return out


@pytest.mark.parametrize("project, options", [("utf16", {}), ("grapheme", {"offsets": "grapheme"})])
def test_doccano_offsets_read_right_in_both_project_modes(project, options):
    corpus = spanagree.read(DOCCANO / f"{project}-all", **options)
    marks = covered(corpus)
    first, second = sorted(corpus.doc_ids)[:2]
    assert marks[first, "alice"] == ["trucks", "Tesla", "Austin"]
    assert marks[second, "alice"] == ["Paris", "Berlin"]  # after a flag and a CRLF
    assert marks[first, "carol"] == ["Austin"]
    notes = corpus.exclusions.notes
    unverified = [n for n in notes if "unverifiable" in n]
    # the default (UTF-16) cannot be verified from the file: said, naming the unit
    assert bool(unverified) == (not options)
    if unverified:
        assert "UTF-16 code units" in unverified[0] and "offsets='codepoint' or 'grapheme'" in unverified[0]


def test_doccano_all_examples_export_is_not_a_rater_who_marked_nothing():
    corpus = spanagree.read(DOCCANO / "utf16-all")
    # carol looked at the first example only; dave at none: neither is a rater of the others
    assert corpus.raters == ["alice", "bob", "carol"]
    assert corpus.exclusions.notes[next(n for n in corpus.exclusions.notes if n.startswith("doccano example with an empty label list"))] == 6
    assert any("'dave'" in n and "no span" in n for n in corpus.exclusions.notes)
    report = spanagree.score(corpus).to_dict()
    # on the examples both looked at: alice-bob 4 matches, 1 only alice's (bob never looked at the
    # third); alice-carol 1 match, 2 only alice's; bob-carol none -> mean of 8/9, 2/4 and 0
    assert report["overall"]["pairwise_mean_psa"] == pytest.approx((8 / 9 + 0.5 + 0.0) / 3)
    # read as marked nothing, carol becomes a rater who disagrees on everything
    nothing = spanagree.score(spanagree.read(DOCCANO / "utf16-all", empty="nothing")).to_dict()
    assert nothing["overall"]["pairwise_mean_psa"] < report["overall"]["pairwise_mean_psa"]


def test_doccano_confirmed_only_export_with_a_one_byte_file():
    assert (DOCCANO / "utf16-confirmed" / "dave.jsonl").read_bytes() == b"\n"
    corpus = spanagree.read(DOCCANO / "utf16-confirmed", empty="nothing")
    assert corpus.raters == ["alice", "bob", "carol"]
    assert corpus.exclusions.notes["empty file (a rater with no annotation): dave.jsonl"] == 1
    assert covered(corpus)["3", "bob"] == []  # confirmed with no span: marked nothing


def test_doccano_imported_user_column_is_not_the_rater():
    corpus = spanagree.read(DOCCANO / "utf16-all" / "alice.jsonl")
    assert corpus.raters == ["alice"]
    assert spanagree.read(DOCCANO / "utf16-all" / "alice.jsonl", rater_field="user").raters == [
        "importer-1", "importer-2", "importer-3"]


def test_doccano_grapheme_offsets_read_as_utf16_run_out_of_range_and_say_which_unit_fits(tmp_path):
    text = "a\U0001F69AParis"  # the truck is code point 1, UTF-16 code units 1-3
    path = tmp_path / "ann.jsonl"
    path.write_text(json.dumps({"id": 1, "text": text, "label": [[1, 2, "CAR"]]}) + "\n")
    with pytest.raises(InputError, match=r"field 'label\[0\]'.*counted in UTF-16 code units.*set offsets='codepoint'"):
        spanagree.read(path)  # 2 is inside the truck's surrogate pair
    assert covered(spanagree.read(path, offsets="codepoint"))["1", "ann"] == ["\U0001F69A"]
    # UTF-16 offsets read as grapheme clusters run past the end: the message says which unit fits
    path.write_text(json.dumps({"id": 1, "text": text, "label": [[3, 8, "LOC"]]}) + "\n")
    with pytest.raises(InputError, match=r"7 code points, 8 UTF-16 code units, 7 grapheme clusters.*offsets='utf16'"):
        spanagree.read(path, offsets="grapheme")
    assert covered(spanagree.read(path))["1", "ann"] == ["Paris"]


# --- Label Studio (made with label-studio 1.23.2's own export code) --------------------------

LS = FIXTURES / "labelstudio"


@pytest.mark.parametrize("name", ["ner.json", "ner-min.json"])
def test_labelstudio_exports_read_right(name):
    path = LS / name
    assert detect_format(path) == "labelstudio"
    corpus = spanagree.read(path)
    assert corpus.raters == ["1", "2"]  # no phantom rater named after the file
    marks = covered(corpus)
    assert marks["1", "1"] == marks["1", "2"] == ["Alice Smith", "Paris"]  # after an emoji; bob's latest
    assert marks["2", "1"] == ["Berlin", "Rome   Capital"]  # the region text says 'Rome Capital'
    assert ("4", "2") not in marks  # bob skipped task 4 (JSON-MIN leaves the cancelled one out)
    excluded = corpus.exclusions
    assert excluded.annotations["Label Studio annotation by a rater who annotated the task again (the latest kept)"] == 1
    assert excluded.notes["Label Studio region text matched with runs of white space collapsed"] == 1
    assert excluded.documents["no submitted annotation"] == 1  # task 3
    if name == "ner-min.json":
        assert excluded.notes["Label Studio JSON-MIN row with no annotator (a task nobody annotated)"] == 1
    else:
        assert excluded.annotations["Label Studio annotation cancelled"] == 1
        assert excluded.annotations["Label Studio prediction (a model's, not a rater's)"] == 1


def test_labelstudio_options_name_themselves():
    with pytest.raises(InputError, match=r"rater '2' annotated this task twice.*duplicates='latest'"):
        spanagree.read(LS / "ner.json", duplicates="error")
    with pytest.raises(InputError, match=r"'Rome Capital'.*check_text='whitespace' compares with white space collapsed"):
        spanagree.read(LS / "ner.json", check_text="exact")
    assert covered(spanagree.read(LS / "ner.json", check_text="off"))["2", "1"] == ["Berlin", "Rome   Capital"]
    with pytest.raises(UsageError, match=r"check_text='loose': expected one of whitespace, exact, off"):
        spanagree.read(LS / "ner.json", check_text="loose")


def test_labelstudio_title_and_body_are_two_texts_of_a_task():
    corpus = spanagree.read(LS / "title-body.json")
    assert corpus.doc_ids == ["5:body", "5:title"]
    marks = covered(corpus)
    assert marks["5:body", "1"] == ["Alice", "Paris"] and marks["5:body", "2"] == ["Paris"]
    assert marks["5:title", "1"] == marks["5:title", "2"] == ["Paris"]
    body = spanagree.read(LS / "title-body.json", text_field="body")
    assert body.doc_ids == ["5"] and covered(body)["5", "1"] == ["Alice", "Paris"]
    assert body.exclusions.spans["Label Studio region on another text than text_field='body'"] == 2


def test_labelstudio_text_given_by_url_is_refused(tmp_path):
    with pytest.raises(InputError, match=r"field '\[0\]\.annotations\[0\]\.result\[0\]\.value': the task's text "
                                         r"is a URL.*valueType=\"url\".*text_field="):
        spanagree.read(LS / "url.json")
    # a text that is a URL, with regions that fit it, is a text
    task = json.loads((LS / "url.json").read_text())[0]
    task["annotations"][0]["result"][0]["value"].update(start=8, end=19, text="example.org")
    path = tmp_path / "urls.json"
    path.write_text(json.dumps([task]))
    assert covered(spanagree.read(path))[str(task["id"]), "1"] == ["example.org"]


def test_labelstudio_min_detected_past_a_long_first_text(tmp_path):
    rows = json.loads((LS / "ner-min.json").read_text(encoding="utf-8"))
    rows[0]["text"] = rows[0]["text"] + " filler" * 20000  # well past the detection peek
    for row in rows:
        if row["id"] == 1:
            row["text"] = rows[0]["text"]
    path = tmp_path / "long.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    assert detect_format(path) == "labelstudio"
    assert spanagree.read(path).raters == ["1", "2"]


# --- Prodigy (example data of explosion/prodigy-recipes) -------------------------------------

PRODIGY = FIXTURES / "prodigy"


def test_prodigy_ner_teach_binary_answers_are_merged_per_input():
    corpus = spanagree.read(PRODIGY / "reddit-PRODUCT-ner-teach.jsonl")
    notes = corpus.exclusions.notes
    assert notes["Prodigy binary task accepted (its spans are the rater's marks)"] == 6
    assert notes["Prodigy binary task rejected (its spans judged absent)"] == 8
    assert corpus.exclusions.annotations["Prodigy answer 'ignore'"] == 1
    # five tasks about one input (four rejected, one ignored): the rater submitted it, with no span
    marks = {doc: m for (doc, _), m in covered(corpus).items()}
    assert marks["4008639"] == []
    # three accepted tasks suggesting the same span: one mark
    assert marks["-599665248"] == ["Reddit"]
    # three accepted tasks, one per suggestion, about another input: three marks
    assert marks["1383056402"] == ["FireCookie", "FireDiff", "JSLint"]


def test_prodigy_textcat_teach_with_empty_spans_is_text_classification():
    corpus = spanagree.read(PRODIGY / "reddit-INSULT-textcat-teach.jsonl")
    assert corpus.doc_label_names == ["INSULT"] and corpus.n_spans == 0
    assert sorted(corpus.dl_value.tolist()) == [0, 0, 1, 1]  # two accepted, two rejected
    assert corpus.exclusions.annotations["Prodigy answer 'ignore'"] == 2


def test_prodigy_ner_manual_reads_its_tokens():
    corpus = spanagree.read(PRODIGY / "news-headlines-ner-manual.jsonl")
    assert corpus.has_tokens() and corpus.n_spans == 5


def prodigy_task(text, spans, answer="accept", session="news-alex", input_hash=7, **extra):
    return {"text": text, "_input_hash": input_hash, "_task_hash": hash((text, str(spans))) & 0xFFFF,
            "spans": [{"start": s, "end": e, "label": lab, **extra.pop("span_extra", {})} for s, e, lab in spans],
            "answer": answer, "_session_id": session, "_annotator_id": session, **extra}


def test_prodigy_binary_agreement_rejected_suggestion_is_a_no(tmp_path):
    text = "Alice met Bob."
    rows = [prodigy_task(text, [(0, 5, "PER")], session="a", _view_id="ner"),
            prodigy_task(text, [(10, 13, "PER")], session="a", _view_id="ner"),
            prodigy_task(text, [(0, 5, "PER")], session="b", _view_id="ner"),
            prodigy_task(text, [(10, 13, "PER")], answer="reject", session="b", _view_id="ner")]
    path = tmp_path / "teach.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = spanagree.score(spanagree.read(path)).to_dict()
    assert (report["overall"]["a"], report["overall"]["b"], report["overall"]["c"]) == (1.0, 1.0, 0.0)


def test_prodigy_same_annotator_twice_keeps_the_latest_and_sessions_can_be_merged(tmp_path):
    text = "Alice met Bob."
    rows = [prodigy_task(text, [(0, 5, "PER")], session="news-2024-01-31_10-00-00", _timestamp=200),
            prodigy_task(text, [(0, 5, "PER"), (10, 13, "PER")], session="news-2024-01-31_10-00-00", _timestamp=300),
            prodigy_task(text, [(10, 13, "PER")], session="news-2024-02-01_09-30-00", input_hash=8, _timestamp=100)]
    path = tmp_path / "news.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    corpus = spanagree.read(path)
    assert corpus.spans_of("7", "news-2024-01-31_10-00-00") == [(0, 5, "PER"), (10, 13, "PER")]
    assert corpus.exclusions.annotations[
        "Prodigy answer by a rater who answered the input again (the latest kept)"] == 1
    with pytest.raises(InputError, match=r"answered this input 2 times.*duplicates='latest'"):
        spanagree.read(path, duplicates="error")
    assert spanagree.read(path, rater="prefix").raters == ["news"]
    assert spanagree.read(path, rater="file").raters == ["news"]
    with pytest.raises(UsageError, match=r"rater='who': expected one of annotator, session, prefix, file"):
        spanagree.read(path, rater="who")


# --- brat (brat's tutorial data; the documented discontinuous example) ------------------------

BRAT = FIXTURES / "brat"


def test_brat_project_root_reads_one_folder_per_annotator():
    root = BRAT / "project"
    assert detect_format(root) == "brat"
    corpus = spanagree.read(root)
    assert corpus.raters == ["ann1", "ann2"]
    report = spanagree.score(corpus).to_dict()
    # ann2 is ann1 without two of its seven entities (one an event trigger, not scored)
    assert (report["overall"]["a"], report["overall"]["b"], report["overall"]["c"]) == (4.0, 2.0, 0.0)
    assert spanagree.read([root / "ann1", root / "ann2"]).n_spans == corpus.n_spans


def test_brat_discontinuous_entity_is_one_unit_by_default():
    folder = BRAT / "discontinuous"
    corpus = spanagree.read(folder)
    assert corpus.spans_of("doc", "ann1") == [(0, 23, "Location"), (10, 23, "Location")]
    assert corpus.exclusions.notes["discontinuous brat entity, scored as its covering span"] == 1
    covering = spanagree.score(corpus).to_dict()["overall"]
    # "North ... America" does not agree with "North" and "America" marked apart
    assert (covering["a"], covering["b"], covering["c"]) == (1.0, 1.0, 2.0)
    fragments = spanagree.score(spanagree.read(folder, discontinuous="fragments")).to_dict()["overall"]
    assert (fragments["a"], fragments["b"], fragments["c"]) == (3.0, 0.0, 0.0)
    with pytest.raises(UsageError, match=r"discontinuous='unit': expected one of covering, fragments"):
        spanagree.read(folder, discontinuous="unit")


def test_brat_covering_spans_that_match_with_other_fragments_are_flagged(tmp_path):
    import shutil

    root = tmp_path / "project"
    shutil.copytree(BRAT / "discontinuous", root)
    (root / "ann3").mkdir()
    shutil.copy(root / "ann1" / "doc.txt", root / "ann3" / "doc.txt")
    (root / "ann3" / "doc.ann").write_text("T1\tLocation 0 23\tNorth and South America\n")
    corpus = spanagree.read(root)
    assert corpus.raters == ["ann1", "ann2", "ann3"]
    flag = "covering spans on which raters agree but whose fragments differ (a match under the exact rule)"
    assert corpus.exclusions.notes[flag] == 1
    assert flag in spanagree.score(corpus).to_dict()["spans"]["notes"]


def test_brat_txt_with_crlf_after_checkout_is_read_with_lf():
    crlf = spanagree.read(BRAT / "crlf" / "ann1")
    plain = spanagree.read(BRAT / "project" / "ann1")
    assert crlf.texts == plain.texts and crlf.spans_of("000-introduction", "ann1") == plain.spans_of(
        "000-introduction", "ann1")
    assert crlf.exclusions.notes[
        "brat .txt with CRLF line breaks read with LF (the annotations' texts match only so)"] == 1


# --- trec_eval (its test qrels: comments, and the multi-assessor qrels_jg layout) -------------

QRELS_JG = FIXTURES / "trec_eval" / "qrels_jg.123"


def test_trec_eval_multi_assessor_qrels_with_comments():
    assert detect_format(QRELS_JG) == "qrels"
    corpus = spanagree.read(QRELS_JG)
    assert corpus.raters == ["0", "1", "2"]  # column 2: the judgment groups
    notes = corpus.exclusions.notes
    assert notes["qrels comment line (#) skipped"] == 3
    assert notes["qrels with several assessors per file: column 2 read as the assessor"] == 1
    # independently: per pair of assessors, docnos both judged relevant, or one only
    relevant: dict[str, set] = {}
    for line in QRELS_JG.read_text().splitlines():
        if not line.startswith("#"):
            topic, group, docno, grade = line.split()
            relevant.setdefault(group, set())
            if int(grade) >= 1:
                relevant[group].add(docno)
    expected = []
    for x, y in (("0", "1"), ("0", "2"), ("1", "2")):
        a = len(relevant[x] & relevant[y])
        expected.append(2 * a / (len(relevant[x]) + len(relevant[y])))
    report = spanagree.score(corpus).to_dict()
    assert report["overall"]["pairwise_mean_psa"] == pytest.approx(sum(expected) / 3)
    # read as one assessor's file, the repeated judgments under other groups are refused, naming the option
    with pytest.raises(InputError, match=r"docno 'CR93E-1860' judged 3 here and 0 at line 6.*assessor='column'"):
        spanagree.read(QRELS_JG, assessor="file")


# --- the command line ------------------------------------------------------------------------


def test_cli_reader_options_and_messages():
    from typer.testing import CliRunner

    from spanagree.app.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["score", str(LS / "ner.json"), "--duplicates", "error"])
    assert result.exit_code == 2 and "duplicates='latest'" in result.output
    result = runner.invoke(app, ["score", str(DOCCANO / "grapheme-all"), "--input.offsets", "grapheme", "--output", "json"])
    assert result.exit_code == 0, result.output
    assert "unverifiable" not in result.stdout
    result = runner.invoke(app, ["score", str(DOCCANO / "utf16-all"), "--offsets", "bytes"])
    assert result.exit_code == 2 and "offsets='bytes'" in result.output and "[input] offsets" in result.output


def test_convert_writes_document_labels_prints_notes_and_refuses_nothing(tmp_path):
    from typer.testing import CliRunner

    from spanagree.app.cli import app

    runner = CliRunner()
    out = tmp_path / "labels.jsonl"
    result = runner.invoke(app, ["convert", str(PRODIGY / "reddit-INSULT-textcat-teach.jsonl"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    again = spanagree.read(out)
    assert again.doc_label_names == ["INSULT"] and sorted(again.dl_value.tolist()) == [0, 0, 1, 1]
    result = runner.invoke(app, ["convert", str(DOCCANO / "utf16-all"), "-o", str(tmp_path / "d.jsonl")])
    assert result.exit_code == 0 and "note: doccano example with an empty label list" in result.output
    empty = tmp_path / "nothing.jsonl"
    result = runner.invoke(app, ["convert", str(PRODIGY / "reddit-INSULT-textcat-teach.jsonl"), "-o", str(empty),
                                 "--to", "prodigy"])
    assert result.exit_code == 2 and "nothing to write" in result.output and not empty.exists()


# --- seqeval's test data (conlleval layout: a gold and a predicted tag column) -----------------

def conlleval_chunks(tags):
    """Chunks as conlleval finds them: a chunk starts at B-X, or at I-X after anything but X."""
    chunks, start, kind = set(), None, None
    for i, tag in enumerate([*tags, "O"]):
        prefix, _, label = tag.partition("-")
        begins = prefix == "B" or prefix == "I" and label != kind
        if kind is not None and (tag == "O" or begins):
            chunks.add((start, i, kind))
            kind = None
        if tag != "O" and (begins or kind is None):
            start, kind = i, label
    return chunks


def test_seqeval_ground_truth_two_columns_as_two_raters():
    path = FIXTURES / "seqeval" / "ground_truth.txt"
    corpus = spanagree.read(path, format="conll", columns=["gold", "pred"])
    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    gold, pred = conlleval_chunks([r[2] for r in rows]), conlleval_chunks([r[3] for r in rows])
    overall = spanagree.score(corpus, unit="token").to_dict()["overall"]
    assert (overall["a"], overall["b"], overall["c"]) == (len(gold & pred), len(gold - pred), len(pred - gold))


def test_a_rater_with_no_span_anywhere_is_noted(tmp_path):
    path = tmp_path / "all.jsonl"
    rows = [{"doc_id": "d", "text": "Alice met Bob.", "annotator": "a", "spans": [{"start": 0, "end": 5, "label": "P"}]},
            {"doc_id": "d", "text": "Alice met Bob.", "annotator": "b", "spans": []}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert spanagree.read(path).exclusions.notes["rater 'b' has no span in any document"] == 1


def test_labelstudio_regions_without_text_in_emoji_texts_are_noted_and_offsets_can_be_named(tmp_path):
    text = "I \U0001F69A Paris"
    task = {"id": 1, "data": {"text": text}, "annotations": [
        {"completed_by": 1, "result": [{"type": "labels", "value": {"start": 5, "end": 10, "labels": ["LOC"]}}]}]}
    path = tmp_path / "export.json"
    path.write_text(json.dumps([task]))
    with pytest.raises(InputError, match=r"set offsets='utf16'"):
        spanagree.read(path)
    corpus = spanagree.read(path, offsets="utf16")
    assert covered(corpus)["1", "1"] == ["Paris"] and not corpus.exclusions.notes  # the unit was named
    task["annotations"][0]["result"][0]["value"].update(start=4, end=9)
    path.write_text(json.dumps([task]))
    notes = spanagree.read(path).exclusions.notes
    assert any("offsets read as code points" in note and "unverifiable" in note for note in notes)


def test_prodigy_offsets_option(tmp_path):
    text = "I \U0001F69A Paris"
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps(prodigy_task(text, [(5, 10, "LOC")])) + "\n")
    assert covered(spanagree.read(path, offsets="utf16"))["7", "news-alex"] == ["Paris"]


def test_seqeval_suffix_style_tags_read_as_their_prefix_form():
    folder = FIXTURES / "seqeval"
    prefix = spanagree.read(folder / "ground_truth.txt", format="conll", columns=["gold", "pred"])
    assert detect_format(folder / "ground_truth_inv.txt") == "conll"
    suffix = spanagree.read(folder / "ground_truth_inv.txt", columns=["gold", "pred"])
    assert suffix.n_spans == prefix.n_spans
    assert spanagree.score(suffix).to_dict()["overall"] == spanagree.score(prefix).to_dict()["overall"]


def test_doccano_document_classification_export_gives_document_labels():
    corpus = spanagree.read(DOCCANO / "textcat-all")
    assert corpus.doc_label_names == ["tech", "travel"] and corpus.n_spans == 0
    given = {(corpus.doc_ids[d], corpus.raters[r], corpus.doc_label_names[k]): v for d, r, k, v in zip(
        corpus.dl_doc.tolist(), corpus.dl_rater.tolist(), corpus.dl_label.tolist(), corpus.dl_value.tolist())}
    assert given["7", "bob", "tech"] == given["7", "bob", "travel"] == 1
    assert given["9", "alice", "tech"] == 0 and given["9", "alice", "travel"] == 1  # a choice among all labels
    assert ("8", "carol", "tech") not in given  # carol never labelled it: missing, not "no label"
    assert corpus.raters == ["alice", "bob", "carol"]
    nothing = spanagree.read(DOCCANO / "textcat-all", empty="nothing")
    assert "dave" in nothing.raters and nothing.n_spans == 0


def test_labelstudio_text_classification_choices_are_document_labels():
    corpus = spanagree.read(LS / "textcat.json")
    assert corpus.n_annotations == 0 and corpus.doc_label_names == ["tech", "travel"]
    given = {(corpus.doc_ids[d], corpus.raters[r], corpus.doc_label_names[k]): v for d, r, k, v in zip(
        corpus.dl_doc.tolist(), corpus.dl_rater.tolist(), corpus.dl_label.tolist(), corpus.dl_value.tolist())}
    second = corpus.doc_ids[1]
    assert given[second, "2", "tech"] == 1 and given[second, "2", "travel"] == 0  # bob's latest choice
    assert corpus.exclusions.annotations[
        "Label Studio annotation by a rater who annotated the task again (the latest kept)"] == 1
    report = spanagree.score(corpus, candidates="documents").to_dict()["chance_corrected"]
    assert report["pairs"][0]["coefficients"]["percent_agreement"]["value"] == 1.0


def test_prodigy_relations_without_their_spans_are_counted(tmp_path):
    row = prodigy_task("Alice met Bob.", [(0, 5, "PER"), (10, 13, "PER")], _view_id="relations",
                       relations=[{"head": 0, "child": 2, "label": "MET"}])
    path = tmp_path / "rel.jsonl"
    path.write_text(json.dumps(row) + "\n")
    corpus = spanagree.read(path)
    assert corpus.n_spans == 2
    assert corpus.exclusions.relations["Prodigy relation without head_span and child_span (token indices only)"] == 1


def test_labelstudio_min_with_several_texts_asks_for_text_field(tmp_path):
    rows = [{"id": 1, "title": "Paris news", "body": "Alice met Bob.", "annotator": 1, "annotation_id": 1,
             "label": [{"start": 0, "end": 5, "text": "Alice", "labels": ["PER"]}]}]
    path = tmp_path / "min.json"
    path.write_text(json.dumps(rows))
    with pytest.raises(InputError, match=r"several texts \(title, body\).*text_field="):
        spanagree.read(path)
    assert covered(spanagree.read(path, text_field="body"))["1", "1"] == ["Alice"]


def test_reader_options_from_a_config_file(tmp_path):
    from spanagree.app.config import load_settings, read_options

    cfg = tmp_path / "read.cfg"
    cfg.write_text('[input]\noffsets = "grapheme"\ncheck_text = false\nduplicates = "error"\n')
    options = read_options(load_settings(cfg))
    assert options == {"offsets": "grapheme", "check_text": False, "duplicates": "error"}
    corpus = spanagree.read(DOCCANO / "grapheme-all", offsets=options["offsets"])
    assert covered(corpus)["5", "alice"] == ["Paris", "Berlin"]
    with pytest.raises(UsageError, match=r"\[input\] empty: got 3"):
        load_settings(overrides={"input.empty": 3})


def test_labelstudio_several_string_fields_only_the_texts_regions_are_on_are_documents(tmp_path):
    task = json.loads((LS / "title-body.json").read_text())[0]
    task["data"]["source"] = "newswire"  # a string that no region is on
    path = tmp_path / "extra.json"
    path.write_text(json.dumps([task]))
    assert spanagree.read(path).doc_ids == ["5:body", "5:title"]
