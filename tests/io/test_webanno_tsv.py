"""WebAnno TSV 3.x: INCEpTION's own test files (read in place from ../shared/real-exports, skipped
when absent), small files written here after them, and bad input."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

import spanagree
from spanagree.errors import InputError
from spanagree.io import detect_format
from spanagree.io.webanno_tsv import entry, parse, split_unescaped, unescape

from locations import FIXTURES, ROOT

TSV3 = ROOT.parent / "shared" / "real-exports" / "inception" / "tsv3"
MULTIVAL = ROOT.parent / "shared" / "real-exports" / "inception" / "xmi" / "multivalspanrel"


@pytest.fixture
def tsv3() -> Path:
    if not (TSV3 / "example2.tsv").exists():
        pytest.skip("INCEpTION's TSV files (../shared/real-exports/inception/tsv3) are not beside this checkout")
    return TSV3


def covered(corpus):
    text = corpus.texts[0]
    return sorted((text[s:e], label) for r in corpus.raters for s, e, label in corpus.spans_of(corpus.doc_ids[0], r))


def test_example2_named_entities_multi_token_and_stacked(tsv3):
    path = tsv3 / "example2.tsv"
    assert detect_format(path) == "webanno-tsv"
    corpus = spanagree.read(path)
    assert covered(corpus) == sorted([
        ("Ms. Haag", "PER"), ("Elianti", "OTH"), ("Rolls-Royce Motor", "ORG"), ("U.S.", "LOC"), ("U.S.", "LOC"),
        ("BELL", "PER"), ("BELL INDUSTRIES Inc.", "ORG"), ("Bell", "ORG"), ("Los Angeles", "LOC"),
    ])
    notes = corpus.exclusions.notes
    assert any("NamedEntity (feature value) [chosen: the named-entity layer" in k for k in notes)
    # 86 dependency arcs are read and kept aside; POS is another span layer, not read
    assert notes["WebAnno TSV: relations of layer Dependency read, not scored (governor, dependent)"] == 86
    assert notes["WebAnno TSV: annotations of span layer POS not read (--layer chooses)"] == 86


def test_other_layer_and_feature_by_name(tsv3):
    corpus = spanagree.read(tsv3 / "example2.tsv", layer="POS")
    assert corpus.n_spans == 86 - 0 and ("Haag", "NNP") in covered(corpus)


def test_unknown_layer_lists_the_layers_there_are(tsv3):
    with pytest.raises(InputError) as err:
        spanagree.read(tsv3 / "example2.tsv", layer="Chunk")
    message = str(err.value)
    assert "example2.tsv" in message and "layer='Chunk'" in message
    assert "pos.POS (PosValue)" in message and "NamedEntity (value)" in message
    with pytest.raises(InputError, match=r"feature='identifier' is not a feature of layer .*NamedEntity; its features are: value"):
        spanagree.read(tsv3 / "example2.tsv", feature="identifier")


def test_round_trip_suite_cases(tsv3):
    suite = tsv3 / "tsv3-suite"
    # an emoji is two UTF-16 code units in the file, one code point here
    emoji = spanagree.read(suite / "testSentenceWithEmoji" / "reference.tsv")
    assert covered(emoji) == [("\U0001f60a", "Span")]
    assert any("feature 'value' is unset" in k for k in emoji.exclusions.notes)
    # escapes: \t \n \[ \] \_ \* \\ \; and an escaped pipe, all undone
    special = spanagree.read(suite / "testTokenBoundedSpanWithSpecialSymbolsValue" / "reference.tsv")
    assert {label for _, label in covered(special)} == {"#*'\"`´\t:;{}|[ ]()\\§$%?=&_\n"}
    # a span across two sentences
    cross = spanagree.read(suite / "testCrossSentenceSpanWithFeatureValue" / "reference.tsv")
    assert covered(cross) == [("He loves her . She loves him not .", "PERSON")]
    # #Text= over two lines, and a tab in #Text=
    assert covered(spanagree.read(suite / "testSentenceWithLineBreak" / "reference.tsv")) == [("This", "Span")]
    assert spanagree.read(suite / "testSentenceWithTab" / "reference.tsv").texts[0].startswith("This is\ta test")
    stacked = spanagree.read(suite / "testMultiTokenStackedSpanWithFeatureValue" / "reference.tsv")
    assert covered(stacked) == [("This is a test .", "LOCATION"), ("This is a test .", "PERSON")]
    # zero-width annotations are excluded and counted
    zero = spanagree.read(suite / "testZeroLengthSpansWithFeatureValues" / "reference.tsv")
    assert zero.n_spans == 0 and zero.exclusions.spans["WebAnno TSV: zero-width annotation (no text to agree on)"] == 2
    # sub-token rows: 24 stacked annotations, 6 of them of zero width
    sub = spanagree.read(suite / "testStackedSubMultiTokenSpanWithFeatureValue" / "reference.tsv")
    assert sub.n_spans == 18 and ("aaaaaa bbbbbb", "2a") in covered(sub) and ("bbb", "4a") in covered(sub)
    # relations between stacked spans, with several features each, are kept aside and counted
    rel = parse(suite / "testStackedNonMultiTokenRelationWithMultipleFeatureValues" / "reference.tsv")
    assert [(r.governor, r.dependent, r.values) for r in rel.relations] == [
        ("1-1[1]", "1-3[2]", {"boolValue": "true", "integerValue": "42", "value": "nsubj"}),
        ("1-1[1]", "1-3[2]", {"boolValue": "false", "integerValue": "43", "value": "obj"}),
    ]
    chain = parse(suite / "testSimpleChain" / "reference.tsv")
    assert chain.chain_links == 3 and not chain.spans
    slot = parse(suite / "testSimpleSlotFeature" / "reference.tsv")
    assert slot.slot_links == 2
    nasty = spanagree.read(suite / "testTokenBoundedSpanWithNastyFeatureValue" / "reference.tsv")
    assert {label for _, label in covered(nasty)} == {"de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity:value"}


def test_curation_suite_a_folder_per_document_a_file_per_annotator(tsv3):
    case = tsv3 / "curation-testsuite" / "multipleStackedAnnotationsAreNotMergedTest"
    corpus = spanagree.read(case)
    assert corpus.raters == ["curator", "user1", "user2"] and corpus.doc_ids == [case.name]
    assert any("a folder per document, a file per rater" in k for k in corpus.exclusions.notes)
    # user2 stacked ORG twice on the same tokens: one span, the repeat counted
    assert corpus.exclusions.spans["duplicate span of the same rater (kept once)"] == 1
    report = spanagree.score(spanagree.read([case / "user1.tsv", case / "user2.tsv"], layout="document-folders")).to_dict()
    assert report["overall"]["pairwise_mean_psa"] == 1.0
    # NamedEntity has identifier and value: value is read unless feature= says otherwise
    multi = tsv3 / "curation-testsuite" / "simpleSpanDiffMultiFeatureTest"
    two = [multi / "user1.tsv", multi / "user2.tsv"]
    assert spanagree.score(spanagree.read(two, layout="document-folders")).to_dict()["overall"]["pairwise_mean_psa"] == 1.0
    by_id = spanagree.score(spanagree.read(two, layout="document-folders", feature="identifier")).to_dict()
    assert by_id["overall"]["pairwise_mean_psa"] == 0.0
    # POS has two features: the choice is the user's, and the message lists them
    incomplete = tsv3 / "curation-testsuite" / "simpleSpanDiffIncompleteTest"
    with pytest.raises(InputError, match="its features are: PosValue, coarseValue"):
        spanagree.read(incomplete)
    pos = spanagree.score(spanagree.read([incomplete / "user1.tsv", incomplete / "user2.tsv"], feature="PosValue",
                                         layout="document-folders")).to_dict()
    assert (pos["overall"]["a"], pos["overall"]["b"], pos["overall"]["c"]) == (0, 1, 1)


def test_every_span_layer_shape_of_inceptions_files(tsv3):
    """Layers of two features (NamedEntity identifier|value, POS PosValue|coarseValue), a feature
    unset (``*``) beside one set, stacked annotations, escaped pipes in a value, a layer with no
    feature, a layer of slot features: each read with its spans and labels."""
    cases = tsv3 / "curation-testsuite"
    stacked = spanagree.read(cases / "multipleStackedAnnotationsAreNotMergedTest")
    assert [(r, t, label) for r in stacked.raters for t, label in covered_by(stacked, r)] == [
        ("user1", "Champions League", "ORG"), ("user1", "Champions League", "ORGpart"),
        ("user2", "Champions League", "ORG"), ("user2", "Champions League", "ORGpart")]
    multi = spanagree.read(cases / "simpleSpanDiffMultiFeatureTest", feature="identifier")
    assert [covered_by(multi, r) for r in ("user1", "user2")] == [[("admitted", "A")], [("admitted", "B")]]
    pos = spanagree.read(cases / "simpleRelTypeDiffTest", layer="POS", feature="PosValue")
    assert covered_by(pos, "user1") == [("is", "VAFIN"), ("sentence", "NN")]
    lemma = spanagree.read(cases / "relationLabelTest" / "user1.tsv", layer="Lemma")
    assert lemma.n_spans == 26 and ("sich", "er|es|sie") in covered(lemma)
    coarse = spanagree.read(cases / "relationLabelTest" / "user1.tsv", layer="POS", feature="coarseValue")
    assert coarse.n_spans == 26 and ("Heutzutage", "ADV") in covered(coarse)
    slot = tsv3 / "tsv3-suite" / "testSimpleSlotFeature" / "reference.tsv"
    assert covered(spanagree.read(slot, layer="SimpleSpan")) == [("a", "SimpleSpan"), ("is", "SimpleSpan")]
    assert covered(spanagree.read(slot, layer="SimpleLinkHost")) == [("This", "SimpleLinkHost")]
    bio = spanagree.read(tsv3 / "tsv3-suite" / "testTokenBoundedBioLookAlike" / "reference.tsv")
    assert Counter(label for _, label in covered(bio)) == {"I-NOTBIO!": 4, "B-NOTBIO!": 1}


def covered_by(corpus, rater: str) -> list[tuple[str, str]]:
    text = corpus.texts[0]
    return sorted((text[s:e], label) for s, e, label in corpus.spans_of(corpus.doc_ids[0], rater))


MULTI_FEATURE = FIXTURES / "webanno-tsv-multi-feature"


def test_a_layer_of_two_features_reads_the_value_whichever_column_holds_the_annotation():
    """NamedEntity|identifier|value as INCEpTION declares it, with the identifier column ``_`` where
    only the value is set: every annotation is read, labelled by its value."""
    corpus = spanagree.read(MULTI_FEATURE)
    assert covered_by(corpus, "ann1") == [("Ada Lovelace", "PER"), ("Charles Babbage", "PER"), ("London", "LOC")]
    assert covered_by(corpus, "ann2") == [("Ada Lovelace", "PER"), ("Babbage", "PER"), ("London", "LOC"),
                                          ("London", "ORG")]
    overall = spanagree.score(corpus).to_dict()["overall"]
    assert (overall["a"], overall["b"], overall["c"]) == (2, 1, 2)
    assert spanagree.read(MULTI_FEATURE, layer="NamedEntity", feature="value").n_spans == corpus.n_spans
    by_id = spanagree.read(MULTI_FEATURE, feature="identifier")
    assert covered_by(by_id, "ann1")[0] == ("Ada Lovelace", "Q7259")
    assert by_id.exclusions.notes[
        "WebAnno TSV: annotations of NamedEntity whose feature 'identifier' is unset, labelled with the layer's name"] == 6


def test_a_layer_or_feature_named_that_holds_nothing_is_an_error_naming_what_there_is():
    with pytest.raises(InputError, match=r"news.tsv: field 'layer': layer='Topic' has no annotation in the files "
                                         r"read; the span layers with annotations are: .*\.NamedEntity$"):
        spanagree.read(MULTI_FEATURE, layer="Topic")
    with pytest.raises(InputError, match=r"field 'feature': feature='identifier' is unset on every annotation of "
                                         r"layer .*NamedEntity; the features set there are: value$"):
        spanagree.read(MULTI_FEATURE / "ann2", feature="identifier")
    from click.testing import CliRunner
    from spanagree.app.cli import app

    result = CliRunner().invoke(app, ["score", str(MULTI_FEATURE), "--layer", "Topic"])
    assert result.exit_code == 2 and "the span layers with annotations are:" in result.output


def test_a_feature_column_with_another_count_of_stacked_annotations(tmp_path):
    bad = tmp_path / "d1.tsv"
    bad.write_text((MULTI_FEATURE / "ann2" / "news.tsv").read_text(encoding="utf-8").replace("*[2]|*[3]", "*[2]"),
                   encoding="utf-8")
    with pytest.raises(InputError, match=r"d1.tsv:13: field 'identifier': 1 annotation\(s\) in feature 'identifier' "
                                         r"and 2 annotation\(s\) in feature 'value'"):
        spanagree.read(bad)


def test_webanno_tsv_2_is_refused_naming_the_version():
    if not (MULTIVAL / "tale.tsv").exists():
        pytest.skip("INCEpTION's XMI test files (../shared/real-exports/inception/xmi) are not beside this checkout")
    with pytest.raises(InputError, match=r"tale.tsv:1: field '#FORMAT': got WebAnno TSV 2"):
        spanagree.read(MULTIVAL / "tale.tsv", format="webanno-tsv")


# --- written here, after INCEpTION's files -----------------------------------------------------------

HEAD = "#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Entity|value\n\n\n"


def doc(rows: str, text: str = "Anna met Bob in Rome .") -> str:
    return HEAD + f"#Text={text}\n" + rows


ANN1 = doc("1-1\t0-4\tAnna\tPER\t\n1-2\t5-8\tmet\t_\t\n1-3\t9-12\tBob\tPER\t\n1-4\t13-15\tin\t_\t\n"
           "1-5\t16-20\tRome\tLOC\t\n1-6\t21-22\t.\t_\t\n")
ANN2 = doc("1-1\t0-4\tAnna\tPER[1]\t\n1-2\t5-8\tmet\tPER[1]\t\n1-3\t9-12\tBob\tPER\t\n1-4\t13-15\tin\t_\t\n"
           "1-5\t16-20\tRome\tORG\t\n1-6\t21-22\t.\t_\t\n")


def test_a_folder_per_annotator_scores_as_the_same_spans_in_jsonl(tmp_path):
    for rater, content in (("ann1", ANN1), ("ann2", ANN2)):
        (tmp_path / "tsv" / rater).mkdir(parents=True)
        (tmp_path / "tsv" / rater / "d1.tsv").write_text(content, encoding="utf-8")
    root = tmp_path / "tsv"
    assert detect_format(root) == "webanno-tsv"
    corpus = spanagree.read(root)
    assert corpus.raters == ["ann1", "ann2"] and corpus.doc_ids == ["d1"]
    text = "Anna met Bob in Rome ."
    jsonl = tmp_path / "same.jsonl"
    jsonl.write_text("\n".join(json.dumps({"doc_id": "d1", "annotator": r, "text": text, "spans": [
        {"start": s, "end": e, "label": label} for s, e, label in spans_]}) for r, spans_ in (
        ("ann1", [(0, 4, "PER"), (9, 12, "PER"), (16, 20, "LOC")]),
        ("ann2", [(0, 8, "PER"), (9, 12, "PER"), (16, 20, "ORG")]))) + "\n")
    for rule in ("exact", "overlap"):
        a = spanagree.score(corpus, rule=rule).to_dict()
        b = spanagree.score(spanagree.read(jsonl), rule=rule).to_dict()
        assert a["overall"] == b["overall"] and a["labels"] == b["labels"]


def test_offsets_beyond_the_text_name_the_file_line_and_field(tmp_path):
    bad = tmp_path / "ann1" / "d1.tsv"
    bad.parent.mkdir()
    bad.write_text(doc("1-1\t0-4\tAnna\tPER\t\n1-2\t5-80\tmet\t_\t\n"), encoding="utf-8")
    with pytest.raises(InputError, match=r"d1.tsv:7: field 'offsets': offsets 5-80 lie outside the sentence's text \(0-22"):
        spanagree.read(bad)
    bad.write_text(doc("1-1\t0-4\tAnna\tPER\t\n1-2\t5-8\tmot\t_\t\n"), encoding="utf-8")
    with pytest.raises(InputError, match=r"d1.tsv:7: field 'offsets': the token 'mot' is not the sentence's text at offsets 5-8 \('met'\)"):
        spanagree.read(bad)


def test_a_row_with_too_few_columns(tmp_path):
    bad = tmp_path / "d1.tsv"
    bad.write_text(doc("1-1\t0-4\tAnna\n"), encoding="utf-8")
    with pytest.raises(InputError, match=r"d1.tsv:6: field 'row': 3 columns; expected 4"):
        spanagree.read(bad)


def test_cells():
    assert split_unescaped(r"ORG[7]|PER[8]", "|") == ["ORG[7]", "PER[8]"]
    assert split_unescaped(r"a\|b|c", "|") == [r"a\|b", "c"]
    assert entry("PER[2]") == ("PER", 2) and entry("*") == (None, None) and entry("*[3]") == (None, 3)
    assert entry(r"x\[2\]") == ("x[2]", None) and entry(r"\*") == ("*", None)
    assert unescape(r"a\tb\nc\\d\_") == "a\tb\nc\\d_"


def test_spanagree_info_lists_the_formats():
    from spanagree.app.info import as_text, collect

    facts = collect()
    names = {f["name"] for f in facts["formats"]}
    assert {"inception", "webanno-tsv", "uima-cas", "bioc", "pubtator"} <= names
    assert "dkpro-cassis" in facts["optional"] and "bioc" in facts["optional"]
    assert "webanno-tsv  WebAnno TSV 3.x" in as_text(facts)


def test_an_exports_annotation_folder_read_directly_skips_the_initial_cas(tmp_path):
    """INCEpTION's export folder annotation/DOC/USER.tsv, INITIAL_CAS.tsv beside the users'."""
    for user, content in (("ann1", ANN1), ("ann2", ANN2), ("INITIAL_CAS", doc("1-1\t0-4\tAnna\t_\t\n1-2\t5-8\tmet\t_\t\n"
                                                                               "1-3\t9-12\tBob\t_\t\n1-4\t13-15\tin\t_\t\n"
                                                                               "1-5\t16-20\tRome\t_\t\n1-6\t21-22\t.\t_\t\n"))):
        (tmp_path / "annotation" / "d1.txt").mkdir(parents=True, exist_ok=True)
        (tmp_path / "annotation" / "d1.txt" / f"{user}.tsv").write_text(content, encoding="utf-8")
    corpus = spanagree.read(tmp_path / "annotation")
    assert corpus.raters == ["ann1", "ann2"] and corpus.doc_ids == ["d1.txt"]
    assert corpus.exclusions.notes[
        "WebAnno TSV: INCEpTION's INITIAL_CAS (the document before anyone annotated it), not a rater"] == 1
