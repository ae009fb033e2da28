"""Run the peer library nervaluate (1.2.x) on the same rater pairs as spanagree.

nervaluate compares a "true" and a "pred" list of documents. Between raters there is no truth,
so for a pair (A, B) rater A plays "true" and rater B "pred". Only documents that both raters
submitted are compared, as spanagree does.

nervaluate's overlap test treats ``end`` as inclusive (``pred.start > true.end or
pred.end < true.start`` means "no overlap"), while spanagree's ends are exclusive, so spans are
passed with ``end - 1``. Exact matches are unaffected by the shift; without it two adjacent
spans (``[0, 5)`` and ``[5, 9)``) would count as overlapping.

    python bench/peers.py bench/data/synth_10k.jsonl     # prints strict counts for every pair
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

OUTCOMES = ("correct", "incorrect", "partial", "missed", "spurious")


@dataclass
class PeerResult:
    """nervaluate's strict counts for one rater pair (A = "true", B = "pred")."""

    raters: tuple[str, str]
    documents: int
    correct: int
    incorrect: int
    partial: int
    missed: int
    spurious: int
    labels: dict[str, dict[str, int]] = field(default_factory=dict)  # label -> outcome -> count
    seconds: float = 0.0  # Evaluator(...) + evaluate(), the call a user makes
    prepare_seconds: float = 0.0  # pairing documents and converting to nervaluate's dicts

    def counts(self) -> dict[str, int]:
        """The five overall outcome counts."""
        return {name: getattr(self, name) for name in OUTCOMES}


def load_lines(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Parse a spanagree JSONL file with the standard ``json`` module."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def raters_of(lines: Iterable[dict[str, Any]]) -> list[str]:
    """The sorted rater names of a corpus."""
    return sorted({line["annotator"] for line in lines})


def labels_of(lines: Iterable[dict[str, Any]]) -> list[str]:
    """The sorted labels used anywhere in a corpus."""
    return sorted({span["label"] for line in lines for span in line["spans"]})


def rater_pairs(lines: Iterable[dict[str, Any]]) -> list[tuple[str, str]]:
    """All rater pairs ``(ra, rb)`` with ``ra < rb``, as spanagree orders them."""
    return list(itertools.combinations(raters_of(lines), 2))


def _to_nervaluate(spans: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"label": s["label"], "start": s["start"], "end": s["end"] - 1} for s in spans]


def pair_documents(
    lines: Iterable[dict[str, Any]], rater_a: str, rater_b: str
) -> tuple[list[list[dict[str, Any]]], list[list[dict[str, Any]]], list[str]]:
    """nervaluate's ``true`` (rater A) and ``pred`` (rater B) lists, and the document ids.

    Only documents with a line from both raters are kept, in order of first appearance;
    an empty ``spans`` list is kept as an empty document ("nothing here").
    """
    by_doc: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for line in lines:
        if line["annotator"] in (rater_a, rater_b):
            by_doc.setdefault(line["doc_id"], {})[line["annotator"]] = line["spans"]
    true, pred, doc_ids = [], [], []
    for doc_id, by_rater in by_doc.items():
        if rater_a in by_rater and rater_b in by_rater:
            true.append(_to_nervaluate(by_rater[rater_a]))
            pred.append(_to_nervaluate(by_rater[rater_b]))
            doc_ids.append(doc_id)
    return true, pred, doc_ids


def run_nervaluate(
    lines: Sequence[dict[str, Any]],
    rater_a: str,
    rater_b: str,
    *,
    labels: Sequence[str] | None = None,
    min_overlap_percentage: float = 1.0,
) -> PeerResult:
    """nervaluate's strict counts, overall and per label, for rater A ("true") vs B ("pred").

    ``labels`` defaults to every label in the corpus (nervaluate ignores spans whose label is
    not listed). Per-label counts come from nervaluate's ``entities`` results; a label that
    neither rater used in the shared documents is reported with zero counts.
    """
    import nervaluate

    if labels is None:
        labels = labels_of(lines)
    t0 = time.perf_counter()
    true, pred, doc_ids = pair_documents(lines, rater_a, rater_b)
    t1 = time.perf_counter()
    if doc_ids:
        evaluator = nervaluate.Evaluator(
            true, pred, tags=list(labels), loader="dict",
            min_overlap_percentage=min_overlap_percentage,
        )
        results = evaluator.evaluate()
    else:  # nervaluate's dict loader cannot tell an empty corpus's type
        results = {"overall": {}, "entities": {}}
    t2 = time.perf_counter()

    def strict(result: dict[str, Any]) -> dict[str, int]:
        r = result.get("strict")
        return {name: int(getattr(r, name)) if r is not None else 0 for name in OUTCOMES}

    per_label = {label: strict(results["entities"].get(label, {})) for label in labels}
    return PeerResult(
        raters=(rater_a, rater_b),
        documents=len(doc_ids),
        labels=per_label,
        seconds=t2 - t1,
        prepare_seconds=t1 - t0,
        **strict(results["overall"]),
    )


def run_all_pairs(
    lines: Sequence[dict[str, Any]],
    *,
    labels: Sequence[str] | None = None,
    min_overlap_percentage: float = 1.0,
) -> list[PeerResult]:
    """:func:`run_nervaluate` for every rater pair ``(ra, rb)``, ``ra < rb``."""
    if labels is None:
        labels = labels_of(lines)
    return [
        run_nervaluate(lines, a, b, labels=labels, min_overlap_percentage=min_overlap_percentage)
        for a, b in rater_pairs(lines)
    ]


def main(argv: list[str] | None = None) -> int:
    """Print nervaluate's strict counts for every rater pair of one JSONL file."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python bench/peers.py FILE.jsonl", file=sys.stderr)
        return 2
    lines = load_lines(argv[0])
    print("| A (true) | B (pred) | docs | " + " | ".join(OUTCOMES) + " | seconds |")
    print("|---|---|---:|" + "---:|" * (len(OUTCOMES) + 1))
    for r in run_all_pairs(lines):
        counts = " | ".join(str(v) for v in r.counts().values())
        print(f"| {r.raters[0]} | {r.raters[1]} | {r.documents} | {counts} | {r.seconds:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
