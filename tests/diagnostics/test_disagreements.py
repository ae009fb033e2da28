"""Disagreement cases: the report's outcome counts, listed; JSONL, CSV and Prodigy review input."""
from __future__ import annotations

import csv
import json
import random
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

import spanagree
from spanagree.core.sanitize import csv_cell
from spanagree.diagnostics import disagreements
from spanagree.app.cli import app
from records import line

runner = CliRunner()
TEXT = "Alice met Bob in Paris on Monday."  # Alice 0-5, Bob 10-13, Paris 17-22, Monday 26-32


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def kinds_of(path):
    return Counter(json.loads(row)["kind"] for row in path.read_text().splitlines())


@pytest.mark.parametrize("unit", ["char", "token"])
def test_counts_per_kind_equal_the_report_outcomes(example_path, tmp_path, unit):
    report = spanagree.score(spanagree.read(example_path), unit=unit)
    outcomes = report.to_dict()["overall"]["outcomes"]
    out = tmp_path / "cases.jsonl"
    written = disagreements.write(report, out)
    assert written["cases"] == {k: v for k, v in outcomes.items() if k != "correct"}
    assert written["correct"] == outcomes["correct"]
    assert kinds_of(out) == Counter({k: v for k, v in outcomes.items() if k != "correct" and v})


def _random_records(rng: random.Random, n_docs=10, raters=("r1", "r2", "r3")):
    text = "x" * 60
    records = []
    for d in range(n_docs):
        for r in raters:
            spans = set()
            for _ in range(rng.randint(0, 5)):
                s = rng.randrange(0, 55)
                spans.add((s, s + rng.randint(1, 5), rng.choice("AB")))
            records.append(line(f"d{d}", r, sorted(spans), text=text))
    return records


@pytest.mark.parametrize("seed", range(5))
def test_counts_equal_the_outcomes_on_random_overlapping_spans(write_jsonl, tmp_path, seed):
    report = spanagree.score(spanagree.read(write_jsonl(_random_records(random.Random(seed)))), rule="overlap")
    outcomes = report.to_dict()["overall"]["outcomes"]
    found = disagreements.from_report(report)
    assert found.kind_counts() == outcomes
    cases = list(disagreements.cases(report.corpus, found))
    assert Counter(c["kind"] for c in cases) == Counter({k: v for k, v in outcomes.items() if k != "correct" and v})
    # per pair too
    for pair in report.to_dict()["pairs"]:
        mine = Counter(c["kind"] for c in cases if [c["rater_a"], c["rater_b"]] == pair["raters"])
        assert mine == Counter({k: v for k, v in pair["outcomes"].items() if k != "correct" and v})


def test_hand_made_cases(write_jsonl, tmp_path):
    path = write_jsonl([
        line("d1", "ann", [(0, 5, "PER"), (10, 13, "PER"), (17, 22, "LOC"), (26, 32, "DATE")]),
        line("d1", "bob", [(0, 5, "PER"), (10, 13, "ORG"), (17, 21, "LOC"), (23, 25, "X")]),
    ])
    report = spanagree.score(spanagree.read(path))
    out = tmp_path / "cases.jsonl"
    disagreements.write(report, out, context=4)
    rows = [json.loads(r) for r in out.read_text().splitlines()]
    by_kind = {r["kind"]: r for r in rows}
    assert sorted(by_kind) == ["missed", "partial", "spurious", "wrong_label"] and len(rows) == 4
    wrong = by_kind["wrong_label"]
    assert (wrong["rater_a"], wrong["rater_b"]) == ("ann", "bob")
    assert (wrong["a_text"], wrong["a_label"], wrong["b_label"]) == ("Bob", "PER", "ORG")
    assert (wrong["context_left"], wrong["context_right"]) == ("met ", " in ")
    partial = by_kind["partial"]
    assert (partial["a_text"], partial["b_text"]) == ("Paris", "Pari")
    missed = by_kind["missed"]
    assert missed["a_text"] == "Monday" and missed["b_start"] is None and missed["b_text"] is None
    spurious = by_kind["spurious"]
    assert spurious["b_text"] == "on" and spurious["a_label"] is None
    assert [r["a_start"] if r["a_start"] is not None else r["b_start"] for r in rows] == sorted(
        r["a_start"] if r["a_start"] is not None else r["b_start"] for r in rows
    )


