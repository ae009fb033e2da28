"""``consensus --method`` and ``raters --model`` on the command line; the real crowds against their gold."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from spanagree.app.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_model_consensus_writes_probabilities_and_an_adjudication_file(example_path, tmp_path):
    out, review, report_file = tmp_path / "gold.jsonl", tmp_path / "review.jsonl", tmp_path / "report.json"
    result = run("consensus", example_path, "--method", "dawid-skene", "--rule", "overlap", "-o", out,
                 "--gold", "news_ner-alice", "--adjudicate", review, "--report-file", report_file)
    assert result.exit_code == 0, result.output
    assert "converged" in result.output and "against news_ner-alice" in result.output
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    spans = [s for line in lines for s in line["spans"]]
    assert spans and all(0.5 < s["probability"] <= 1 for s in spans)
    assert {line["annotator"] for line in lines} == {"consensus"}
    tasks = [json.loads(x) for x in review.read_text().splitlines()]
    report = json.loads(report_file.read_text())
    first = report["adjudication"][0]["doc_id"]
    assert tasks[0]["meta"]["doc_id"] == first and "expected_change" in tasks[0]["meta"]
    assert {t["_annotator_id"] for t in tasks if t["meta"]["doc_id"] == first} <= {"news_ner-bob", "news_ner-carol", "consensus"}
    assert all(t["answer"] == "accept" and "_input_hash" in t for t in tasks)
    assert report["gold"]["rater"] == "news_ner-alice" and "news_ner-alice" not in report["ranking"]


@pytest.mark.parametrize("model", ["dawid-skene", "mace"])
def test_raters_command_ranks_the_raters(example_path, model):
    table = run("raters", example_path, "--method", model)
    assert table.exit_code == 0, table.output
    assert "Raters, most accurate first" in table.output and "marks what is there" in table.output
    result = run("raters", example_path, "--method", model, "--output", "json")
    report = json.loads(result.stdout)
    assert [row["rank"] for row in report["competence"]] == [1, 2, 3]
    assert report["ranking"] == [row["rater"] for row in report["competence"]]


@pytest.mark.parametrize("args, message", [
    (["consensus", "--method", "glad", "-o", "x.jsonl"], "'glad' is not one of 'vote', 'dawid-skene', 'mace'"),
    (["consensus", "-o", "x.jsonl"], "the vote needs --min-raters"),
    (["consensus", "-k", "2", "--gold", "news_ner-alice", "-o", "x.jsonl"], "needs an annotator model"),
    (["raters", "--method", "glad"], "'glad' is not one of 'dawid-skene', 'mace'"),
    (["raters", "--gold", "nobody"], "unknown gold rater 'nobody'"),
])
def test_bad_usage_exits_2_with_a_message(example_path, tmp_path, args, message):
    args = [a if a != "x.jsonl" else str(tmp_path / a) for a in args]
    result = run(args[0], example_path, *args[1:])
    assert result.exit_code == 2
    assert message in result.output


def test_the_vote_is_unchanged_by_the_new_options(example_path, tmp_path):
    plain, explicit = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert run("consensus", example_path, "-k", "2", "-o", plain).exit_code == 0
    assert run("consensus", example_path, "-k", "2", "--method", "vote", "-o", explicit).exit_code == 0
    assert plain.read_text() == explicit.read_text()
    assert "probability" not in plain.read_text()


def test_conll_crowd_dawid_skene_beats_the_published_aggregators(real_dir):
    """The setting chosen on the val/ sentences (bench/bench_annotators.py) gives strict span
    F1 >= 74.4 on test/ (Simpson & Gurevych 2019: DS and IBCC 74.4, MACE 70.0, MV 65.4)."""
    import spanagree
    from spanagree.diagnostics.annotators import model_consensus

    if not (real_dir / "conll_crowd.jsonl").exists():
        pytest.skip("conll_crowd.jsonl is not among the real corpora")
    crowd = spanagree.read(real_dir / "conll_crowd.jsonl")
    gold = spanagree.read(real_dir / "conll_gold.jsonl")
    consensus, report, _, _ = model_consensus(crowd, method="dawid-skene", rule="overlap", threshold=0.2, unit="token", adjudicate=0)
    assert report["model"]["convergence"]["converged"]
    tp = fp = fn = 0
    for doc_id in gold.doc_ids:
        if not doc_id.startswith("test/"):
            continue
        truth, found = set(gold.spans_of(doc_id, "gold")), set(consensus.spans_of(doc_id, "consensus"))
        tp, fp, fn = tp + len(truth & found), fp + len(found - truth), fn + len(truth - found)
    assert 100 * 2 * tp / (2 * tp + fp + fn) >= 74.4


def test_a_docbin_consensus_carries_each_span_probability(example_path, tmp_path):
    spacy = pytest.importorskip("spacy")
    from spacy.tokens import DocBin

    out = tmp_path / "gold.spacy"
    jsonl = tmp_path / "gold.jsonl"
    assert run("consensus", example_path, "--method", "dawid-skene", "-o", out).exit_code == 0
    assert run("consensus", example_path, "--method", "dawid-skene", "-o", jsonl).exit_code == 0
    expected = {}
    for line in jsonl.read_text().splitlines():
        record = json.loads(line)
        for span in record["spans"]:
            expected[record["doc_id"], span["start"], span["end"], span["label"]] = span["probability"]
    docs = list(DocBin().from_bytes(out.read_bytes()).get_docs(spacy.blank("en").vocab))
    found = {}
    for doc in docs:
        group = doc.spans["consensus"]
        assert len(group.attrs["scores"]) == len(group)
        for span, score in zip(group, group.attrs["scores"]):
            found[doc.user_data["doc_id"], span.start_char, span.end_char, span.label_] = round(score, 6)
    assert found == expected


@pytest.mark.parametrize("model", ["dawid-skene", "mace"])
def test_raters_gate_on_accuracy(example_path, model):
    report = json.loads(run("raters", example_path, "--method", model, "--output", "json").stdout)
    accuracy = {row["rater"]: row["accuracy"] for row in report["competence"]}
    lows = {row["rater"]: row["accuracy_interval"][0] for row in report["competence"]}
    assert all(lows[name] < accuracy[name] for name in accuracy)
    worst, best = min(accuracy.values()), max(accuracy.values())
    passed = run("raters", example_path, "--method", model, "--min", f"min_rater_accuracy={worst - 1e-6}")
    assert passed.exit_code == 0 and "gate passed" in passed.output
    failed = run("raters", example_path, "--method", model, "--min", f"min_rater_accuracy={best - 1e-6}", "--output", "json")
    assert failed.exit_code == 1
    check = json.loads(failed.stdout)["gate"]["checks"][0]
    assert check["name"] == "min_rater_accuracy" and check["value"] == worst and not check["passed"]
    lower = run("raters", example_path, "--method", model, "--min", f"min_rater_accuracy={worst - 1e-6}", "--on", "lower")
    assert lower.exit_code == (0 if min(lows.values()) >= worst - 1e-6 else 1)
    assert run("raters", example_path, "--method", model, "--min", "pairwise_mean_psa=0.5").exit_code == 2
    assert run("raters", example_path, "--method", model, "--min", "min_rater_accuracy=0.5", "--on", "upper").exit_code == 2


def test_the_html_report_gains_the_model_section(example_path, tmp_path):
    out = tmp_path / "report.html"
    result = run("report", example_path, "-o", out, "--method", "mace", "--bootstrap", 20)
    assert result.exit_code == 0, result.output
    page = out.read_text()
    section = page[page.index('id="annotators"'):]
    assert "Raters, most accurate first" in section and "news_ner-carol" in section and "competence" in section
    plain = tmp_path / "plain.html"
    assert run("report", example_path, "-o", plain, "--bootstrap", 20).exit_code == 0
    assert 'id="annotators"' not in plain.read_text()
    assert run("report", example_path, "-o", tmp_path / "x.html", "--method", "glad").exit_code == 2


def test_gate_checks_a_raters_accuracy_as_the_raters_command_reports_it(example_path):
    table = json.loads(run("raters", example_path, "--method", "dawid-skene", "--output", "json").output)["competence"]
    accuracy = {row["rater"]: row["accuracy"] for row in table}
    low = {row["rater"]: row["accuracy_interval"][0] for row in table}
    worst = min(accuracy, key=accuracy.get)
    for rater, value in accuracy.items():
        passed = run("gate", example_path, "--min", f"rater_accuracy:{rater}={value - 1e-6}")
        failed = run("gate", example_path, "--min", f"rater_accuracy:{rater}={value + 1e-6}")
        assert passed.exit_code == 0 and failed.exit_code == 1, (passed.output, failed.output)
        assert f"{value:.4f}" in passed.output and "FAIL" in failed.output
    lowest = run("gate", example_path, "--min", f"min_rater_accuracy={accuracy[worst] + 1e-6}")
    assert lowest.exit_code == 1 and f"{accuracy[worst]:.4f}" in lowest.output
    # --on lower holds the lowest lower end of the posterior intervals against the bound
    bound = min(low.values())
    assert run("gate", example_path, "--min", f"min_rater_accuracy={bound - 1e-6}", "--on", "lower").exit_code == 0
    assert run("gate", example_path, "--min", f"min_rater_accuracy={bound + 1e-6}", "--on", "lower").exit_code == 1


def test_gate_on_a_rater_not_in_the_model_fails_and_says_why(example_path):
    result = run("gate", example_path, "--min", "rater_accuracy:nobody=0.1")
    assert result.exit_code == 1
    assert "rater 'nobody' is not in the model" in result.output


def test_gate_on_accuracy_needs_the_spans(example_path):
    result = run("gate", example_path, "--min", "min_rater_accuracy=0.1", "--jobs", "2")
    assert result.exit_code == 2 and "fit an annotator model on the spans" in result.output


def test_the_gate_weighs_the_raters_with_the_model_it_is_given():
    import spanagree
    from locations import ROOT

    cli = app
    example = str(ROOT / "corpora" / "news_ner.jsonl")

    rows = {}
    for method in ("dawid-skene", "mace", "bsc-seq"):
        result = CliRunner().invoke(cli, ["gate", example, "--min", "min_rater_accuracy=0.5", "--method", method])
        assert result.exit_code == 0, result.output
        assert f"posterior ({method})" in result.output
        rows[method] = spanagree.gate(example, {"min_rater_accuracy": 0.5}, method=method)["checks"][0]["value"]
    assert rows["dawid-skene"] == spanagree.gate(example, {"min_rater_accuracy": 0.5})["checks"][0]["value"]
    assert len(set(rows.values())) == 3  # three models, three numbers
    refused = CliRunner().invoke(cli, ["gate", example, "--min", "pairwise_mean_psa=0.5", "--method", "mace"])
    assert refused.exit_code == 2 and "no check here names either" in refused.output
