"""One validation boundary: the API and the CLI refuse bad arguments with what was expected."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner

import spanagree
from spanagree import InputError, UsageError
from spanagree.app.cli import app
from spanagree.core.validate import MAX_REPLICATES

runner = CliRunner()


@pytest.mark.parametrize("args", [("1", 1, 1), (1, -3, 0), (True, False, False), (float("nan"), 1, 1),
                                  (float("inf"), 0, 0), (None, 1, 1), (10**400, 1, 1)])
def test_psa_and_f_beta_take_non_negative_finite_numbers(args):
    with pytest.raises(UsageError, match="non-negative finite number"):
        spanagree.psa(*args)
    with pytest.raises(UsageError, match="non-negative finite number"):
        spanagree.f_beta(*args)


def test_psa_takes_numpy_counts_and_f_beta_a_finite_beta():
    assert spanagree.psa(np.int64(2), np.float64(1), 1) == pytest.approx(2 / 3)
    for beta in (float("nan"), float("inf"), 0, -1, True, "2"):
        with pytest.raises(UsageError, match="beta"):
            spanagree.f_beta(1, 1, 1, beta)


@pytest.mark.parametrize("spans, expected", [
    ([(0, 1)], "tuple"),
    ([(2, 1, "A")], "start < end"),
    ([(-1, 1, "A")], "start < end"),
    ([(3, 3, "A")], r"spans_[ab]\[0\]: a zero-length span \(start = end = 3\)"),
    ([(0.5, 1, "A")], "whole number"),
    ([(True, 1, "A")], "whole number"),
    ([("0", 1, "A")], "whole number"),
    ([(0, 1, {})], "label must be a string"),
    ("abc", "list of"),
])
def test_align_spans_checks_its_spans(spans, expected):
    with pytest.raises(UsageError, match=expected):
        spanagree.align_spans(spans, [(0, 1, "A")])
    with pytest.raises(UsageError, match=expected):
        spanagree.align_spans([(0, 1, "A")], spans)


def test_read_and_score_want_paths():
    with pytest.raises(UsageError, match="path"):
        spanagree.read(None)
    with pytest.raises(UsageError, match="path"):
        spanagree.score(42)


def test_long_bad_values_are_cut_in_messages():
    with pytest.raises(UsageError) as caught:
        spanagree.psa("x" * 1_000_000, 1, 1)
    assert len(str(caught.value)) < 300 and "1000002 characters" in str(caught.value)


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _records():
    return [{"doc_id": "d1", "text": "Alice met Bob", "annotator": r, "spans": [{"start": 0, "end": 5, "label": "PER"}]}
            for r in "ab"]


@pytest.mark.parametrize("option, expected", [
    (["--seed", "-1"], "seed"), (["--seed", str(2**64)], "seed"), (["--beta", "nan"], "beta"),
    (["--beta", "inf"], "beta"), (["--bootstrap", str(MAX_REPLICATES + 1)], "100,000"),
    (["--ci", "nan"], "ci"), (["--partial-credit", "nan"], "--partial-credit"), (["--jobs", "-1"], "jobs"),
    (["--min-overlap", "0"], "--min-overlap"), (["--unitizing.samples", "10000000"], "samples"),
])
def test_numeric_options_are_checked(tmp_path, option, expected):
    path = _write(tmp_path / "in.jsonl", _records())
    result = runner.invoke(app, ["score", str(path), *option])
    assert result.exit_code == 2, result.output
    assert expected in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("text_field, bad", [("text", "x\ud800y"), ("label", "\udc00"), ("annotator", "a\ud800")])
def test_lone_surrogates_name_file_line_and_field(tmp_path, text_field, bad):
    records = _records()
    record = dict(records[1], spans=[dict(records[1]["spans"][0])])
    if text_field == "label":
        record["spans"][0]["label"] = bad
        field = "spans[0].label"
    else:
        record[text_field] = bad
        field = text_field
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(records[0]) + "\n" + json.dumps(record) + "\n", encoding="utf-8")  # ensure_ascii: \\ud800
    with pytest.raises(InputError, match=rf"in\.jsonl:2: .*field '{re.escape(field)}'.*lone surrogate"):
        spanagree.read(path)
    for command in (["score"], ["convert", "-o", str(tmp_path / "out.jsonl")],
                    ["consensus", "-k", "1", "-o", str(tmp_path / "gold.jsonl")]):
        result = runner.invoke(app, [command[0], str(path), *command[1:]])
        assert result.exit_code == 2 and "lone surrogate" in result.stderr, result.output


def test_lone_surrogate_in_label_studio_names_the_line(tmp_path):
    task = {"id": 1, "data": {"text": "Alice"}, "annotations": [
        {"completed_by": 1, "result": [{"type": "labels", "value": {"start": 0, "end": 5, "labels": ["\ud800"]}}]}]}
    path = tmp_path / "export.json"
    path.write_text("[\n" + json.dumps(task) + "\n]\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"export\.json:2: .*labels\[0\].*lone surrogate"):
        spanagree.read(path, format="labelstudio")


def test_a_5000_digit_offset_names_its_field(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(_records()[0]) + "\n" + '{"doc_id": "d1", "text": "x", "annotator": "b", "spans": '
                    '[{"start": ' + "9" * 5000 + ', "end": 1, "label": "A"}]}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"in\.jsonl:2: field 'spans\[0\]\.start': an integer of 5,000 digits"):
        spanagree.read(path)


@pytest.mark.parametrize("accept, expected", [("POS", "list of chosen option ids"), ([None], "list of chosen option ids"),
                                              ([True], "list of chosen option ids"), (None, None)])
def test_prodigy_choice_answers_are_checked(tmp_path, accept, expected):
    task = {"text": "good", "options": [{"id": "POS"}, {"id": "NEG"}], "accept": accept, "answer": "accept",
            "_input_hash": 1, "_task_hash": 2, "_annotator_id": "a", "_session_id": "a"}
    path = _write(tmp_path / "choice.jsonl", [task, {**task, "_annotator_id": "b", "_session_id": "b", "accept": ["POS"]}])
    if expected is None:
        corpus = spanagree.read(path, format="prodigy")
        assert "None" not in corpus.labels and len(corpus.dl_doc)  # null: nothing chosen, not a label "None"
    else:
        with pytest.raises(InputError, match=rf"choice\.jsonl:1: .*field 'accept': expected a {expected}"):
            spanagree.read(path, format="prodigy")
