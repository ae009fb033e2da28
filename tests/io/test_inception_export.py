"""INCEpTION project exports: INCEpTION's own test exports (read in place from
../shared/real-exports, skipped when absent) and the export written with cassis
(tests/fixtures/inception/make_fixtures.py): raters, the curation, document states."""
from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

import spanagree
from spanagree.errors import InputError, UsageError
from spanagree.io import detect_format

from locations import FIXTURES, ROOT

cassis = pytest.importorskip("cassis", reason="dkpro-cassis (the inception extra) is not installed")

EXPORTS = ROOT.parent / "shared" / "real-exports" / "inception" / "project-export"
EXPORT = FIXTURES / "inception" / "export.zip"
CURATED_2019 = "Export+Test+-+Curated+annotation+project_3_6_1.zip"


def real(name: str) -> Path:
    path = EXPORTS / name
    if not path.exists():
        pytest.skip(f"../shared/real-exports/inception/project-export/{name} is not beside this checkout")
    return path


def test_states_raters_and_the_curation_as_gold():
    assert detect_format(EXPORT) == "inception"
    corpus = spanagree.read(EXPORT)
    assert corpus.raters == ["ann1", "ann2", "ann3", "curation"]
    assert corpus.doc_ids == ["d1.txt", "d2.txt"]
    excluded = corpus.exclusions.annotations
    # d2: ann2 left it in progress, ann3 never opened it; each counted, neither read as "marked nothing"
    assert excluded["INCEpTION: never opened: not annotated by this rater (excluded)"] == 1
    assert excluded["INCEpTION: in progress: not submitted (excluded; states='FINISHED,IN_PROGRESS' reads it)"] == 1
    # d1: ann3 finished and marked nothing: a rater with no span there
    assert corpus.spans_of("d1.txt", "ann3") == []
    assert corpus.exclusions.notes["INCEpTION export: annotation FINISHED, read"] == 4
    assert corpus.exclusions.notes["INCEpTION export: curated document FINISHED, read"] == 1
    against = spanagree.score(corpus, reference="curation").to_dict()["reference"]["raters"]
    # ann1 is the curation exactly on d1; ann3 marked nothing where the curation has 3 spans (the
    # curation is side A: b its unmatched spans)
    assert against["ann1"]["f"] == 1.0
    assert (against["ann3"]["a"], against["ann3"]["b"]) == (0, 3)
    with_unfinished = spanagree.read(EXPORT, states="FINISHED,IN_PROGRESS")
    assert len(with_unfinished.spans_of("d2.txt", "ann2")) == 2
    assert not with_unfinished.exclusions.annotations.get(
        "INCEpTION: in progress: not submitted (excluded; states='FINISHED,IN_PROGRESS' reads it)")


def test_the_export_scores_as_its_annotators_files_do():
    """The export's finished annotations, read as a folder of XMI per annotator, score the same."""
    corpus = spanagree.read(EXPORT)
    loose = spanagree.read(FIXTURES / "inception" / "xmi")
    a = spanagree.score(corpus).to_dict()["pairs"]
    b = spanagree.score(loose).to_dict()["pairs"]
    same = {tuple(p["raters"]): (p["a"], p["b"], p["c"]) for p in a if "curation" not in p["raters"] and "ann3" not in p["raters"]}
    # on d1, the only document both ann1 and ann2 finished
    d1_only = spanagree.read([FIXTURES / "inception" / "xmi" / r / "d1.xmi" for r in ("ann1", "ann2")])
    expected = {tuple(p["raters"]): (p["a"], p["b"], p["c"]) for p in spanagree.score(d1_only).to_dict()["pairs"]}
    assert same == expected and b


def test_an_export_folder_reads_as_its_zip(tmp_path):
    with zipfile.ZipFile(EXPORT) as archive:
        archive.extractall(tmp_path / "unpacked")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    folder = spanagree.score(spanagree.read(tmp_path / "unpacked")).to_dict()
    assert folder["overall"] == spanagree.score(spanagree.read(EXPORT)).to_dict()["overall"]
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # nothing unpacked beside it


def test_inception_2019_export_curation_in_progress():
    path = real(CURATED_2019)
    assert detect_format(path) == "inception"
    corpus = spanagree.read(path)
    # admin's annotation was exported as plain text (no annotations); the curation is in progress
    assert corpus.exclusions.notes[
        "INCEpTION export: annotation files in plain text, which keeps no annotations (.txt), not scored"] == 1
    assert corpus.exclusions.annotations[
        "INCEpTION: in progress: not submitted (excluded; states='FINISHED,IN_PROGRESS' reads it)"] == 1
    curated = spanagree.read(path, states="FINISHED,IN_PROGRESS")
    assert curated.raters == ["curation"]
    assert curated.spans_of("example_sentence.txt", "curation") == [(0, 4, "Chunk")]


def test_an_export_with_serialised_cas_only_says_how_to_export_again():
    path = real("test-project-with-recommenders.zip")
    with pytest.raises(InputError) as err:
        spanagree.read(path)
    message = str(err.value)
    assert "test-project-with-recommenders.zip:" in message and "annotation_ser/Obama.txt/admin.ser" in message
    assert "secondary format" in message


def test_bad_states_option():
    with pytest.raises(UsageError, match=r"states='DONE': expected states among NEW, IN_PROGRESS, FINISHED, IGNORE"):
        spanagree.read(EXPORT, states="DONE")


def test_a_cas_of_another_document_in_the_export(tmp_path):
    ts = cassis.TypeSystem()
    Meta = ts.create_type("de.tudarmstadt.ukp.dkpro.core.api.metadata.type.DocumentMetaData",
                          supertypeName="uima.tcas.DocumentAnnotation")
    ts.create_feature(Meta, "documentTitle", "uima.cas.String")
    cas = cassis.Cas(typesystem=ts)
    cas.sofa_string = "Some other text ."
    cas.add(Meta(begin=0, end=17, documentTitle="d2.txt"))
    root = tmp_path / "export"
    (root / "annotation" / "d1.txt").mkdir(parents=True)
    (root / "exportedproject.json").write_text(json.dumps({
        "source_documents": [{"name": "d1.txt", "state": "ANNOTATION_FINISHED"}],
        "annotation_documents": [{"name": "d1.txt", "user": "ann1", "state": "FINISHED"}]}))
    (root / "annotation" / "d1.txt" / "ann1.json").write_text(cas.to_json())
    with pytest.raises(InputError) as err:
        spanagree.read(root)
    message = str(err.value)
    assert "annotation/d1.txt/ann1.json" in message and "document 'd1.txt'" in message
    assert "field 'DocumentMetaData.documentTitle'" in message and "'d2.txt'" in message


def test_a_layer_that_does_not_exist_in_the_export_names_the_file_inside():
    with pytest.raises(InputError) as err:
        spanagree.read(EXPORT, layer="NamedEntity")
    assert "export.zip!/annotation/d1.txt/ann1.zip!" in str(err.value)
    assert "the span layers are: " in str(err.value) and "webanno.custom.Entity (value)" in str(err.value)
