"""One request, one vocabulary: every flag means one thing in every command, every command that
reads takes every reader option and --config, every command that aligns every alignment option,
a glob pattern reads the same files on every path, and the typed API is checked by mypy."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app
from spanagree.core import options
from locations import ROOT

runner = CliRunner()
EXAMPLE = ROOT / "corpora" / "news_ner.jsonl"


def _flags(command: click.Command) -> dict[str, click.Option]:
    return {name: param for param in command.params if isinstance(param, click.Option)
            for name in (*param.opts, *param.secondary_opts)}


def test_every_flag_has_one_meaning_in_every_command():
    meanings: dict[str, set[str]] = {}
    for name, command in app.commands.items():
        for flag, param in _flags(command).items():
            declaration = getattr(param, "declaration", None)
            if flag == "--help":
                continue
            assert declaration is not None, f"{name} {flag}: a flag not made from its declaration"
            meanings.setdefault(flag, set()).add(declaration.help)
    twice = {flag: helps for flag, helps in meanings.items() if len(helps) > 1}
    assert not twice, f"flags with two meanings: {twice}"
    # one declaration per flag name, and short names too
    seen: dict[str, str] = {}
    for option in options.OPTIONS:
        for flag in filter(None, (option.flag, option.short)):
            assert seen.setdefault(flag, option.name) == option.name, flag


@pytest.mark.parametrize("name", options.READING)
def test_every_command_that_reads_takes_every_reader_option_and_a_config(name):
    flags = _flags(app.commands[name])
    for option in options.OPTIONS:
        if option.section == "input":
            assert option.flag in flags, f"{name} lacks {option.flag}"
    assert "--config" in flags and "-c" in flags, name


@pytest.mark.parametrize("name", options.ALIGNING)
def test_every_command_that_aligns_takes_every_alignment_option(name):
    flags = _flags(app.commands[name])
    for option in options.OPTIONS:
        if option.section == "alignment" and option.flag is not None:
            assert option.flag in flags, f"{name} lacks {option.flag}"


def test_help_is_in_sections_with_the_format_options_last():
    text = runner.invoke(app, ["score", "--help"], env={"COLUMNS": "200"}).output
    headings = [line.rstrip(":") for line in text.splitlines() if line and not line.startswith(" ") and line.endswith(":")]
    assert headings[-6:] == ["Reading", "Alignment", "Statistics", "Output", "Running",
                             "Reading: options of one format (docs/formats.md)"]
    assert text.index("--rule") < text.index("--layer")


@pytest.mark.parametrize("args, message", [
    (["scor", str(EXAMPLE)], "(did you mean score?)"),
    (["score", str(EXAMPLE), "--rulle", "overlap"], "(did you mean --rule?)"),
    (["score", str(EXAMPLE), "--rule", "overlpa"], "(did you mean overlap?)"),
    (["consensus", str(EXAMPLE), "-o", "x.jsonl", "--method", "dawid-skeen"], "(did you mean dawid-skene?)"),
    (["gate", str(EXAMPLE), "--min", "pairwise_mean_ps=0.5"], "pairwise_mean_psa"),
])
def test_one_error_style_with_did_you_mean(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.startswith("spanagree: error: ") and message in result.stderr
    assert "Usage:" not in result.stderr


def test_a_quoted_glob_reads_the_same_files_everywhere(tmp_path):
    rounds = tmp_path / "g"
    rounds.mkdir()
    lines = EXAMPLE.read_text(encoding="utf-8").splitlines()
    (rounds / "a.jsonl").write_text("\n".join(lines[:100]) + "\n", encoding="utf-8")
    (rounds / "b.jsonl").write_text("\n".join(lines[100:]) + "\n", encoding="utf-8")
    (rounds / "c.txt").write_text("not annotations\n", encoding="utf-8")
    pattern = str(rounds / "*.jsonl")
    whole = spanagree.score(EXAMPLE).to_dict()
    reports = [spanagree.score(pattern).to_dict()]
    for flags in ([], ["--stream"], ["--jobs", "2"]):
        result = runner.invoke(app, ["score", pattern, "--output", "json", *flags])
        assert result.exit_code == 0, result.output
        reports.append(json.loads(result.stdout))
    for report in reports:
        assert report["overall"] == whole["overall"] and report["documents"] == whole["documents"]
    missing = runner.invoke(app, ["score", str(rounds / "*.conll")])
    assert missing.exit_code == 2 and "no file matches" in missing.stderr


def test_consensus_and_raters_take_the_reader_options(tmp_path):
    """A Prodigy file whose raters are its sessions: --rater session reaches consensus and raters."""
    records = [json.loads(line) for line in EXAMPLE.read_text(encoding="utf-8").splitlines()]
    for record in records:
        record["_session_id"] = f"news-{record.pop('_annotator_id').split('-')[-1]}"
    path = tmp_path / "sessions.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    by_session = spanagree.score(path, read_options={"rater": "session"})
    assert by_session.raters == ["news-alice", "news-bob", "news-carol"]
    out = tmp_path / "gold.jsonl"
    made = runner.invoke(app, ["consensus", str(path), "--rater", "session", "-k", "2", "-o", str(out)])
    assert made.exit_code == 0, made.output
    gold, _ = spanagree.consensus(path, min_raters=2, read_options={"rater": "session"})
    assert spanagree.read(out).n_spans == gold.n_spans > 0
    table = runner.invoke(app, ["raters", str(path), "--rater", "session", "--output", "json"])
    assert table.exit_code == 0, table.output
    assert {row["rater"] for row in json.loads(table.stdout)["competence"]} == set(by_session.raters)


def test_consensus_and_raters_read_an_inception_export_with_layer(tmp_path):
    export = ROOT / "tests" / "fixtures" / "inception" / "export.zip"
    pytest.importorskip("cassis")
    scored = spanagree.score(export, read_options={"layer": "webanno.custom.Entity"})
    assert len(scored.raters) >= 2
    out = tmp_path / "gold.jsonl"
    made = runner.invoke(app, ["consensus", str(export), "--layer", "webanno.custom.Entity", "-k", "1", "-o", str(out)])
    assert made.exit_code == 0, made.output
    # the export is too small for a model: the refusal counts the spans of the layer it read
    table = runner.invoke(app, ["raters", str(export), "--layer", "webanno.custom.Entity"])
    assert table.exit_code == 2 and "distinct spans marked" in table.stderr
    assert "0 distinct spans" not in table.stderr
    wrong = runner.invoke(app, ["raters", str(export), "--layer", "NamedEntity"])
    assert wrong.exit_code == 2 and "the span layers are" in wrong.stderr


def test_the_python_entry_points_answer_as_the_commands(tmp_path):
    gate = spanagree.gate(EXAMPLE, {"pairwise_mean_psa": 0.5}, rule="overlap")
    cli = runner.invoke(app, ["gate", str(EXAMPLE), "--min", "pairwise_mean_psa=0.5", "--rule", "overlap"])
    assert gate["passed"] and cli.exit_code == 0
    assert f"{gate['checks'][0]['value']:.4f}" in cli.stdout
    compared = spanagree.compare(EXAMPLE, EXAMPLE, min={"pairwise_mean_psa": -0.05}, bootstrap=50)
    assert compared["passed"]
    with pytest.raises(TypeError, match="rulle"):
        spanagree.gate(EXAMPLE, {"pairwise_mean_psa": 0.5}, rulle="overlap")


_RIGHT = """
import spanagree

