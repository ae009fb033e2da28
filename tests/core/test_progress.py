"""Progress bars: on stderr only, off unless asked for (the CLI asks, --quiet does not), plain
lines without carriage returns when stderr is a log, and nothing for a phase shorter than the delay."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import spanagree
from spanagree.core import progress
from locations import ROOT

EXAMPLE = ROOT / "corpora" / "news_ner.jsonl"


@pytest.fixture
def no_delay(monkeypatch):
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)


def test_off_unless_asked_for(capsys, no_delay):
    assert progress.reading() is None and not progress.enabled()
    spanagree.score(EXAMPLE, bootstrap=300).to_dict()
    assert capsys.readouterr().err == ""


def test_every_phase_of_a_run_when_asked_for(capsys, no_delay):
    report = spanagree.score(EXAMPLE, bootstrap=300, candidates="tokens", unitizing=True, progress=True)
    report.to_dict()  # the bootstrap runs here, after score() returned: it still draws its bar
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err
    for phase in ("reading", "aligning", "candidates, chance-corrected family", "unitizing: α_U and γ", "bootstrap"):
        assert f"{phase}:" in err, phase
    assert "300/300" in err and "\r" not in err  # a log gets plain lines
    assert all(line.strip() for line in err.splitlines())


def test_the_bar_counts_replicates_truthfully(capsys, no_delay):
    with progress.shown():
        with progress.phase("bootstrap", 600, unit="replicate") as bar:
            for _ in range(3):
                bar.update(200)
    # the bar's own lines (a thread another test left may write to stderr too)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("bootstrap")]
    # each line's count field "| N/TOTAL [" (not the speed after it, which can read 601.2replicate/s)
    counts = [(int(n), int(total)) for n, total in re.findall(r"\| *(\d+)/(\d+) \[", "\n".join(lines))]
    assert lines and len(counts) == len(lines) and {total for _, total in counts} == {600}
    assert [n for n, _ in counts] == sorted(n for n, _ in counts) and counts[-1] == (600, 600)
    assert {n for n, _ in counts} <= {0, 200, 400, 600}


def test_a_quick_phase_prints_nothing(capsys):
    with progress.shown():
        with progress.phase("aligning", None):
            pass
        callback = progress.reading()
        callback(10, 10)
    assert capsys.readouterr().err == ""


def _cli(*args) -> subprocess.CompletedProcess:
    code = ("import sys; from spanagree.core import progress; progress.DELAY = 0.0; progress.LOG_INTERVAL = 0.0; "
            "from spanagree.app.cli import main; sys.argv = ['spanagree', *sys.argv[1:]]; main()")
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, check=False,
                          cwd=ROOT)


def test_the_command_line_draws_on_stderr_and_quiet_silences_it():
    shown = _cli("score", EXAMPLE, "--bootstrap", "300", "--output", "json")
    assert shown.returncode == 0, shown.stderr
    json.loads(shown.stdout)  # nothing but the JSON on stdout
    assert "bootstrap:" in shown.stderr and "reading:" in shown.stderr
    quiet = _cli("score", EXAMPLE, "--bootstrap", "300", "--output", "json", "--quiet")
    assert quiet.returncode == 0 and json.loads(quiet.stdout) == json.loads(shown.stdout)
    assert quiet.stderr == ""


def test_a_quick_run_does_not_even_import_tqdm():
    code = ("import sys; from spanagree.app.cli import app; from click.testing import CliRunner; "
            "result = CliRunner().invoke(app, ['score', sys.argv[1]]); assert result.exit_code == 0; "
            "print('tqdm' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code, str(EXAMPLE)], capture_output=True, text=True, check=True, cwd=ROOT)
    assert proc.stdout.strip() == "False"
