"""Synthetic multi-rater span corpora with known structure, for tests and benchmarks.

Each document is a short text of made-up words with a few "true" entities (1-4 words each,
on word boundaries, never overlapping). Every rater starts from the truth and perturbs it
independently: a rater may miss an entity, give it another label, move one of its boundaries
by one word, or add spurious spans. A rater's spans never overlap one another (NER style), so
they are also free of duplicates.

The lines follow the spanagree JSONL format, one line per (document, rater)::

    {"doc_id": str, "text": str, "annotator": str,
     "spans": [{"start": int, "end": int, "label": str}]}

with character offsets, ``end`` exclusive.

Only numpy is needed; the same seed and arguments give the same lines (within one numpy
version: numpy guarantees the bit stream of ``PCG64``, not every ``Generator`` method).

>>> lines = list(generate_corpus(2, n_raters=2, seed=1))
>>> [(line["doc_id"], line["annotator"]) for line in lines]
[('doc-000000', 'rater_0'), ('doc-000000', 'rater_1'), ('doc-000001', 'rater_0'), ('doc-000001', 'rater_1')]
>>> span = lines[0]["spans"][0]
>>> 0 <= span["start"] < span["end"] <= len(lines[0]["text"])
True
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from ..core.files import atomic_write

__all__ = ["generate_corpus", "write_jsonl"]

DEFAULT_LABELS: tuple[str, ...] = ("PER", "ORG", "LOC", "MISC", "DATE")

_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"
_VOCABULARY_SIZE = 4000
_SYLLABLES = (1, 2, 3)
_SYLLABLE_P = (0.15, 0.45, 0.4)
_P_CODA = 0.7  # probability that a syllable ends in a consonant
_WORDS_PER_DOCUMENT = (25, 60)  # inclusive range
_MEAN_ENTITIES = 3.6  # Poisson mean of true entities per document (capped by what fits)
_ENTITY_WORDS = (1, 2, 3, 4)
_ENTITY_WORD_P = (0.45, 0.30, 0.15, 0.10)
_SPURIOUS_WORDS = (1, 2, 3)
_SPURIOUS_WORD_P = (0.6, 0.3, 0.1)
_P_COMMA = 0.06
_PLACEMENT_TRIES = 8


def generate_corpus(
    n_documents: int,
    n_raters: int = 3,
    *,
    seed: int = 0,
    labels: Sequence[str] = DEFAULT_LABELS,
    p_miss: float = 0.06,
    p_relabel: float = 0.05,
    p_shift: float = 0.08,
    p_spurious: float = 0.05,
    p_skip_document: float = 0.0,
) -> Iterator[dict[str, Any]]:
    """Yield the lines of a synthetic multi-rater span corpus.

    Parameters
    ----------
    n_documents : int
        Number of documents (``doc-000000``, ``doc-000001``, ...).
    n_raters : int, default 3
        Number of raters (``rater_0``, ``rater_1``, ...); at least 2.
    seed : int, default 0
        Seed of the random generator; the whole corpus (vocabulary included) follows from it.
    labels : sequence of str
        Entity labels, drawn uniformly for true and spurious entities.
    p_miss : float
        Probability that a rater leaves out a true entity.
    p_relabel : float
        Probability that a rater gives a (kept) true entity a different label.
    p_shift : float
        Probability that a rater moves one boundary of a (kept) true entity by one word:
        extend or shrink, at the start or the end, among the moves that keep the span
        non-empty, inside the text and clear of the rater's other spans.
    p_spurious : float
        Probability, for each true entity and once more per document, that the rater adds a
        spurious span of 1-3 words somewhere that does not overlap its other spans.
    p_skip_document : float, default 0.0
        Probability that a rater does not submit a document at all (no line). A document
        always keeps at least two raters: if too many skip, some are put back at random.

    Yields
    ------
    dict
        ``{"doc_id", "text", "annotator", "spans"}``, ordered by document, then rater.
        ``spans`` are sorted by start, non-overlapping and on word boundaries.

    Notes
    -----
    The defaults are tuned so that 10,000 documents with 3 raters give about 36,000 spans per
    rater, about 16 MB of JSONL, and a pairwise exact-match PSA of about 0.7.
    """
    if n_documents < 0:
        raise ValueError(f"n_documents must be >= 0, got {n_documents}")
    if n_raters < 2:
        raise ValueError(f"n_raters must be >= 2 (agreement needs two raters), got {n_raters}")
    labels = tuple(labels)
    if not labels or len(set(labels)) != len(labels):
        raise ValueError(f"labels must be non-empty and distinct, got {labels!r}")
    for name, p in (
        ("p_miss", p_miss),
        ("p_relabel", p_relabel),
        ("p_shift", p_shift),
        ("p_spurious", p_spurious),
        ("p_skip_document", p_skip_document),
    ):
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{name} must be in [0, 1], got {p}")

    # Who submits comes from its own stream, so p_skip_document removes lines but never
    # changes the text or the spans of the lines that remain.
    rng, skip_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    vocabulary = _make_vocabulary(rng)
    raters = [f"rater_{r}" for r in range(n_raters)]
    width = max(6, len(str(max(n_documents - 1, 0))))

    for i in range(n_documents):
        text, word_starts, word_ends, truth = _make_document(rng, vocabulary, len(labels))
        n_words = len(word_starts)
        submitted = _submitting_raters(skip_rng, n_raters, p_skip_document)
        doc_id = f"doc-{i:0{width}d}"
        for r in range(n_raters):
            # Draw every rater's spans, submitted or not, for the same reason.
            spans = _rater_spans(
                rng, truth, n_words, len(labels), p_miss, p_relabel, p_shift, p_spurious
            )
            if not submitted[r]:
                continue
            yield {
                "doc_id": doc_id,
                "text": text,
                "annotator": raters[r],
                "spans": [
                    {"start": word_starts[first], "end": word_ends[last - 1], "label": labels[lab]}
                    for first, last, lab in spans
                ],
            }


def write_jsonl(lines: Iterable[dict[str, Any]], path: str | os.PathLike[str]) -> int:
    """Write ``lines`` to ``path`` as JSON Lines (UTF-8) and return how many were written."""
    n = 0
    with atomic_write(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False))
            f.write("\n")
            n += 1
    return n


# --- internals -------------------------------------------------------------------------------
# Spans are handled as word ranges ``(first_word, end_word_exclusive, label_index)`` and turned
# into character offsets only when a line is yielded.

_Span = tuple[int, int, int]


def _make_vocabulary(rng: np.random.Generator) -> list[str]:
    """Distinct made-up words of 1-3 consonant-vowel(-consonant) syllables."""
    words: set[str] = set()
    ordered: list[str] = []
    while len(ordered) < _VOCABULARY_SIZE:
        n_syllables = int(rng.choice(_SYLLABLES, p=_SYLLABLE_P))
        parts = []
        for _ in range(n_syllables):
            syllable = _CONSONANTS[rng.integers(len(_CONSONANTS))] + _VOWELS[rng.integers(len(_VOWELS))]
            if rng.random() < _P_CODA:
                syllable += _CONSONANTS[rng.integers(len(_CONSONANTS))]
            parts.append(syllable)
        word = "".join(parts)
        if word not in words:
            words.add(word)
            ordered.append(word)
    return ordered


def _make_document(
    rng: np.random.Generator, vocabulary: list[str], n_labels: int
) -> tuple[str, list[int], list[int], list[_Span]]:
    """A text, its word start/end character offsets, and its true entities (word ranges)."""
    n_words = int(rng.integers(_WORDS_PER_DOCUMENT[0], _WORDS_PER_DOCUMENT[1] + 1))

    # True entities: lengths first, then non-overlapping places with at least one word between.
    n_entities = int(rng.poisson(_MEAN_ENTITIES))
    lengths = [int(x) for x in rng.choice(_ENTITY_WORDS, size=n_entities, p=_ENTITY_WORD_P)]
    while lengths and sum(lengths) + len(lengths) - 1 > n_words:
        lengths.pop()
    truth: list[_Span] = []
    if lengths:
        k = len(lengths)
        free = n_words - sum(lengths) - (k - 1)
        # Uniform composition of `free` extra words into k + 1 gaps (stars and bars).
        bars = np.sort(rng.choice(free + k, size=k, replace=False))
        gaps = np.diff(np.concatenate(([-1], bars, [free + k]))) - 1
        entity_labels = rng.integers(n_labels, size=k)
        pos = 0
        for j, length in enumerate(lengths):
            pos += int(gaps[j]) + (1 if j else 0)
            truth.append((pos, pos + length, int(entity_labels[j])))
            pos += length

    # Text: entity words capitalised like names, a few commas, a final full stop.
    word_ids = rng.integers(len(vocabulary), size=n_words)
    commas = rng.random(n_words) < _P_COMMA
    capital = np.zeros(n_words, dtype=bool)
    capital[0] = True
    for first, last, _ in truth:
        capital[first:last] = True
    tokens: list[str] = []
    word_starts: list[int] = []
    word_ends: list[int] = []
    offset = 0
    for w in range(n_words):
        word = vocabulary[word_ids[w]]
        if capital[w]:
            word = word.capitalize()
        word_starts.append(offset)
        word_ends.append(offset + len(word))
        if w == n_words - 1:
            word += "."
        elif commas[w]:
            word += ","
        tokens.append(word)
        offset += len(word) + 1
    return " ".join(tokens), word_starts, word_ends, truth


def _submitting_raters(rng: np.random.Generator, n_raters: int, p_skip: float) -> np.ndarray:
    """Boolean mask of the raters who submit a document; always at least two."""
    submitted = rng.random(n_raters) >= p_skip
    missing = 2 - int(submitted.sum())
    if missing > 0:
        skipped = np.flatnonzero(~submitted)
        submitted[rng.choice(skipped, size=missing, replace=False)] = True
    return submitted


def _rater_spans(
    rng: np.random.Generator,
    truth: list[_Span],
    n_words: int,
    n_labels: int,
    p_miss: float,
    p_relabel: float,
    p_shift: float,
    p_spurious: float,
) -> list[_Span]:
    """One rater's spans: the truth perturbed, plus spurious spans; sorted, non-overlapping."""
    spans: list[_Span] = []
    prev_end = 0  # end (exclusive word index) of this rater's previous kept span
    for j, (first, last, label) in enumerate(truth):
        # One draw per decision keeps the stream layout fixed whatever the probabilities.
        u_miss, u_relabel, u_shift = rng.random(3)
        if u_miss < p_miss:
            continue
        if u_relabel < p_relabel and n_labels > 1:
            label = (label + int(rng.integers(1, n_labels))) % n_labels
        if u_shift < p_shift:
            next_first = truth[j + 1][0] if j + 1 < len(truth) else n_words
            moves = []
            if first - 1 >= prev_end:
                moves.append((first - 1, last))  # extend at the start
            if last + 1 <= next_first:
                moves.append((first, last + 1))  # extend at the end
            if last - first >= 2:
                moves.append((first + 1, last))  # shrink at the start
                moves.append((first, last - 1))  # shrink at the end
            if moves:
                first, last = moves[int(rng.integers(len(moves)))]
        spans.append((first, last, label))
        prev_end = last

    n_spurious = int(rng.binomial(len(truth) + 1, p_spurious)) if p_spurious > 0 else 0
    if n_spurious:
        occupied = np.zeros(n_words, dtype=bool)
        for first, last, _ in spans:
            occupied[first:last] = True
        for _ in range(n_spurious):
            length = int(rng.choice(_SPURIOUS_WORDS, p=_SPURIOUS_WORD_P))
            if length > n_words:
                continue
            for _try in range(_PLACEMENT_TRIES):
                first = int(rng.integers(n_words - length + 1))
                if not occupied[first : first + length].any():
                    occupied[first : first + length] = True
                    spans.append((first, first + length, int(rng.integers(n_labels))))
                    break
        spans.sort()
    return spans
