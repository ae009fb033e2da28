"""Bounded memory by default: large input grouped by document goes to an engine unasked, and the
report is the same as the in-memory path's."""
from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app
from spanagree.engine import AutoEngineWarning, mode, plan
from spanagree.io.synthetic import generate_corpus

OPTIONS = dict(rule="overlap", bootstrap=40, seed=3)


@pytest.fixture(autouse=True)
def small_threshold(monkeypatch):
    """Every input of these tests counts as large; chunks are small, so there are many."""
    monkeypatch.setattr(mode, "AUTO_ENGINE_BYTES", 2000)
    monkeypatch.setattr(plan, "CHUNK_BYTES", 8000)
    monkeypatch.setattr(plan, "MIN_CHUNK_BYTES", 1)


@pytest.fixture(scope="module")
def grouped(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("mode") / "grouped.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        for record in generate_corpus(150, n_raters=3, seed=5, p_skip_document=0.1):
            f.write(json.dumps(record) + "\n")
    return path


def scored(path, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = spanagree.score(path, **options)
    return report, [w for w in caught if issubclass(w.category, AutoEngineWarning)]


def test_large_grouped_input_is_counted_by_an_engine_and_said_so(grouped):
    in_memory, notes = scored(grouped, stream=False, **OPTIONS)
    assert in_memory.corpus.has_spans and not notes
    chosen, notes = scored(grouped, **OPTIONS)
    assert len(notes) == 1 and "grouped by document" in str(notes[0].message)
    assert chosen.corpus.has_spans is False
    assert chosen.corpus.engine["workers"] >= 1 and chosen.corpus.engine["grouped"] is True
    assert "every core" in chosen.corpus.engine["chosen"]
    assert chosen.to_dict() == in_memory.to_dict()
    assert chosen.summary() == in_memory.summary()
    # jobs=1 alone: the same choice, in this process
    one, notes = scored(grouped, jobs=1, **OPTIONS)
    assert one.corpus.engine["workers"] == 1 and "one chunk at a time" in one.corpus.engine["chosen"]
    assert one.to_dict() == in_memory.to_dict()


def test_small_input_stays_in_memory(grouped, monkeypatch):
    monkeypatch.setattr(mode, "AUTO_ENGINE_BYTES", grouped.stat().st_size + 1)
    report, notes = scored(grouped)
    assert report.corpus.has_spans and not notes


def test_input_not_grouped_and_runs_that_need_the_spans_stay_in_memory(grouped, tmp_path):
    lines = grouped.read_text(encoding="utf-8").splitlines()
    random.Random(0).shuffle(lines)
    shuffled = tmp_path / "shuffled.jsonl"
    shuffled.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report, notes = scored(shuffled)
    assert report.corpus.has_spans and not notes
    report, notes = scored(grouped, per_rater=True)
    assert report.corpus.has_spans and not notes
    assert report.to_dict()["per_rater"] is not None
    assert mode.choose_mode(grouped, needs_spans=True) == mode.Mode(False)


def test_explicit_options_keep_winning(grouped):
    assert mode.choose_mode(grouped, jobs=2) == mode.Mode(True, 2)
    assert mode.choose_mode(grouped, stream=True) == mode.Mode(True, 1)
    assert mode.choose_mode(grouped, jobs=3, stream=False) == mode.Mode(True, 3)
    assert mode.choose_mode(grouped, stream=False) == mode.Mode(False)
    assert mode.choose_mode(grouped, engine="dask").engine
    chosen = mode.choose_mode(grouped)
    assert chosen.engine and chosen.jobs == 0 and chosen.note


def test_cli_says_so_and_no_stream_reads_in_memory(grouped):
    runner = CliRunner()
    auto = runner.invoke(app, ["score", str(grouped), "--output", "json"])
    forced = runner.invoke(app, ["score", str(grouped), "--output", "json", "--no-stream"])
    assert auto.exit_code == 0 and forced.exit_code == 0, (auto.output, forced.output)
    assert json.loads(auto.stdout) == json.loads(forced.stdout)
