"""brat relations, events, attributes, normalizations and equivalences (docs/formats.md)."""
from pathlib import Path

import pytest

import spanagree
from spanagree.errors import InputError

from locations import ROOT
from records import brat_dir

BRAT_NEWS = ROOT.parent / "shared" / "real-exports" / "brat_news" / "tutorial"


def _ann_lines(folder: Path, kinds: str) -> int:
    return sum(
        1 for ann in folder.glob("*.ann") for line in ann.read_text(encoding="utf-8").splitlines() if line[:1] in kinds
    )


@pytest.mark.skipif(not BRAT_NEWS.is_dir(), reason="../shared/real-exports/brat_news is not beside this checkout")
def test_brat_tutorial_documents_read_with_every_relation_event_attribute_and_normalization():
    corpus = spanagree.read([BRAT_NEWS])
    held = corpus.structure
    # every R is one relation, every E one relation per argument, every A/M and N one attribute
    n_arguments = sum(
        len(line.split("\t")[1].split()) - 1
        for ann in BRAT_NEWS.glob("*.ann") for line in ann.read_text(encoding="utf-8").splitlines() if line.startswith("E")
    )
    kinds = [r.kind for r in held.relations]
    assert kinds.count("relation") == _ann_lines(BRAT_NEWS, "R") == 2
    assert kinds.count("event") == n_arguments == 4
    assert len(held.attributes) == _ann_lines(BRAT_NEWS, "AMN") == 6
    assert not corpus.exclusions.relations and not corpus.exclusions.attributes
    by_name = {(a.name, a.value) for a in held.attributes}
    assert ("norm:Wikipedia", "64488") in by_name and ("Individual", True) in by_name
    # the event's trigger is not scored as an entity, but relations can align it
    assert corpus.exclusions.spans["brat event trigger (not an entity)"] == 1
    assert [span for spans in held.extra_spans.values() for span in spans] == [(443, 449, "Transfer-money")]


def test_equivalence_sets_sharing_members_and_cycles_are_one_class(tmp_path):
    text = "Ann and Anne and A. met."
    folder = brat_dir(tmp_path, "r1", {
        "d.txt": text,
        "d.ann": "T1\tPER 0 3\tAnn\nT2\tPER 8 12\tAnne\nT3\tPER 17 19\tA.\n"
                 "*\tEquiv T1 T2\n*\tEquiv T2 T3 T2\n*\tEquiv T3 T1\n",
    })
    corpus = spanagree.read([folder])
    pairs = sorted((r.head, r.child) for r in corpus.structure.relations)
    assert pairs == [((0, 3, "PER"), (8, 12, "PER")), ((0, 3, "PER"), (17, 19, "PER")), ((8, 12, "PER"), (17, 19, "PER"))]
    assert all(r.symmetric and r.kind == "equivalence" for r in corpus.structure.relations)
    assert corpus.exclusions.notes["brat equivalence set listing a member twice (read once)"] == 1
    assert corpus.exclusions.notes["brat equivalence sets sharing a member, merged"] == 2


def test_undefined_ids_are_counted_with_file_line_and_field(tmp_path):
    folder = brat_dir(tmp_path, "r1", {
        "d.txt": "Ann met Bob.",
        "d.ann": "T1\tPER 0 3\tAnn\nR1\tMeets Arg1:T1 Arg2:T9\nA1\tNegated T7\nN1\tReference T8 Wiki:Bob\t\n",
    })
    corpus = spanagree.read([folder])
    assert corpus.structure.relations == [] and corpus.structure.attributes == []
    assert corpus.exclusions.relations == {"points at an id not defined in its .ann file": 1}
    assert corpus.exclusions.attributes == {"points at an id not defined in its .ann file": 2}
    (note,) = [n for n in corpus.exclusions.notes if "does not define" in n]
    assert "'T9'" in note and "d.ann:2" in note and "Arg2" in note


def test_symmetric_relation_types_come_from_annotation_conf(tmp_path):
    (tmp_path / "annotation.conf").write_text(
        "[entities]\nPER\n[relations]\nAlias Arg1:PER, Arg2:PER, <REL-TYPE>:symmetric-transitive\nKnows Arg1:PER, Arg2:PER\n",
        encoding="utf-8",
    )
    folder = brat_dir(tmp_path, "r1", {
        "d.txt": "Ann met Bob.", "d.ann": "T1\tPER 0 3\tAnn\nT2\tPER 8 11\tBob\nR1\tAlias Arg1:T1 Arg2:T2\nR2\tKnows Arg1:T1 Arg2:T2\n",
    })
    held = spanagree.read([folder]).structure
    assert {r.label: r.symmetric for r in held.relations} == {"Alias": True, "Knows": False}


def test_malformed_relation_line_names_file_line_and_field(tmp_path):
    folder = brat_dir(tmp_path, "r1", {"d.txt": "Ann met Bob.", "d.ann": "T1\tPER 0 3\tAnn\nR1\tMeets Arg1:T1\n"})
    with pytest.raises(InputError) as caught:
        spanagree.read([folder])
    assert "d.ann:2" in str(caught.value) and "arguments" in str(caught.value)
