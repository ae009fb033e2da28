"""The per-rater view: against the others pooled over pairs, against the others' consensus,
spans only one rater marked, and intervals from the same bootstrap."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app
from records import line

TEXT = "x" * 40


def by_rater(report):
    return {row["rater"]: row for row in report["per_rater"]}


def random_records(seed, raters=("r1", "r2", "r3"), n_docs=8):
    rng = random.Random(seed)
    records = []
    for d in range(n_docs):
        for r in raters:
            spans = {(s, s + rng.randint(1, 4), rng.choice("AB")) for s in rng.sample(range(0, 35, 3), rng.randint(0, 5))}
            records.append(line(f"d{d}", r, sorted(spans), text=TEXT))
    return records


def test_two_raters_the_view_is_the_pair(write_jsonl):
    path = write_jsonl(random_records(1, raters=("ann", "bob")))
    report = spanagree.score(path, per_rater=True).to_dict()
    pair = report["pairs"][0]
    ann, bob = by_rater(report)["ann"], by_rater(report)["bob"]
    assert ann["mean_psa"] == bob["mean_psa"] == pair["psa"]
    assert ann["against_others"]["f"] == pytest.approx(pair["psa"])
    # ann is the pair's first rater: her unconfirmed spans are b
    assert (ann["against_others"]["own"], ann["against_others"]["other"]) == (pair["b"], pair["c"])
    assert (bob["against_others"]["own"], bob["against_others"]["other"]) == (pair["c"], pair["b"])
    # the consensus of one other rater is that rater (exact rule: every span is its own cluster)
    for row in (ann, bob):
        mine, theirs = row["against_consensus"], row["against_others"]
        assert (mine["a"], mine["own"], mine["other"]) == (theirs["a"], theirs["own"], theirs["other"])
    # only theirs: the spans the outcome alignment left unmatched
    assert ann["only_theirs"]["spans"] == pair["outcomes"]["missed"]
    assert bob["only_theirs"]["spans"] == pair["outcomes"]["spurious"]
    assert ann["documents"] == bob["documents"] == 8


def test_three_raters_by_hand(write_jsonl):
    path = write_jsonl([
        line("d1", "r1", [(0, 5, "A"), (10, 13, "A")]),
        line("d1", "r2", [(0, 5, "A"), (20, 25, "B")]),
        line("d1", "r3", [(0, 5, "A"), (20, 25, "B"), (30, 33, "A")]),
    ])
    report = spanagree.score(path, per_rater=True).to_dict()
    rows = by_rater(report)
    # pairs: r1~r2 a=1 b=1 c=1 (PSA .5); r1~r3 a=1 b=1 c=2 (.4); r2~r3 a=2 b=0 c=1 (.8)
    assert rows["r1"]["mean_psa"] == pytest.approx((0.5 + 0.4) / 2)
    assert rows["r3"]["mean_psa"] == pytest.approx((0.4 + 0.8) / 2)
    others = rows["r1"]["against_others"]
    assert (others["a"], others["own"], others["other"]) == (2, 2, 3)
    assert others["precision"] == 0.5 and others["recall"] == 0.4
    # r1 against the consensus of r2 and r3 (both must agree): {0-5 A, 20-25 B}
    consensus = rows["r1"]["against_consensus"]
    assert (consensus["a"], consensus["own"], consensus["other"]) == (1, 1, 1)
    assert consensus["min_raters"] == 2
    # r3 against the consensus of r1 and r2: {0-5 A}
    consensus = rows["r3"]["against_consensus"]
    assert (consensus["a"], consensus["own"], consensus["other"]) == (1, 2, 0)
    assert consensus["precision"] == pytest.approx(1 / 3) and consensus["recall"] == 1.0
    assert rows["r1"]["only_theirs"] == {"spans": 1, "labels": {"A": 1}}
    assert rows["r3"]["only_theirs"] == {"spans": 1, "labels": {"A": 1}}
    assert rows["r2"]["only_theirs"] == {"spans": 0, "labels": {}}
    assert [p["label"] for p in rows["r1"]["parts_most"]][0] == "B"  # r1 marked no B at all


def test_the_view_does_not_depend_on_input_order(write_jsonl):
    records = random_records(5)
    forward = spanagree.score(write_jsonl(records, "a.jsonl"), rule="overlap", per_rater=True).to_dict()
    shuffled = random.Random(0).sample(records, len(records))
    backward = spanagree.score(write_jsonl(shuffled, "b.jsonl"), rule="overlap", per_rater=True).to_dict()
    assert forward["per_rater"] == backward["per_rater"]


def test_intervals_from_the_bootstrap(write_jsonl):
    report = spanagree.score(write_jsonl(random_records(2)), per_rater=True, bootstrap=50).to_dict()
    for row in report["per_rater"]:
        iv = row["mean_psa_interval"]
        assert iv["value"] == pytest.approx(row["mean_psa"])
        assert iv["low"] <= row["mean_psa"] <= iv["high"]
        assert row["against_others"]["f_interval"]["value"] == pytest.approx(row["against_others"]["f"])
        consensus = row["against_consensus"]
        assert consensus["f_interval"]["value"] == pytest.approx(consensus["f"])
        assert consensus["f_interval"]["low"] <= consensus["f"] <= consensus["f_interval"]["high"]


def test_off_by_default_and_on_with_the_flag(write_jsonl):
    path = write_jsonl(random_records(3))
    assert "per_rater" not in spanagree.score(path).to_dict()
    result = CliRunner().invoke(app, ["score", str(path), "--per-rater", "--output", "json"])
    assert result.exit_code == 0, result.output
    assert [row["rater"] for row in json.loads(result.stdout)["per_rater"]] == ["r1", "r2", "r3"]
    table = CliRunner().invoke(app, ["score", str(path), "--per-rater"])
    assert table.exit_code == 0 and "Per rater" in table.stdout


def test_counts_in_parts_give_the_same_view_without_the_span_parts(write_jsonl):
    path = write_jsonl(random_records(4))
    whole = spanagree.score(path, per_rater=True).to_dict()["per_rater"]
    parts = spanagree.score(path, per_rater=True, stream=True).to_dict()["per_rater"]
    for mine, theirs in zip(whole, parts):
        assert theirs["mean_psa"] == mine["mean_psa"] and theirs["against_others"] == mine["against_others"]
        assert theirs["only_theirs"] is None and theirs["against_consensus"] is None
        assert "without the spans" in theirs["against_consensus_not_computed"]


def test_rows_added_by_segment_sums_equal_add_at():
    from spanagree.measures.psa.specific import add_rows

    rng = np.random.default_rng(0)
    index, values = rng.integers(0, 7, 50), rng.normal(size=(50, 3, 2))
    expected, got = np.ones((7, 3, 2)), np.ones((7, 3, 2))
    np.add.at(expected, index, values)
    add_rows(got, index, values)
    np.testing.assert_allclose(got, expected, atol=1e-12)
    add_rows(got, index[:0], values[:0])
    np.testing.assert_allclose(got, expected, atol=1e-12)
