"""BioC (XML, JSON) through the bioc package, and PubTator: bioc's, bconv's and INCEpTION's own
files (read in place from ../shared/real-exports, skipped when absent), the fixtures written with
bioc (tests/fixtures/inception/make_fixtures.py), and bad input."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import spanagree
from spanagree.errors import InputError, UsageError
from spanagree.io import detect_format

from locations import FIXTURES, real_export as real

SAME = FIXTURES / "inception"



def all_spans(corpus):
    return sorted((d, s, e, label) for d in corpus.doc_ids for r in corpus.raters for s, e, label in corpus.spans_of(d, r))


def covered(corpus, doc: int = 0):
    text = corpus.texts[doc]
    return [(text[s:e], label) for r in corpus.raters for s, e, label in corpus.spans_of(corpus.doc_ids[doc], r)]


@pytest.fixture
def bioc():
    return pytest.importorskip("bioc", reason="bioc (the bioc extra) is not installed")


def test_bconv_files_same_spans_in_bioc_xml_json_and_pubtator(bioc):
    folder = real("bioc", "bconv")
    for name, n_docs, n_spans in (("NCBIdevset-example", 9, 74), ("BC5CDR-example", 1, 6), ("elliptic-coordination", 1, 9)):
        xml, js = folder / "bioc_xml" / f"{name}.xml", folder / "bioc_json" / f"{name}.json"
        assert detect_format(xml) == detect_format(js) == "bioc"
        assert detect_format(folder / "pubtator" / f"{name}.txt") == "pubtator"
        a, b = spanagree.read(xml), spanagree.read(js)
        assert len(a.doc_ids) == n_docs and a.n_spans == n_spans and all_spans(a) == all_spans(b)
        # PubTator writes a discontinuous mention as its contiguous parts: BioC's locations as fragments
        pubtator = spanagree.read(folder / "pubtator" / f"{name}.txt")
        assert all_spans(pubtator) == all_spans(spanagree.read(xml, discontinuous="fragments"))
    ncbi = spanagree.read(folder / "bioc_xml" / "NCBIdevset-example.xml")
    labels = {}
    for _, _, _, label in all_spans(ncbi):
        labels[label] = labels.get(label, 0) + 1
    assert labels == {"SpecificDisease": 38, "Modifier": 19, "DiseaseClass": 17}


def test_discontinuous_annotation_is_its_covering_span(bioc):
    corpus = spanagree.read(real("bioc", "bconv", "bioc_xml", "elliptic-coordination.xml"))
    assert ("Breast and Ovarian Cancers", "Disease") in covered(corpus)
    assert corpus.exclusions.notes["discontinuous BioC annotation (several locations), scored as its covering span"] == 2
    cdr = spanagree.read(real("bioc", "bconv", "bioc_json", "BC5CDR-example.json"))
    assert cdr.exclusions.notes["BioC relations read, not scored"] == 1


def test_bioc_round_trip_file_sentences_and_document_annotations(bioc):
    xml = real("bioc", "bionlplab", "everything.xml")
    with pytest.raises(InputError, match=r"everything.xml: document '1', field 'annotation 1.infon': no 'type' infon; "
                                         r".*infons are: annotation-infon-key"):
        spanagree.read(xml)
    a = spanagree.read(xml, feature="annotation-infon-key")
    b = spanagree.read(real("bioc", "bionlplab", "everything.json"), feature="annotation-infon-key")
    assert all_spans(a) == all_spans(b)
    assert ("测试", "annotation-infon-value") in covered(a, 1)  # a sentence's annotation, non-ASCII
    assert a.exclusions.notes["BioC relations read, not scored"] == 3
    # annotation 5 (document level) repeats annotation 2: one span, the repeat counted
    assert a.exclusions.spans["duplicate span of the same rater (kept once)"] == 1


def test_inception_bioc_type_is_the_layer_label_the_value(bioc):
    path = real("inception", "bioc", "bioc-suite", "passage-without-sentences", "reference.xml")
    assert {label for _, label in covered(spanagree.read(path))} == {"custom.Span"}
    assert {label for _, label in covered(spanagree.read(path, feature="label"))} == {"span-annotation-value"}


def test_pubtator_tmvar():
    corpus = spanagree.read(real("bioc", "bionlplab", "tmVar.Normalization.first10.txt"))
    assert len(corpus.doc_ids) == 10 and corpus.n_spans == 32
    assert ("rs2234671", "SNP") in covered(corpus, corpus.doc_ids.index("22051099"))


def test_the_same_annotations_score_the_same_in_bioc_pubtator_and_jsonl(bioc):
    expected = spanagree.read(SAME / "jsonl")
    for path in (SAME / "bioc", SAME / "bioc-json", SAME / "bioc-annotator-infons.xml", SAME / "pubtator"):
        corpus = spanagree.read(path)
        assert corpus.raters == ["ann1", "ann2", "ann3"]
        for rule in ("exact", "overlap"):
            a, b = spanagree.score(corpus, rule=rule).to_dict(), spanagree.score(expected, rule=rule).to_dict()
            assert (a["overall"], a["labels"], a["pairs"]) == (b["overall"], b["labels"], b["pairs"]), (path, rule)
    assert spanagree.read(SAME / "bioc").texts == expected.texts


def test_bioc_offsets_beyond_the_text(bioc, tmp_path):
    bad = (SAME / "bioc" / "ann1.xml").read_text(encoding="utf-8").replace('offset="24" length="4"', 'offset="24" length="400"')
    (tmp_path / "ann1.xml").write_text(bad, encoding="utf-8")
    with pytest.raises(InputError, match=r"ann1.xml: document 'd1', field 'annotation 3.location\[0\]': offset 24, length 400 out of range"):
        spanagree.read(tmp_path / "ann1.xml")


def test_pubtator_mention_that_is_not_the_text(tmp_path):
    path = tmp_path / "alice.txt"
    path.write_text("1|t|Aspirin helps .\n1\t0\t7\tAspirin\tChemical\t-\n1\t8\t14\thelp s\tChemical\t-\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"alice.txt:3: document '1', field 'mention': the mention 'help s' is not the text"):
        spanagree.read(path)


def test_without_bioc_the_message_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "bioc", None)
    with pytest.raises(UsageError, match=r"pip install 'spanagree\[bioc\]'"):
        spanagree.read(SAME / "bioc")


@pytest.mark.parametrize("source", ["bioc", "pubtator"])
def test_conversion_to_spanagree_jsonl_scores_the_same(tmp_path, source):
    from spanagree.outputs.convert import convert

    if source == "bioc":
        pytest.importorskip("bioc")
    expected = spanagree.score(spanagree.read(SAME / source)).to_dict()
    convert(SAME / source, tmp_path / "out.jsonl")
    again = spanagree.score(spanagree.read(tmp_path / "out.jsonl")).to_dict()
    assert (again["overall"], again["pairs"]) == (expected["overall"], expected["pairs"])
