"""spanagree JSONL with span ids, attributes, relations, events and triggers (docs/formats.md)."""
from __future__ import annotations

import json

import pytest

import spanagree
from spanagree.errors import InputError
from spanagree.io.jsonl import write_spanagree

TEXT = "Alice met Bob in Paris."


def _write(tmp_path, *lines):
    path = tmp_path / "rel.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _line(**extra):
    return {"doc_id": "d1", "text": TEXT, "annotator": "A", "spans": [
        {"start": 0, "end": 5, "label": "PER", "id": "a", "attributes": {"negated": True}},
        {"start": 10, "end": 13, "label": "PER", "id": "b"},
        {"start": 17, "end": 22, "label": "LOC", "id": 3, "attributes": {"kind": "city", "score": 2}},
    ], **extra}


def test_reads_relations_events_triggers_and_attributes_and_writes_them_back(tmp_path):
    path = _write(tmp_path, _line(
        relations=[{"head": "a", "child": "b", "label": "met"}, {"head": "b", "child": 3, "label": "near", "symmetric": True}],
        triggers=[{"start": 6, "end": 9, "label": "Meet", "id": "e"}],
        events=[{"trigger": "e", "arguments": [{"role": "Agent", "span": "a"}, {"role": "Place", "span": 3}]}],
    ), {"doc_id": "d1", "text": TEXT, "annotator": "B", "spans": [{"start": 0, "end": 5, "label": "PER"}]})
    corpus = spanagree.read(path)
    held = corpus.structure
    assert [(r.head, r.child, r.label, r.symmetric, r.kind) for r in held.relations] == [
        ((0, 5, "PER"), (10, 13, "PER"), "met", False, "relation"),
        ((10, 13, "PER"), (17, 22, "LOC"), "near", True, "relation"),
        ((6, 9, "Meet"), (0, 5, "PER"), "Agent", False, "event"),
        ((6, 9, "Meet"), (17, 22, "LOC"), "Place", False, "event"),
    ]
    assert sorted((a.span, a.name, a.value) for a in held.attributes) == [
        ((0, 5, "PER"), "negated", True), ((17, 22, "LOC"), "kind", "city"), ((17, 22, "LOC"), "score", 2),
    ]
    assert corpus.n_spans == 4  # the trigger is not a scored span
    out = tmp_path / "out.jsonl"
    assert write_spanagree(corpus, out)["relations"] == 4
    again = spanagree.read(out)
    assert again.structure == held and again.n_spans == corpus.n_spans


def test_span_only_input_builds_no_structure(tmp_path):
    path = _write(tmp_path, {"doc_id": "d1", "text": TEXT, "annotator": "A", "spans": [{"start": 0, "end": 5, "label": "PER"}]})
    assert spanagree.read(path).structure is None


@pytest.mark.parametrize("relation, field", [
    ({"head": "a", "child": "zz", "label": "met"}, "relations[0].child"),  # no such id (e.g. another document's)
    ({"head": "a", "label": "met"}, "relations[0].child"),
    ({"head": "a", "child": "b", "label": ""}, "relations[0].label"),
    ({"head": "a", "child": "b", "label": "x", "symmetric": "yes"}, "relations[0].symmetric"),
    ({"head": "a", "child": "b", "label": "x", "kind": "other"}, "relations[0].kind"),
])
def test_bad_relations_name_file_line_document_and_field(tmp_path, relation, field):
    other = {"doc_id": "d0", "text": TEXT, "annotator": "A", "spans": [{"start": 0, "end": 3, "label": "X", "id": "zz"}]}
    path = _write(tmp_path, other, _line(relations=[relation]))
    with pytest.raises(InputError) as caught:
        spanagree.read(path)
    message = str(caught.value)
    assert "rel.jsonl:2" in message and "'d1'" in message and field in message


@pytest.mark.parametrize("span_extra, field", [
    ({"id": ""}, "spans[0].id"),
    ({"attributes": ["x"]}, "spans[0].attributes"),
    ({"attributes": {"kind": {"nested": 1}}}, "spans[0].attributes.kind"),
    ({"attributes": {"score": float("nan")}}, "spans[0].attributes.score"),
])
def test_bad_span_ids_and_attributes_name_their_field(tmp_path, span_extra, field):
    line = {"doc_id": "d1", "text": TEXT, "annotator": "A", "spans": [{"start": 0, "end": 5, "label": "PER", **span_extra}]}
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(line, allow_nan=True) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        spanagree.read(path)
    assert "bad.jsonl:1" in str(caught.value) and field in str(caught.value)


def test_duplicate_span_ids_are_an_error(tmp_path):
    line = _line()
    line["spans"][1]["id"] = "a"
    with pytest.raises(InputError, match="also the id of span"):
        spanagree.read(_write(tmp_path, line))


def test_an_attribute_given_twice_for_one_span_is_counted(tmp_path):
    line = _line()
    line["spans"].append({"start": 0, "end": 5, "label": "PER", "attributes": {"negated": True, "kind": "x"}})
    corpus = spanagree.read(_write(tmp_path, line))
    assert corpus.exclusions.attributes == {"same attribute and value given twice for one span (kept once)": 1}
    assert corpus.exclusions.spans["duplicate span of the same rater (kept once)"] == 1
