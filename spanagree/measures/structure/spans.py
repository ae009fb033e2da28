"""The spans relations and attributes hang on, and their alignment (docs/structure.md).

Every annotation's spans are its scored spans and its extra spans (brat event triggers), one
table for the corpus, sorted by (annotation, start, end, label). Under ``labels="ignore"`` a
span is its position: spans of one annotation at one position with several labels are one (as
the span scores count them), and relations and attributes refer to the position.

Each comparison (a document two raters submitted, :func:`spanagree.core.counts.make_comparisons`)
is one alignment group; :func:`spanagree.core.align.align` matches the two sides under the rule
of the span scores, all groups at once. The match of span ``g`` of side A in comparison ``k`` is
then looked up by binary search on the sorted keys ``k·n + g``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.align import AlignmentRule, SpanColumns, align
from ...core.arrays import ranges
from ...core.counts import Comparisons, make_comparisons
from ...core.model import Corpus


@dataclass(frozen=True)
class SpanTable:
    """Spans per annotation, column-wise: annotation ``i`` owns rows ``ptr[i]:ptr[i + 1]``;
    ``label`` codes index ``labels`` (all zero under ``labels="ignore"``)."""

    ptr: np.ndarray
    start: np.ndarray
    end: np.ndarray
    label: np.ndarray
    labels: list[str]
    by_position: bool

    def index(self, corpus_anns: list[int], spans: list[tuple[int, int, str]]) -> np.ndarray:
        """Row of each ``(annotation, span)``, -1 where the annotation has no such span."""
        code = {name: i for i, name in enumerate(self.labels)}
        out = np.full(len(spans), -1, dtype=np.int64)
        if not spans:
            return out
        anns = np.asarray(corpus_anns, dtype=np.int64)
        starts = np.fromiter((s[0] for s in spans), np.int64, len(spans))
        ends = np.fromiter((s[1] for s in spans), np.int64, len(spans))
        labs = np.zeros(len(spans), np.int64) if self.by_position else np.fromiter(
            (code.get(s[2], -1) for s in spans), np.int64, len(spans)
        )
        # rows are sorted by (annotation, start, end, label): narrow each annotation's rows
        # column by column
        lo, hi = self.ptr[anns], self.ptr[anns + 1]
        for column, value in ((self.start, starts), (self.end, ends), (self.label, labs)):
            lo, hi = _narrow(column, lo, hi, value)
        found = lo < hi
        out[found] = lo[found]
        return out


def _narrow(column: np.ndarray, lo: np.ndarray, hi: np.ndarray, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per query, the sub-range of ``lo:hi`` (sorted on ``column`` within it) where ``column ==
    value`` (each range is sorted on this column because the earlier columns are equal in it)."""
    left = _bound(column, lo, hi, value, np.less)
    return left, _bound(column, left, hi, value, np.less_equal)


def _bound(column: np.ndarray, lo: np.ndarray, hi: np.ndarray, value: np.ndarray, before) -> np.ndarray:
    """Per query, the first position in ``lo:hi`` whose entry is not ``before`` the value: a
    vectorized binary search (``np.less``: the lower bound, ``np.less_equal``: the upper)."""
    a, b = lo.copy(), hi.copy()
    while True:
        active = a < b
        if not active.any():
            return a
        mid = (a + b) // 2
        go = active & before(column[np.minimum(mid, len(column) - 1)], value)
        a = np.where(go, mid + 1, a)
        b = np.where(active & ~go, mid, b)


