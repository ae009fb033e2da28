"""Documents, raters and spans, held column-wise (docs/formats.md).

A :class:`Corpus` keeps every span of every rater in a few flat NumPy arrays, grouped by
annotation (one document as submitted by one rater), so that alignment and counting run over the
whole corpus at once instead of span by span. Readers fill a
:class:`~spanagree.core.builder.CorpusBuilder`, which validates what is common to every format
(text identity across raters, duplicates) and counts everything it leaves out.

Offsets are half-open ``[start, end)`` character offsets into the document text. When the input
carries tokens, each document also keeps its tokens' character offsets, and spans can be measured
in tokens (``unit="token"``).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .raw_spans import SpanTuple
from .structure import Structure
from ..errors import InputError, Location, UsageError, option



@dataclass
class Exclusions:
    """What was read but not scored, by kind and reason (docs/formats.md: nothing is dropped silently),
    and in ``notes`` what was kept but changed on the way (a discontinuous span split into its
    fragments, an ill-formed tag sequence repaired, ...)."""

    documents: Counter = field(default_factory=Counter)
    annotations: Counter = field(default_factory=Counter)
    spans: Counter = field(default_factory=Counter)
    notes: Counter = field(default_factory=Counter)
    relations: Counter = field(default_factory=Counter)
    attributes: Counter = field(default_factory=Counter)

    def merge(self, other: "Exclusions") -> None:
        for kind, counter in vars(self).items():
            counter.update(getattr(other, kind))


def one_line(corpus: Any) -> str:
    """A corpus in a line: counts and the first rater names, never the texts or the arrays."""
    raters = corpus.raters
    shown = ", ".join(raters[:3]) + (f", ... ({len(raters)})" if len(raters) > 3 else "")
    shown = shown if len(shown) <= 120 else shown[:117] + "..."
    n_spans = int(corpus.ann_ptr[-1]) if len(corpus.ann_ptr) else 0
    return (f"{type(corpus).__name__}({corpus.n_documents} documents, {len(raters)} raters [{shown}], "
            f"{corpus.n_annotations} annotations, {n_spans} spans, {len(corpus.labels)} labels)")


@dataclass
class Corpus:
    """Every rater's spans for every document, column-wise.

    Annotations (a document as submitted by one rater) are sorted by document, then rater; spans
    by annotation, then ``(start, end, label)``. Documents, raters and labels are sorted, so the
    arrays do not depend on the order of the input lines.

    Attributes
    ----------
    doc_ids, texts : list of str, one per document.
    doc_tokens : list of (n_tokens, 2) int arrays of token character offsets, or None per document.
    raters, labels : sorted lists of str; codes index into them.
    ann_doc, ann_rater : int arrays of shape (n_annotations,).
    ann_ptr : int array of shape (n_annotations + 1,); annotation ``i`` owns spans
        ``ann_ptr[i]:ann_ptr[i + 1]``.
    span_start, span_end, span_label : int arrays of shape (n_spans,).
    exclusions : what was read and left out, with reasons.
    doc_label_names : sorted document labels (text classification), if any.
    dl_doc, dl_rater, dl_label, dl_value : one row per judged (document, rater, label);
        value 1 when the rater gave the label, 0 when the rater judged it absent.
    n_documents_read, n_annotations_read, n_spans_read : what the readers saw.
    extra_parts : per (document id, rater), the spans beyond the annotations read: the fragments
        of a discontinuous annotation scored apart are one annotation read and several spans.
    structure : relations, events and span attributes (:mod:`spanagree.core.structure`), or None
        when the input has none (the span-only path never builds one).
    """

    #: The spans, texts and each annotation's rater are here (a corpus counted by an engine,
    #: :class:`~spanagree.engine.merge.CorpusSummary`, has ids and counters only).
    has_spans: ClassVar[bool] = True

    doc_ids: list[str]
    texts: list[str]
    doc_tokens: list[np.ndarray | None]
    raters: list[str]
    labels: list[str]
    ann_doc: np.ndarray
    ann_rater: np.ndarray
    ann_ptr: np.ndarray
    span_start: np.ndarray
    span_end: np.ndarray
    span_label: np.ndarray
    exclusions: Exclusions = field(default_factory=Exclusions)
    doc_label_names: list[str] = field(default_factory=list)
    dl_doc: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    dl_rater: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    dl_label: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    dl_value: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))
    n_documents_read: int = 0
    n_annotations_read: int = 0
    n_spans_read: int = 0
    extra_parts: dict[tuple[str, str], int] = field(default_factory=dict)
    #: documents whose raters supplied different token lists: doc id -> two such raters (sorted)
    token_conflicts: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: where the line that first disagreed on a document's tokens was read
    token_conflict_where: dict[str, Location] = field(default_factory=dict)
    structure: Structure | None = None

    @property
    def n_documents(self) -> int:
        return len(self.doc_ids)

    def __repr__(self) -> str:
        return one_line(self)

    @property
    def n_annotations(self) -> int:
        return len(self.ann_doc)

    @property
    def n_spans(self) -> int:
        return len(self.span_start)

    @property
    def span_ann(self) -> np.ndarray:
        """The annotation index of every span, shape (n_spans,)."""
        return np.repeat(np.arange(self.n_annotations), np.diff(self.ann_ptr))

    def has_tokens(self) -> bool:
        """True when every document that has annotations also has tokens."""
        used = np.unique(self.ann_doc)
        return all(self.doc_tokens[d] is not None for d in used)

    def spans_of(self, doc_id: str, rater: str) -> list[SpanTuple]:
        """The spans one rater submitted for one document, as ``(start, end, label)``."""
        d = self.doc_ids.index(doc_id)
        r = self.raters.index(rater)
        hit = np.flatnonzero((self.ann_doc == d) & (self.ann_rater == r))
        if not len(hit):
            raise KeyError(f"rater {rater!r} did not submit document {doc_id!r}")
        return self.annotation_spans(int(hit[0]))

    def annotation_spans(self, ann: int) -> list[SpanTuple]:
        """The spans of annotation ``ann``, as ``(start, end, label)``."""
        lo, hi = self.ann_ptr[ann], self.ann_ptr[ann + 1]
        starts, ends, codes = (x[lo:hi].tolist() for x in (self.span_start, self.span_end, self.span_label))
        return [(s, e, self.labels[k]) for s, e, k in zip(starts, ends, codes)]

    def token_offsets(self) -> tuple[np.ndarray, np.ndarray, Counter]:
        """Span offsets in tokens: ``(token_start, token_end, notes)``, half-open.

        A span covers every token it overlaps; a span whose boundary falls inside a token is
        widened to whole tokens, and one that covers no token (only white space) gets
        ``token_start == token_end``. Both are counted in ``notes``.
        """
        if self.token_conflicts:
            doc_id, (first, second) = min(self.token_conflicts.items())
            raise InputError(
                f"raters {first!r} and {second!r} supplied different tokens for this document, so "
                f"token offsets would depend on whose line came first; give every rater the same "
                f"tokens or use {option('unit', 'char')} ({len(self.token_conflicts)} such documents)",
                where=self.token_conflict_where.get(doc_id),
                doc_id=doc_id,
                field="tokens",
            )
        if not self.has_tokens():
            missing = next(self.doc_ids[d] for d in np.unique(self.ann_doc) if self.doc_tokens[d] is None)
            raise UsageError(
                f"unit 'token' needs tokens, and document {missing!r} has none; "
                f"use input that carries tokens (Prodigy 'tokens', spaCy Docs) or {option('unit', 'char')}"
            )
        doc_of_span = self.ann_doc[self.span_ann]
        tok_start = np.empty(self.n_spans, dtype=np.int64)
        tok_end = np.empty(self.n_spans, dtype=np.int64)
        notes: Counter = Counter()
        order = np.argsort(doc_of_span, kind="stable")
        bounds = np.searchsorted(doc_of_span[order], np.arange(self.n_documents + 1))
        for d in range(self.n_documents):
            idx = order[bounds[d] : bounds[d + 1]]
            if not len(idx):
                continue
            toks = self.doc_tokens[d]
            starts, ends = self.span_start[idx], self.span_end[idx]
            # first token whose end is past the span start; first token that starts at/after the end
            ts = np.searchsorted(toks[:, 1], starts, side="right")
            te = np.searchsorted(toks[:, 0], ends, side="left")
            inexact = ~(np.isin(starts, toks[:, 0]) & np.isin(ends, toks[:, 1]))
            empty = te <= ts
            notes["spans widened to whole tokens"] += int((inexact & ~empty).sum())
            notes["spans covering no token"] += int(empty.sum())
            tok_start[idx] = ts
            tok_end[idx] = np.maximum(te, ts)
        return tok_start, tok_end, +notes
