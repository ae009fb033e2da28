"""The gate: exit codes 0/1/2, bounds on the point or the interval's lower end, JUnit XML and
the GitHub step summary."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app import config, runs
from spanagree import catalogue
from spanagree.outputs import gate
from spanagree.app.cli import app
from spanagree.errors import UsageError
from records import line
from locations import ROOT

runner = CliRunner()
CONFIGS = ROOT / "configs"


def run(*args, env=None):
    return runner.invoke(app, [str(a) for a in args], env=env)


@pytest.fixture(scope="module")
def example_report(example_path):
    return json.loads(runner.invoke(app, ["score", str(example_path), "--bootstrap", "200", "--output", "json"]).stdout)


@pytest.fixture(scope="module")
def example_path():
    return ROOT / "corpora" / "news_ner.jsonl"


def test_exit_0_when_every_check_passes(example_path):
    result = run("gate", example_path, "--min", "pairwise_mean_psa=0.8", "--min", "label:PERSON=0.75",
                 "--min", "pair:news_ner-carol~news_ner-alice=0.8", "--min-documents", "50")
    assert result.exit_code == 0, result.output
    for name in ("pairwise_mean_psa", "label:PERSON", "pair:news_ner-carol~news_ner-alice", "documents"):
        assert name in result.stdout
    assert "0.8075" in result.stdout and "gate passed: all 4 checks" in result.stdout


def test_exit_1_when_a_check_fails(example_path):
    result = run("gate", example_path, "--min", "pairwise_mean_psa=0.8", "--min", "pooled_psa=0.9")
    assert result.exit_code == 1
    assert "FAIL" in result.stdout and "value 0.8107 is below 0.9" in result.stdout
    assert "gate failed: 1 of 2 checks" in result.stdout
    assert run("gate", example_path, "--min-documents", "51").exit_code == 1


@pytest.mark.parametrize("args,message", [
    (["--min", "bogus=0.5"], "allowed: pairwise_mean_psa, pooled_psa"),
    (["--min", "label=0.5"], "unknown statistic 'label'"),
    (["--min", "pairwise_mean_psa:x=0.5"], "unknown statistic"),
    (["--min", "pairwise_mean_psa"], "expected NAME=BOUND"),
    (["--min", "pairwise_mean_psa=high"], "is not a number"),
    (["--min", "kappa=0.6"], "needs candidate items"),
    (["--candidates", "tokens", "--min", "kappa_s=0.6", "--on", "lower"], "has no bootstrap interval"),
    (["--min", "pooled_psa=0.5", "--on", "upper"], "--on upper"),
    ([], "no checks"),
])
def test_exit_2_on_bad_usage_with_the_reason(example_path, args, message):
    result = run("gate", example_path, *args)
    assert result.exit_code == 2
    assert message in result.stderr


def test_exit_2_on_bad_input(write_jsonl):
    path = write_jsonl([line("d", "x", [(0, 5, "PER")]), '{"doc_id": '])
    assert run("gate", path, "--min", "pooled_psa=0.1").exit_code == 2
    assert run("gate", "no-such-file.jsonl", "--min", "pooled_psa=0.1").exit_code == 2


def test_an_undefined_statistic_fails_its_check_with_the_reason(write_jsonl, example_path):
    result = run("gate", example_path, "--min", "label:NOPE=0.1", "--min", "pooled_psa=0.1")
    assert result.exit_code == 1
    assert "label 'NOPE' is not in the corpus" in result.stdout
    assert "no pair 'ann~bob'" in run("gate", example_path, "--min", "pair:ann~bob=0.1").stdout
    empty = write_jsonl([line("d1", "ann", []), line("d1", "bob", [])])
    result = run("gate", empty, "--min", "pairwise_mean_psa=0.0")
    assert result.exit_code == 1 and "undefined" in result.stdout


def test_junit_file_parses_one_case_per_check(example_path, tmp_path):
    junit = tmp_path / "gate.xml"
    result = run("gate", example_path, "--min", "pairwise_mean_psa=0.8", "--min", "pooled_psa=0.9",
                 "--min", "label:<b>&=0.5", "--min-documents", "10", "--junit", junit)
    assert result.exit_code == 1
    root = ET.parse(junit).getroot()
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 4
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == 2
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), root.get("failures")) == ("4", "2", "2")
    names = [c.get("name") for c in cases]
    assert names == ["documents >= 10", "pairwise_mean_psa >= 0.8", "pooled_psa >= 0.9", "label:<b>& >= 0.5"]
    assert "below 0.9" in failed[0].find("failure").get("message")
    assert "not in the corpus" in failed[1].find("failure").get("message")
    passing = run("gate", example_path, "--min", "pooled_psa=0.5", "--junit", junit)
    assert passing.exit_code == 0
    assert ET.parse(junit).getroot().find("testsuite").get("failures") == "0"


def test_junit_holds_only_characters_xml_allows():
    result = gate.evaluate(
        {"documents": {"scored": 1}, "labels": {"a\x07<": {"pairwise_mean_psa": None}}, "overall": {}},
        [gate.Check("label", 0.5, "a\x07<")],
    )
    root = ET.fromstring(gate.as_junit(result))
    assert root.find("./testsuite/testcase").get("name") == "label:a< >= 0.5"


def test_on_lower_bounds_the_interval(example_path, example_report):
    overall = example_report["overall"]
    low, value = overall["pairwise_mean_psa_interval"]["low"], overall["pairwise_mean_psa"]
    bound = f"{(low + value) / 2:.4f}"
    point = run("gate", example_path, "--min", f"pairwise_mean_psa={bound}", "--bootstrap", "200")
    assert point.exit_code == 0, point.output
    assert f"[{low:.4f}, " in point.stdout  # the interval is shown beside the point check
    lower = run("gate", example_path, "--min", f"pairwise_mean_psa={bound}", "--bootstrap", "200", "--on", "lower")
    assert lower.exit_code == 1
    assert f"interval's lower bound {low:.4f} is below" in lower.stdout
    assert run("gate", example_path, "--min", f"pairwise_mean_psa={low - 0.001:.4f}", "--bootstrap", "200",
               "--on", "lower").exit_code == 0


def test_on_lower_uses_1000_replicates_unless_told(example_path):
    result = spanagree.gate(example_path, {"pooled_psa": 0.5}, on="lower")
    assert result["replicates"] == 1000 and result["level"] == 0.95
    check = result["checks"][0]
    assert check["compared"] == check["interval"]["low"] < check["value"]
    result = spanagree.gate(example_path, ["pooled_psa=0.5"], on="lower", bootstrap=200, ci=0.9)
    assert (result["replicates"], result["level"]) == (200, 0.9)
    point = spanagree.gate(example_path, {"pooled_psa": 0.5})
    assert point["replicates"] is None and point["checks"][0]["interval"] is None


def test_chance_corrected_checks(example_path, example_report):
    report = json.loads(run("score", example_path, "--candidates", "tokens", "--output", "json").stdout)
    kappa = report["chance_corrected"]["pooled"]["cohen_kappa"]["value"]
    alpha = report["chance_corrected"]["all_raters"]["krippendorff_alpha"]["value"]
    result = run("gate", example_path, "--candidates", "tokens", "--min", f"kappa={kappa:.4f}", "--min", "alpha=0.667",
                 "--min", "fleiss_kappa=0.6", "--min", "pair_kappa:news_ner-alice~news_ner-bob=0.6")
    assert result.exit_code == 0, result.output
    assert f"{alpha:.4f}" in result.stdout
    lower = run("gate", example_path, "--candidates", "tokens", "--on", "lower", "--bootstrap", "200",
                "--min", f"kappa={kappa:.4f}", "--min", "alpha=0.667")
    assert lower.exit_code == 1 and "interval's lower bound" in lower.stdout


def test_github_step_summary_is_appended(example_path, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    result = run("gate", example_path, "--min", "pairwise_mean_psa=0.8", "--min", "pooled_psa=0.9",
                 env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.exit_code == 1
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n")
    assert "spanagree gate: failed (1 of 2 checks)" in text
    assert "| `pairwise_mean_psa` | 0.8075 |" in text and "**FAIL**" in text
    run("gate", example_path, "--min", "pooled_psa=0.5", env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert summary.read_text(encoding="utf-8").count("### ") == 2
    # not set: nothing is written anywhere
    assert gate.write_outputs({"checks": [], "on": "point", "level": None}, environ={}) == []


def test_config_file_and_precedence(example_path, tmp_path):
    shipped = config.load_settings(CONFIGS / "gate.cfg")
    assert shipped["gate"]["min"]["label"] == {"PERSON": 0.75}
    assert run("gate", example_path, "--config", CONFIGS / "gate.cfg").exit_code == 0
    cfg = tmp_path / "g.cfg"
    cfg.write_text('[gate]\non = "point"\nmin_documents = 5\n\n[gate.min]\npairwise_mean_psa = 0.99\n\n'
                   '[gate.min.label]\nMONEY = 0.5\n\n[gate.min.pair]\nnews_ner-alice~news_ner-bob = 0.5\n', encoding="utf-8")
    failing = run("gate", example_path, "--config", cfg)
    assert failing.exit_code == 1 and "label:MONEY" in failing.stdout and "pair:news_ner-alice~news_ner-bob" in failing.stdout
    # a --min for the same statistic replaces the file's bound
    assert run("gate", example_path, "--config", cfg, "--min", "pairwise_mean_psa=0.5").exit_code == 0
    # flags and dotted overrides as for score
    assert run("gate", example_path, "--config", cfg, "--min", "pairwise_mean_psa=0.5", "--min-documents", "60").exit_code == 1
    assert run("gate", example_path, "--config", cfg, "--min", "pairwise_mean_psa=0.5", "--gate.min_documents", "60").exit_code == 1
    lower = run("gate", example_path, "--config", cfg, "--min", "pairwise_mean_psa=0.5", "--gate.on", "lower",
                "--intervals.bootstrap", "200")
    assert lower.exit_code == 0 and "bound (lower)" in lower.stdout
    # the score options are the gate's too
    exact = run("gate", example_path, "--min", "pairwise_mean_psa=0.85", "--rule", "exact")
    overlap = run("gate", example_path, "--min", "pairwise_mean_psa=0.85", "--rule", "overlap")
    assert (exact.exit_code, overlap.exit_code) == (1, 0)


def test_config_checks_list_holds_names_a_key_cannot(tmp_path, write_jsonl):
    # a label with ':' and '=' (B:LOC=x) cannot be a key of [gate.min.label]; [gate] checks takes
    # the --min spelling, and a --min for the same statistic still replaces it
    text = "Paris is nice"
    rows = [{"doc_id": f"d{i}", "text": text, "annotator": rater, "spans": [{"start": 0, "end": 5, "label": "B:LOC=x"}]}
            for i in range(3) for rater in ("a", "b")]
    data = write_jsonl(rows)
    cfg = tmp_path / "g.cfg"
    cfg.write_text('[gate]\nchecks = ["label:B:LOC=x=0.99", "pooled_psa=0.5"]\n', encoding="utf-8")
    result = run("gate", data, "--config", cfg)
    assert result.exit_code == 0 and "label:B:LOC=x" in result.stdout, result.stdout
    cfg.write_text('[gate]\nchecks = ["label:B:LOC=x=1.5"]\n', encoding="utf-8")
    assert run("gate", data, "--config", cfg).exit_code == 1
    assert run("gate", data, "--config", cfg, "--min", "label:B:LOC=x=0.5").exit_code == 0
    cfg.write_text('[gate]\nchecks = ["label:B:LOC"]\n', encoding="utf-8")
    bad = run("gate", data, "--config", cfg)
    assert bad.exit_code == 2 and "[gate] checks 'label:B:LOC': expected NAME=BOUND" in bad.stderr
    cfg.write_text('[gate]\nchecks = "pooled_psa=0.5"\n', encoding="utf-8")
    bad = run("gate", data, "--config", cfg)
    assert bad.exit_code == 2 and "[gate] checks" in bad.stderr


def test_bad_gate_config(tmp_path, example_path):
    cfg = tmp_path / "bad.cfg"
    cfg.write_text('[gate]\n\n[gate.min]\nbogus = 0.5\n', encoding="utf-8")
    result = run("gate", example_path, "--config", cfg)
    assert result.exit_code == 2 and "[gate.min] bogus: unknown statistic 'bogus'" in result.stderr
    cfg.write_text('[gate]\n\n[gate.min]\npooled_psa = "high"\n', encoding="utf-8")
    assert run("gate", example_path, "--config", cfg).exit_code == 2
    cfg.write_text('[gate]\nmin_documents = -1\n', encoding="utf-8")
    assert run("gate", example_path, "--config", cfg, "--min", "pooled_psa=0.1").exit_code == 2
    with pytest.raises(UsageError, match="unknown key 'max'"):
        config.load_settings(overrides={"gate.max": 1})


def test_parse_check_splits_at_the_last_equals_sign():
    assert gate.parse_check("label:a=b=0.5") == gate.Check("label", 0.5, "a=b")
    assert gate.parse_check("pair:x~y=1") == gate.Check("pair", 1.0, "x~y")
    assert gate.parse_check(" pooled_psa =0.25").name == "pooled_psa"
    with pytest.raises(UsageError):
        gate.parse_check("pooled_psa=nan")
    names = catalogue.names()
    assert {"pairwise_mean_psa", "pooled_psa", "macro_psa", "label:<LABEL>", "pair:<A>~<B>", "kappa", "alpha",
            "fleiss_kappa"} <= set(names)


def test_the_gate_checks_the_numbers_of_score(example_path, example_report):
    result = gate.evaluate(example_report, [gate.parse_check("macro_psa=0"), gate.parse_check("label_pooled:DATE=0")])
    assert result["checks"][0]["value"] == example_report["macro"]["pairwise_mean_psa"]
    assert result["checks"][1]["value"] == example_report["labels"]["DATE"]["pooled_psa"]
    assert result["checks"][1]["interval"] == example_report["labels"]["DATE"]["pooled_psa_interval"]
    assert spanagree.score(spanagree.read(example_path)).pairwise_mean_psa == pytest.approx(
        gate.evaluate(example_report, [gate.parse_check("pairwise_mean_psa=0")])["checks"][0]["value"]
    )


@pytest.mark.parametrize("broken", ["input", "usage"])
def test_exit_2_still_writes_junit_and_the_step_summary(write_jsonl, tmp_path, broken):
    path = write_jsonl([line("d", "x", [(0, 5, "PER")]), '{"doc_id": '])
    if broken == "usage":
        path = write_jsonl([line("d", "x", [(0, 5, "PER")]), line("d", "y", [(0, 5, "PER")])], "fine.jsonl")
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    junit = tmp_path / "gate.xml"
    check = "pooled_psa=0.1" if broken == "input" else "no_such_statistic=0.1"
    result = run("gate", path, "--min", check, "--junit", junit, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.exit_code == 2
    root = ET.fromstring(junit.read_bytes())
    suite = root.find("testsuite")
    assert suite.get("errors") == "1" and suite.get("tests") == "1"
    error = suite.find("testcase/error")
    assert error is not None and error.get("message") in result.stderr
    text = summary.read_text()
    assert text.startswith("earlier step\n") and "could not run (exit 2)" in text and error.get("message") in text
