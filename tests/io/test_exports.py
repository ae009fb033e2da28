"""Genuine exports of the annotation tools, read right or refused with a message that names the option:
the ones this project made by running the tools (tests/fixtures/<tool>/, each with a README naming
the tool, version and command), and the ones third parties committed to public repositories
(../shared/real-exports/, read in place; the tests skip when it is absent)."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import spanagree
from spanagree.errors import InputError, UsageError
from spanagree.io import detect_format
from spanagree.io.offsets import FEW, UNITS, boundaries, convert_spans, length, risky, to_codepoints
from locations import FIXTURES, real_export


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


DECIDED = ("doccano offsets read as {}, decided per file from the spans whose place depends on the unit: only so "
           "do their ends fall on word and character boundaries without taking in white space")


@pytest.mark.parametrize("project, unit", [("utf16", "UTF-16 code units"), ("grapheme", "grapheme clusters")])
@pytest.mark.parametrize("named", [False, True])
def test_doccano_offsets_read_right_in_both_project_modes(project, unit, named):
    options = {"offsets": project} if named else {}
    corpus = spanagree.read(DOCCANO / f"{project}-all", **options)
    marks = covered(corpus)
    first, second = sorted(corpus.doc_ids)[:2]
    assert marks[first, "alice"] == ["trucks", "Tesla", "Austin"]
    assert marks[second, "alice"] == ["Paris", "Berlin"]  # after a flag and a CRLF
    assert marks[first, "carol"] == ["Austin"]
    notes = corpus.exclusions.notes
    assert not [n for n in notes if "unverifiable" in n]
    # the unit is decided from the spans' ends and said; named, it is used without a word
    assert (DECIDED.format(unit) in notes) != named
    assert not [n for n in notes if n.startswith("doccano offsets") and n != DECIDED.format(unit)]


def test_doccano_grapheme_project_with_emoji_sequence_crlf_and_combining_marks():
    # made with doccano 1.8.4 in grapheme mode ("confirmed only"): a ZWJ sequence, CRLF, e + U+0301
    corpus = spanagree.read(DOCCANO / "grapheme-marks")
    assert covered(corpus) == {("10", "alice"): ["firetrucks", "BRUSSELS"], ("10", "bob"): ["firetrucks", "BRUSSELS"],
                               ("11", "alice"): ["Zu\u0308rich", "Mu\u0308nchen"], ("11", "bob"): ["Mu\u0308nchen"]}
    assert corpus.exclusions.notes[DECIDED.format("grapheme clusters")] == 7
    # read in UTF-16 code units on purpose, the spans shift, and a note says the file fits grapheme clusters
    forced = spanagree.read(DOCCANO / "grapheme-marks", offsets="utf16")
    assert covered(forced)["10", "alice"] != ["firetrucks", "BRUSSELS"]
    assert any("only grapheme clusters put the spans' ends" in note for note in forced.exclusions.notes)


def test_doccano_medkit_grapheme_offsets_over_crlf():
    # medkit's test file: "medkit was\r\ncreated in 2022", offsets counted in grapheme clusters
    path = real_export("doccano/medkit/relation_extraction_wrong_character.jsonl")
    corpus = spanagree.read(path)
    assert [covered(corpus)[key] for key in covered(corpus)] == [["medkit", "2022"]]
    assert corpus.exclusions.notes[DECIDED.format("grapheme clusters")] == 1
    # read as UTF-16 on purpose, the spans are what that unit gives, and the note says it does not fit
    forced = spanagree.read(path, offsets="utf16")
    assert list(covered(forced).values()) == [["medkit", " 202"]]
    assert any("only grapheme clusters put the spans' ends on word" in n for n in forced.exclusions.notes)


def test_doccano_mixed_evidence_is_refused_naming_the_option(tmp_path):
    # one span fits grapheme clusters only, another UTF-16 code units only: no unit fits the file
    rows = [{"id": 1, "text": "a\r\nb Paris", "label": [[4, 9, "LOC"]]},  # grapheme: 'Paris'
            {"id": 2, "text": "\U0001F69A Rome", "label": [[3, 7, "LOC"]]}]  # utf16: 'Rome'
    path = tmp_path / "alice.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(InputError, match=r"alice.jsonl: cannot tell which unit the offsets count in: of 2 spans.*"
                                         r"name the unit with offsets='\w+' or offsets='\w+'"):
        spanagree.read(path)
    from click.testing import CliRunner

    from spanagree.app.cli import app

    result = CliRunner().invoke(app, ["score", str(path)])
    assert result.exit_code == 2 and "name the unit with --offsets " in result.output
    with pytest.raises(InputError, match=r"document '2'.*set offsets='utf16'"):
        spanagree.read(path, offsets="grapheme")  # named, the unit is used as named


WORDS = ["Paris", "caf\u00e9", "cafe\u0301", "na\u0308ive", "BRUSSELS", "firetrucks", "2022"]
GAPS = [" ", "\r\n", " \U0001F69A ", " \U0001F1EB\U0001F1F7 ", " \U0001F469\u200d\U0001F692 ", " e\u0301 ", ", "]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(GAPS), st.sampled_from(WORDS), st.booleans()), min_size=1, max_size=8)
       .filter(lambda parts: any(mark for _, _, mark in parts)),
       st.sampled_from(["utf16", "grapheme"]))
def test_doccano_unit_from_evidence_is_right_or_refused(tmp_path_factory, parts, unit):
    # words in a text with emoji sequences, flags, CRLF and combining marks; some words marked,
    # their offsets written in the project's unit: read right, or refused naming the option
    text, marked = "", []
    for gap, word, mark in parts:
        text += gap
        if mark:
            marked.append((len(text), len(text) + len(word)))
        text += word
    bounds = boundaries(text, unit)  # utf16: the code unit of each code point; grapheme: the code point of each cluster
    at = {cp: int(bounds[cp]) for cp in range(len(text) + 1)} if unit == "utf16" else {int(cp): i for i, cp in enumerate(bounds)}
    spans = [[at[s], at[e], "X"] for s, e in marked]
    path = tmp_path_factory.mktemp("doccano") / "alice.jsonl"
    path.write_text(json.dumps({"id": 1, "text": text, "label": spans}) + "\n", encoding="utf-8")
    try:
        corpus = spanagree.read(path)
    except InputError as err:
        assert "offsets=" in str(err)
        return
    assert [(s, e) for s, e, _ in corpus.spans_of("1", "alice")] == marked


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


def test_doccano_offsets_that_fit_one_unit_only_and_a_named_unit_out_of_range(tmp_path):
    text = "a\U0001F69AParis"  # the truck is code point 1, UTF-16 code units 1-3
    path = tmp_path / "ann.jsonl"
    path.write_text(json.dumps({"id": 1, "text": text, "label": [[1, 2, "CAR"]]}) + "\n")
    # 2 is inside the truck's surrogate pair: not UTF-16; grapheme clusters (as code points) fit
    assert covered(spanagree.read(path))["1", "ann"] == ["\U0001F69A"]
    with pytest.raises(InputError, match=r"field 'label\[0\]'.*counted in UTF-16 code units.*set offsets='codepoint'"):
        spanagree.read(path, offsets="utf16")
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


def test_labelstudio_text_tag_named_apart_from_its_data_field():
    # <Text name="text" value="$body"/> beside a $title header: every region says to_name "text"
    path = LS / "body-tag.json"
    inferred = spanagree.read(path)
    expected = {("9", "1"): ["Alice", "Paris"], ("9", "2"): ["Paris"],
                ("10", "1"): ["Berlin", "Paris"], ("10", "2"): ["Berlin"]}
    assert covered(inferred) == expected
    assert inferred.exclusions.notes[
        "Label Studio to_name 'text' read as data field 'body' (the only field its regions' texts fit)"] == 1
    configured = spanagree.read(path, labelstudio_config=LS / "body-tag.xml")
    assert covered(configured) == expected
    assert configured.exclusions.notes["Label Studio to_name 'text' read as data field 'body' (labeling config)"] == 1
    # text_field names the data field; the regions addressed to the one <Text> tag are read
    named = spanagree.read(path, text_field="body")
    assert covered(named) == expected and not named.exclusions.spans
    for corpus in (inferred, configured, named):
        report = spanagree.score(corpus).to_dict()
        assert report["spans"]["read"] == report["spans"]["scored"] == 6


def test_labelstudio_to_name_that_fits_several_fields_is_refused_naming_them(tmp_path):
    tasks = json.loads((LS / "body-tag.json").read_text(encoding="utf-8"))
    for task in tasks:
        task["data"]["title"] = task["data"]["body"]  # the regions now fit both fields
    path = tmp_path / "both.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    with pytest.raises(InputError, match=r"regions name the text 'text'.*fit several data fields \(body, title\)"
                                         r".*text_field='body' or text_field='title'.*labelstudio_config="):
        spanagree.read(path)
    from click.testing import CliRunner

    from spanagree.app.cli import app

    result = CliRunner().invoke(app, ["score", str(path)])
    assert result.exit_code == 2
    assert "--text-field body or --text-field title" in result.output and "--labelstudio-config label_config.xml" in result.output
    assert "text_field=" not in result.output
    assert covered(spanagree.read(path, labelstudio_config=LS / "body-tag.xml"))["9", "2"] == ["Paris"]


def test_labelstudio_config_that_is_not_one_is_refused(tmp_path):
    broken = tmp_path / "broken.xml"
    broken.write_text("<View><Text name='text'")
    with pytest.raises(InputError, match=r"broken.xml: not XML .*expected the project's labeling config"):
        spanagree.read(LS / "body-tag.json", labelstudio_config=broken)
    images = tmp_path / "images.xml"
    images.write_text('<View><Image name="img" value="$image"/></View>')
    with pytest.raises(InputError, match=r"images.xml: no <Text name=.*value=.\$field.> tag"):
        spanagree.read(LS / "body-tag.json", labelstudio_config=images)
    with pytest.raises(InputError, match=r"missing.xml: cannot be read"):
        spanagree.read(LS / "body-tag.json", labelstudio_config=tmp_path / "missing.xml")


def test_labelstudio_url_project_read_with_the_texts_given(tmp_path):
    path = LS / "url-texts.json"
    with pytest.raises(InputError, match=r"the task's text is a URL.*labelstudio_texts='texts.jsonl'"):
        spanagree.read(path)
    with pytest.raises(InputError, match=r"labeling config's <Text> for 'text' has valueType=\"url\".*labelstudio_texts="):
        spanagree.read(path, labelstudio_config=LS / "url-texts.xml")
    expected = {("11", "1"): ["Paris", "Rome"], ("11", "2"): ["Paris"], ("12", "1"): ["Berlin"], ("12", "2"): ["Berlin"]}
    texts = [json.loads(line) for line in (LS / "url-texts.jsonl").read_text(encoding="utf-8").splitlines()]
    by_id = tmp_path / "by-id.jsonl"
    by_id.write_text("".join(json.dumps({"id": i, "text": row["text"]}) + "\n" for i, row in zip((11, 12), texts)))
    folder = tmp_path / "texts"
    folder.mkdir()
    for row in texts:
        (folder / row["url"].rsplit("/", 1)[1]).write_text(row["text"], encoding="utf-8")
    for given in (LS / "url-texts.jsonl", by_id, folder):
        for config in (None, LS / "url-texts.xml"):
            corpus = spanagree.read(path, labelstudio_texts=given, labelstudio_config=config)
            assert covered(corpus) == expected, (given, config)
            assert corpus.exclusions.notes["Label Studio text given by URL, read from labelstudio_texts"] == 2
    (folder / "2.txt").unlink()
    with pytest.raises(InputError, match=r"no text given for 'https://example.org/texts/2.txt' \(task 12\)"):
        spanagree.read(path, labelstudio_texts=folder)


def test_labelstudio_url_regions_without_text_are_not_offsets_into_the_url(tmp_path):
    tasks = json.loads((LS / "url-texts.json").read_text(encoding="utf-8"))
    for task in tasks:
        for annotation in task["annotations"]:
            for region in annotation["result"]:
                del region["value"]["text"]
    path = tmp_path / "no-text.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    with pytest.raises(InputError, match=r"the task's text is a URL.*carries no text to check"):
        spanagree.read(path)
    assert covered(spanagree.read(path, labelstudio_texts=LS / "url-texts.jsonl"))["11", "1"] == ["Paris", "Rome"]


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


# --- Prodigy (example data of explosion/prodigy-recipes, in ../shared/real-exports/prodigy) ----


def prodigy_lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_prodigy_ner_teach_binary_answers_are_merged_per_input():
    path = real_export("prodigy/reddit-PRODUCT-ner.teach.subset.jsonl")
    rows = prodigy_lines(path)
    corpus = spanagree.read(path)
    notes = corpus.exclusions.notes
    answers = [row["answer"] for row in rows]
    assert notes["Prodigy binary task accepted (its spans are the rater's marks)"] == answers.count("accept")
    assert notes["Prodigy binary task rejected (its spans judged absent)"] == answers.count("reject")
    assert corpus.exclusions.annotations["Prodigy answer 'ignore'"] == answers.count("ignore")
    marks = {doc: m for (doc, _), m in covered(corpus).items()}
    # tasks about one input, rejected or ignored: the rater submitted it, with no span
    assert marks["4008639"] == [] and marks["2077322908"] == []
    # two accepted tasks about one input, both suggesting 'Apache': one mark, beside the other's 'MySQL'
    assert marks["-2031084721"] == ["Apache", "MySQL"]
    # independently: per input, the distinct spans of its accepted tasks
    expected = {}
    for row in rows:
        spans = {(s["start"], s["end"]) for s in row["spans"]} if row["answer"] == "accept" else set()
        expected.setdefault(str(row["_input_hash"]), set()).update(spans)
    assert {doc: [row for row in sorted(spans)] for doc, spans in expected.items()} == {
        doc: [(s, e) for s, e, _ in corpus.spans_of(doc, corpus.raters[0])] for doc in corpus.doc_ids}


def test_prodigy_textcat_teach_with_empty_spans_is_text_classification():
    path = real_export("prodigy/reddit-INSULT-textcat.teach.subset.jsonl")
    answers = [row["answer"] for row in prodigy_lines(path)]
    corpus = spanagree.read(path)
    assert corpus.doc_label_names == ["INSULT"] and corpus.n_spans == 0
    assert sorted(corpus.dl_value.tolist()) == [0] * answers.count("reject") + [1] * answers.count("accept")
    assert corpus.exclusions.annotations["Prodigy answer 'ignore'"] == answers.count("ignore") > 0


def test_prodigy_ner_manual_reads_its_tokens():
    path = real_export("prodigy/news_headlines-ner.manual.subset.jsonl")
    corpus = spanagree.read(path)
    assert corpus.has_tokens()
    assert corpus.n_spans == sum(len(row.get("spans") or []) for row in prodigy_lines(path)) > 0


def test_prodigy_a_raters_later_answer_over_sessions_replaces_the_earlier():
    # PyData Amsterdam 2023 (textcat, 42 annotators): one annotator accepted a task in one session
    # and rejected it in another; the file is read, each rater's latest answer to a question kept
    path = real_export("prodigy/pydata-ams-2023.subset.jsonl")
    rows = prodigy_lines(path)
    corpus = spanagree.read(path)
    assert len(corpus.raters) == 42 and corpus.doc_label_names == ["new-dataset"]
    # independently: per (input, annotator, label), the answers by _timestamp then line
    answers: dict[tuple, list] = {}
    for number, row in enumerate(rows):
        answers.setdefault((str(row["_input_hash"]), row["_annotator_id"], row["label"]), []).append(
            (row.get("_timestamp", float("-inf")), number, row["answer"]))
    replaced = sum(len(given) - 1 for given in answers.values())
    assert replaced > 0
    sessions = {row["_session_id"] for row in rows if (str(row["_input_hash"]), row["_annotator_id"], row["label"])
                in {k for k, given in answers.items() if len({a for _, _, a in given}) > 1}}
    assert len(sessions) >= 2  # accept and reject given in two sessions
    assert corpus.exclusions.annotations[
        "Prodigy answer by a rater who answered the input again (the latest kept)"] == replaced
    latest = {(doc, rater): max(given)[2] for (doc, rater, _), given in answers.items()}
    given = {(corpus.doc_ids[d], corpus.raters[r]): v for d, r, v in zip(
        corpus.dl_doc.tolist(), corpus.dl_rater.tolist(), corpus.dl_value.tolist())}
    assert given == {key: int(answer == "accept") for key, answer in latest.items() if answer != "ignore"}
    with pytest.raises(InputError, match=r"answered this question 2 times.*duplicates='latest'"):
        spanagree.read(path, duplicates="error")


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


def test_prodigy_a_later_reject_replaces_an_earlier_accept(tmp_path):
    text = "Alice met Bob."
    def rows(first, second):
        return [prodigy_task(text, [(0, 5, "PER")], answer=first, session="s1", _annotator_id="ann", _timestamp=100),
                prodigy_task(text, [(0, 5, "PER")], answer="accept", session="s1", _annotator_id="other"),
                prodigy_task(text, [(10, 13, "PER")], answer=second, session="s2", _annotator_id="ann", _timestamp=200)]
    path = tmp_path / "two-sessions.jsonl"
    again = "Prodigy answer by a rater who answered the input again (the latest kept)"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows("accept", "reject")))
    corpus = spanagree.read(path)
    assert corpus.raters == ["other"]  # the later answer says 'ann' did not submit it
    assert corpus.exclusions.annotations[again] == 1 and corpus.exclusions.annotations["Prodigy answer 'reject'"] == 1
    report = spanagree.score(corpus).to_dict()
    for what in ("annotations", "spans"):
        assert report[what]["read"] == report[what]["scored"] + sum(report[what]["excluded"].values())
    assert report["annotations"]["read"] == 3 and report["spans"]["read"] == 3
    # the other way round, the later accept is read and the reject replaced
    path.write_text("".join(json.dumps(r) + "\n" for r in rows("reject", "accept")))
    corpus = spanagree.read(path)
    assert corpus.spans_of("7", "ann") == [(10, 13, "PER")]
    assert corpus.exclusions.annotations[again] == 1 and "Prodigy answer 'reject'" not in corpus.exclusions.annotations
    # without time stamps, file order decides
    plain = [{k: v for k, v in row.items() if k != "_timestamp"} for row in rows("accept", "reject")]
    path.write_text("".join(json.dumps(r) + "\n" for r in plain))
    assert spanagree.read(path).raters == ["other"]


# --- brat (brat's tutorial data in ../shared/real-exports; the documented discontinuous example) ---

BRAT = FIXTURES / "brat"
TUTORIAL = "brat_news/tutorial/000-introduction"


def tutorial_project(root, *, crlf=False):
    """A project root with brat's tutorial document twice: ann1 as brat ships it, ann2 without
    lines T5, T7 and R2 (a second annotator); with crlf, ann1's .txt has CRLF line breaks (what a
    checkout with core.autocrlf makes)."""
    source = real_export(TUTORIAL + ".ann")
    text = source.with_suffix(".txt").read_bytes()
    ann = source.read_bytes()
    for folder, lines in (("ann1", ann), ("ann2", b"".join(
            line for line in ann.splitlines(keepends=True) if not line.startswith((b"T5\t", b"T7\t", b"R2\t"))))):
        (root / folder).mkdir(parents=True)
        (root / folder / "000-introduction.txt").write_bytes(text.replace(b"\n", b"\r\n") if crlf else text)
        (root / folder / "000-introduction.ann").write_bytes(lines)
    return root


def test_brat_project_root_reads_one_folder_per_annotator(tmp_path):
    root = tutorial_project(tmp_path / "project")
    assert len((root / "ann2" / "000-introduction.ann").read_bytes().splitlines()) == len(
        (root / "ann1" / "000-introduction.ann").read_bytes().splitlines()) - 3
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


@pytest.mark.parametrize("mode", ["covering", "fragments"])
def test_brat_discontinuous_entity_is_one_span_read_in_every_count(tmp_path, mode):
    # the file holds three annotations, one of them "North ... America" (two fragments)
    folder = tmp_path / "r1"
    folder.mkdir()
    (folder / "d.txt").write_text("North and South America, Asia")
    (folder / "d.ann").write_text("T1\tLocation 0 5;16 23\tNorth America\nT2\tLocation 10 23\tSouth America\n"
                                  "T3\tLocation 25 29\tAsia\n")
    alone = spanagree.score(spanagree.read(folder, discontinuous=mode)).to_dict()["spans"]
    assert alone["read"] == 3 and alone["excluded"] == {"in a document no other rater submitted": 3}
    shutil.copytree(folder, tmp_path / "r2")
    both = spanagree.score(spanagree.read(tmp_path, discontinuous=mode)).to_dict()
    assert both["spans"]["read"] == both["spans"]["scored"] == 6
    n_spans = 3 if mode == "covering" else 4
    assert (both["overall"]["a"], both["overall"]["b"], both["overall"]["c"]) == (n_spans, 0, 0)
    note = ("discontinuous brat entity, scored as its covering span" if mode == "covering"
            else "discontinuous brat entity, scored as its 2 fragments")
    assert both["spans"]["notes"][note] == 2
    from click.testing import CliRunner

    from spanagree.app.cli import app

    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(app, ["convert", str(folder), "-o", str(out), "--discontinuous", mode])
    assert result.exit_code == 0, result.output
    assert f"wrote 1 annotations ({n_spans} spans" in result.output and f"note: {note}: 1" in result.output
    if mode == "fragments":
        assert "fragments of discontinuous annotations, one span each): 1" in result.output
    assert "excluded" not in result.output and "on reading" not in result.output


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


def test_brat_txt_with_crlf_after_checkout_is_read_with_lf(tmp_path):
    crlf = spanagree.read(tutorial_project(tmp_path / "crlf", crlf=True) / "ann1")
    plain = spanagree.read(tutorial_project(tmp_path / "plain") / "ann1")
    assert b"\r\n" in (tmp_path / "crlf" / "ann1" / "000-introduction.txt").read_bytes()
    assert crlf.texts == plain.texts and crlf.spans_of("000-introduction", "ann1") == plain.spans_of(
        "000-introduction", "ann1")
    assert crlf.exclusions.notes[
        "brat .txt with CRLF line breaks read with LF (the annotations' texts match only so)"] == 1


# --- trec_eval (its test qrels in ../shared/real-exports: comments, the multi-assessor layout) ---


def test_trec_eval_multi_assessor_qrels():
    path = real_export("qrels_jg/qrels.123.topic303")
    assert detect_format(path) == "qrels"
    corpus = spanagree.read(path)
    assert corpus.raters == ["0", "1", "2"]  # column 2: the judgment groups
    assert corpus.exclusions.notes["qrels with several assessors per file: column 2 read as the assessor"] == 1
    # independently: per pair of assessors, docnos both judged relevant, or one only
    relevant: dict[str, set] = {}
    first: dict[str, tuple] = {}
    clash = None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        topic, group, docno, grade = line.split()
        relevant.setdefault(group, set())
        if int(grade) >= 1:
            relevant[group].add(docno)
        if clash is None and docno in first and first[docno][1] != grade:
            clash = (docno, grade, first[docno][1], first[docno][0])
        first.setdefault(docno, (number, grade))
    expected = []
    for x, y in (("0", "1"), ("0", "2"), ("1", "2")):
        a = len(relevant[x] & relevant[y])
        expected.append(2 * a / (len(relevant[x]) + len(relevant[y])))
    report = spanagree.score(corpus).to_dict()
    assert report["overall"]["pairwise_mean_psa"] == pytest.approx(sum(expected) / 3)
    # read as one assessor's file, the repeated judgments under other groups are refused, naming the option
    docno, grade, before, line = clash
    with pytest.raises(InputError, match=rf"docno '{docno}' judged {grade} here and {before} at line {line}.*"
                                         r"assessor='column'"):
        spanagree.read(path, assessor="file")


def test_trec_eval_qrels_comment_lines_are_skipped_and_counted():
    path = real_export("qrels_comments/assessor.qrels")
    lines = path.read_text().splitlines()
    corpus = spanagree.read(path)
    assert corpus.exclusions.notes["qrels comment line (#) skipped"] == sum(line.startswith("#") for line in lines) > 0
    # a '#' inside a docno is part of it
    docnos = corpus.texts[0].splitlines()
    assert "CR#93E-1860" in docnos and len(docnos) == len({line.split()[2] for line in lines if not line.startswith("#")})


# --- the command line ------------------------------------------------------------------------


def test_cli_reader_options_and_messages():
    from click.testing import CliRunner

    from spanagree.app.cli import app

    runner = CliRunner()
    result = runner.invoke(app, ["score", str(LS / "ner.json"), "--duplicates", "error"])
    assert result.exit_code == 2 and "read the latest with --duplicates latest" in result.output
    result = runner.invoke(app, ["score", str(DOCCANO / "grapheme-all"), "--input.offsets", "grapheme", "--output", "json"])
    assert result.exit_code == 0, result.output
    assert "unverifiable" not in result.stdout
    result = runner.invoke(app, ["score", str(DOCCANO / "utf16-all"), "--offsets", "bytes"])
    assert result.exit_code == 2 and "--offsets bytes: expected one of codepoint, utf16, grapheme" in result.output
    assert "e.g. --offsets codepoint" in result.output and "offsets=" not in result.output


def test_convert_writes_document_labels_prints_notes_and_refuses_nothing(tmp_path):
    from click.testing import CliRunner

    from spanagree.app.cli import app

    runner = CliRunner()
    out = tmp_path / "labels.jsonl"
    textcat = real_export("prodigy/reddit-INSULT-textcat.teach.subset.jsonl")
    result = runner.invoke(app, ["convert", str(textcat), "-o", str(out)])
    assert result.exit_code == 0, result.output
    again = spanagree.read(out)
    assert again.doc_label_names == ["INSULT"]
    assert sorted(again.dl_value.tolist()) == sorted(spanagree.read(textcat).dl_value.tolist())
    result = runner.invoke(app, ["convert", str(DOCCANO / "utf16-all"), "-o", str(tmp_path / "d.jsonl")])
    assert result.exit_code == 0 and "note: doccano example with an empty label list" in result.output
    empty = tmp_path / "nothing.jsonl"
    result = runner.invoke(app, ["convert", str(textcat), "-o", str(empty),
                                 "--output", "prodigy"])
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
    path = real_export("conll_seqeval/ground_truth.txt")
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


def test_seqeval_suffix_style_tags_read_as_their_prefix_form(tmp_path):
    path = real_export("conll_seqeval/ground_truth.txt")
    prefix = spanagree.read(path, format="conll", columns=["gold", "pred"])
    # the same file with each tag's type before its prefix (NP-B for B-NP), as seqeval's
    # ground_truth_inv.txt has it
    inverted = tmp_path / "ground_truth_inv.txt"
    inverted.write_text("".join(
        " ".join(cells[:2] + [f"{t.partition('-')[2]}-{t.partition('-')[0]}" if "-" in t else t for t in cells[2:]]) + "\n"
        if (cells := line.split()) else "\n" for line in path.read_text().splitlines()))
    assert "NP-B" in inverted.read_text()
    assert detect_format(inverted) == "conll"
    suffix = spanagree.read(inverted, columns=["gold", "pred"])
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
    with pytest.raises(InputError, match=r"several texts \(title, body\).*text_field='title' or text_field='body'"):
        spanagree.read(path)
    assert covered(spanagree.read(path, text_field="body"))["1", "1"] == ["Alice"]
    config = tmp_path / "label_config.xml"
    config.write_text('<View><Header value="$title"/><Text name="text" value="$body"/>'
                      '<Labels name="label" toName="text"><Label value="PER"/></Labels></View>')
    assert covered(spanagree.read(path, labelstudio_config=config))["1", "1"] == ["Alice"]


def test_reader_options_from_a_config_file(tmp_path):
    from spanagree.app.config import load_settings
    from spanagree.request import reader_options as read_options

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
