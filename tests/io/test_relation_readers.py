"""Relations and region attributes from doccano, Label Studio and Prodigy (docs/formats.md).

The records here are built below, in each tool's documented export layout, to reach the edge
cases (unknown ids, cancelled annotations, document-level choices); the exports the tools made
themselves are read in test_tool_made_relations.py.
"""
from __future__ import annotations

import json

import pytest

import spanagree
from spanagree.errors import InputError

TEXT = "Ann Lee works for Acme in Paris."


def test_doccano_relation_to_an_unknown_entity_names_the_field(tmp_path):
    record = {"id": 1, "text": TEXT, "entities": [{"id": 1, "label": "PER", "start_offset": 0, "end_offset": 7}],
              "relations": [{"id": 5, "from_id": 1, "to_id": 99, "type": "works_for"}]}
    path = tmp_path / "ann.jsonl"
    path.write_text(json.dumps(record) + "\n")
    with pytest.raises(InputError) as caught:
        spanagree.read(path)
    assert "ann.jsonl:1" in str(caught.value) and "relations[0].to_id" in str(caught.value)


def _ls_region(rid, start, end, label):
    return {"id": rid, "from_name": "label", "to_name": "text", "type": "labels",
            "value": {"start": start, "end": end, "text": TEXT[start:end], "labels": [label]}}


def _ls_choice(rid, start, end, choice):
    return {"id": rid, "from_name": "certainty", "to_name": "text", "type": "choices",
            "value": {"start": start, "end": end, "text": TEXT[start:end], "choices": [choice]}}


def _ls_task(annotations):
    return {"id": 7, "data": {"text": TEXT}, "annotations": [
        {"id": i + 1, "completed_by": who, "was_cancelled": False, "result": result}
        for i, (who, result) in enumerate(annotations)
    ]}


def test_labelstudio_relations_and_per_region_choices(tmp_path):
    one = [_ls_region("a", 0, 7, "PER"), _ls_region("b", 18, 22, "ORG"), _ls_region("c", 26, 31, "LOC"),
           _ls_choice("a", 0, 7, "sure"), _ls_choice("b", 18, 22, "unsure"),
           {"from_id": "a", "to_id": "b", "type": "relation", "direction": "right", "labels": ["works_for"]},
           {"from_id": "c", "to_id": "b", "type": "relation", "direction": "left", "labels": ["located_in"]},
           {"id": "doc", "from_name": "topic", "to_name": "text", "type": "choices", "value": {"choices": ["business"]}}]
    two = [_ls_region("x", 0, 7, "PER"), _ls_region("y", 18, 22, "ORG"),
           _ls_choice("x", 0, 7, "sure"), _ls_choice("y", 18, 22, "sure"),
           {"from_id": "x", "to_id": "y", "type": "relation", "direction": "bi", "labels": []}]
    path = tmp_path / "export.json"
    path.write_text(json.dumps([_ls_task([(1, one), (2, two)])]))
    corpus = spanagree.read(path)
    held = corpus.structure
    assert sorted((corpus.raters[corpus.ann_rater[r.ann]], r.head, r.child, r.label, r.symmetric) for r in held.relations) == [
        ("1", (0, 7, "PER"), (18, 22, "ORG"), "works_for", False),
        ("1", (18, 22, "ORG"), (26, 31, "LOC"), "located_in", False),  # direction "left": from to_id
        ("2", (0, 7, "PER"), (18, 22, "ORG"), "relation", True),
    ]
    assert sorted((a.span, a.name, a.value) for a in held.attributes if corpus.ann_rater[a.ann] == 0) == [
        ((0, 7, "PER"), "certainty", "sure"), ((18, 22, "ORG"), "certainty", "unsure"),
    ]
    assert corpus.doc_label_names == ["business"]  # a document-level choice stays a document label
    section = spanagree.score(corpus, structure=True).to_dict()["structure"]
    pair = section["attributes"]["attributes"]["certainty"]["pairs"][0]
    assert pair["items"] == 2 and pair["percent_agreement"]["value"] == 0.5


