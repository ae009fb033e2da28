"""Benchmark bootstrap intervals against one scoring pass on the synthetic corpus.

    python bench/generate.py --documents 10000 --raters 3 --seed 0 -o bench/data/synth_10k.jsonl
    python bench/bench_intervals.py --data bench/data/synth_10k.jsonl [--write-results]

Times, best of ``--repeats``: one scoring pass (``spanagree.score(corpus, rule="overlap")``:
align all pairs and count, per label), the same with ``.to_dict()`` (the report), and 1,000
bootstrap replicates over documents with the jackknife (``intervals.bootstrap``), which reuse the
per-document counts and re-align nothing.
"""
from __future__ import annotations

import argparse
import datetime
import platform
import shlex
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import spanagree  # noqa: E402
from bench_core import best_of, write_results  # noqa: E402
from spanagree.measures.psa import intervals  # noqa: E402

SECTION = "## Intervals"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "bench/data/synth_10k.jsonl")
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args(argv)
    corpus = spanagree.read(args.data)
    t_score, report = best_of(args.repeats, lambda: spanagree.score(corpus, rule="overlap"))
    t_dict, _ = best_of(args.repeats, lambda: spanagree.score(corpus, rule="overlap").to_dict())
    options = intervals.IntervalOptions(replicates=args.replicates, seed=0)
    t_boot, result = best_of(args.repeats, lambda: intervals.bootstrap(report, options))
    headline = result["overall", "pairwise_mean_psa"]
    command = "python " + shlex.join(sys.argv if argv is None else [sys.argv[0], *argv])
    body = "\n".join([
        f"Command: `{command}`  ",
        f"Date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}  ",
        f"Machine: {platform.platform()}; Python {platform.python_version()}; numpy {np.__version__}  ",
        f"Corpus `{args.data.name}`: {corpus.n_documents:,} documents, {len(corpus.raters)} raters, "
        f"{corpus.n_spans:,} spans; best of {args.repeats} runs.",
        "",
        "| step | seconds | vs one scoring pass |",
        "|---|---:|---:|",
        f"| one scoring pass: `score(rule=\"overlap\")` (align, count, per label) | {t_score:.3f} | 1.00× |",
        f"| the same with `.to_dict()` | {t_dict:.3f} | {t_dict / t_score:.2f}× |",
        f"| {args.replicates:,} bootstrap replicates + jackknife ({len(result)} statistics) | {t_boot:.3f} | {t_boot / t_score:.2f}× |",
        "",
        f"Pairwise mean PSA {headline['value']:.4f}, 95 % interval [{headline['low']:.4f}, {headline['high']:.4f}], "
        f"jackknife se {headline['se']:.4f}, bootstrap se {headline['bootstrap_se']:.4f}.",
    ]) + "\n"
    print(body)
    if args.write_results:
        write_results(body, ROOT / "bench" / "RESULTS.md", SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
