"""Start-up and a small score, this checkout against another: import time and wall time.

    python bench/bench_startup.py --other DIR [--runs 5] [--write-results]

``DIR`` is a checkout of the commit to compare with (e.g. ``git worktree add DIR REV``). Each run
starts fresh processes from each checkout in turn (interleaved, since the machine is shared):
``python -X importtime -c "import spanagree"`` (the cumulative time of the ``spanagree`` line)
and ``python -m spanagree score corpora/news_ner.jsonl`` (wall time). The medians are kept. Both
checkouts are byte-compiled first, as an install leaves them, so a new module is not timed
compiling.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_core import checkout_options, compiled_checkouts, machine, publish  # noqa: E402

SECTION = "## Start-up: import time and a small score"
PY = sys.executable


def import_ms(checkout: Path) -> float:
    """Milliseconds to ``import spanagree`` in a fresh process run from ``checkout``."""
    err = subprocess.run([PY, "-X", "importtime", "-c", "import spanagree"], cwd=checkout,
                         capture_output=True, text=True, check=True).stderr
    line = [x for x in err.splitlines() if x.rstrip().endswith("| spanagree")][-1]
    return int(line.split("|")[1]) / 1000


def score_s(checkout: Path) -> float:
    """Seconds for ``python -m spanagree score corpora/news_ner.jsonl`` run from ``checkout``."""
    start = time.perf_counter()
    subprocess.run([PY, "-m", "spanagree", "score", "corpora/news_ner.jsonl"], cwd=checkout,
                   capture_output=True, check=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    checkout_options(parser, SECTION)
    args = parser.parse_args(argv)
    trees = compiled_checkouts(args)
    imports: dict[str, list[float]] = {name: [] for name in trees}
    scores: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.runs):
        for name, tree in trees.items():
            imports[name].append(import_ms(tree))
            scores[name].append(score_s(tree))
    rows = [
        "`python bench/bench_startup.py --other DIR --other-name NAME --runs "
        f"{args.runs} --write-results` ({machine()['cpu']}; load average {os.getloadavg()[0]:.1f} at the start); "
        f"medians of {args.runs} interleaved runs.",
        "",
        '| checkout | `python -X importtime -c "import spanagree"` | `python -m spanagree score corpora/news_ner.jsonl` |',
        "|---|---:|---:|",
    ]
    for name in trees:
        rows.append(f"| {name} | {statistics.median(imports[name]):.0f} ms "
                    f"| {statistics.median(scores[name]):.3f} s |")
    publish("\n".join(rows) + "\n", SECTION, args.write_results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
