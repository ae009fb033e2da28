"""Documents, raters and spans, held column-wise (docs/formats.md).

A :class:`Corpus` keeps every span of every rater in a few flat NumPy arrays, grouped by
annotation (one document as submitted by one rater), so that alignment and counting run over the
whole corpus at once instead of span by span. Readers fill a :class:`CorpusBuilder`, which
validates what is common to every format (text identity across raters, duplicates) and counts
everything it leaves out.

Offsets are half-open ``[start, end)`` character offsets into the document text. When the input
carries tokens, each document also keeps its tokens' character offsets, and spans can be measured
in tokens (``unit="token"``).
"""
from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Hashable, Sequence

import numpy as np

from .arrays import ranges
from .raw_spans import SpanTuple, parse_spans, span_columns
from .structure import PendingStructure, Structure, check_attribute_value, resolve
from ..errors import InputError, Location, UsageError, describe, option



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
        self.documents.update(other.documents)
        self.annotations.update(other.annotations)
        self.spans.update(other.spans)
        self.notes.update(other.notes)
        self.relations.update(other.relations)
        self.attributes.update(other.attributes)


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
        lo, hi = self.ann_ptr[hit[0]], self.ann_ptr[hit[0] + 1]
        return [
            (int(s), int(e), self.labels[lab])
            for s, e, lab in zip(self.span_start[lo:hi], self.span_end[lo:hi], self.span_label[lo:hi])
        ]

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


