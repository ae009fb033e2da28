"""Gates that decide: with --on lower, a check whose interval straddles its bound is inconclusive."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from spanagree.measures.psa.deciding import documents_to_decide
from spanagree.outputs import gate
from spanagree.app.cli import app
from spanagree.io.synthetic import generate_corpus


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def _report(value, low, high, documents=100):
    return {
        "documents": {"scored": documents},
        "overall": {"pairwise_mean_psa": value, "pairwise_mean_psa_interval": {"low": low, "high": high}},
        "intervals": {"level": 0.95, "replicates": 1000},
    }


@pytest.mark.parametrize(
    "bound, verdict",
    [(0.70, "pass"), (0.74, "pass"), (0.77, "inconclusive"), (0.83, "inconclusive"), (0.86, "inconclusive"),
     (0.861, "fail"), (0.95, "fail")],
)
def test_three_way_verdict(bound, verdict):
    result = gate.evaluate(_report(0.80, 0.74, 0.86), [gate.Check("pairwise_mean_psa", bound)], on="lower")
    check = result["checks"][0]
    assert check["verdict"] == verdict
    assert check["passed"] is (verdict == "pass") and result["passed"] is (verdict == "pass")
    assert result["verdict"] == {"pass": "passed", "fail": "failed", "inconclusive": "inconclusive"}[verdict]
    title = gate.as_markdown(result).splitlines()[0]
    assert title.startswith({"pass": "### ✅", "fail": "### ❌", "inconclusive": "### ⚠️ spanagree gate: inconclusive"}[verdict])


def test_documents_to_decide_follows_square_root_law():
    # lower half-width 0.06 at 100 documents must shrink to 0.03: four times the documents
    assert documents_to_decide(0.80, 0.74, 0.86, 0.77, 100) == (400, "pass")
    # estimate below the bound: the upper side (0.04) must shrink to 0.01: 16 times
    assert documents_to_decide(0.80, 0.75, 0.84, 0.81, 50) == (800, "fail")
    assert documents_to_decide(0.80, 0.75, 0.84, 0.80, 50) == (None, None)
    check = gate.evaluate(_report(0.80, 0.75, 0.84, 50), [gate.Check("pairwise_mean_psa", 0.80)], on="lower")["checks"][0]
    assert check["verdict"] == "inconclusive" and check["documents_to_decide"] is None
    assert "may not decide" in check["reason"]


def test_point_checks_are_never_inconclusive():
    result = gate.evaluate(_report(0.80, 0.74, 0.86), [gate.Check("pairwise_mean_psa", 0.83)], on="point")
    assert result["checks"][0]["verdict"] == "fail" and result["verdict"] == "failed"


def test_cli_inconclusive_exit_code_and_outputs(example_path, tmp_path):
    base = json.loads(run("score", example_path, "--bootstrap", "200", "--output", "json").stdout)
    overall = base["overall"]
    low, value = overall["pairwise_mean_psa_interval"]["low"], overall["pairwise_mean_psa"]
    bound = f"{(low + value) / 2:.4f}"
    junit = tmp_path / "gate.xml"
    result = run("gate", example_path, "--min", f"pairwise_mean_psa={bound}", "--bootstrap", "200", "--on", "lower",
                 "--junit", junit)
    assert result.exit_code == 1
    assert "inconclusive" in result.stdout and "more documents" in result.stdout and "to decide, likely as pass" in result.stdout
    assert "gate inconclusive" in result.stdout
    assert 'type="GateInconclusive"' in junit.read_text()
    # a clear failure alongside: the gate failed, and says one check was only inconclusive
    mixed = run("gate", example_path, "--min", f"pairwise_mean_psa={bound}", "--min", "pooled_psa=0.99",
                "--bootstrap", "200", "--on", "lower")
    assert mixed.exit_code == 1 and "gate failed: 2 of 2 checks (1 of them inconclusive)" in mixed.stdout


def test_estimate_is_of_the_right_size(write_jsonl):
    """On synthetic corpora, the interval at the estimated number of documents no longer contains
    a bound that straddled the interval of a smaller corpus (checked on one seed; the estimate is
    a guide, so the larger corpus is drawn with the same generator)."""
    small = write_jsonl(list(generate_corpus(60, n_raters=3, seed=4)), "small.jsonl")
    report = json.loads(run("score", small, "--bootstrap", "300", "--output", "json").stdout)
    low, value = report["overall"]["pairwise_mean_psa_interval"]["low"], report["overall"]["pairwise_mean_psa"]
    bound = round(value - (value - low) * 0.6, 4)
    check = gate.evaluate(report, [gate.Check("pairwise_mean_psa", bound)], on="lower")["checks"][0]
    assert check["verdict"] == "inconclusive" and check["likely"] == "pass"
    needed = check["documents_to_decide"]
    assert 60 < needed < 60 * 4
    large = write_jsonl(list(generate_corpus(needed + needed // 2, n_raters=3, seed=4)), "large.jsonl")
    decided = run("gate", large, "--min", f"pairwise_mean_psa={bound}", "--bootstrap", "300", "--on", "lower")
    assert decided.exit_code == 0, decided.stdout
