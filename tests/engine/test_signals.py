"""SIGINT and SIGTERM end a parallel run and its workers: exit 128 + signal, no traceback, no orphan."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from locations import ROOT



def _descendants(pid: int) -> set[int]:
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            parents.setdefault(ppid, []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _interrupt(args: list[str], signum: int, workers: int) -> tuple[subprocess.CompletedProcess, set[int]]:
    """Start ``spanagree ARGS``, wait until its workers run, send ``signum``, collect the outcome."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "spanagree.app.cli", *args], cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    seen: set[int] = set()
    deadline = time.monotonic() + 120
    while len(seen) < workers and proc.poll() is None and time.monotonic() < deadline:
        seen |= _descendants(proc.pid)
        time.sleep(0.01)
    if proc.poll() is not None:
        pytest.skip("the run ended before its workers were seen; nothing to interrupt")
    seen |= _descendants(proc.pid)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), seen


def _no_survivors(pids: set[int]) -> list[int]:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        alive = [p for p in pids if _alive(p)]
        if not alive:
            return []
        time.sleep(0.1)
    return alive


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_jobs_2_stops_on_a_signal(synthetic_corpus, signum):
    done, workers = _interrupt(["score", str(synthetic_corpus), "--jobs", "2"], signum, workers=2)
    assert done.returncode == 128 + signum, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert "interrupted" in done.stderr
    assert _no_survivors(workers) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_dask_stops_on_a_signal(synthetic_corpus, signum):
    pytest.importorskip("distributed")
    done, workers = _interrupt(
        ["score", str(synthetic_corpus), "--engine", "dask", "--jobs", "2"], signum, workers=2
    )
    assert done.returncode == 128 + signum, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert _no_survivors(workers) == []
