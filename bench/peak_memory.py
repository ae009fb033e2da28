"""Run a spanagree command in this process and print its own peak memory (``VmHWM``) on stderr.

    PYTHONPATH=. python bench/peak_memory.py score bench/data/synth_1m.jsonl --output json > out.json

Unlike ``/usr/bin/time -v``, whose figure is the largest of the process and its children, this is
the main process alone (the engine's workers are not in it). Linux only (``/proc/self/status``).
"""
from __future__ import annotations

import re
import sys


def peak_kb() -> int:
    """The process's peak resident set size so far, in kB."""
    with open("/proc/self/status") as status:
        return int(re.search(r"VmHWM:\s+(\d+)", status.read()).group(1))


if __name__ == "__main__":
    sys.argv = ["spanagree", *sys.argv[1:]]
    from spanagree.app.cli import app

    try:
        app()
    finally:
        sys.stderr.write(f"main process peak (VmHWM): {peak_kb():,} kB\n")
