"""Write a synthetic multi-rater span corpus (spanagree JSONL) for the benchmarks.

    python bench/generate.py --documents 10000 --raters 3 --seed 0 -o bench/data/synth_10k.jsonl

Data files belong under ``bench/data/`` (not committed).
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

from spanagree.io.synthetic import generate_corpus, write_jsonl  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=10_000, help="number of documents")
    parser.add_argument("--raters", type=int, default=3, help="number of raters (>= 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--p-skip-document", type=float, default=0.0,
        help="probability that a rater does not submit a document (default 0)",
    )
    parser.add_argument("-o", "--output", type=Path, required=True, help="JSONL file to write")
    args = parser.parse_args(argv)

    spans: collections.Counter[str] = collections.Counter()
    documents: collections.Counter[str] = collections.Counter()

    def counted(lines):
        for line in lines:
            spans[line["annotator"]] += len(line["spans"])
            documents[line["annotator"]] += 1
            yield line

    args.output.parent.mkdir(parents=True, exist_ok=True)
    corpus = generate_corpus(
        args.documents, args.raters, seed=args.seed, p_skip_document=args.p_skip_document
    )
    n_lines = write_jsonl(counted(corpus), args.output)
    size = args.output.stat().st_size
    print(f"wrote {args.output}: {args.documents:,} documents, {n_lines:,} lines, "
          f"{sum(spans.values()):,} spans, {size / 1e6:.1f} MB")
    for rater in sorted(spans):
        print(f"  {rater}: {documents[rater]:,} documents, {spans[rater]:,} spans")
    return 0


if __name__ == "__main__":
    sys.exit(main())
