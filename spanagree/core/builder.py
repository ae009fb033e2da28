"""Readers fill a :class:`CorpusBuilder`: documents, raters and spans as read, validated across
raters (text identity, repeated lines, names) and counted where left out; :meth:`CorpusBuilder.build`
sorts them into a :class:`~spanagree.core.model.Corpus`.

Lines come in three ways: :meth:`~CorpusBuilder.add` (spans a reader has validated),
:meth:`~CorpusBuilder.add_unchecked` (spans as read, checked a block of lines at a time) and
:meth:`~CorpusBuilder.add_lines` (typed records of a whole block, the common line of the spanagree
format, :mod:`spanagree.io.typed_lines`). Each takes the same input the same way.
"""
from __future__ import annotations

import hashlib
from bisect import bisect_right
from itertools import chain
from operator import attrgetter
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from .arrays import in_order, ranges
from .model import Corpus, Exclusions
from .raw_spans import SpanTuple, parse_spans, span_columns
from .structure import PendingStructure, Structure, check_attribute_value, resolve
from ..errors import InputError, Location, describe


class CorpusBuilder:
    """Collects annotations from readers, validates them across raters, and builds a Corpus."""

    def __init__(self, progress: Callable[[int, int], None] | None = None, total_bytes: int = 0) -> None:
        self._progress = progress
        self._total_bytes = total_bytes
        self._bytes_done = 0
        self._doc_index: dict[Hashable, int] = {}
        self._doc_ids: list[str] = []
        self._texts: list[str] = []
        self._text_source: list[tuple[str, Location | tuple[str, int] | None]] = []  # rater, where (_location)
        self._tokens: list[np.ndarray | None] = []
        self._token_rater: list[str | None] = []
        self._token_conflicts: dict[int, tuple[str, str]] = {}
        self._token_conflict_where: dict[int, Location] = {}
        self._token_versions: dict[int, dict[bytes, str]] = {}
        self._rater_index: dict[str, int] = {}
        self._ann_seen: dict[tuple[int, int], tuple[int, int, Location | tuple[str, int] | None]] = {}
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
            return self._new_document(key, doc_id, text, where, rater)
        seen = self._texts[index]
        if seen != text:
            first_rater, first_where = self._text_source[index]
            first_where = _location(first_where)
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

    def _new_document(self, key: Hashable, doc_id: str, text: str, where, rater: str) -> int:
        """The code of a document seen for the first time (its id checked already); ``where``: a
        Location, or ``(file, line)``."""
        index = len(self._doc_ids)
        self._doc_index[key] = index
        self._doc_ids.append(doc_id)
        self._texts.append(text)
        self._text_source.append((rater, where))
        self._tokens.append(None)
        self._token_rater.append(None)
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

    def exclude(self, reason: str, n_spans: int = 0, n_annotations: int = 1) -> None:
        """Count annotations that were read but are not data (e.g. Prodigy ``ignore``), and their spans."""
        self.n_annotations_read += n_annotations
        self.n_spans_read += n_spans
        self.exclusions.annotations[reason] += n_annotations
        if n_spans:
            self.exclusions.spans[f"on an excluded annotation ({reason})"] += n_spans

    def exclude_span(self, reason: str) -> None:
        """Count a span that was read but is not scored."""
        self.exclusions.spans[reason] += 1
        self.n_spans_read += 1

    def skip(
        self, key: Hashable, doc_id: str, text: str, where: Location, rater: str, reason: str, n_spans: int = 0
    ) -> None:
        """:meth:`exclude` one annotation, and register its document."""
        self.exclude(reason, n_spans)
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

    def add_lines(
        self, records: Sequence[Any], file: str, first_line: int, default_rater: str, unset: Any,
        tokens: Sequence[np.ndarray | None] | None = None,
    ) -> int:
        """Add the leading run of clean common lines of a block; return how many were added.

        ``records`` have ``doc_id``, ``text``, ``annotator`` (``unset`` when the line names no
        rater: then ``default_rater``) and ``spans`` of ``start``, ``end``, ``label``, their types
        checked already (:mod:`spanagree.io.typed_lines`); record ``i`` is line ``first_line + i``
        of ``file``, with token offsets ``tokens[i]`` (validated; None: no tokens). The same as :meth:`add_unchecked` line by line, only faster: the spans of
        the block are checked at once and no dict is made per line. The first line that needs
        more than that (a bad span, an empty or new non-ASCII name, a text that differs, a
        repeated document and rater) ends the run: the caller reads it and the rest line by line,
        which reports or handles it exactly as before.
        """
        self._flush_spans()  # spans queued by earlier lines go first (a bad one is their error)
        span_lists = list(map(_SPANS, records))
        counts = np.fromiter(map(len, span_lists), np.int64, len(span_lists))
        flat = list(chain.from_iterable(span_lists))
        labels = list(map(_LABEL, flat))
        try:
            starts = np.fromiter(map(_START, flat), np.int64, len(flat))
            ends = np.fromiter(map(_END, flat), np.int64, len(flat))
        except OverflowError:  # an offset beyond 64 bits: out of range, said line by line
            return 0
        text_lengths = np.fromiter(map(len, map(_TEXT, records)), np.int64, len(records))
        bad = (starts < 0) | (starts >= ends) | (ends > np.repeat(text_lengths, counts))
        for label in set(labels) - self._label_index.keys():
            if not label or label.isspace():
                bad |= np.array([x == label for x in labels], dtype=bool)
        ends_at = np.cumsum(counts)
        run = int(np.searchsorted(ends_at, np.argmax(bad), side="right")) if bad.any() else len(records)
        taken = self._add_run(records[:run], counts[:run], file, first_line, default_rater, unset, tokens)
        n_spans = int(ends_at[taken - 1]) if taken else 0
        self.n_annotations_read += taken
        self.n_spans_read += n_spans
        if n_spans:
            self._store_block(starts[:n_spans], ends[:n_spans], labels[:n_spans])
        return taken

    def _add_run(
        self, records, counts: np.ndarray, file: str, first_line: int, default_rater: str, unset: Any,
        tokens: Sequence[np.ndarray | None] | None,
    ) -> int:
        """The lines of :meth:`add_lines` whose spans are good, up to the first line that needs the
        reader's own path; returns how many were added. (One loop: a pass per column with
        ``map`` and ``dict`` measured slower.)"""
        doc_index, held_texts, rater_index, seen = self._doc_index, self._texts, self._rater_index, self._ann_seen
        ann_doc, ann_rater, ann_len = self._ann_doc, self._ann_rater, self._ann_len
        new_document = self._new_document
        held = self._n_spans_held
        taken = 0
        for taken, (record, n) in enumerate(zip(records, counts.tolist())):
            doc_id, text, rater = record.doc_id, record.text, record.annotator
            if rater is unset:
                rater = default_rater
            doc = doc_index.get(doc_id)
            if doc is not None:
                if held_texts[doc] != text:
                    break
            elif not doc_id or not _plain_name(doc_id):
                break
            code = rater_index.get(rater)
            if code is None:
                if not rater or rater.isspace() or not _plain_name(rater):
                    break
                code = self._new_rater(rater, Location(file, first_line + taken), doc_id)
            if doc is None:
                doc = new_document(doc_id, doc_id, text, (file, first_line + taken), rater)
            if tokens is not None and tokens[taken] is not None:
                self._add_tokens(doc, rater, tokens[taken], (file, first_line + taken))
            here = (held, n, (file, first_line + taken))
            if seen.setdefault((doc, code), here) is not here:  # read before: the reader's own path
                break
            held += n
            ann_doc.append(doc)
            ann_rater.append(code)
            ann_len.append(n)
        else:
            taken = len(records)
        self._n_spans_held = held
        return taken

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
            self._token_conflict_where.setdefault(doc, _location(where))

    def _repeated(self, previous, spans, rater, doc_id, where, raw_spans=None, text_len=0) -> None:
        """A second line for the same (document, rater): kept once if identical, else an error.
        ``spans`` are validated tuples, or None with ``raw_spans`` as read."""
        if spans is None:
            self.check_spans()
            spans = parse_spans(raw_spans, text_len, where, doc_id)
        n_read = len(spans)
        first, n, first_where = previous
        first_where = _location(first_where)
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
        if in_order(ann_doc, ann_rater):
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
        if not in_order(ann_of_span, starts, ends, labs):
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


def _location(where: Location | tuple[str, int] | None) -> Location | None:
    """Where a line was read, as the builder keeps it: a Location, or ``(file, line)`` from
    :meth:`CorpusBuilder.add_lines` (a plain tuple per line costs less), or None."""
    return None if where is None else Location(*where)


def _plain_name(name: str) -> bool:
    """True for a name :func:`_check_name` passes (ASCII, or text that can be written as UTF-8)."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_SPANS, _TEXT = attrgetter("spans"), attrgetter("text")
_START, _END, _LABEL = attrgetter("start"), attrgetter("end"), attrgetter("label")


def _digest(tokens: np.ndarray) -> bytes:
    """A short fingerprint of a token list (offsets as 64-bit integers)."""
    return hashlib.blake2b(np.ascontiguousarray(tokens, dtype=np.int64).tobytes(), digest_size=16).digest()


def _rank_codes(index: dict[str, int], ordered: list[str]) -> np.ndarray:
    """Map first-seen codes to ranks in ``ordered``."""
    rank = np.empty(len(index), dtype=np.int64)
    for new, name in enumerate(ordered):
        rank[index[name]] = new
    return rank
