"""Coverage of the bootstrap interval of the pairwise mean PSA, by simulation.

    python bench/bench_coverage.py [--corpora 1000] [--documents 60] [--replicates 500] [--write-results]

Corpora are drawn from the crowd-like model of ``tests/coverage_model.py`` (two raters per
document from a large pool, so rater pairs meet once); each gets a 95% percentile interval, and
the share that holds the model's exact value is reported, for the replicate weighting spanagree
uses (each pair weighted by the share of its documents drawn) and for the plain mean over the
pairs defined in the replicate.
"""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

import coverage_model  # noqa: E402
from bench_core import publish  # noqa: E402
from spanagree.measures.psa import intervals  # noqa: E402

SECTION = "## Interval coverage by simulation"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=int, default=1000)
    parser.add_argument("--documents", type=int, default=60)
    parser.add_argument("--replicates", type=int, default=500)
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args(argv)
    command = "python " + shlex.join(sys.argv if argv is None else [sys.argv[0], *argv])
    weighted = coverage_model.coverage(args.corpora, args.documents, args.replicates, seed=11)
    intervals.pair_weights = lambda drawn, seen: (drawn > 0).astype(float)
    plain = coverage_model.coverage(args.corpora, args.documents, args.replicates, seed=11)
    se = (0.95 * 0.05 / args.corpora) ** 0.5
    body = (
        f"`{command}`: model value {coverage_model.truth():.4f}; share of {args.corpora} corpora whose 95% "
        f"interval holds it (binomial s.e. at 95%: {se:.3f}):\n\n"
        "| replicate's pairwise mean | coverage |\n|---|---|\n"
        f"| pairs weighted by the share of their documents drawn (spanagree) | {weighted:.3f} |\n"
        f"| plain mean over the pairs defined in the replicate | {plain:.3f} |\n"
    )
    publish(body, SECTION, args.write_results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
