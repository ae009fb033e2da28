"""spanagree compare: NEW - OLD with a paired bootstrap interval, and --max-drop checks."""
from __future__ import annotations

import copy
import json

import pytest
from click.testing import CliRunner

import spanagree
from spanagree import catalogue
from spanagree.outputs import compare
from spanagree.app.cli import app
from spanagree.errors import UsageError
from spanagree.io.synthetic import generate_corpus


def run(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def rounds():
    old = list(generate_corpus(100, n_raters=3, seed=2))
    slight = copy.deepcopy(old)  # rater_1 forgets every span in two documents
    for rec in slight:
        if rec["annotator"] == "rater_1" and rec["doc_id"] in ("doc-000010", "doc-000020"):
            rec["spans"] = []
    heavy = copy.deepcopy(old)  # rater_1 drops half its spans everywhere
    for rec in heavy:
        if rec["annotator"] == "rater_1":
            rec["spans"] = rec["spans"][::2]
    return old, slight, heavy


def _write(write_jsonl, lines, name):
    return write_jsonl(lines, name)


def test_same_round_differs_by_exactly_zero(write_jsonl, rounds):
    """Paired: every replicate weighs a shared document the same in both rounds."""
    path = _write(write_jsonl, rounds[0], "old.jsonl")
    report = spanagree.score(path)
    result = compare.compare(report, spanagree.score(path), replicates=200)
    for s in result["statistics"]:
        assert s["difference"] == 0 and s["interval"] == {"low": 0.0, "high": 0.0} and s["significant"] is None
    assert result["paired"] and result["documents"]["shared"] == 100


def test_significant_and_non_significant_drops(write_jsonl, rounds):
    old, slight, heavy = (_write(write_jsonl, lines, f"{k}.jsonl") for k, lines in enumerate(rounds))
    small = run("compare", old, slight, "--min", "pairwise_mean_psa=0", "--bootstrap", "400", "--output", "json")
    assert small.exit_code == 0, small.output
    data = json.loads(small.stdout)
    entry = next(s for s in data["statistics"] if s["name"] == "pairwise_mean_psa")
    assert entry["difference"] < 0 and entry["significant"] is None and entry["interval"]["high"] >= 0
    check = data["checks"][0]
    assert check["passed"] and "not significantly" in check["reason"]

    big = run("compare", old, heavy, "--min", "pairwise_mean_psa=-0.05", "--bootstrap", "400", "--output", "json")
    assert big.exit_code == 1
    data = json.loads(big.stdout)
    entry = next(s for s in data["statistics"] if s["name"] == "pairwise_mean_psa")
    assert entry["significant"] == "drop" and entry["interval"]["high"] < -0.05
    assert not data["checks"][0]["passed"] and "significant drop" in data["checks"][0]["reason"]
    # the same drop within a generous allowance passes
    assert run("compare", old, heavy, "--min", "pairwise_mean_psa=-0.5", "--bootstrap", "200").exit_code == 0


def test_point_difference_equals_the_two_scores(write_jsonl, rounds):
    old, heavy = _write(write_jsonl, rounds[0], "a.jsonl"), _write(write_jsonl, rounds[2], "b.jsonl")
    result = compare.compare(spanagree.score(old, rule="overlap"), spanagree.score(heavy, rule="overlap"), replicates=50)
    before, after = spanagree.score(old, rule="overlap").to_dict(), spanagree.score(heavy, rule="overlap").to_dict()
    by_name = {s["name"]: s for s in result["statistics"]}
    assert by_name["pooled_psa"]["difference"] == pytest.approx(after["overall"]["pooled_psa"] - before["overall"]["pooled_psa"])
    assert by_name["label:PER"]["old"] == pytest.approx(before["labels"]["PER"]["pairwise_mean_psa"])
    # the CLI applies score options to both rounds
    cli = json.loads(run("compare", old, heavy, "--rule", "overlap", "--bootstrap", "50", "--output", "json").stdout)
    assert {s["name"]: s["difference"] for s in cli["statistics"]} == pytest.approx(
        {s["name"]: s["difference"] for s in result["statistics"]})


def test_unshared_documents_are_resampled_within_their_round(write_jsonl, rounds):
    old = _write(write_jsonl, [r for r in rounds[0] if r["doc_id"] < "doc-000070"], "a.jsonl")
    new = _write(write_jsonl, [r for r in rounds[0] if r["doc_id"] >= "doc-000030"], "b.jsonl")
    result = compare.compare(spanagree.score(old), spanagree.score(new), replicates=200)
    assert result["documents"] == {"old": 70, "new": 70, "shared": 40, "old_only": 30, "new_only": 30,
                                   "same_id_other_text": 0}
    entry = result["statistics"][0]
    assert entry["interval"]["low"] < entry["difference"] < entry["interval"]["high"]


def test_documents_with_the_same_id_but_another_text_are_not_paired(write_jsonl, rounds):
    old = _write(write_jsonl, rounds[0], "a.jsonl")
    changed = [{**r, "text": r["text"] + " (edited)"} if r["doc_id"] < "doc-000010" else r for r in rounds[0]]
    new = _write(write_jsonl, changed, "b.jsonl")
    result = compare.compare(spanagree.score(old), spanagree.score(new), replicates=50)
    documents = result["documents"]
    assert documents["same_id_other_text"] == 10
    assert documents["shared"] == documents["old"] - 10 and documents["old_only"] == documents["new_only"] == 10


def test_bad_bounds_on_a_change():
    for text in ("pairwise_mean_psa", "nope=-0.1", "pooled_psa=1", "pooled_psa=x", "label:=-0.1", "kappa=-0.1"):
        with pytest.raises(UsageError):
            compare.parse_bounds([text])


def test_cli_bad_input(write_jsonl, rounds, tmp_path):
    old = _write(write_jsonl, rounds[0], "a.jsonl")
    assert run("compare", old, old, "--min", "label:NOPE=-0.1", "--bootstrap", "20").exit_code == 2
    assert run("compare", old, tmp_path / "missing.jsonl").exit_code == 2
    table = run("compare", old, old, "--bootstrap", "20")
    assert table.exit_code == 0 and "NEW - OLD" in table.stdout


def test_table_shows_the_labels_changed_most(write_jsonl):
    """With more labels than the table shows: every corpus-wide row, the labels with a significant
    change, then the largest changes; --output json keeps every label."""
    from spanagree.outputs.tables import MAX_LABELS

    n_labels = MAX_LABELS + 10
    text = " ".join(f"w{i:02d}" for i in range(40))

    def round_(changed: set[int]):
        lines = []
        for d in range(30):
            for rater in ("x", "y"):
                spans = [{"start": 4 * k, "end": 4 * k + 3, "label": f"L{(d * 2 + k) % n_labels:02d}"} for k in range(4)]
                if rater == "y":
                    spans = [s for s in spans if int(s["label"][1:]) not in changed]
                lines.append({"doc_id": f"d{d}", "text": text, "annotator": rater, "spans": spans})
        return lines

    old = _write(write_jsonl, round_(set()), "old_labels.jsonl")
    new = _write(write_jsonl, round_({5, 52, 57}), "new_labels.jsonl")  # two beyond the first 50
    table = run("compare", old, new, "--bootstrap", "50")
    result = json.loads(run("compare", old, new, "--bootstrap", "50", "--output", "json").stdout)
    assert table.exit_code == 0
    assert f"of {n_labels}; --output json lists all" in table.stdout
    shown = {line.split()[0].partition(":")[2] for line in table.stdout.splitlines() if line.startswith("label")}
    assert len(shown) == MAX_LABELS and {"L05", "L52", "L57"} <= shown
    for name in (s.name for s in catalogue.comparable() if s.argument is None):
        assert any(line.startswith(name + " ") for line in table.stdout.splitlines())
    assert len({s["name"] for s in result["statistics"] if s["name"].startswith("label:")}) == n_labels
