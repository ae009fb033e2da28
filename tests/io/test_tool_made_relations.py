"""Relations and region attributes from exports the tools made themselves.

- tests/fixtures/doccano/relations-all/: a doccano 1.8.4 relation-extraction project (entities
  and relations, two members), written by doccano's export code (tests/fixtures/doccano/README.md);
- tests/fixtures/labelstudio/relations.json and relations-min.json: a Label Studio 1.23.2 project
  with <Labels>, <Relations> and per-region <Choices>, <TextArea> and <Rating>, two annotators,
  exported as JSON and JSON-MIN by the export view's own steps (tests/fixtures/labelstudio/README.md).

Every relation and region attribute in the files is counted from the raw JSON and compared with
what the readers hold; the expected values are spelled out; relation PSA between the two raters
is the figure counted by hand below.
"""
from __future__ import annotations

import json

import pytest

import spanagree
from locations import FIXTURES

DOCCANO = FIXTURES / "doccano" / "relations-all"
LABEL_STUDIO = FIXTURES / "labelstudio"


def _held_relations(corpus):
    return sorted(
        (corpus.raters[corpus.ann_rater[r.ann]], corpus.texts[corpus.ann_doc[r.ann]][r.head[0]:r.head[1]], r.head[2],
         corpus.texts[corpus.ann_doc[r.ann]][r.child[0]:r.child[1]], r.child[2], r.label, r.symmetric)
        for r in corpus.structure.relations
    )


def _psa(a, b, c):
    return 2 * a / (2 * a + b + c)


# --- doccano ---------------------------------------------------------------------------------


def test_doccano_relation_export_every_relation_is_read():
    files = sorted(DOCCANO.glob("*.jsonl"))
    assert [f.name for f in files] == ["alice.jsonl", "bob.jsonl"]
    in_files = sum(len(json.loads(line)["relations"]) for f in files for line in f.read_text("utf-8").splitlines())
    corpus = spanagree.read(files)
    assert len(corpus.structure.relations) == in_files == 8
    assert not corpus.exclusions.relations
    # the third text has an emoji before Rome and Milan: the file's UTF-16 offsets become code points
    assert _held_relations(corpus) == sorted([
        ("alice", "Ann Lee", "PER", "Acme", "ORG", "works_for", False),
        ("alice", "Acme", "ORG", "Paris", "LOC", "located_in", False),
        ("alice", "Bob Roe", "PER", "Globex", "ORG", "works_for", False),
        ("alice", "Rome", "LOC", "Milan", "LOC", "connected_to", False),
        ("bob", "Ann Lee", "PER", "Acme", "ORG", "works_for", False),
        ("bob", "Paris", "LOC", "Acme", "ORG", "located_in", False),
        ("bob", "Bob Roe", "PER", "Globex", "ORG", "works_for", False),
        ("bob", "Bob Roe", "PER", "Initech", "ORG", "works_for", False),
    ])


@pytest.mark.parametrize("rule", ["exact", "overlap"])
def test_doccano_relation_psa_is_the_hand_count(rule):
    # alice 4 relations, bob 4. Matched: Ann Lee -> Acme works_for, Bob Roe -> Globex works_for
    # (a = 2). Not matched: Acme -> Paris (alice) against Paris -> Acme (bob), directed, so b and c
    # get one each; alice's Rome -> Milan (bob did not mark Milan); bob's Bob Roe -> Initech.
    # a = 2, b = 2, c = 2. Both spans marked: alice's Rome -> Milan leaves, so b = 1.
    # Every span of one rater has an identical span of the other, so the rule changes nothing.
    corpus = spanagree.read(sorted(DOCCANO.glob("*.jsonl")))
    relations = spanagree.score(corpus, structure=True, rule=rule).to_dict()["structure"]["relations"]
    assert [relations["overall"][k] for k in "abc"] == [2.0, 2.0, 2.0]
    assert relations["overall"]["pooled_psa"] == pytest.approx(_psa(2, 2, 2)) == pytest.approx(0.5)
    assert relations["overall"]["pairwise_mean_psa"] == pytest.approx(0.5)
    assert [relations["both_spans_marked"][k] for k in "abc"] == [2.0, 1.0, 2.0]
    assert relations["both_spans_marked"]["pooled_psa"] == pytest.approx(_psa(2, 1, 2)) == pytest.approx(4 / 7)
    located_in = relations["pairs"][0]["labels"]["located_in"]
    assert [located_in[k] for k in "abc"] == [0.0, 1.0, 1.0]


# --- Label Studio ----------------------------------------------------------------------------

PER_REGION = ("choices", "textarea", "rating")


def _raw_counts(tasks):
    """Relations and per-region results in a Label Studio JSON export, counted from the file."""
    relations = attributes = 0
    for task in tasks:
        for annotation in task["annotations"]:
            assert not annotation["was_cancelled"]
            for item in annotation["result"]:
                relations += item["type"] == "relation"
                attributes += item["type"] in PER_REGION
    return relations, attributes


