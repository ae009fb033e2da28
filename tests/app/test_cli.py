"""The command line: output formats, exit codes, and messages on stderr."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app
from records import line

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_score_table_json_markdown(example_path, tmp_path):
    table = run("score", example_path, "--rule", "overlap")
    assert table.exit_code == 0, table.output
    assert "pairwise mean PSA" in table.output and "Excluded, and why" in table.output
    result = run("score", example_path, "--rule", "overlap", "--output", "json")
    report = json.loads(result.stdout)
    assert set(report) >= {"documents", "raters", "rule", "overall", "pairs", "labels"}
    assert report["rule"]["rule"] == "overlap" and report["rule"]["unit"] == "char"
    assert set(report["overall"]) >= {"pairwise_mean_psa", "pooled_psa", "a", "b", "c"}
    assert all(set(p) >= {"raters", "documents", "a", "b", "c", "psa"} for p in report["pairs"])
    markdown = run("score", example_path, "--output", "markdown", "-o", tmp_path / "out.md")
    assert markdown.exit_code == 0
    assert (tmp_path / "out.md").read_text().startswith("### Agreement")


def test_cli_numbers_equal_the_api(example_path):
    import spanagree

    for rule in ("exact", "partial"):
        result = run("score", example_path, "--rule", rule, "--output", "json")
        api = spanagree.score(spanagree.read(example_path), rule=rule).to_dict()
        assert json.loads(result.stdout) == json.loads(json.dumps(api))


def test_reference_option(example_path):
    result = run("score", example_path, "--reference", "news_ner-alice", "--output", "json")
    ref = json.loads(result.stdout)["reference"]
    assert set(ref["raters"]) == {"news_ner-bob", "news_ner-carol"}
    assert run("score", example_path, "--reference", "nobody").exit_code == 2


def test_bad_input_exits_2_naming_file_and_line(write_jsonl):
    path = write_jsonl([line("d", "x", [(0, 5, "PER")]), '{"doc_id": "d", "text": '])
    result = run("score", path)
    assert result.exit_code == 2
    assert f"{path}:2: not valid JSON" in result.stderr


@pytest.mark.parametrize("args", [["score"], ["score", "x.jsonl", "--rule", "fuzzy"], ["nonsense"]])
def test_usage_errors_exit_2(args):
    assert run(*args).exit_code == 2


def test_console_script_runs_in_a_fresh_process(example_path):
    proc = subprocess.run(
        [sys.executable, "-m", "spanagree.app.cli", "score", str(example_path), "--output", "json"],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["overall"]["pairs"] == 3
    # scoring JSONL does not pay spaCy's import time
    probe = "import sys, spanagree; spanagree.score(spanagree.read(sys.argv[1])); print('spacy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe, str(example_path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_candidates_and_intervals_from_the_command_line(example_path):
    result = run("score", example_path, "--candidates", "tokens", "--bootstrap", "200", "--seed", "3", "--output", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["intervals"]["replicates"] == 200 and report["intervals"]["seed"] == 3
    assert report["overall"]["pairwise_mean_psa_interval"]["low"] <= report["overall"]["pairwise_mean_psa"]
    assert report["chance_corrected"]["pooled"]["cohen_kappa"]["value"] is not None
    table = run("score", example_path, "--candidates", "tokens", "--bootstrap", "200")
    assert "Cohen's κ, pooled" in table.output and "percentile bootstrap" in table.output
    same = run("score", example_path, "--config", "configs/tokens_kappa.cfg", "--intervals.bootstrap", "200",
               "--intervals.seed", "3", "--unit", "char", "--output", "json")
    assert json.loads(same.stdout)["intervals"] == report["intervals"]
    assert run("score", example_path, "--bootstrap", "1").exit_code == 2


def test_consensus_of_a_prodigy_file_scores_beside_it(example_path, tmp_path):
    gold = tmp_path / "gold.jsonl"
    assert run("consensus", example_path, "--min-raters", "2", "-o", gold).exit_code == 0
    result = run("score", example_path, gold, "--reference", "consensus", "--output", "json")
    assert result.exit_code == 0, result.output
    reference = json.loads(result.stdout)["reference"]["raters"]
    assert set(reference) == {"news_ner-alice", "news_ner-bob", "news_ner-carol"}
    assert all(0.5 < v["f"] <= 1 for v in reference.values())


def test_engine_options_give_the_same_report(example_path, tmp_path):
    serial = json.loads(run("score", example_path, "--output", "json").stdout)
    for args in (["--jobs", "2"], ["--stream"], ["--engine.jobs", "2"]):
        result = run("score", example_path, *args, "--output", "json")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == serial
    # the HTML report and the disagreements need texts, which the engines do not keep
    refused = run("disagreements", example_path, "-o", tmp_path / "cases.jsonl", "--jobs", "2")
    assert refused.exit_code == 2 and "texts" in refused.stderr


@pytest.mark.parametrize("command, args, message", [
    ("score", ["--rule", "fuzzy"], "--rule fuzzy: expected one of exact, overlap, partial, proportional"),
    ("gate", ["--labels", "loose", "--min", "pooled_psa=0.5"], "--labels loose: expected one of strict, ignore"),
    ("score", ["--engine", "spark"], "--engine spark: expected one of local, dask"),
    ("consensus", ["-k", "2", "-o", "out.jsonl", "--proportional", "cosine"], "--proportional cosine: expected one of jaccard, dice"),
    ("score", ["--rule", "overlpa"], "(did you mean overlap?)"),
])
def test_a_bad_flag_value_names_the_option_and_the_allowed_values(example_path, tmp_path, monkeypatch, command, args, message):
    monkeypatch.chdir(tmp_path)
    result = run(command, example_path, *args)
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())


@pytest.mark.parametrize("flags", [[], ["--bootstrap", "20", "--unitizing", "--per-rater"], ["--candidates", "tokens"]])
def test_json_output_is_streamed_with_the_same_bytes(example_path, tmp_path, flags):
    """score --output json writes the per-document rows as it makes them: the bytes are those of
    the whole report dumped at once, on standard output and in a file, in chunks of any size."""
    import orjson

    report = spanagree.score(
        spanagree.read(example_path), **({"bootstrap": 20, "unitizing": True, "per_rater": True} if "--bootstrap" in flags
                                         else {"candidates": "tokens"} if flags else {}))
    whole = orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2) + b"\n"
    assert run("score", example_path, *flags, "--output", "json").stdout_bytes == whole
    assert run("score", example_path, *flags, "--output", "json", "-o", tmp_path / "r.json").exit_code == 0
    assert (tmp_path / "r.json").read_bytes() == whole
    for size in (1, 7, 49, 50, 10_000):
        assert b"".join(report.json_chunks(size)) + b"\n" == whole


def test_json_output_without_scored_documents(write_jsonl):
    import orjson

    # two raters who never annotated one document: nothing to compare, per_document is []
    path = write_jsonl([line("d1", "ann1", [(0, 5, "PER")]), line("d2", "ann2", [(0, 5, "PER")])])
    report = spanagree.score(path)
    assert report.to_dict()["per_document"] == []
    whole = orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2) + b"\n"
    assert run("score", path, "--output", "json").stdout_bytes == whole
