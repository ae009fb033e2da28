"""The relations and attributes section in the text output and the gate (docs/structure.md)."""
from __future__ import annotations

import json

from click.testing import CliRunner

from spanagree.app.cli import app

TEXT = "Alice met Bob in Paris."


def _corpus(tmp_path):
    spans = [{"start": 0, "end": 5, "label": "PER", "id": "a"}, {"start": 10, "end": 13, "label": "PER", "id": "b"},
             {"start": 17, "end": 22, "label": "LOC", "id": "c"}]
    lines = [
        {"doc_id": "d1", "text": TEXT, "annotator": "A", "spans": [dict(s, attributes={"kind": "x"}) for s in spans],
         "relations": [{"head": "a", "child": "b", "label": "met"}, {"head": "b", "child": "c", "label": "in"}]},
        {"doc_id": "d1", "text": TEXT, "annotator": "B", "spans": [dict(s, attributes={"kind": "x"}) for s in spans[:2]],
         "relations": [{"head": "a", "child": "b", "label": "met"}]},
    ]
    path = tmp_path / "rel.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_text_output_shows_relations_beside_the_spans(tmp_path):
    result = CliRunner().invoke(app, ["score", str(_corpus(tmp_path)), "--structure"])
    assert result.exit_code == 0, result.output
    assert "relation pairwise mean PSA" in result.output and "Relations per label" in result.output
    assert "Attributes on matched spans" in result.output


def test_gate_relation_checks_follow_the_span_conventions(tmp_path):
    path = _corpus(tmp_path)
    # a=1, b=1, c=0: relation PSA 2/3; on both spans marked (c's span is B's miss) b=0: PSA 1
    passed = CliRunner().invoke(app, ["gate", str(path), "--min", "relation_psa=0.66", "--min", "relation_both_psa=1",
                                      "--min", "relation:met=1"])
    assert passed.exit_code == 0, passed.output
    assert "0.6667" in passed.output
    too_high = CliRunner().invoke(app, ["gate", str(path), "--min", "relation_psa=0.67"])
    assert too_high.exit_code == 1
    failed = CliRunner().invoke(app, ["gate", str(path), "--min", "relation:in=0.5", "--min", "attribute_alpha:kind=0.5"])
    assert failed.exit_code == 1
    assert "attribute_alpha:kind" in failed.output and "undefined" in failed.output  # one value only: α undefined


def test_gate_says_when_the_input_has_no_relations(tmp_path):
    path = tmp_path / "plain.jsonl"
    path.write_text(json.dumps({"doc_id": "d", "text": TEXT, "annotator": "A", "spans": []}) + "\n"
                    + json.dumps({"doc_id": "d", "text": TEXT, "annotator": "B", "spans": []}) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["gate", str(path), "--min", "relation_psa=0.5"])
    assert result.exit_code == 1 and "no relations, events or span attributes" in result.output


def test_bootstrap_intervals_sit_beside_the_relation_psas(tmp_path):
    result = CliRunner().invoke(app, ["score", str(_corpus(tmp_path)), "--structure", "--bootstrap", "50", "--output", "json"])
    assert result.exit_code == 0, result.output
    relations = json.loads(result.stdout)["structure"]["relations"]
    interval = relations["overall"]["pairwise_mean_psa_interval"]
    assert interval["value"] == relations["overall"]["pairwise_mean_psa"]
    assert interval["low"] <= interval["value"] <= interval["high"]
    assert "psa_interval" not in relations["pairs"][0] or relations["pairs"][0]["psa_interval"]["value"] == relations["pairs"][0]["psa"]


def test_renaming_raters_and_swapping_their_order_changes_nothing(tmp_path):
    path = _corpus(tmp_path)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    renamed = tmp_path / "renamed.jsonl"
    names = {"A": "zoe", "B": "adam"}  # the pair's order flips: a and b's roles swap
    renamed.write_text("".join(json.dumps({**x, "annotator": names[x["annotator"]]}) + "\n" for x in reversed(lines)))
    one, two = (json.loads(CliRunner().invoke(app, ["score", str(p), "--structure", "--output", "json"]).stdout)["structure"]
                for p in (path, renamed))
    first, second = one["relations"]["overall"], two["relations"]["overall"]
    assert (first["a"], first["b"], first["c"]) == (second["a"], second["c"], second["b"])
    assert first["pairwise_mean_psa"] == second["pairwise_mean_psa"]
    assert one["attributes"]["attributes"]["kind"]["all_raters"] == two["attributes"]["attributes"]["kind"]["all_raters"]


def test_structure_needs_the_spans_in_memory(tmp_path):
    result = CliRunner().invoke(app, ["score", str(_corpus(tmp_path)), "--structure", "--jobs", "2"])
    assert result.exit_code == 2 and "--structure" in result.output


def test_html_report_has_the_relations_section_escaped(tmp_path):
    path = _corpus(tmp_path)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    for line in lines:
        for relation in line["relations"]:
            relation["label"] = "<b>" + relation["label"]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = tmp_path / "page.html"
    result = CliRunner().invoke(app, ["report", str(path), "--structure", "-o", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert "<h2>Relations (on the span alignment)</h2>" in page and "&lt;b&gt;met" in page and "<b>met" not in page


def test_convert_keeps_relations_in_jsonl_and_says_when_a_format_cannot(tmp_path):
    from spanagree.outputs.convert import convert

    source = _corpus(tmp_path)
    kept = convert(source, tmp_path / "out.jsonl")
    assert kept["written"]["relations"] == 3 and kept["written"]["attributes"] == 5
    lost = convert(source, tmp_path / "out.prodigy.jsonl", to="prodigy")
    (reason,) = [k for k in lost["written"] if "not written" in k]
    assert lost["written"][reason] == 8
