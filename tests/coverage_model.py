"""A crowd-like model for checking interval coverage by simulation.

Every document has the same two true spans and is rated by two raters drawn from a large pool,
so rater pairs almost never meet twice (as in crowd corpora). A rater marks each true span with
probability ``P_TRUE`` and, with probability ``P_SPURIOUS``, one of three wrong spans. The
pairwise mean PSA then estimates ``E[PSA · defined] / P(defined)`` over one document's pair of
ratings, which :func:`truth` computes exactly by enumerating the twelve possible span sets.
"""
from __future__ import annotations

import itertools

import numpy as np

from spanagree.io.common import Location
from spanagree.core.model import Corpus
from spanagree.core.builder import CorpusBuilder

TRUE = ((0, 5), (10, 15))
SPURIOUS = ((20, 25), (30, 35), (40, 45))
P_TRUE, P_SPURIOUS = 0.7, 0.3
POOL = 100_000


def _span_sets() -> list[tuple[frozenset, float]]:
    """Every span set a rater can give, with its probability."""
    out = []
    for marks in itertools.product((0, 1), repeat=len(TRUE)):
        p_marks = np.prod([P_TRUE if m else 1 - P_TRUE for m in marks])
        chosen = [span for span, m in zip(TRUE, marks) if m]
        out.append((frozenset(chosen), p_marks * (1 - P_SPURIOUS)))
        for wrong in SPURIOUS:
            out.append((frozenset([*chosen, wrong]), p_marks * P_SPURIOUS / len(SPURIOUS)))
    return out


def truth() -> float:
    """The exact value the pairwise mean PSA estimates under the model."""
    total = weight = 0.0
    for (first, p), (second, q) in itertools.product(_span_sets(), repeat=2):
        a, b, c = len(first & second), len(first - second), len(second - first)
        if a + b + c:
            total += p * q * 2 * a / (2 * a + b + c)
            weight += p * q
    return total / weight


def _rater_spans(rng: np.random.Generator) -> list[tuple[int, int, str]]:
    spans = [(start, end, "X") for start, end in TRUE if rng.random() < P_TRUE]
    if rng.random() < P_SPURIOUS:
        start, end = SPURIOUS[rng.integers(len(SPURIOUS))]
        spans.append((start, end, "X"))
    return sorted(spans)


def sample(rng: np.random.Generator, n_documents: int) -> Corpus:
    """One corpus of ``n_documents`` drawn from the model."""
    builder = CorpusBuilder()
    where = Location("simulated")
    for doc in range(n_documents):
        for rater in rng.choice(POOL, size=2, replace=False):
            builder.add(doc, f"d{doc}", "x" * 50, f"r{rater}", _rater_spans(rng), where)
    return builder.build()


def coverage(n_corpora: int, n_documents: int, replicates: int, seed: int = 0) -> float:
    """The share of ``n_corpora`` simulated corpora whose bootstrap interval of the pairwise
    mean PSA holds :func:`truth`."""
    import spanagree

    target, rng, hits = truth(), np.random.default_rng(seed), 0
    for k in range(n_corpora):
        report = spanagree.score(sample(rng, n_documents), bootstrap=replicates, seed=k).to_dict()
        interval = report["overall"]["pairwise_mean_psa_interval"]
        hits += interval["low"] <= target <= interval["high"]
    return hits / n_corpora