def test_labelstudio_json_min_says_relations_cannot_be_read(tmp_path):
    rows = [{"id": 7, "text": TEXT, "annotator": "a@x", "annotation_id": 1,
             "label": [{"start": 0, "end": 7, "text": "Ann Lee", "labels": ["PER"]}], "certainty": "sure"},
            {"id": 7, "text": TEXT, "annotator": "b@x", "annotation_id": 2,
             "label": [{"start": 0, "end": 7, "text": "Ann Lee", "labels": ["PER"]}], "certainty": "sure"}]
    path = tmp_path / "min.json"
    path.write_text(json.dumps(rows))
    section = spanagree.score(path, structure=True).to_dict()["structure"]
    assert section["relations"] is None and "note" not in section
    assert "JSON-MIN" in section["lost"][0] and "drops relations" in section["lost"][0]


def _prodigy(text, spans, relations, annotator):
    def span(s, e, label):
        return {"start": s, "end": e, "label": label}

    return {"text": text, "_input_hash": 1, "_task_hash": 2, "_view_id": "relations", "answer": "accept",
            "_annotator_id": annotator, "spans": [span(*s) for s in spans],
            "relations": [{"head": 0, "child": 1, "head_span": span(*h), "child_span": span(*c), "label": lab}
                          for h, c, lab in relations]}


def test_prodigy_rel_manual_relations(tmp_path):
    people = [(0, 7, "PER"), (18, 22, "ORG")]
    lines = [
        _prodigy(TEXT, people, [((0, 7, "PER"), (18, 22, "ORG"), "WORKS_FOR"),
                                ((0, 3, None), (18, 22, "ORG"), "X")], "a"),  # a bare token: counted
        _prodigy(TEXT, people, [((18, 22, "ORG"), (0, 7, "PER"), "WORKS_FOR")], "b"),
    ]
    lines[0]["relations"][1]["head_span"]["label"] = None
    path = tmp_path / "rel.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    corpus = spanagree.read(path)
    assert corpus.exclusions.relations == {"Prodigy relation whose head or child is not one of the task's spans": 1}
    relations = spanagree.score(corpus, structure=True).to_dict()["structure"]["relations"]
    # the same two spans, opposite directions: a directed relation does not match
    assert [relations["overall"][k] for k in "abc"] == [0.0, 1.0, 1.0]
    assert relations["both_spans_marked"]["pooled_psa"] == 0.0


def test_relations_of_excluded_answers_are_counted(tmp_path):
    people = [(0, 7, "PER"), (18, 22, "ORG")]
    rejected = _prodigy(TEXT, people, [((0, 7, "PER"), (18, 22, "ORG"), "WORKS_FOR")], "a")
    rejected["answer"] = "reject"
    path = tmp_path / "rel.jsonl"
    path.write_text(json.dumps(rejected) + "\n" + json.dumps(_prodigy(TEXT, people, [], "b")) + "\n")
    assert spanagree.read(path).exclusions.relations == {"on an excluded annotation (Prodigy answer 'reject')": 1}
    cancelled = [_ls_region("a", 0, 7, "PER"), _ls_region("b", 18, 22, "ORG"), _ls_choice("a", 0, 7, "sure"),
                 {"from_id": "a", "to_id": "b", "type": "relation", "labels": ["works_for"]}]
    task = _ls_task([(1, cancelled), (2, [_ls_region("x", 0, 7, "PER")])])
    task["annotations"][0]["was_cancelled"] = True
    export = tmp_path / "export.json"
    export.write_text(json.dumps([task]))
    corpus = spanagree.read(export)
    reason = "on an excluded annotation (Label Studio annotation cancelled)"
    assert corpus.exclusions.relations == {reason: 1} and corpus.exclusions.attributes == {reason: 1}