def test_jsonl_and_csv_parse_and_agree(example_path, tmp_path):
    jsonl, table = tmp_path / "cases.jsonl", tmp_path / "cases.csv"
    assert run("disagreements", example_path, "--rule", "overlap", "-o", jsonl).exit_code == 0
    result = run("disagreements", example_path, "--rule", "overlap", "-o", table)
    assert result.exit_code == 0, result.output
    assert "104 cases" in result.stderr
    rows = [json.loads(r) for r in jsonl.read_text(encoding="utf-8").splitlines()]
    with open(table, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames) == disagreements.FIELDS
        csv_rows = list(reader)
    assert len(rows) == len(csv_rows) == 104
    assert all(set(r) == set(disagreements.FIELDS) for r in rows)
    corpus = spanagree.read(example_path)
    texts = dict(zip(corpus.doc_ids, corpus.texts))
    for r, c in zip(rows, csv_rows):
        # cells a spreadsheet would run as a formula (here negative hash ids) carry a leading quote
        assert c["kind"] == r["kind"] and c["doc_id"] == csv_cell(r["doc_id"])
        text = texts[r["doc_id"]]
        for side in "ab":
            if r[f"{side}_start"] is not None:
                assert text[r[f"{side}_start"]:r[f"{side}_end"]] == r[f"{side}_text"]
                assert csv_cell(r[f"{side}_text"]) == c[f"{side}_text"]
                assert int(c[f"{side}_start"]) == r[f"{side}_start"]
            else:
                assert c[f"{side}_start"] == ""


def test_output_format_by_suffix_or_option(example_path, tmp_path):
    assert run("disagreements", example_path, "-o", tmp_path / "cases.txt").exit_code == 2
    assert run("disagreements", example_path, "-o", tmp_path / "cases.txt", "--output", "csv").exit_code == 0
    assert (tmp_path / "cases.txt").read_text().startswith("kind,doc_id,")
    assert run("disagreements", example_path, "-o", tmp_path / "x.jsonl", "--output", "xml").exit_code == 2


def test_prodigy_review_one_task_per_document_and_rater(example_path, tmp_path):
    out = tmp_path / "review.jsonl"
    result = run("disagreements", example_path, "-o", out, "--output", "prodigy-review")
    assert result.exit_code == 0, result.output
    tasks = [json.loads(r) for r in out.read_text(encoding="utf-8").splitlines()]
    report = spanagree.score(spanagree.read(example_path))
    found = disagreements.from_report(report)
    corpus = report.corpus
    docs = set(disagreements.documents_with_disagreements(found).tolist())
    expected = {
        (corpus.doc_ids[d], corpus.raters[r])
        for d, r in zip(corpus.ann_doc.tolist(), corpus.ann_rater.tolist()) if d in docs
    }
    got = [(t["meta"]["doc_id"], t["_session_id"]) for t in tasks]
    assert len(got) == len(set(got)) == len(expected) and set(got) == expected
    by_doc: dict = {}
    for t in tasks:
        assert t["answer"] == "accept" and t["_annotator_id"] == t["_session_id"]
        assert t["_view_id"] in ("ner_manual", "spans_manual") and t["tokens"]
        assert all(t["text"][s["start"]:s["end"]] for s in t["spans"])
        by_doc.setdefault(t["_input_hash"], []).append(t)
    assert len(by_doc) == len(docs)
    for versions in by_doc.values():
        assert len({t["text"] for t in versions}) == 1 and len(versions) >= 2
        # the same spans give the same task hash, other spans another
        spans = [json.dumps(t["spans"], sort_keys=True) for t in versions]
        hashes = [t["_task_hash"] for t in versions]
        assert len(set(spans)) == len(set(hashes))
    # Prodigy input keeps its input hashes, and the file reads back as the same annotations
    original = {json.loads(r)["_input_hash"] for r in example_path.read_text().splitlines()}
    assert set(by_doc) <= original
    back = spanagree.read(out)
    for doc_id, rater in sorted(expected)[:20]:
        assert back.spans_of(doc_id, rater) == corpus.spans_of(doc_id, rater)


