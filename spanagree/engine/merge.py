"""Partial results of the engines' tasks, and their merge into one report's arrays.

Counts are additive (see ARCHITECTURE): a task that read whole documents returns, per comparison
(a document and a rater pair), the same a, b, c, per-label and outcome rows that
:func:`spanagree.core.counts.count` gives for those documents in the whole corpus. The merge maps
every task's rater, label and document codes to the corpus-wide ones (sorted by name, as
:class:`~spanagree.core.builder.CorpusBuilder` sorts them) and puts the comparisons in the order the serial
path has them (document, then rater pair), so every sum in the report, and every bootstrap
replicate, is computed from the same numbers in the same order: the report is the same.

Per-label cells (only the (comparison, label) cells with a span) and outcome rows are kept in the
smallest unsigned integer type that holds them exactly (they are whole numbers under the exact and
overlap rules). Every sum the report and the intervals take of them is in float64, so the numbers
do not change; code that does its own arithmetic on ``report.counts.label_abc`` should cast first.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ..core.align import AlignmentRule
from ..core.arrays import dense_codes
from ..core.counts import Counts, Comparisons
from ..core.heap import release_memory
from ..core.model import Exclusions, one_line
from ..io import note_raters_without_marks, rater_marks


@dataclass
class Partial:
    """One task's counts, compact: no spans, no texts.

    Documents, raters and labels are the task's own (sorted) codes; comparisons refer to the task's
    documents and annotations.
    """

    doc_ids: "DocIds"
    raters: list[str]
    labels: list[str]
    ann_doc: np.ndarray  # (n_annotations,) task document of each annotation
    ann_len: np.ndarray  # (n_annotations,) spans of each annotation
    comparison_doc: np.ndarray
    comparison_ra: np.ndarray  # task rater codes of each comparison's pair
    comparison_rb: np.ndarray
    comparison_ann_a: np.ndarray
    comparison_ann_b: np.ndarray
    abc: np.ndarray  # (n_comparisons, 3), compact (:func:`compact`)
    label_comparison: np.ndarray  # (n_cells,) task comparison of each (comparison, label) cell with a span
    label_code: np.ndarray  # (n_cells,) task label of each cell
    label_abc: np.ndarray  # (n_cells, 3)
    outcomes: np.ndarray  # (n_comparisons, 5)
    notes: Counter = field(default_factory=Counter)
    exclusions: Exclusions = field(default_factory=Exclusions)
    n_documents_read: int = 0
    n_annotations_read: int = 0
    n_spans_read: int = 0
    rater_marks: np.ndarray | None = None  # (n_raters,) spans of each rater, plus one with document labels

    @classmethod
    def from_counts(cls, corpus, counts: Counts) -> "Partial":
        comparisons = counts.comparisons
        pairs = comparisons.pairs[comparisons.pair] if len(comparisons) else np.zeros((0, 2), np.int64)
        return cls(
            doc_ids=DocIds.of(corpus.doc_ids),
            raters=corpus.raters,
            labels=corpus.labels,
            ann_doc=_small_int(corpus.ann_doc),
            ann_len=_small_int(np.diff(corpus.ann_ptr)),
            comparison_doc=_small_int(comparisons.doc),
            comparison_ra=_small_int(pairs[:, 0]),
            comparison_rb=_small_int(pairs[:, 1]),
            comparison_ann_a=_small_int(comparisons.ann_a),
            comparison_ann_b=_small_int(comparisons.ann_b),
            # with labels strict, the sum of each comparison's label cells in order
            # (comparison_totals): the same bits in a task as over the whole corpus
            abc=compact(counts.abc),
            label_comparison=_small_int(counts.label_comparison),
            label_code=_small_int(counts.label_code),
            label_abc=compact(counts.label_abc),
            outcomes=compact(counts.outcomes),
            notes=counts.notes,
            exclusions=corpus.exclusions,
            n_documents_read=corpus.n_documents_read,
            n_annotations_read=corpus.n_annotations_read,
            n_spans_read=corpus.n_spans_read,
            rater_marks=rater_marks(corpus),
        )

    @property
    def n_comparisons(self) -> int:
        return len(self.comparison_doc)


@dataclass
class CorpusSummary:
    """What a report needs of a corpus read by an engine: document ids, raters, labels, the
    annotations' documents and lengths, and the counters of what was read and left out, without
    the spans and texts (which stayed in the workers).

    It has the attributes of :class:`~spanagree.core.model.Corpus` that
    :class:`~spanagree.report.AgreementReport` reads; annotations are in the order the tasks
    returned them, not sorted. ``engine`` says how the input was read (engine, jobs, tasks,
    whether it was grouped by document, what was read again).
    """

    #: No spans, texts or annotations' raters (see :attr:`spanagree.core.model.Corpus.has_spans`).
    has_spans: ClassVar[bool] = False

    doc_ids: "DocIds"
    raters: list[str]
    labels: list[str]
    ann_doc: np.ndarray
    ann_ptr: np.ndarray
    exclusions: Exclusions = field(default_factory=Exclusions)
    n_documents_read: int = 0
    n_annotations_read: int = 0
    n_spans_read: int = 0
    engine: dict[str, Any] = field(default_factory=dict)

    @property
    def n_documents(self) -> int:
        return len(self.doc_ids)

    @property
    def n_annotations(self) -> int:
        return len(self.ann_doc)

    def __repr__(self) -> str:
        return one_line(self)


def compact(values: np.ndarray) -> np.ndarray:
    """``values`` in the smallest unsigned integer type that holds every value exactly, or as is
    (fractional credit)."""
    if values.size == 0:
        return values.astype(np.uint8)
    if values.dtype.kind == "f":
        if not np.array_equal(values, np.floor(values)):
            return values
    low, high = values.min(), values.max()
    if low < 0:
        return values
    for kind in (np.uint8, np.uint16, np.uint32):
        if high <= np.iinfo(kind).max:
            return values.astype(kind)
    return values


def _small_int(values: np.ndarray) -> np.ndarray:
    """Codes and lengths (indices and counts only) in the smallest integer type that holds them:
    a task's are mostly below 2**16, and its result crosses a pipe to the driver (the merge
    widens them wherever it adds or indexes)."""
    values = np.asarray(values)
    if not values.size:
        return values.astype(np.uint8)
    low, high = int(values.min()), int(values.max())
    if low >= 0:
        for kind in (np.uint8, np.uint16, np.uint32):
            if high <= np.iinfo(kind).max:
                return values.astype(kind)
    if low >= -(2**31) and high < 2**31:
        return values.astype(np.int32)
    return values.astype(np.int64)


def merge(partials: Sequence[Partial], rule: AlignmentRule, unit: str) -> tuple[CorpusSummary, Counts]:
    """Merge task results (each holding whole documents) into the report's corpus and counts.

    The partials' arrays are released as they are copied, so the peak is about the merged arrays
    plus one field of the partials.
    """
    partials = list(partials)
    raters = sorted({r for p in partials for r in p.raters})
    labels = sorted({x for p in partials for x in p.labels})
    rater_code = {name: i for i, name in enumerate(raters)}
    label_code = {name: i for i, name in enumerate(labels)}
    rater_maps = [np.array([rater_code[r] for r in p.raters], dtype=np.int64) for p in partials]
    label_maps = [np.array([label_code[x] for x in p.labels], dtype=np.int64) for p in partials]

    # documents: sorted by id, as the serial path numbers them
    doc_offsets = np.cumsum([0] + [len(p.doc_ids) for p in partials])
    n_docs = int(doc_offsets[-1])
    order = _sort_order([p.doc_ids for p in partials])
    doc_ids = DocIds.join([p.doc_ids for p in partials])
    for p in partials:
        p.doc_ids = DocIds.of([])
    if order is None:
        rank = np.arange(n_docs, dtype=np.int64)
    else:
        rank = np.empty(n_docs, dtype=np.int64)
        rank[order] = np.arange(n_docs, dtype=np.int64)
        doc_ids = DocIds.of([doc_ids[i] for i in order.tolist()])

    # annotations, in task order
    ann_offsets = np.cumsum([0] + [len(p.ann_doc) for p in partials])
    n_ann = int(ann_offsets[-1])
    ann_doc = np.empty(n_ann, dtype=np.int32 if n_docs < 2**31 else np.int64)
    ann_ptr = np.zeros(n_ann + 1, dtype=np.int64)
    for i, p in enumerate(partials):
        rows = slice(ann_offsets[i], ann_offsets[i + 1])
        ann_doc[rows] = rank[doc_offsets[i] + p.ann_doc]
        ann_ptr[1:][rows] = p.ann_len
        p.ann_doc = p.ann_len = None
    np.cumsum(ann_ptr, out=ann_ptr)
    release_memory()

    # comparisons: the serial order is (document, rater a, rater b)
    n_raters = max(len(raters), 1)
    comparison_offsets = np.cumsum([0] + [p.n_comparisons for p in partials])
    n_comparisons = int(comparison_offsets[-1])
    comparison_doc = np.empty(n_comparisons, dtype=np.int64)
    pair_key = np.empty(n_comparisons, dtype=np.int64)
    for i, p in enumerate(partials):
        rows = slice(comparison_offsets[i], comparison_offsets[i + 1])
        comparison_doc[rows] = rank[doc_offsets[i] + p.comparison_doc]
        pair_key[rows] = rater_maps[i][p.comparison_ra] * n_raters + rater_maps[i][p.comparison_rb]
        p.comparison_doc = p.comparison_ra = p.comparison_rb = None
    del rank
    release_memory()
    destination = None  # where each comparison goes, when the task order is not the serial order
    if n_comparisons > 1:
        step = np.diff(comparison_doc)
        in_order = bool(np.all((step > 0) | ((step == 0) & (np.diff(pair_key) > 0))))
        del step
        if not in_order:
            comparison_order = np.lexsort((pair_key, comparison_doc))
            destination = np.empty(n_comparisons, dtype=np.int64)
            destination[comparison_order] = np.arange(n_comparisons, dtype=np.int64)
            comparison_doc, pair_key = comparison_doc[comparison_order], pair_key[comparison_order]
            del comparison_order
    keys, pair = dense_codes(pair_key, n_raters * n_raters)
    del pair_key
    pairs = np.stack([keys // n_raters, keys % n_raters], axis=1) if len(keys) else np.zeros((0, 2), np.int64)

    def place(name: str, shape: tuple[int, ...], dtype, value_of) -> np.ndarray:
        out = np.empty((n_comparisons, *shape), dtype=dtype)  # every row is placed
        for i, p in enumerate(partials):
            rows = slice(comparison_offsets[i], comparison_offsets[i + 1])  # in order: a stretch, no index
            if destination is not None:
                rows = destination[rows]
            value_of(out, rows, i, p)
            setattr(p, name, None)
        release_memory()
        return out

    ann_dtype = np.int32 if ann_offsets[-1] < 2**31 else np.int64
    ann_a = place("comparison_ann_a", (), ann_dtype, lambda out, rows, i, p: out.__setitem__(rows, ann_offsets[i] + p.comparison_ann_a))
    ann_b = place("comparison_ann_b", (), ann_dtype, lambda out, rows, i, p: out.__setitem__(rows, ann_offsets[i] + p.comparison_ann_b))
    label_comparison, label_code, label_abc = _merge_label_cells(partials, comparison_offsets, destination, label_maps, len(labels))
    outcome_dtype = np.result_type(*[p.outcomes.dtype for p in partials]) if partials else np.uint8
    outcomes = place("outcomes", (5,), outcome_dtype, lambda out, rows, i, p: out.__setitem__(rows, p.outcomes))
    abc = place("abc", (3,), np.float64, lambda out, rows, i, p: out.__setitem__(rows, p.abc))

    exclusions = Exclusions()
    notes: Counter = Counter()
    marks = np.zeros(len(raters), dtype=np.int64)
    for p, codes in zip(partials, rater_maps):
        exclusions.merge(p.exclusions)
        notes.update(p.notes)
        if p.rater_marks is not None:
            np.add.at(marks, codes, p.rater_marks)
    if len(ann_ptr) and ann_ptr[-1]:  # as when read in memory: only once some rater marked spans
        note_raters_without_marks(exclusions.notes, raters, marks)
    corpus = CorpusSummary(
        doc_ids=doc_ids,
        raters=raters,
        labels=labels,
        ann_doc=ann_doc,
        ann_ptr=ann_ptr,
        exclusions=exclusions,
        n_documents_read=sum(p.n_documents_read for p in partials),
        n_annotations_read=sum(p.n_annotations_read for p in partials),
        n_spans_read=sum(p.n_spans_read for p in partials),
    )
    comparisons = Comparisons(doc=comparison_doc, pair=pair, ann_a=ann_a, ann_b=ann_b, pairs=pairs)
    return corpus, Counts(comparisons, rule, unit, abc, label_comparison, label_code, label_abc, outcomes, +notes)


def _merge_label_cells(partials, comparison_offsets, destination, label_maps, n_labels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The partials' per-label cells in corpus-wide comparison and label codes, sorted by comparison then label
    (label codes keep their order: both are sorted by name)."""
    n_cells = sum(len(p.label_comparison) for p in partials)
    dtype = np.result_type(*[p.label_abc.dtype for p in partials]) if partials else np.uint8
    # comparison indices and label codes in 32 bits when they fit (the largest merged arrays); the
    # report widens them to int64 wherever it multiplies them
    comparison = np.empty(n_cells, dtype=np.int32 if comparison_offsets[-1] < 2**31 else np.int64)
    code = np.empty(n_cells, dtype=np.int32 if n_labels < 2**31 // 3 else np.int64)
    abc = np.empty((n_cells, 3), dtype=dtype)
    at = 0
    for i, p in enumerate(partials):
        rows = slice(at, at + len(p.label_comparison))
        mine = comparison_offsets[i] + p.label_comparison.astype(np.int64)
        comparison[rows] = mine if destination is None else destination[mine]
        code[rows] = label_maps[i][p.label_code.astype(np.int64)]
        abc[rows] = p.label_abc
        at = rows.stop
        p.label_comparison = p.label_code = p.label_abc = None
    if destination is not None and n_cells > 1:
        order = np.argsort(comparison, kind="stable")
        comparison, code, abc = comparison[order], code[order], abc[order]
    release_memory()
    return comparison, code, abc


def _sort_order(parts: Sequence["DocIds"]) -> np.ndarray | None:
    """The permutation that sorts the ids of ``parts`` one after the other as Python sorts strings
    (stable), or None when they are sorted already. Each part is sorted (a task's builder numbers
    its documents by sorted id), so they are when each part's last id is not after the next
    part's first."""
    bounds = [(part[0], part[-1]) for part in parts if len(part)]
    if all(last <= first for (_, last), (first, _) in zip(bounds, bounds[1:])):
        return None
    ids = [x for part in parts for x in part]
    if any(s.endswith("\x00") for s in ids):  # NumPy's unicode arrays drop trailing NULs
        return np.array(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)
    return np.argsort(np.array(ids), kind="stable")


class DocIds(Sequence):
    """Document ids as one string and the end offset of each id: a read-only sequence of str
    that takes about a fifth of the memory of a list of a million short strings."""

    __slots__ = ("text", "ends")

    def __init__(self, text: str, ends: np.ndarray) -> None:
        self.text = text
        self.ends = ends

    @classmethod
    def of(cls, ids: Sequence[str]) -> "DocIds":
        ends = np.cumsum(np.fromiter((len(x) for x in ids), dtype=np.int64, count=len(ids)))
        return cls("".join(ids), ends)

    @classmethod
    def join(cls, parts: Sequence["DocIds"]) -> "DocIds":
        shift = np.cumsum([0] + [len(p.text) for p in parts])
        ends = np.concatenate([p.ends + shift[i] for i, p in enumerate(parts)] or [np.zeros(0, np.int64)])
        return cls("".join(p.text for p in parts), ends)

    def __len__(self) -> int:
        return len(self.ends)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        index = range(len(self))[index]  # negative indices, and IndexError
        start = int(self.ends[index - 1]) if index else 0
        return self.text[start : int(self.ends[index])]

    def __iter__(self):
        start, text = 0, self.text
        for end in self.ends.tolist():
            yield text[start:end]
            start = end

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    def __repr__(self) -> str:
        return f"DocIds({len(self)} ids)"