def test_labelstudio_export_every_relation_and_region_attribute_is_read():
    path = LABEL_STUDIO / "relations.json"
    tasks = json.loads(path.read_text("utf-8"))
    raw_relations, raw_attributes = _raw_counts(tasks)
    corpus = spanagree.read(path)
    held = corpus.structure
    assert len(held.relations) == raw_relations == 9
    assert len(held.attributes) == raw_attributes == 12
    assert not corpus.exclusions.relations and not corpus.exclusions.attributes
    alice, bob = "1", "2"  # completed_by: Label Studio's user ids
    assert _held_relations(corpus) == sorted([
        (alice, "Ann Lee", "PER", "Acme", "ORG", "works_for", False),
        (alice, "Acme", "ORG", "Paris", "LOC", "located_in", False),  # drawn from Paris, direction "left"
        (alice, "Bob Roe", "PER", "Initech", "ORG", "left", False),
        (alice, "Bob Roe", "PER", "Globex", "ORG", "works_for", False),
        (alice, "Rome", "LOC", "Italy", "LOC", "located_in", False),
        (bob, "Ann Lee", "PER", "Acme", "ORG", "works_for", False),
        (bob, "Acme", "ORG", "Paris", "LOC", "located_in", False),
        (bob, "Bob", "PER", "Globex", "ORG", "works_for", False),
        (bob, "Initech", "ORG", "Globex", "ORG", "relation", True),  # direction "bi", no label
    ])
    attributes = sorted(
        (corpus.raters[corpus.ann_rater[a.ann]], corpus.texts[corpus.ann_doc[a.ann]][a.span[0]:a.span[1]], a.name,
         a.value)
        for a in held.attributes
    )
    assert attributes == sorted([
        (alice, "Ann Lee", "certainty", "sure"), (alice, "Acme", "certainty", "unsure"),
        (alice, "Acme", "note", "a company?"), (alice, "Ann Lee", "salience", 4),
        (alice, "Globex", "certainty", "sure"), (alice, "Bob Roe", "note", "first name\nlast name"),
        (alice, "Italy", "certainty", "unsure"),
        (bob, "Ann Lee", "certainty", "sure"), (bob, "Acme", "certainty", "sure"), (bob, "Ann Lee", "salience", 3),
        (bob, "Globex", "certainty", "sure"), (bob, "Initech", "salience", 2),
    ])


def test_labelstudio_relation_psa_is_the_hand_count():
    # alice (user 1) 5 relations, bob (user 2) 4.
    # exact rule: matched Ann Lee -> Acme works_for and Acme -> Paris located_in (a = 2); alice's
    # Bob Roe -> Initech, Bob Roe -> Globex (bob marked "Bob", not "Bob Roe") and Rome -> Italy (bob
    # did not mark Italy): b = 3; bob's Bob -> Globex and Initech <-> Globex: c = 2.
    # Both spans marked: alice's three have an endpoint bob did not mark (b = 0); of bob's, only
    # Initech <-> Globex has both spans marked by alice (c = 1).
    # overlap rule: "Bob" is aligned with "Bob Roe", so Bob -> Globex works_for matches too:
    # a = 3, b = 2, c = 1.
    path = LABEL_STUDIO / "relations.json"
    exact = spanagree.score(path, structure=True, rule="exact").to_dict()["structure"]["relations"]
    assert [exact["overall"][k] for k in "abc"] == [2.0, 3.0, 2.0]
    assert exact["overall"]["pooled_psa"] == pytest.approx(_psa(2, 3, 2)) == pytest.approx(4 / 9)
    assert [exact["both_spans_marked"][k] for k in "abc"] == [2.0, 0.0, 1.0]
    assert exact["both_spans_marked"]["pooled_psa"] == pytest.approx(0.8)
    overlap = spanagree.score(path, structure=True, rule="overlap").to_dict()["structure"]["relations"]
    assert [overlap["overall"][k] for k in "abc"] == [3.0, 2.0, 1.0]
    assert overlap["overall"]["pairwise_mean_psa"] == pytest.approx(_psa(3, 2, 1)) == pytest.approx(2 / 3)


def test_labelstudio_region_choices_agreement_on_matched_spans():
    # certainty on the spans both marked (exact rule): Ann Lee sure/sure, Acme unsure/sure, Globex
    # sure/sure; Paris, Initech and Rome carry it for neither rater
    section = spanagree.score(LABEL_STUDIO / "relations.json", structure=True).to_dict()["structure"]
    pair = section["attributes"]["attributes"]["certainty"]["pairs"][0]
    assert pair["items"] == 3 and pair["skipped"] == {"attribute on neither span": 3}
    assert pair["percent_agreement"]["value"] == pytest.approx(2 / 3)
    salience = section["attributes"]["attributes"]["salience"]["pairs"][0]
    assert salience["items"] == 1  # Ann Lee 4 against 3; Initech rated by bob only
    assert salience["skipped"]["attribute on one span only"] == 1


def test_labelstudio_json_min_of_the_same_project_says_relations_cannot_be_read():
    path = LABEL_STUDIO / "relations-min.json"
    rows = json.loads(path.read_text("utf-8"))
    # what JSON-MIN made of the project: no relation, no region id; per-region choices bare strings
    assert not any("relation" in json.dumps(row) for row in rows)
    assert {json.dumps(row["certainty"]) for row in rows if "certainty" in row} >= {'["sure", "unsure"]', '"sure"'}
    section = spanagree.score(path, structure=True).to_dict()["structure"]
    assert section["relations"] is None
    assert "JSON-MIN" in section["lost"][0] and "drops relations" in section["lost"][0]
    # the spans are still read: the same spans as the JSON export
    spans_min = spanagree.score(path).to_dict()["overall"]
    spans_json = spanagree.score(LABEL_STUDIO / "relations.json").to_dict()["overall"]
    assert [spans_min[k] for k in "abc"] == [spans_json[k] for k in "abc"]
