"""The text and Markdown tables show a bounded number of label rows (the JSON output has all)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from spanagree.app.cli import app
from spanagree.outputs.tables import MAX_LABELS, largest, listed, shown_of, spans_marked
from records import line

N_LABELS = MAX_LABELS + 12
TEXT = " ".join(f"w{i:03d}" for i in range(200))


def _records() -> list[dict]:
    """Label i is marked on a few spans by rater A; rater B agrees on some of them (so the labels'
    span counts, 2a + b + c, differ and tie)."""
    records = []
    for i in range(N_LABELS):
        n = 1 + (i * 7) % 5
        spans = [(5 * k, 5 * k + 4, f"L{i:02d}") for k in range(n)]
        records.append(line(f"d{i}", "A", spans, TEXT))
        records.append(line(f"d{i}", "B", spans[: (i % 3)], TEXT))
    return records


def _table_labels(output: str, title: str) -> list[str]:
    lines = output.splitlines()
    start = next(k for k, text in enumerate(lines) if text.startswith(title))
    divider = next(k for k in range(start + 2, len(lines)) if lines[k].startswith("---"))
    rows = []
    for text in lines[divider + 1:]:
        if not text.strip():
            break
        rows.append(text.split()[0])
    return rows


@pytest.fixture()
def scored(write_jsonl):
    path = write_jsonl(_records())
    runner = CliRunner()
    table = runner.invoke(app, ["score", str(path)])
    report = json.loads(runner.invoke(app, ["score", str(path), "--output", "json"]).output)
    markdown = runner.invoke(app, ["score", str(path), "--output", "markdown"])
    assert table.exit_code == 0 and markdown.exit_code == 0, table.output + markdown.output
    return table.output, markdown.output, report


def test_text_table_shows_the_labels_with_most_spans(scored):
    table, _, report = scored
    labels = report["labels"]
    assert len(labels) == N_LABELS  # the JSON output has every label
    # independently: rank by spans (2a + b + c), ties in report order, keep MAX_LABELS, report order
    weight = {name: 2 * v["a"] + v["b"] + v["c"] for name, v in labels.items()}
    names = list(labels)
    keep = sorted(names, key=lambda n: (-weight[n], names.index(n)))[:MAX_LABELS]
    expected = [n for n in names if n in keep]
    title = f"Per label (labels strict; the {MAX_LABELS} with most spans, of {N_LABELS}; --output json lists all)"
    assert title in table
    assert _table_labels(table, "Per label") == expected
    dropped = set(names) - set(keep)
    assert dropped and max(weight[n] for n in dropped) <= min(weight[n] for n in keep)


def test_markdown_table_shows_the_same_labels(scored):
    _, markdown, report = scored
    section = markdown.split("### Per label", 1)[1].split("###", 1)[0]
    rows = [row.split("|")[1].strip() for row in section.splitlines() if row.startswith("| L")]
    assert len(rows) == MAX_LABELS and set(rows) <= set(report["labels"])
    assert f"of {N_LABELS}; --output json lists all" in section.splitlines()[0]


def test_few_labels_are_all_shown_with_a_plain_title(write_jsonl):
    path = write_jsonl(_records()[: 2 * 5])
    output = CliRunner().invoke(app, ["score", str(path)]).output
    assert "Per label (labels strict)\n" in output
    assert _table_labels(output, "Per label") == [f"L{i:02d}" for i in range(5)]


def test_helpers():
    assert largest(["a", "b", "c", "d"], {"a": 1, "b": 3, "c": 3, "d": 2}.get, limit=2) == ["b", "c"]
    assert largest(["a", "b"], {"a": 1, "b": 3}.get, limit=5) == ["a", "b"]
    assert largest(["x", "y", "z"], lambda n: 0, limit=2) == ["x", "y"]  # ties: the earlier names
    assert spans_marked({"a": 2, "b": 1, "c": 3}) == 8
    assert listed(list(range(5)), limit=3) == "0, 1, 2, ... (2 more)"
    assert listed(["NONE", "PER"], limit=3) == "NONE, PER"
    assert shown_of(3, 3, "the {n} first") == ""
    assert shown_of(2, 3, "the first {n}") == "the first 2, of 3; --output json lists all"
