"""A live Label Studio project of 10,000 tasks x 3 annotations read by ``spanagree score``.

    SPANAGREE_LABEL_STUDIO=.ci/ls-venv/bin/label-studio python bench/bench_labelstudio.py [--tasks 10000]

Starts a Label Studio server (tests/labelstudio_server.py: SQLite in a temporary folder, a free
localhost port), imports the tasks with three users' annotations through the import API (timed),
then times ``spanagree score http://127.0.0.1:PORT/projects/ID --output json`` in a fresh process
(the whole run: start-up, every page, the read and the report) with its peak memory
(bench/peak_memory.py), and the same project's JSON export read from a file, for comparison.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import labelstudio_server as ls  # noqa: E402

CONFIG = ('<View><Labels name="label" toName="text"><Label value="PER"/><Label value="ORG"/><Label value="LOC"/>'
          '</Labels><Text name="text" value="$text"/></View>')
WORDS = ["Ann", "Acme", "Paris", "Bob", "Initech", "Rome", "Carol", "Globex", "Oslo"]
LABELS = ["PER", "ORG", "LOC"]


def tasks(n: int, users: list[int], seed: int = 0) -> list[dict]:
    """``n`` tasks of nine names each, every user marking each name with probability 0.8 (with a
    wrong label one time in ten)."""
    rng = random.Random(seed)
    made = []
    for i in range(n):
        text = " and ".join(f"{w}{i}" for w in WORDS) + "."
        spans, at = [], 0
        for k, w in enumerate(WORDS):
            word = f"{w}{i}"
            spans.append((at, at + len(word), LABELS[k % 3]))
            at += len(word) + 5
        annotations = []
        for user in users:
            result = [{"id": f"r{j}", "from_name": "label", "to_name": "text", "type": "labels",
                       "value": {"start": s, "end": e, "text": text[s:e],
                                 "labels": [label if rng.random() > 0.1 else rng.choice(LABELS)]}}
                      for j, (s, e, label) in enumerate(spans) if rng.random() < 0.8]
            annotations.append({"result": result, "completed_by": user})
        made.append({"data": {"text": text}, "annotations": annotations})
    return made


def timed(command: list[str], env: dict) -> tuple[float, int, str]:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    peak = int(re.search(r"VmHWM\): ([\d,]+) kB", done.stderr).group(1).replace(",", ""))
    return seconds, peak, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", type=int, default=10_000)
    args = parser.parse_args()
    command = ls.executable()
    if command is None:
        raise SystemExit("no label-studio install: set SPANAGREE_LABEL_STUDIO to its label-studio executable")
    server = ls.Server(command)
    try:
        print(f"server started in {server.start_seconds:.0f} s", flush=True)
        pid = server.api("POST", "/api/projects/", json={"title": "spanagree bench", "label_config": CONFIG})["id"]
        users = [server.api("POST", "/api/users/", json={"email": f"b{i}@example.org", "username": f"b{i}",
                                                         "password": "bench-password-1"})["id"] for i in range(3)]
        made = tasks(args.tasks, users)
        started = time.perf_counter()
        for first in range(0, len(made), 1000):
            server.api("POST", f"/api/projects/{pid}/import", json=made[first:first + 1000])
        imported = time.perf_counter() - started
        print(f"imported {args.tasks} tasks x 3 annotations in {imported:.0f} s", flush=True)
        env = {**os.environ, "LABEL_STUDIO_API_KEY": ls.LEGACY_TOKEN, "PYTHONPATH": str(ROOT)}
        url = f"{server.base}/projects/{pid}"
        probe = [sys.executable, "bench/peak_memory.py", "score"]
        live_s, live_kb, live_out = timed([*probe, url, "--output", "json", "-q"], env)
        print(f"spanagree score URL --output json: {live_s:.1f} s, peak {live_kb / 1024:.0f} MB", flush=True)
        with tempfile.TemporaryDirectory() as folder:
            export = Path(folder) / "export.json"
            answer = server.session.get(f"{server.base}/api/projects/{pid}/export",
                                        params={"exportType": "JSON", "download_all_tasks": "true"}, timeout=3600)
            export.write_bytes(answer.content)
            file_s, file_kb, file_out = timed([*probe, str(export), "--output", "json", "-q"], env)
            print(f"spanagree score export.json --output json: {file_s:.1f} s, peak {file_kb / 1024:.0f} MB "
                  f"({export.stat().st_size / 1e6:.0f} MB file)")
        print("the same report:", live_out == file_out)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
