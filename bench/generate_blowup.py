"""Write the inputs of the "no blow-up" measurements (spanagree JSONL).

    python bench/generate_blowup.py labels -o bench/data/labels_100k.jsonl
    python bench/generate_blowup.py raters -o bench/data/raters_1000.jsonl

``labels``: 10,000 documents × 2 raters, 10 spans each, 100,000 distinct labels (span ``i`` of
document ``d`` has label ``L<10 d + i>``; the second rater shifts or relabels about a fifth).
``raters``: one document, 1,000 raters, 5 random spans each, labels A, B and C.
Data files belong under ``bench/data/`` (not committed).
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

TEXT = "word " * 200


def many_labels(n_documents: int, spans: int, rng: random.Random):
    for d in range(n_documents):
        base = [(10 * i, 10 * i + 4, f"L{spans * d + i:06d}") for i in range(spans)]
        for rater in ("rater_0", "rater_1"):
            out = []
            for start, end, label in base:
                if rater == "rater_1":
                    roll = rng.random()
                    if roll < 0.1:
                        end += 1
                    elif roll < 0.2:
                        label = f"L{rng.randrange(n_documents * spans):06d}"
                out.append({"start": start, "end": end, "label": label})
            yield {"doc_id": f"doc-{d:06d}", "text": TEXT, "annotator": rater, "spans": out}


def many_raters(n_raters: int, spans: int, rng: random.Random):
    for r in range(n_raters):
        out = []
        for _ in range(spans):
            start = rng.randrange(0, len(TEXT) - 20)
            out.append({"start": start, "end": start + rng.randrange(1, 20), "label": rng.choice("ABC")})
        yield {"doc_id": "doc-0", "text": TEXT, "annotator": f"r{r:04d}", "spans": out}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["labels", "raters"])
    parser.add_argument("--documents", type=int, default=10_000, help="labels: documents")
    parser.add_argument("--raters", type=int, default=1_000, help="raters: raters")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    lines = many_labels(args.documents, 10, rng) if args.kind == "labels" else many_raters(args.raters, 5, rng)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
