"""Reading and scoring, step by step, this checkout against another, in process.

    python bench/bench_steps.py --other DIR [--other-name NAME] [--runs 5] [--write-results] FILE ...

``DIR`` is a checkout of the commit to compare with (e.g. ``git worktree add DIR REV``). For each
input file and each checkout in turn (interleaved, since the machine is shared), a fresh process
imports that checkout's spanagree and times, in process, ``spanagree.read(FILE)`` and
``spanagree.score(FILE, ...)`` (with ``--candidates tokens`` when the file carries tokens, and
the streaming engine in one process, ``jobs=1, stream=True``, when it is large). Whole-process
times on a shared machine vary by ±30 % from run to run; the minimum over the runs of one step
inside one process varies far less, so the minima are reported.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_core import checkout_options, compiled_checkouts, machine, publish  # noqa: E402

SECTION = "## Reading and scoring, step by step, against the previous checkout"

#: What one process times (run with the checkout first on ``sys.path``); prints JSON.
STEPS = r"""
import gc, json, sys, time
import spanagree
path, tokens, large = sys.argv[1], sys.argv[2] == "1", sys.argv[3] == "1"
out = {}
def timed(name, call):
    start = time.perf_counter()
    call()
    out[name] = time.perf_counter() - start
timed("read", lambda: spanagree.read(path))
if tokens:
    timed("score --candidates tokens", lambda: spanagree.score(path, candidates="tokens").summary())
else:
    timed("score", lambda: spanagree.score(path).summary())
if large:
    timed("score, streaming engine, 1 process", lambda: spanagree.score(path, jobs=1, stream=True).summary())
print(json.dumps(out))
"""


def steps(checkout: Path, path: Path) -> dict[str, float]:
    with open(path, "rb") as f:
        first = json.loads(f.readline())
    tokens = "tokens" in first
    large = path.stat().st_size > 64 * 2**20
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    run = subprocess.run([sys.executable, "-c", STEPS, str(path), str(int(tokens)), str(int(large))], cwd=checkout,
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(run.stdout.splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    checkout_options(parser, SECTION)
    args = parser.parse_args(argv)
    trees = compiled_checkouts(args)
    best: dict[tuple[str, str, str], float] = {}
    load = os.getloadavg()[0]
    for _ in range(args.runs):
        for path in args.files:
            for name, tree in trees.items():
                for step, seconds in steps(tree, path.resolve()).items():
                    key = (path.name, step, name)
                    best[key] = min(best.get(key, seconds), seconds)
    rows = [
        f"`python bench/bench_steps.py --other DIR --other-name \"{args.other_name}\" --runs {args.runs} "
        f"{' '.join(str(p) for p in args.files)}` ({machine()['cpu']}; load average {load:.1f} at the "
        f"start); minimum of {args.runs} interleaved runs, in process, seconds.",
        "",
        f"| input | step | {args.other_name} | this checkout | ratio |",
        "|---|---|---:|---:|---:|",
    ]
    for (file, step, name), seconds in best.items():
        if name != "this checkout":
            ours = best[file, step, "this checkout"]
            rows.append(f"| `{file}` | `{step}` | {seconds:.2f} | {ours:.2f} | {ours / seconds:.2f}× |")
    publish("\n".join(rows) + "\n", SECTION, args.write_results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