report = spanagree.score("corpora/news_ner.jsonl", rule="overlap", bootstrap=200)
gold, summary = spanagree.consensus("corpora/news_ner.jsonl", min_raters=2, labels="ignore")
result = spanagree.gate("corpora/news_ner.jsonl", {"pairwise_mean_psa": 0.8}, on="lower")
"""

_MISSPELLED = """
import spanagree

report = spanagree.score("corpora/news_ner.jsonl", rulle="overlap")
result = spanagree.gate("corpora/news_ner.jsonl", {"pairwise_mean_psa": 0.8}, bootstrapp=200)
"""


def test_mypy_flags_a_misspelled_keyword(tmp_path):
    pytest.importorskip("mypy")
    right, wrong = tmp_path / "right.py", tmp_path / "wrong.py"
    right.write_text(_RIGHT, encoding="utf-8")
    wrong.write_text(_MISSPELLED, encoding="utf-8")
    # the installed package (an editable install is found through its folder)
    env = {**os.environ, "MYPYPATH": str(Path(spanagree.__file__).parent.parent)}
    command = [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", "--cache-dir", os.devnull]
    ok = subprocess.run([*command, str(right)], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = subprocess.run([*command, str(wrong)], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert '"rulle"' in bad.stdout and '"bootstrapp"' in bad.stdout


def test_the_package_ships_py_typed():
    assert (Path(spanagree.__file__).parent / "py.typed").exists()
    assert "py.typed" in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("args, message", [
    (["consensus", "-k", "2", "--threshold", "0.9"], "--threshold needs an annotator model"),
    (["consensus", "-k", "2", "--items", "tokens", "--pooling", "3"], "--pooling, --items need an annotator model"),
    (["consensus", "--method", "mace", "--pooling", "3"], "--pooling needs --method dawid-skene"),
    (["raters", "--method", "mace", "--pooling", "3"], "--pooling needs --method dawid-skene"),
    (["raters", "--on", "lower"], "--on says what --min holds against its bound"),
])
def test_a_flag_the_method_does_not_read_is_refused(args, message, tmp_path):
    result = runner.invoke(app, [args[0], str(EXAMPLE), *args[1:], *(["-o", str(tmp_path / "g.jsonl")] if args[0] == "consensus" else [])])
    assert result.exit_code == 2 and message in result.stderr
    with pytest.raises(spanagree.UsageError, match="threshold: not read by method='vote'"):
        spanagree.consensus(EXAMPLE, min_raters=2, threshold=0.9)
