"""Write the inputs of the "no blow-up" measurements (spanagree JSONL).

    python bench/generate_blowup.py labels -o bench/data/labels_100k.jsonl
    python bench/generate_blowup.py raters -o bench/data/raters_1000.jsonl
    python bench/generate_blowup.py dense -o bench/data/dense.jsonl
    python bench/generate_blowup.py dense --independent -o bench/data/dense_independent.jsonl
    python bench/generate_blowup.py nested -o bench/data/nested.jsonl
    python bench/generate_blowup.py doclabels -o bench/data/doclabels.jsonl

``labels``: 10,000 documents × 2 raters, 10 spans each, 100,000 distinct labels (span ``i`` of
document ``d`` has label ``L<10 d + i>``; the second rater shifts or relabels about a fifth).
``raters``: one document, 1,000 raters, 5 random spans each, labels A, B and C.
``dense``: one document, 2 raters, ``--spans`` (100,000) spans each, overlapping: rater 0's spans
start every 4 characters on average and are 2 to 24 long, so each overlaps about 6 others and
one chain of overlaps runs through the whole document; labels A to E, or ``--labels`` distinct
ones (``--labels 100000``: 100,000 distinct labels in one document). With ``--independent``
rater 1 draws its own spans the same way (little agreement, larger components). Rater 1 keeps 60 % of
them as they are, moves a boundary of 15 %, relabels 10 %, drops 10 % and adds 5 % new ones.
``nested``: one document, 2 raters, ``--spans`` (4,000) spans each in a staircase ``--depth``
(20) deep: span ``i`` is ``[5 i, 5 i + 100)``, so each overlaps the 19 before and after it and
every span lies inside the union of its neighbours; rater 1 perturbs them as in ``dense``.
``doclabels``: multi-label document classification (``--candidates documents``): ``--documents``
(1,000) documents × 3 raters, ``--labels`` (2,000) labels; each document has 4 labels of its own,
which each rater chooses with probability 0.8, and each rater adds one label at random.
Data files belong under ``bench/data/`` (not committed).
"""
from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

TEXT = "word " * 200
LABELS = list("ABCDE")


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


def perturbed(spans: list[tuple[int, int, str]], rng: random.Random, width: int, labels) -> list[tuple[int, int, str]]:
    """A second rater: keeps, moves a boundary of, relabels, drops or adds spans."""
    out = set()
    for start, end, label in spans:
        roll = rng.random()
        if roll < 0.60:
            out.add((start, end, label))
        elif roll < 0.75:
            shift = rng.choice((-2, -1, 1, 2))
            if rng.random() < 0.5:
                start = min(max(0, start + shift), end - 1)
            else:
                end = max(start + 1, min(width, end + shift))
            out.add((start, end, label))
        elif roll < 0.85:
            out.add((start, end, rng.choice(labels)))
        elif roll < 0.95:
            continue
        if rng.random() < 0.05:
            new = rng.randrange(width - 30)
            out.add((new, new + rng.randrange(2, 25), rng.choice(labels)))
    return sorted(out)


def one_document(spans: list[tuple[int, int, str]], rng: random.Random, width: int, labels=LABELS, second=None):
    text = ("word " * (width // 5 + 1))[:width]
    second = perturbed(spans, rng, width, labels) if second is None else second
    for rater, rows in (("rater_0", spans), ("rater_1", second)):
        out = [{"start": s, "end": e, "label": lab} for s, e, lab in rows]
        yield {"doc_id": "doc-0", "text": text, "annotator": rater, "spans": out}


def dense(n_spans: int, rng: random.Random, n_labels: int = 5, independent: bool = False):
    width = 4 * n_spans + 30
    labels = LABELS if n_labels == 5 else [f"L{k:06d}" for k in range(n_labels)]

    def draw():
        spans = set()
        while len(spans) < n_spans:
            start = rng.randrange(width - 25)
            spans.add((start, start + rng.randrange(2, 25), rng.choice(labels)))
        return sorted(spans)

    first = draw()
    return one_document(first, rng, width, labels, draw() if independent else None)


def nested(n_spans: int, depth: int, rng: random.Random):
    width = 5 * n_spans + 5 * depth + 30
    spans = [(5 * i, 5 * i + 5 * depth, LABELS[i % 5]) for i in range(n_spans)]
    return one_document(spans, rng, width)


def document_labels(n_documents: int, n_labels: int, rng: random.Random):
    labels = [f"T{k:05d}" for k in range(n_labels)]
    for d in range(n_documents):
        own = rng.sample(labels, 4)
        for r in range(3):
            chosen = {x for x in own if rng.random() < 0.8} | {rng.choice(labels)}
            yield {"doc_id": f"doc-{d:06d}", "text": f"document {d}", "annotator": f"r{r}", "labels": sorted(chosen)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=["labels", "raters", "dense", "nested", "doclabels"])
    parser.add_argument("--documents", type=int, help="labels, doclabels: documents (10,000; 1,000)")
    parser.add_argument("--raters", type=int, default=1_000, help="raters: raters")
    parser.add_argument("--spans", type=int, help="dense, nested: spans per rater (100,000; 4,000)")
    parser.add_argument("--labels", type=int, help="dense: distinct labels (5: A to E); doclabels: labels (2,000)")
    parser.add_argument("--independent", action="store_true", help="dense: rater 1 draws its own spans")
    parser.add_argument("--depth", type=int, default=20, help="nested: how many spans overlap each")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", type=Path, required=True)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    if args.kind == "labels":
        lines = many_labels(args.documents or 10_000, 10, rng)
    elif args.kind == "raters":
        lines = many_raters(args.raters, 5, rng)
    elif args.kind == "dense":
        lines = dense(args.spans or 100_000, rng, args.labels or 5, args.independent)
    elif args.kind == "doclabels":
        lines = document_labels(args.documents or 1_000, args.labels or 2_000, rng)
    else:
        lines = nested(args.spans or 4_000, args.depth, rng)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
