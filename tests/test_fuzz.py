"""Hostile and careless input through every subcommand: exit 0, 1 or 2, never a traceback, and
what was read is what was scored plus what was excluded.

Fast by default (a few seconds, for every CI run). ``SPANAGREE_FUZZ=long`` runs many more
examples and the slower subcommands on each of them, for a local search.
"""
from __future__ import annotations

import json
import os
import traceback

import orjson
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from click.testing import CliRunner

from spanagree.app.cli import app

LONG = os.environ.get("SPANAGREE_FUZZ") == "long"
EXAMPLES = 400 if LONG else 12
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not LONG,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

runner = CliRunner()

HOSTILE = ["=HYPERLINK(\"http://x.test\")", "+1", "-1", "@SUM(A1)", "\x1b[2J\x1b]0;pwned\x07", "a\u202eb", "\u2066x",
           "![i](http://x.test/a.png)", "<img src=x onerror=alert(1)>", "| x |", "\ud800", "\udc00x", "", " ", "\n",
           "x" * 3000, "𝔘𝔫𝔦", "e\u0301", "\u0000"]

labels = st.one_of(st.sampled_from(["PER", "ORG", "LOC"]), st.sampled_from(HOSTILE), st.text(max_size=8),
                   st.integers(), st.none(), st.booleans(), st.lists(st.text(max_size=3), max_size=2))
offsets = st.one_of(st.integers(min_value=0, max_value=20), st.integers(min_value=-3, max_value=40),
                    st.sampled_from([10**30, -(10**30), 2**63, True, False, 1.5, "3", None]))
span = st.one_of(
    st.fixed_dictionaries({"start": offsets, "end": offsets, "label": labels}),
    st.lists(offsets, max_size=3), st.none(), st.text(max_size=3),
)
record = st.fixed_dictionaries(
    {
        "doc_id": st.one_of(st.sampled_from(["d1", "d2", "d3", 1, 2]), st.sampled_from(HOSTILE), st.none()),
        "text": st.one_of(st.sampled_from(["Alice met Bob in Paris.", "Carol", ""]), st.sampled_from(HOSTILE),
                          st.text(max_size=20), st.integers()),
        "annotator": st.one_of(st.sampled_from(["a", "b", "c"]), st.sampled_from(HOSTILE)),
        "spans": st.one_of(st.lists(span, max_size=4), st.none(), st.text(max_size=3)),
    }
)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.sampled_from(HOSTILE)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
        ["text", "spans", "answer", "accept", "options", "label", "tokens", "annotations", "data", "doc_id"]), inner,
        max_size=4),
    max_leaves=12,
)


def _lines(records) -> bytes:
    return b"".join(json.dumps(r).encode("utf-8") + b"\n" for r in records)  # ensure_ascii: lone surrogates escaped


def _invoke(args) -> object:
    result = runner.invoke(app, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        text = "".join(traceback.format_exception(result.exception))
        pytest.fail(f"traceback from spanagree {' '.join(map(str, args))}:\n{text}")
    assert result.exit_code in (0, 1, 2), (args, result.exit_code, result.output)
    assert "Traceback" not in result.output
    return result


def _adds_up(report: dict) -> None:
    for what in ("documents", "annotations", "spans"):
        section = report[what]
        assert section["read"] == section["scored"] + sum(section["excluded"].values()), (what, section)


def _score(path) -> None:
    result = _invoke(["score", path, "--output", "json"])
    if result.exit_code == 0:
        _adds_up(orjson.loads(result.stdout))


def _every_command(path, tmp) -> None:
    _score(path)
    _invoke(["convert", path, "-o", tmp / "converted.jsonl"])
    _invoke(["consensus", path, "-k", "2", "-o", tmp / "gold.jsonl", "--report-file", tmp / "gold.report.json"])
    _invoke(["gate", path, "--min", "pooled_psa=0.5", "--junit", tmp / "junit.xml"])
    _invoke(["disagreements", path, "-o", tmp / "cases.csv"])
    _invoke(["score", path, "--rule", "overlap", "--candidates", "tokens", "--output", "markdown"])
    if LONG:
        _invoke(["score", path, "--unitizing", "--output", "json"])
        _invoke(["report", path, "-o", tmp / "report.html", "--bootstrap", "20"])
        _invoke(["alt-test", path, "--candidate", "a"])
        _invoke(["compare", path, path, "--bootstrap", "20"])


@FUZZ
@given(records=st.lists(record, min_size=1, max_size=6))
def test_records(tmp_path_factory, records):
    tmp = tmp_path_factory.mktemp("records")
    path = tmp / "in.jsonl"
    path.write_bytes(_lines(records))
    _every_command(path, tmp)


@FUZZ
@given(values=st.lists(json_values, min_size=1, max_size=4),
       format=st.sampled_from(["auto", "spanagree", "prodigy", "doccano", "labelstudio"]))
def test_json_values(tmp_path_factory, values, format):
    tmp = tmp_path_factory.mktemp("values")
    path = tmp / "in.jsonl"
    path.write_bytes(_lines(values))
    result = _invoke(["score", path, "--format", format, "--output", "json"])
    if result.exit_code == 0:
        _adds_up(orjson.loads(result.stdout))
    (tmp / "in.json").write_bytes(json.dumps(values).encode("utf-8"))
    _invoke(["score", tmp / "in.json", "--format", "labelstudio"])


@FUZZ
@given(data=st.binary(max_size=300), suffix=st.sampled_from([".jsonl", ".json", ".conll", ".spacy", ".txt", ".ann"]))
def test_bytes(tmp_path_factory, data, suffix):
    tmp = tmp_path_factory.mktemp("bytes")
    path = tmp / f"in{suffix}"
    path.write_bytes(data)
    _score(path)
    _invoke(["convert", path, "-o", tmp / "out.jsonl"])


@FUZZ
@given(name=st.one_of(st.sampled_from(["", ".", "..", "/", "/dev/null", "/proc", "in.jsonl/x", "missing/x.jsonl",
                                       "-", "--", "x" * 300, "a\nb", "in.jsonl"]),
                      st.text(alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"),
                              max_size=12)))
def test_paths(tmp_path_factory, name):
    tmp = tmp_path_factory.mktemp("paths")
    good = tmp / "in.jsonl"
    good.write_bytes(_lines([{"doc_id": "d", "text": "Alice", "annotator": r,
                              "spans": [{"start": 0, "end": 5, "label": "PER"}]} for r in "ab"]))
    before = good.read_bytes()
    target = tmp / name if not name.startswith("/") else name
    back = os.getcwd()
    os.chdir(tmp)
    try:
        _score(target)
        _invoke(["score", good, "-o", target])
        _invoke(["convert", good, "-o", target])
        _invoke(["consensus", good, "-k", "2", "-o", target])
    finally:
        os.chdir(back)
    assert good.read_bytes() == before  # no output ever overwrites an input
