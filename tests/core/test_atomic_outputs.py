"""Outputs are whole or absent: a run killed while writing leaves no partial file, and output
paths are checked before any work (a missing folder, a path under a file, an input)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from spanagree.app.cli import app
from spanagree.io.synthetic import generate_corpus, write_jsonl
from locations import ROOT



@pytest.fixture
def corpus(synthetic_corpus) -> Path:
    return synthetic_corpus


def _kill_while_writing(args: list[str], folder: Path, signum: int) -> subprocess.CompletedProcess:
    """Run ``spanagree ARGS`` and send ``signum`` as soon as its temporary output appears."""
    proc = subprocess.Popen([sys.executable, "-m", "spanagree.app.cli", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    caught = False
    while proc.poll() is None and time.monotonic() < deadline:
        if any(p.name.endswith(".part") for p in folder.iterdir()):
            proc.send_signal(signum)
            caught = True
            break
        time.sleep(0.001)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(args, proc.returncode, out, err), caught


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
@pytest.mark.parametrize("command", ["convert", "consensus", "report"])
def test_killed_mid_write_leaves_the_old_file_or_none(corpus, tmp_path, command, signum):
    suffix = ".html" if command == "report" else ".jsonl"
    out = tmp_path / f"out{suffix}"
    old = b"the previous, complete output\n"
    out.write_bytes(old)
    args = {"convert": ["convert", str(corpus), "-o", str(out)],
            "consensus": ["consensus", str(corpus), "-k", "2", "-o", str(out)],
            "report": ["report", str(corpus), "-o", str(out), "--bootstrap", "20", "--documents", "1"]}[command]
    result, caught = _kill_while_writing(args, tmp_path, signum)
    for _ in range(2):  # convert and consensus write long enough to be caught, unless the poller
        if caught or command == "report":  # itself was kept off the CPU: then try again
            break
        out.write_bytes(old)
        result, caught = _kill_while_writing(args, tmp_path, signum)
    if command != "report":
        assert caught, result.stderr
    if caught:
        assert result.returncode in (-signum, 128 + signum), result.stderr
        assert out.read_bytes() == old  # the old file, untouched: never half of the new one
        assert "Traceback" not in result.stderr
        if signum == signal.SIGTERM:  # unwound: the temporary file is removed too
            assert not [p for p in tmp_path.iterdir() if p.name.endswith(".part")]
    else:  # finished before the signal: the new file is whole
        assert result.returncode == 0 and out.read_text(encoding="utf-8").rstrip().endswith("</html>")


runner = CliRunner()


def _run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.mark.parametrize("command", [
    ["score", "{inp}", "-o", "{inp}"],
    ["score", "{inp}", "-o", "{inp}/x.json"],
    ["score", "{inp}", "-o", "{tmp}/missing/x.json"],
    ["convert", "{inp}", "-o", "{inp}"],
    ["consensus", "{inp}", "-k", "2", "-o", "{inp}"],
    ["consensus", "{inp}", "-k", "2", "-o", "{tmp}/gold.jsonl", "--report-file", "{tmp}/missing/r.json"],
    ["consensus", "{inp}", "-k", "2", "-o", "{tmp}/gold.jsonl", "--report-file", "{tmp}/gold.jsonl"],
    ["report", "{inp}", "-o", "{tmp}"],
    ["disagreements", "{inp}", "-o", "{inp}"],
    ["gate", "{inp}", "--min", "pooled_psa=0.1", "--junit", "{inp}"],
    ["alt-test", "{inp}", "--candidate", "r0", "-o", "{inp}"],
])
def test_bad_output_paths_refused_before_the_work(tmp_path, command):
    inp = tmp_path / "in.jsonl"
    write_jsonl(generate_corpus(5, 3, seed=3), inp)
    before = inp.read_bytes()
    result = _run(*[c.format(inp=inp, tmp=tmp_path) for c in command])
    assert result.exit_code == 2, result.output
    assert "cannot write" in result.stderr or "given twice" in result.stderr
    assert inp.read_bytes() == before
    assert not (tmp_path / "gold.jsonl").exists()  # consensus did not write its gold file first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]