class CorpusBuilder:
    """Collects annotations from readers, validates them across raters, and builds a Corpus."""

    def __init__(self, progress: Callable[[int, int], None] | None = None, total_bytes: int = 0) -> None:
        self._progress = progress
        self._total_bytes = total_bytes
        self._bytes_done = 0
        self._doc_index: dict[Hashable, int] = {}
        self._doc_ids: list[str] = []
        self._texts: list[str] = []
        self._text_source: list[tuple[str, Location]] = []
        self._tokens: list[np.ndarray | None] = []
        self._token_rater: list[str | None] = []
        self._token_conflicts: dict[int, tuple[str, str]] = {}
        self._token_conflict_where: dict[int, Location] = {}
        self._token_versions: dict[int, dict[bytes, str]] = {}
        self._rater_index: dict[str, int] = {}
        self._ann_seen: dict[tuple[int, int], tuple[int, int, Location]] = {}
        self._ann_doc: list[int] = []
        self._ann_rater: list[int] = []
        self._ann_len: list[int] = []
        # spans held column-wise in blocks (start, end, first-seen label code), in the order of
        # their annotations; spans not yet in a block wait in one of two queues
        self._blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._block_first: list[int] = []  # the position of each block's first span
        self._n_spans_held = 0  # spans in blocks and queues: the position of the next span
        self._label_index: dict[str, int] = {}
        self._label_names: list[str] = []  # by first-seen code (the keys of _label_index, in order)
        self._starts: list[int] = []  # queue of validated spans (add)
        self._ends: list[int] = []
        self._labels: list[str] = []
        # queue of raw span lists (add_unchecked), each with its annotation's (document, rater) codes
        self._unchecked: list[tuple[list, int, Location, str, tuple[int, int]]] = []
        self._doc_labels: dict[tuple[int, int], dict[str, int]] = {}
        self._judged_all: set[tuple[int, int]] = set()
        # relations, events and attributes by (document, rater) code: only when the input has them
        self._pending: dict[tuple[int, int], PendingStructure] = {}
        self._lost: list[str] = []
        self.exclusions = Exclusions()
        self.n_annotations_read = 0
        self.n_spans_read = 0
        self._extra_parts: dict[tuple[Hashable, str], int] = {}

    def tick(self, n_bytes: int) -> None:
        """Readers report bytes read; the progress callback, if any, hears (done, total)."""
        self._bytes_done += n_bytes
        if self._progress is not None:
            self._progress(self._bytes_done, self._total_bytes)

    def parts(self, key: Hashable, rater: str, extra: int) -> None:
        """Say that ``extra`` of the spans added for (document, rater) are further parts of
        annotations already counted (a discontinuous annotation scored as its fragments): "read"
        counts the annotations the input holds, and the report counts scored spans alike."""
        self.n_spans_read -= extra
        cell = (key, rater)
        self._extra_parts[cell] = self._extra_parts.get(cell, 0) + extra

    def about(self, key: Hashable) -> None:
        """Say which document the line being read is about, for a reader that adds what the line
        holds only once the file is read (nothing to do here; the engines' builder notes it)."""

    def document(self, key: Hashable, doc_id: str, text: str, where: Location, rater: str) -> int:
        """Register a document (or check that its text matches what other raters saw)."""
        index = self._doc_index.get(key)
        if index is None:
            _check_name(doc_id, "document id", where, doc_id)
            index = len(self._doc_ids)
            self._doc_index[key] = index
            self._doc_ids.append(doc_id)
            self._texts.append(text)
            self._text_source.append((rater, where))
            self._tokens.append(None)
            self._token_rater.append(None)
            return index
        seen = self._texts[index]
        if seen != text:
            first_rater, first_where = self._text_source[index]
            offset = next(
                (i for i, (x, y) in enumerate(zip(seen, text)) if x != y), min(len(seen), len(text))
            )
            raise InputError(
                f"the text differs from the text rater {first_rater!r} saw ({first_where}); "
                f"rater {rater!r}'s text first differs at character offset {offset} "
                f"(lengths {len(seen)} and {len(text)}); every rater must see the same text",
                where=where,
                doc_id=doc_id,
                field="text",
            )
        return index

    def _new_rater(self, rater: str, where: Location, doc_id: str) -> int:
        """The code of a rater seen for the first time (its name checked once)."""
        _check_name(rater, "rater name", where, doc_id)
        if not str(rater).strip():
            raise InputError(
                f"the rater name {rater!r} is empty; expected a rater name", where=where, doc_id=doc_id
            )
        code = self._rater_index[rater] = len(self._rater_index)
        return code

    def skip(
        self, key: Hashable, doc_id: str, text: str, where: Location, rater: str, reason: str, n_spans: int = 0
    ) -> None:
        """Count an annotation that was read but is not data (e.g. Prodigy ``ignore``), and its spans."""
        self.n_annotations_read += 1
        self.n_spans_read += n_spans
        self.exclusions.annotations[reason] += 1
        if n_spans:
            self.exclusions.spans[f"on an excluded annotation ({reason})"] += n_spans
        self.document(key, doc_id, text, where, rater)

    def add(
        self,
        key: Hashable,
        doc_id: str,
        text: str,
        rater: str,
        spans: Sequence[SpanTuple],
        where: Location,
        tokens: np.ndarray | None = None,
    ) -> None:
        """Add one rater's validated spans for one document."""
        if self._unchecked:
            self.check_spans()
        n_read = len(spans)
        previous = self._annotation(key, doc_id, text, rater, n_read, where, tokens)
        if previous is not None:
            self._repeated(previous, spans, rater, doc_id, where)
        elif n_read == 1:
            start, end, label = spans[0]
            self._starts.append(start)
            self._ends.append(end)
            self._labels.append(label)
        elif spans:
            first, second, third = zip(*spans)
            self._starts.extend(first)
            self._ends.extend(second)
            self._labels.extend(third)

    #: Raw span lists wait for their check until this many lines are queued.
    UNCHECKED_LINES = 1024

    def add_unchecked(
        self, key: Hashable, doc_id: str, text: str, rater: str, raw_spans: list, where: Location,
        tokens: np.ndarray | None = None,
    ) -> None:
        """Add one rater's spans as read, ``[{"start": int, "end": int, "label": str}, ...]``,
        checked later, a block of lines at a time (:meth:`check_spans`).

        The same as ``add(..., parse_spans(raw_spans, len(text), where, doc_id), where)``, only
        faster: the checks of a block run over all its spans at once. A bad span is still
        reported for its own line, and before any error of a later line (a reader calls
        :meth:`check_spans` before it raises).
        """
        if self._starts:
            self._queue_to_block()
        n_read = len(raw_spans)
        try:
            previous = self._annotation(key, doc_id, text, rater, n_read, where, tokens)
            if previous is not None:
                self._repeated(previous, None, rater, doc_id, where, raw_spans, len(text))
                return
        except InputError as error:  # a bad span of an earlier line, or of this one, comes first
            self.check_spans()
            if error.where == where:
                parse_spans(raw_spans, len(text), where, doc_id)
            raise
        if n_read:
            queue = self._unchecked
            queue.append((raw_spans, len(text), where, doc_id, (self._ann_doc[-1], self._ann_rater[-1])))
            if len(queue) >= self.UNCHECKED_LINES:
                self.check_spans()

    def _annotation(
        self, key: Hashable, doc_id: str, text: str, rater: str, n_read: int, where: Location,
        tokens: np.ndarray | None,
    ) -> tuple[int, int, Location] | None:
        """Register one line's annotation (its document, tokens and rater; ``n_read`` spans to
        come next in order), or return where the same (document, rater) was read before."""
        # once per line of input: attribute look-ups kept few on purpose
        self.n_annotations_read += 1
        self.n_spans_read += n_read
        doc = self._doc_index.get(key)
        if doc is None or self._texts[doc] != text:  # new document, or a text to check and report
            doc = self.document(key, doc_id, text, where, rater)
        if tokens is not None:
            self._add_tokens(doc, rater, tokens, where)
        rater_code = self._rater_index.get(rater)
        if rater_code is None:
            rater_code = self._new_rater(rater, where, doc_id)
        ann_key = (doc, rater_code)
        seen = self._ann_seen
        if ann_key in seen:
            return seen[ann_key]
        seen[ann_key] = (self._n_spans_held, n_read, where)
        self._n_spans_held += n_read
        self._ann_doc.append(doc)
        self._ann_rater.append(rater_code)
        self._ann_len.append(n_read)  # duplicates are dropped, and counted, when the corpus is built
        return None

    def check_spans(self) -> None:
        """Check the queued raw span lists (:meth:`add_unchecked`) and move them into a block;
        raise the InputError of the first bad span, naming its line."""
        queue = self._unchecked
        if not queue:
            return
        self._unchecked = []
        flat = [span for raw, _, _, _, _ in queue for span in raw]
        columns = span_columns(flat)
        if columns is not None:
            starts, ends, labels = columns
            limit = np.repeat(
                np.fromiter((n for _, n, _, _, _ in queue), np.int64, len(queue)),
                np.fromiter((len(raw) for raw, _, _, _, _ in queue), np.int64, len(queue)),
            )
            if not ((starts >= 0) & (starts < ends) & (ends <= limit)).all():
                columns = None
            elif not all(label and not label.isspace() for label in set(labels) - self._label_index.keys()):
                columns = None
        if columns is None:  # something is wrong: the per-line check names it
            checked = [parse_spans(raw, n, where, doc_id) for raw, n, where, doc_id, _ in queue]
            starts = np.array([s for spans in checked for s, _, _ in spans], dtype=np.int64)
            ends = np.array([e for spans in checked for _, e, _ in spans], dtype=np.int64)
            labels = [label for spans in checked for _, _, label in spans]
        if flat and max(map(len, flat)) > 3:  # some span has more than start, end, label (C loop: cheap)
            self._span_structure(queue)
        self._store_block(starts, ends, labels)

    def _span_structure(self, queue: list) -> None:
        """Span ids and attributes of queued raw spans (``{"id": str, "attributes": {name: value}}``)."""
        for raw, _, where, doc_id, codes in queue:
            for i, span in enumerate(raw):
                if len(span) <= 3 or not ("id" in span or "attributes" in span):
                    continue
                self._one_span_structure(self._pending_at(codes), span, i, where, doc_id)

    def _one_span_structure(self, pending: PendingStructure, span: dict, i: int, where: Location, doc_id: str) -> None:
        spot = (span["start"], span["end"], span["label"])
        if "id" in span:
            span_id = span["id"]
            if type(span_id) is int and not isinstance(span_id, bool):
                span_id = str(span_id)
            if type(span_id) is not str or not span_id:
                raise InputError(
                    f"got {describe(span_id)}; expected a span id (a non-empty string or an integer)",
                    where=where, doc_id=doc_id, field=f"spans[{i}].id",
                )
            seen = pending.ids.get(span_id)
            if seen is not None and seen[0] != spot:
                raise InputError(
                    f"span id {span_id!r} is also the id of span {list(seen[0])}; expected ids unique "
                    "within a rater's annotation of a document",
                    where=where, doc_id=doc_id, field=f"spans[{i}].id",
                )
            pending.ids[span_id] = (spot, where)
        attributes = span.get("attributes")
        if attributes is None:
            return
        if type(attributes) is not dict:
            raise InputError(
                f"got {describe(attributes)}; expected an object of attribute name -> value",
                where=where, doc_id=doc_id, field=f"spans[{i}].attributes",
            )
        for name, value in attributes.items():
            place = f"spans[{i}].attributes.{name}"
            if not name or name.isspace():
                raise InputError("empty; expected an attribute name", where=where, doc_id=doc_id, field=place)
            if value is False or value is None:  # a flag not set, or no value: nothing to hold
                continue
            pending.attributes.append((spot, name, check_attribute_value(value, where, doc_id, place), where, place))

    def _pending_at(self, codes: tuple[int, int]) -> PendingStructure:
        pending = self._pending.get(codes)
        if pending is None:
            pending = self._pending[codes] = PendingStructure()
        return pending

    def structure(self, key: Hashable, rater: str) -> PendingStructure:
        """The relations, events and attributes of one annotation added before (by :meth:`add` or
        :meth:`add_unchecked`), for a reader to fill (:class:`~spanagree.core.structure.PendingStructure`)."""
        return self._pending_at((self._doc_index[key], self._rater_index[rater]))

    def structure_lost(self, why: str) -> None:
        """Say that the input cannot carry relations or region attributes, and why (a report asked
        for their agreement says so rather than "no relations")."""
        if why not in self._lost:
            self._lost.append(why)

    def _queue_to_block(self) -> None:
        """Move the queue of validated spans (:meth:`add`) into a block."""
        starts = np.array(self._starts, dtype=np.int64)
        ends = np.array(self._ends, dtype=np.int64)
        labels, self._starts, self._ends, self._labels = self._labels, [], [], []
        self._store_block(starts, ends, labels)

    def _store_block(self, starts: np.ndarray, ends: np.ndarray, labels: list[str]) -> None:
        index = self._label_index
        for label in set(labels) - index.keys():
            index[label] = len(index)
            self._label_names.append(label)
        codes = np.fromiter(map(index.__getitem__, labels), np.int64, len(labels))
        self._block_first.append(self._block_first[-1] + len(self._blocks[-1][0]) if self._blocks else 0)
        self._blocks.append((starts, ends, codes))

    def _flush_spans(self) -> None:
        """Every queued span into a block (raw ones checked first)."""
        self.check_spans()
        if self._starts:
            self._queue_to_block()

    def _held_spans(self, first: int, n: int) -> list[SpanTuple]:
        """The spans at positions ``first .. first + n`` (one annotation's: always in one block)."""
        if not n:
            return []
        self._flush_spans()
        block = bisect_right(self._block_first, first) - 1
        starts, ends, codes = self._blocks[block]
        lo = first - self._block_first[block]
        names = self._label_names
        return [(int(s), int(e), names[c]) for s, e, c in zip(starts[lo:lo + n], ends[lo:lo + n], codes[lo:lo + n])]

    def _add_tokens(self, doc: int, rater: str, tokens: np.ndarray, where: Location) -> None:
        """Keep the first token list of a document. When raters' lists differ, remember, for the
        two versions whose alphabetically first raters come first, those two raters (the same
        whatever the order of the input lines)."""
        held = self._tokens[doc]
        if held is None:
            self._tokens[doc], self._token_rater[doc] = tokens, rater
            return
        versions = self._token_versions.get(doc)
        if versions is None:  # one version so far; _token_rater holds its alphabetically first rater
            if tokens is held or np.array_equal(held, tokens):  # the same again: the usual case
                self._token_rater[doc] = min(self._token_rater[doc], rater)
                return
            versions = self._token_versions[doc] = {_digest(held): self._token_rater[doc]}
        key = _digest(tokens)
        versions[key] = min(versions.get(key, rater), rater)
        if len(versions) > 1:
            first, second = sorted(versions.values())[:2]
            self._token_conflicts[doc] = (first, second)
            self._token_conflict_where.setdefault(doc, where)

    def _repeated(self, previous, spans, rater, doc_id, where, raw_spans=None, text_len=0) -> None:
        """A second line for the same (document, rater): kept once if identical, else an error.
        ``spans`` are validated tuples, or None with ``raw_spans`` as read."""
        if spans is None:
            self.check_spans()
            spans = parse_spans(raw_spans, text_len, where, doc_id)
        n_read = len(spans)
        first, n, first_where = previous
        if sorted(set(self._held_spans(first, n))) != sorted(set(spans)):
            raise InputError(
                f"rater {rater!r} has two different annotations of this document "
                f"(the other at {first_where}); keep one line per document and rater",
                where=where,
                doc_id=doc_id,
                field="spans",
            )
        self.exclusions.annotations["repeated identical annotation line (kept once)"] += 1
        self.exclusions.spans["on a repeated annotation line"] += n_read

    def _doc_label_rows(self, doc_rank: np.ndarray, rater_rank: np.ndarray) -> tuple[list[str], np.ndarray]:
        """Document labels as sorted rows (doc, rater, label, value), labels sorted by name.

        A rater who chose among all labels judged every label seen in the corpus: the ones not
        given are explicit zeros."""
        names = sorted({label for values in self._doc_labels.values() for label in values})
        code = {name: i for i, name in enumerate(names)}
        rows = []
        for (doc, rater), values in self._doc_labels.items():
            full = dict.fromkeys(names, 0) if (doc, rater) in self._judged_all else {}
            full.update(values)
            rows.extend((doc_rank[doc], rater_rank[rater], code[label], value) for label, value in full.items())
        return names, np.array(sorted(rows), dtype=np.int64).reshape(-1, 4)

    def add_labels(
        self,
        key: Hashable,
        doc_id: str,
        text: str,
        rater: str,
        labels: Sequence[str],
        where: Location,
        judged: Sequence[str] | None = None,
    ) -> None:
        """Add one rater's document labels (text classification).

        ``labels`` are the labels the rater gave; ``judged`` the labels the rater decided on
        (given or not), or None when the rater chose among all labels (a label list, a choice
        task). Answers for the same document and rater merge (Prodigy asks one label per task);
        a label judged both ways is an error.
        """
        doc = self._doc_index.get(key)
        if doc is None or self._texts[doc] != text:
            doc = self.document(key, doc_id, text, where, rater)
        rater_code = self._rater_index.get(rater)
        cell = (doc, self._new_rater(rater, where, doc_id) if rater_code is None else rater_code)
        values = self._doc_labels.setdefault(cell, {})
        decided = {label: 0 for label in (judged or ())}
        decided.update((label, 1) for label in labels)
        for label, value in decided.items():
            if values.setdefault(label, value) != value:
                raise InputError(
                    f"rater {rater!r} both gave and rejected label {label!r} for this document",
                    where=where, doc_id=doc_id, field="label",
                )
        if judged is None:
            self._judged_all.add(cell)

    def build(self) -> Corpus:
        """Sort documents, raters, labels and spans canonically and return the Corpus."""
        doc_order = sorted(range(len(self._doc_ids)), key=lambda i: self._doc_ids[i])
        doc_rank = np.empty(len(doc_order), dtype=np.int64)
        doc_rank[doc_order] = np.arange(len(doc_order))
        raters = sorted(self._rater_index)
        rater_rank = _rank_codes(self._rater_index, raters)
        self._flush_spans()
        labels = sorted(self._label_index)
        label_rank = _rank_codes(self._label_index, labels)
        blocks = self._blocks or [(np.zeros(0, np.int64),) * 3]
        held_starts, held_ends, held_codes = (np.concatenate([block[i] for block in blocks]) for i in range(3))

        ann_doc = doc_rank[np.asarray(self._ann_doc, dtype=np.int64)]
        ann_rater = rater_rank[np.asarray(self._ann_rater, dtype=np.int64)]
        ann_len = np.asarray(self._ann_len, dtype=np.int64)
        # gather spans annotation by annotation in the new order, then sort each annotation's
        # by (start, end, label code); input that is in order already (grouped by document,
        # raters and spans in order) skips the sorts
        if _in_order(ann_doc, ann_rater):
            ann_order = np.arange(len(ann_doc))
            lens = ann_len
            starts, ends, labs = held_starts, held_ends, label_rank[held_codes]
        else:
            ann_order = np.lexsort((ann_rater, ann_doc))
            old_ptr = np.concatenate([[0], np.cumsum(ann_len)])
            lens = ann_len[ann_order]
            span_idx = ranges(old_ptr[ann_order], lens)
            starts, ends, labs = held_starts[span_idx], held_ends[span_idx], label_rank[held_codes[span_idx]]
        ann_of_span = np.repeat(np.arange(len(lens)), lens)
        if not _in_order(ann_of_span, starts, ends, labs):
            span_order = np.lexsort((labs, ends, starts, ann_of_span))
            starts, ends, labs, ann_of_span = (
                starts[span_order], ends[span_order], labs[span_order], ann_of_span[span_order]
            )
        exclusions = self.exclusions
        repeat = (
            (ann_of_span[1:] == ann_of_span[:-1]) & (starts[1:] == starts[:-1])
            & (ends[1:] == ends[:-1]) & (labs[1:] == labs[:-1])
        )
        if repeat.any():  # the same span twice in one annotation
            exclusions.spans["duplicate span of the same rater (kept once)"] += int(repeat.sum())
            keep = np.concatenate([[True], ~repeat])
            starts, ends, labs = starts[keep], ends[keep], labs[keep]
            lens = np.bincount(ann_of_span[keep], minlength=len(lens))
        with_data = np.bincount(ann_doc, minlength=len(self._doc_ids)) > 0
        with_data[doc_rank[[doc for doc, _ in self._doc_labels]]] = True
        never = len(self._doc_ids) - int(with_data.sum())
        if never:
            exclusions.documents["no submitted annotation"] += never
        doc_label_names, dl = self._doc_label_rows(doc_rank, rater_rank)
        return Corpus(
            doc_ids=[self._doc_ids[i] for i in doc_order],
            texts=[self._texts[i] for i in doc_order],
            doc_tokens=[self._tokens[i] for i in doc_order],
            raters=raters,
            labels=labels,
            ann_doc=ann_doc[ann_order],
            ann_rater=ann_rater[ann_order],
            ann_ptr=np.concatenate([[0], np.cumsum(lens)]).astype(np.int64),
            span_start=starts,
            span_end=ends,
            span_label=labs,
            exclusions=exclusions,
            doc_label_names=doc_label_names,
            dl_doc=dl[:, 0],
            dl_rater=dl[:, 1],
            dl_label=dl[:, 2],
            dl_value=dl[:, 3].astype(np.int8),
            n_documents_read=len(self._doc_ids),
            n_annotations_read=self.n_annotations_read,
            n_spans_read=self.n_spans_read,
            extra_parts={(self._doc_ids[self._doc_index[key]], rater): n for (key, rater), n in self._extra_parts.items()},
            token_conflicts={self._doc_ids[d]: pair for d, pair in self._token_conflicts.items()},
            token_conflict_where={self._doc_ids[d]: w for d, w in self._token_conflict_where.items()},
            structure=self._build_structure(doc_rank, rater_rank, ann_doc[ann_order], ann_rater[ann_order], starts, ends, labs, lens, labels),
        )

    def _build_structure(self, doc_rank, rater_rank, ann_doc, ann_rater, starts, ends, labs, lens, labels) -> Structure | None:
        """The corpus's :class:`Structure` from what readers handed over, or None when nothing was."""
        if not self._pending and not self._lost:
            return None
        self._flush_spans()
        final = {(int(d), int(r)): i for i, (d, r) in enumerate(zip(ann_doc.tolist(), ann_rater.tolist()))}
        ptr = np.concatenate([[0], np.cumsum(lens)])
        pending, spans_of, doc_id_of = {}, {}, {}
        for (doc, rater), item in self._pending.items():
            ann = final.get((int(doc_rank[doc]), int(rater_rank[rater])))
            if ann is None:  # the annotation was not kept (only counted): its structure neither
                self.exclusions.relations["on an excluded annotation"] += len(item.relations)
                self.exclusions.attributes["on an excluded annotation"] += len(item.attributes)
                continue
            pending[ann] = item
            lo, hi = ptr[ann], ptr[ann + 1]
            spans_of[ann] = {
                (s, e, labels[c]) for s, e, c in zip(starts[lo:hi].tolist(), ends[lo:hi].tolist(), labs[lo:hi].tolist())
            }
            doc_id_of[ann] = self._doc_ids[doc]
        structure = resolve(pending, spans_of, doc_id_of, self.exclusions.relations, self.exclusions.attributes)
        structure.lost = list(self._lost)
        return structure


