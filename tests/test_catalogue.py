"""The catalogue of statistics (spanagree/catalogue.py) is the one list the gate, compare and
``spanagree info --statistics`` use, and each entry reads a value from the report it describes."""
from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

import spanagree
from spanagree import catalogue
from spanagree.app.cli import app
from spanagree.errors import UsageError
from spanagree.outputs import compare, gate
from conftest import ROOT

EXAMPLE = ROOT / "corpora" / "news_ner.jsonl"
STRUCTURE = ROOT / "tests" / "fixtures" / "labelstudio" / "relations.json"
#: An argument of each placeholder that the example corpus (or the structure fixture) has.
ARGUMENTS = {"<LABEL>": "PERSON", "<A>~<B>": "news_ner-alice~news_ner-bob", "<CATEGORY>": "PERSON",
             "<RATER>": "news_ner-alice", "<NAME>": "certainty"}
STRUCTURE_ARGUMENTS = {"<LABEL>": "works_for"}
#: How an interval of each method shows itself in the report.
MADE_BY = {
    "bootstrap": lambda interval: "bootstrap_se" in interval,
    "analytic": lambda interval: "Gwet" in interval["method"],
    "posterior": lambda interval: interval["method"].startswith("posterior"),
}


def _written(statistic: catalogue.Statistic, arguments=ARGUMENTS) -> str:
    return statistic.key if statistic.argument is None else f"{statistic.key}:{arguments[statistic.argument]}"


def _listed() -> list[dict[str, str]]:
    result = CliRunner().invoke(app, ["info", "--statistics", "--output", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_info_lists_the_names_the_gate_accepts():
    listed = _listed()
    assert [set(entry) for entry in listed] == [{"name", "family", "needs", "interval", "description"}] * len(listed)
    assert [entry["name"] for entry in listed] == catalogue.names()
    assert {entry["interval"] for entry in listed} == {"bootstrap", "analytic", "posterior", "none"}
    for entry, statistic in zip(listed, catalogue.STATISTICS.values()):
        check = gate.parse_check(f"{_written(statistic)}=0.5")
        assert check.name == _written(statistic) and entry["needs"] == catalogue.NEEDS[entry["family"]]
    table = CliRunner().invoke(app, ["info", "--statistics"]).stdout
    assert all(entry["name"] in table for entry in listed)


def test_compare_takes_exactly_the_comparable_statistics():
    comparable = {s.name for s in catalogue.comparable()}
    assert comparable and comparable < set(catalogue.names())
    accepted = set()
    for statistic in catalogue.STATISTICS.values():
        try:
            compare.parse_bounds([f"{_written(statistic)}=-0.1"])
            accepted.add(statistic.name)
        except UsageError as err:
            assert "compare cannot pair" in str(err) and "comparable: pairwise_mean_psa, pooled_psa" in str(err)
    assert accepted == comparable


def test_compare_names_its_statistics_from_the_catalogue(write_jsonl):
    lines = [{"doc_id": "d", "text": "Ann met Bob", "annotator": r, "spans": [{"start": 0, "end": 3, "label": "PER"}]}
             for r in ("a", "b")]
    path = write_jsonl(lines)
    result = CliRunner().invoke(app, ["compare", str(path), str(path), "--bootstrap", "20", "--output", "json"])
    names = [s["name"].replace(":PER", ":<LABEL>") for s in json.loads(result.stdout)["statistics"]]
    assert names == [s.name for s in catalogue.comparable()]


@pytest.mark.parametrize("command", ["gate", "compare"])
def test_an_unknown_name_exits_2_with_the_known_names_and_the_closest(command):
    bound = "0.1" if command == "gate" else "-0.1"  # compare bounds a change: 0 or below
    paths = [str(EXAMPLE)] * (1 if command == "gate" else 2)
    result = CliRunner().invoke(app, [command, *paths, "--min", f"pairwise_psa={bound}"])
    assert result.exit_code == 2
    assert "unknown statistic 'pairwise_psa' (did you mean pairwise_mean_psa?)" in result.stderr
    assert f"allowed: {', '.join(catalogue.names())}" in result.stderr
    misspelled = CliRunner().invoke(app, [command, *paths, "--min", f"lable:PERSON={bound}"])
    assert misspelled.exit_code == 2 and "(did you mean label:PERSON?)" in misspelled.stderr
    if command == "compare":
        refused = CliRunner().invoke(app, [command, *paths, "--min", "kappa=-0.1"])
        assert refused.exit_code == 2 and "compare cannot pair kappa" in refused.stderr


@pytest.fixture(scope="module")
def gate_rows() -> dict[str, dict]:
    """Every catalogue statistic checked by the gate: the example corpus with candidates,
    unitizing, per-rater and intervals; the structure statistics on a Label Studio export."""
    plain = [s for s in catalogue.STATISTICS.values() if s.needs != "structure"]
    structure = [s for s in catalogue.STATISTICS.values() if s.needs == "structure"]
    flags = {"bootstrap": 100, "per_rater": True}
    rows = {}
    for path, statistics, arguments, extra in (
        (EXAMPLE, plain, ARGUMENTS, {"candidates": "tokens"}),
        (STRUCTURE, structure, {**ARGUMENTS, **STRUCTURE_ARGUMENTS}, {}),
    ):
        checks = [f"{_written(s, arguments)}=0" for s in statistics]
        result = spanagree.gate(path, checks, **flags, **extra)
        rows.update((s.key, row) for s, row in zip(statistics, result["checks"]))
    return rows


@pytest.mark.parametrize("statistic", catalogue.STATISTICS.values(), ids=catalogue.names())
def test_each_statistic_reads_a_value_and_its_interval_from_the_report(gate_rows, statistic):
    row = gate_rows[statistic.key]
    assert row["value"] is not None, row["reason"]
    if statistic.interval == "none":
        assert row["interval"] is None
    else:
        assert row["interval"]["low"] <= row["value"] <= row["interval"]["high"]
        assert MADE_BY[statistic.interval](row["interval"]), row["interval"]


def test_the_gate_page_table_names_every_statistic_of_the_catalogue():
    page = (ROOT / "docs" / "gate.md").read_text(encoding="utf-8")
    section = page[page.index("## A gate"):]
    section = section[:section.index("\n## ")]
    first_column = [row.split("|")[1] for row in section.splitlines() if row.startswith("| `")]
    assert {name for cell in first_column for name in re.findall(r"`([^`]+)`", cell)} == set(catalogue.names())