def span_table(corpus: Corpus, rule: AlignmentRule) -> SpanTable:
    """Every annotation's scored and extra spans, sorted and distinct (positions under ``labels="ignore"``)."""
    structure = corpus.structure
    extra = structure.extra_spans if structure is not None else {}
    labels = sorted(set(corpus.labels) | {label for spans in extra.values() for _, _, label in spans})
    recode = np.array([labels.index(name) for name in corpus.labels], dtype=np.int64)
    ann = np.repeat(np.arange(corpus.n_annotations, dtype=np.int64), np.diff(corpus.ann_ptr))
    start, end = corpus.span_start, corpus.span_end
    label = recode[corpus.span_label] if len(recode) else corpus.span_label
    if extra:
        code = {name: i for i, name in enumerate(labels)}
        rows = [(a, s, e, code[lab]) for a, spans in extra.items() for s, e, lab in spans]
        more = np.array(rows, dtype=np.int64).reshape(-1, 4)
        ann, start, end, label = (np.concatenate([x, more[:, i]]) for i, x in enumerate((ann, start, end, label)))
    by_position = not rule.by_label
    if by_position:
        label = np.zeros(len(label), np.int64)
    order = np.lexsort((label, end, start, ann))
    ann, start, end, label = ann[order], start[order], end[order], label[order]
    if len(ann) > 1:
        first = np.ones(len(ann), dtype=bool)
        first[1:] = (np.diff(ann) != 0) | (np.diff(start) != 0) | (np.diff(end) != 0) | (np.diff(label) != 0)
        ann, start, end, label = ann[first], start[first], end[first], label[first]
    ptr = np.concatenate([[0], np.cumsum(np.bincount(ann, minlength=corpus.n_annotations))]).astype(np.int64)
    return SpanTable(ptr, start, end, label, labels, by_position)


@dataclass(frozen=True)
class Alignment:
    """The matched span pairs of every comparison: ``comparison``, ``row_a``, ``row_b`` (rows of
    the span table), sorted by (comparison, row_a); ``n_rows`` the table's rows."""

    comparisons: Comparisons
    comparison: np.ndarray
    row_a: np.ndarray
    row_b: np.ndarray
    n_rows: int

    def partner_of_a(self, comparison: np.ndarray, row: np.ndarray) -> np.ndarray:
        """Side B's row matched to side A's ``row`` in ``comparison`` (-1: none)."""
        return _lookup(self.comparison * self.n_rows + self.row_a, self.row_b, comparison * self.n_rows + row)

    def partner_of_b(self, comparison: np.ndarray, row: np.ndarray) -> np.ndarray:
        """Side A's row matched to side B's ``row`` in ``comparison`` (-1: none)."""
        keys = self.comparison * self.n_rows + self.row_b
        order = np.argsort(keys, kind="stable")
        return _lookup(keys[order], self.row_a[order], comparison * self.n_rows + row)


def _lookup(sorted_keys: np.ndarray, values: np.ndarray, query: np.ndarray) -> np.ndarray:
    at = np.searchsorted(sorted_keys, query)
    hit = at < len(sorted_keys)
    hit[hit] = sorted_keys[at[hit]] == query[hit]
    out = np.full(len(query), -1, dtype=np.int64)
    out[hit] = values[at[hit]]
    return out


def align_table(corpus: Corpus, table: SpanTable, rule: AlignmentRule, comparisons: Comparisons | None = None) -> Alignment:
    """Align the two sides of every comparison on the table's spans under ``rule``."""
    comparisons = make_comparisons(corpus) if comparisons is None else comparisons

    def side(anns: np.ndarray) -> tuple[SpanColumns, np.ndarray]:
        lengths = table.ptr[anns + 1] - table.ptr[anns]
        rows = ranges(table.ptr[anns], lengths)
        group = np.repeat(np.arange(len(anns), dtype=np.int64), lengths)
        return SpanColumns(group, table.start[rows], table.end[rows], table.label[rows]), rows

    side_a, rows_a = side(comparisons.ann_a)
    side_b, rows_b = side(comparisons.ann_b)
    found = align(side_a, side_b, rule)
    comparison = side_a.group[found.a_index]
    row_a, row_b = rows_a[found.a_index], rows_b[found.b_index]
    order = np.lexsort((row_a, comparison))
    return Alignment(comparisons, comparison[order], row_a[order], row_b[order], len(table.start))