def _in_order(*keys: np.ndarray) -> bool:
    """True when the rows are in lexicographic order of ``keys`` (the first key first; ties
    allowed), as ``np.lexsort(keys[::-1])`` would put them."""
    if len(keys[0]) < 2:
        return True
    tied = np.ones(len(keys[0]) - 1, dtype=bool)
    for key in keys:
        before, after = key[:-1], key[1:]
        if (tied & (after < before)).any():
            return False
        tied &= after == before
        if not tied.any():
            break
    return True


def _check_name(name: Any, what: str, where: Location, doc_id: Any) -> None:
    """A rater name or document id must be text that can be written as UTF-8: a name taken from
    a file name whose bytes are not UTF-8 holds lone surrogates (Python's ``surrogateescape``),
    which no JSON, HTML or terminal output can carry."""
    if isinstance(name, str) and not name.isascii():
        try:
            name.encode("utf-8")
        except UnicodeEncodeError as error:
            raise InputError(
                f"the {what} {name.encode('utf-8', 'backslashreplace').decode('ascii')} is not Unicode text "
                f"(character {error.start}: a file name whose bytes are not UTF-8?); rename the file or "
                "give names that are text", where=where, doc_id=None if what == "document id" else doc_id,
            ) from None


def _digest(tokens: np.ndarray) -> bytes:
    """A short fingerprint of a token list (offsets as 64-bit integers)."""
    return hashlib.blake2b(np.ascontiguousarray(tokens, dtype=np.int64).tobytes(), digest_size=16).digest()


def _rank_codes(index: dict[str, int], ordered: list[str]) -> np.ndarray:
    """Map first-seen codes to ranks in ``ordered``."""
    rank = np.empty(len(index), dtype=np.int64)
    for new, name in enumerate(ordered):
        rank[index[name]] = new
    return rank