def test_prodigy_review_leaves_out_documents_without_disagreement(write_jsonl, tmp_path):
    path = write_jsonl([
        line("same", "ann", [(0, 5, "PER")]), line("same", "bob", [(0, 5, "PER")]),
        line("diff", "ann", [(0, 5, "PER")]), line("diff", "bob", [(0, 5, "ORG")]),
        line("diff", "cat", []),
    ])
    out = tmp_path / "review.jsonl"
    written = disagreements.write(spanagree.score(spanagree.read(path)), out, output="prodigy-review")
    tasks = [json.loads(r) for r in out.read_text().splitlines()]
    assert written["tasks"] == 3 and written["documents_with_disagreements"] == 1
    assert {t["meta"]["doc_id"] for t in tasks} == {"diff"}
    assert sorted(t["_session_id"] for t in tasks) == ["ann", "bob", "cat"]
    assert len({t["_input_hash"] for t in tasks}) == 1 and len({t["_task_hash"] for t in tasks}) == 3
    # spans on token boundaries carry Prodigy's inclusive token indices
    assert tasks[0]["spans"][0] == {"start": 0, "end": 5, "label": "PER", "token_start": 0, "token_end": 0}


def test_label_confusion_is_a_triangle_of_matched_pairs(example_path):
    report = spanagree.score(spanagree.read(example_path))
    found = disagreements.from_report(report)
    table = disagreements.label_confusion(report.corpus, found)
    counts = found.kind_counts()
    assert table.sum() == counts["correct"] + counts["partial"] + counts["wrong_label"]
    assert not np.triu(table, k=1).any()
    off_diagonal = table.sum() - table.trace()
    assert off_diagonal == counts["wrong_label"]


def test_prodigy_review_keeps_each_tasks_fields_and_names_documents(tmp_path):
    text = "The mayor of Kellsbridge said on Monday that the bridge would reopen."
    tasks = []
    for rater, label, extra in (("ann", "GPE", {"title": "Bridge news"}), ("bob", "LOC", {})):
        tasks.append({"text": text, "_input_hash": 42, "_task_hash": 1, "answer": "accept", "_annotator_id": rater,
                      "spans": [{"start": 13, "end": 24, "label": label}], "priority": 0.5, "meta": {"batch": 3, **extra}})
    tasks.append({"text": "Nothing to mark here at all today.", "_input_hash": 43, "answer": "accept",
                  "_annotator_id": "ann", "spans": [], "meta": {"batch": 4}})
    tasks.append({**tasks[-1], "_annotator_id": "bob"})
    source = tmp_path / "db-out.jsonl"
    source.write_text("".join(json.dumps(t) + "\n" for t in tasks))
    out = tmp_path / "review.jsonl"
    result = run("disagreements", source, "-o", out, "--output", "prodigy-review")
    assert result.exit_code == 0, result.output
    assert "documents everyone agreed on (not written; --include-agreed writes them): 1" in result.output
    written = [json.loads(r) for r in out.read_text().splitlines()]
    assert [t["_annotator_id"] for t in written] == ["ann", "bob"]
    ann, bob = written
    assert ann["priority"] == 0.5 and ann["meta"]["batch"] == 3 and ann["meta"]["title"] == "Bridge news"
    assert ann["meta"]["doc"] == "Bridge news" and bob["meta"]["doc"] == "The mayor of Kellsbridge said on…"
    assert ann["meta"]["doc_id"] == "42" and ann["_input_hash"] == 42 and ann["spans"][0]["label"] == "GPE"
    # with --include-agreed every document is there: the reviewed dataset is the whole adjudicated set
    result = run("disagreements", source, "-o", out, "--output", "prodigy-review", "--include-agreed")
    assert "documents everyone agreed on (written): 1" in result.output
    written = [json.loads(r) for r in out.read_text().splitlines()]
    assert sorted({t["_input_hash"] for t in written}) == [42, 43] and len(written) == 4
    agreed = [t for t in written if t["_input_hash"] == 43]
    assert len({t["_task_hash"] for t in agreed}) == 1 and agreed[0]["meta"]["batch"] == 4
