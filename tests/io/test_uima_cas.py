"""UIMA CAS XMI and CAS JSON through dkpro-cassis: INCEpTION's and cassis's own files (read in
place from ../shared/real-exports, skipped when absent), the fixtures written with cassis
(tests/fixtures/inception/make_fixtures.py), the same annotations in every format, and bad input."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import spanagree
from spanagree.errors import InputError, UsageError
from spanagree.io import detect_format

from locations import FIXTURES, real_export as real

pytest.importorskip("cassis", reason="dkpro-cassis (the inception extra) is not installed")

SAME = FIXTURES / "inception"



def covered(corpus, doc: int = 0, rater: str | None = None):
    text = corpus.texts[doc]
    raters = [rater] if rater else corpus.raters
    return [(text[s:e], label) for r in raters for s, e, label in corpus.spans_of(corpus.doc_ids[doc], r)]


def test_inception_xmi_custom_layer_chosen_and_relation_counted():
    path = real("inception", "xmi", "relation", "relation_test.xmi")
    assert detect_format(path) == "uima-cas"
    corpus = spanagree.read(path)
    assert covered(corpus) == [("Darmstadt", "city"), ("Hessen", "state"), ("Hannover", "city"),
                               ("Lower Saxony", "state")]
    notes = corpus.exclusions.notes
    assert ("UIMA CAS: span layer read: webanno.custom.MyRelationBase (feature value) "
            "[chosen: the one custom span layer with annotations]") in notes
    assert notes["UIMA CAS: relations of layer MyRelationLayer read, not scored (governor, dependent)"] == 1
    assert "\r\n" in corpus.texts[0]  # the text as INCEpTION kept it


def test_inception_cas_json_named_entities():
    path = real("inception", "jsoncas", "foodista_blog_2019_08_13_northern-british-columbia_abbreviated.json")
    assert detect_format(path) == "uima-cas"
    corpus = spanagree.read(path)
    labels = {}
    for _, label in covered(corpus):
        labels[label] = labels.get(label, 0) + 1
    assert labels == {"Location": 5, "Product": 5, "Person": 2, "Product Category": 2, "Route": 2, "Date": 1}
    assert any("NamedEntity (feature value) [chosen: the named-entity layer" in k for k in corpus.exclusions.notes)


def test_cassis_files_utf16_offsets_become_code_points():
    smileys = real("cassis", "xmi", "cas_with_smileys.xmi")
    dkpro = real("cassis", "typesystems", "important_dkpro_types.xml")
    corpus = spanagree.read(smileys, typesystem=str(dkpro))
    assert covered(corpus) == [("Transformers", "OTH")] * 3 + [("PyTorch", "OTH"), ("TensorFlow", "OTH")]
    folder = real("cassis", "json", "fs_as_array", "ser-ref", "casWithEmojiUnicodeTextAndAnnotations")
    json_cas = spanagree.read(folder / "data.json")
    xmi = spanagree.read(folder / "debug.xmi", typesystem=str(folder / "debug-typesystem.xml"))
    assert covered(json_cas) == covered(xmi) and ("🥳", "Annotation") in covered(xmi)
    assert len(covered(xmi)) == 9


def test_stacked_spans_of_two_annotators_and_the_curation():
    folder = real("inception", "xmi", "multivalspanrel")
    types = f"{folder / 'webannoTestTypes.xml'},{real('cassis', 'typesystems', 'important_dkpro_types.xml')}"
    with pytest.raises(InputError, match="its features are: f1, f2"):
        spanagree.read(folder, typesystem=types)
    corpus = spanagree.read(folder, typesystem=types, feature="f1", format="uima-cas")
    assert corpus.raters == ["stackedmerge", "stackedrel1", "stackedrel2"]  # one document, a file per rater
    assert corpus.exclusions.notes["UIMA CAS: relations of layer Multivalrel read, not scored (governor, dependent)"] == 8


def test_the_same_annotations_in_every_format_score_the_same():
    """XMI (a folder per annotator), CAS JSON (a folder per document), WebAnno TSV and spanagree
    JSONL of the same spans: the same report, rule by rule."""
    reads = {name: spanagree.read(SAME / name) for name in ("xmi", "jsoncas", "tsv", "jsonl")}
    assert {detect_format(SAME / n) for n in ("xmi", "jsoncas")} == {"uima-cas"}
    assert detect_format(SAME / "tsv") == "webanno-tsv"
    for rule in ("exact", "overlap", "partial"):
        reports = {name: spanagree.score(corpus, rule=rule).to_dict() for name, corpus in reads.items()}
        for name, report in reports.items():
            assert report["overall"] == reports["jsonl"]["overall"], (name, rule)
            assert report["labels"] == reports["jsonl"]["labels"], (name, rule)
            assert report["pairs"] == reports["jsonl"]["pairs"], (name, rule)
    # the emoji is one character here, two UTF-16 code units in the files
    assert ("\U0001F642", "EMO") in covered(reads["xmi"], 0, "ann3")
    assert reads["xmi"].texts == reads["jsonl"].texts


def test_missing_type_system_names_the_file(tmp_path):
    shutil.copy(SAME / "xmi" / "ann1" / "d1.xmi", tmp_path / "d1.xmi")
    with pytest.raises(InputError, match=r"d1.xmi: field 'typesystem': no type system beside it .*found no .xml file"):
        spanagree.read(tmp_path / "d1.xmi")


def test_a_type_missing_from_the_type_system():
    lenient = real("cassis", "xmi", "lenient_cas.xmi")
    small = real("cassis", "typesystems", "small_typesystem.xml")
    with pytest.raises(InputError, match=r"lenient_cas.xmi: field 'cas': .*cassis.NotInTypesystem"):
        spanagree.read(lenient, typesystem=str(small))


def test_a_layer_that_does_not_exist_lists_the_layers():
    with pytest.raises(InputError) as err:
        spanagree.read(SAME / "xmi", layer="NamedEntity")
    assert "layer='NamedEntity' is not a span layer here; the span layers are:" in str(err.value)
    assert "webanno.custom.Entity (value)" in str(err.value) and "Token (no feature)" in str(err.value)
    assert "d1.xmi" in str(err.value)
    small = real("cassis", "xmi", "small_cas.xmi")
    types = str(real("cassis", "typesystems", "small_typesystem.xml"))
    with pytest.raises(InputError, match=r"the span layers are: cassis.Token \(id, pos\); cassis.Sentence \(id\)"):
        spanagree.read(small, typesystem=types)
    tokens = spanagree.read(small, typesystem=types, layer="Token", feature="pos")
    assert tokens.n_spans == 11


def test_a_cas_of_another_document_names_file_document_and_field(tmp_path):
    for rater in ("ann1", "ann2"):
        shutil.copytree(SAME / "xmi" / rater, tmp_path / rater)
    shutil.copy(SAME / "xmi" / "ann2" / "d2.xmi", tmp_path / "ann2" / "d1.xmi")  # d2's CAS under d1's name
    with pytest.raises(InputError) as err:
        spanagree.read([tmp_path / "ann1", tmp_path / "ann2"])
    message = str(err.value)
    assert "ann2/d1.xmi" in message and "document 'd1'" in message and "field 'text'" in message


def test_offsets_beyond_the_text(tmp_path):
    folder = tmp_path / "ann1"
    folder.mkdir()
    shutil.copy(SAME / "xmi" / "ann1" / "TypeSystem.xml", folder)
    xmi = (SAME / "xmi" / "ann1" / "d1.xmi").read_text(encoding="utf-8")
    # Rome's LOC span ends past the text (the file is cassis's; only the number changes)
    bad = xmi.replace('begin="24" end="28" value="LOC"', 'begin="24" end="999" value="LOC"')
    assert bad != xmi
    (folder / "d1.xmi").write_text(bad, encoding="utf-8")
    with pytest.raises(InputError, match=r"d1.xmi: document 'd1', field 'webanno.custom.Entity.end': offsets \[24, 999\) .*out of range; "
                                         r"expected 0 <= begin <= end <= 42"):
        spanagree.read(folder / "d1.xmi")


def test_without_cassis_the_message_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "cassis", None)
    with pytest.raises(UsageError, match=r"pip install 'spanagree\[inception\]'"):
        spanagree.read(SAME / "xmi")


@pytest.mark.parametrize("source", ["xmi", "jsoncas", "tsv", "export.zip"])
def test_conversion_to_spanagree_jsonl_and_docbin_scores_the_same(tmp_path, source):
    from spanagree.outputs.convert import convert

    corpus = spanagree.read(SAME / source)
    expected = spanagree.score(corpus).to_dict()
    targets = [tmp_path / "out.jsonl"]
    if "docbin" in spanagree.io.formats():
        pytest.importorskip("spacy")
        targets.append(tmp_path / "out.spacy")
    for target in targets:
        result = convert(SAME / source, target)
        assert result["written"]["spans"] == corpus.n_spans
        again = spanagree.score(spanagree.read(target)).to_dict()
        assert (again["overall"], again["pairs"]) == (expected["overall"], expected["pairs"]), target.name


def test_relations_are_kept_with_their_ends():
    from spanagree.io.uima_cas import parse

    doc = parse(SAME / "xmi" / "ann1" / "d1.xmi", {})
    [relation] = doc.relations
    assert relation.layer == "webanno.custom.Link" and relation.values == {"value": "lives_in"}
    assert relation.governor == ("webanno.custom.Entity", 0, 12) and relation.dependent == ("webanno.custom.Entity", 24, 28)


def test_tokens_are_carried_for_the_token_unit(tmp_path):
    """INCEpTION's tokens (DKPro Token in a CAS, the rows of a TSV file) measure in tokens: the
    same figures from XMI, from TSV, and from spanagree JSONL given the same tokens."""
    import json
    import re

    xmi, tsv = spanagree.read(SAME / "xmi"), spanagree.read(SAME / "tsv")
    assert xmi.has_tokens and tsv.has_tokens
    lines = [json.loads(line) for line in (SAME / "jsonl" / "all.jsonl").read_text(encoding="utf-8").splitlines()]
    for line in lines:
        line["tokens"] = [{"start": m.start(), "end": m.end()} for m in re.finditer(r"\S+", line["text"])]
    with_tokens = tmp_path / "tokens.jsonl"
    with_tokens.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    reference = spanagree.read(with_tokens)
    for rule in ("exact", "overlap"):
        expected = spanagree.score(reference, unit="token", rule=rule).to_dict()
        for corpus in (xmi, tsv):
            got = spanagree.score(corpus, unit="token", rule=rule).to_dict()
            assert (got["overall"], got["pairs"]) == (expected["overall"], expected["pairs"]), rule
