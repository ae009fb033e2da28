"""Per-document, per-pair counts a, b, c (docs/agreement.md), as arrays.

A *comparison* is one document as submitted by both raters of one pair (the word *unit* is kept
for what offsets are measured in: characters or tokens). For every comparison, and every
comparison and label, :func:`count` returns ``a`` (matched credit), ``b`` (rater A's unmatched spans) and
``c`` (rater B's unmatched spans), plus the diagnostic outcome counts. Counts are additive: every
corpus, pair, label and document figure is a sum over rows of these arrays, and a bootstrap
replicate is a weighted sum, with no re-alignment.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .align import AlignmentRule, DenseOverlapError, SpanColumns, align
from .arrays import block_cuts, pairs_within_blocks, ranges
from .model import Corpus
from .outcomes import OUTCOMES, OutcomeAlignment, best_explanation
from ..errors import InputError, UsageError

__all__ = ["OUTCOMES", "Counts", "Comparisons", "count", "label_totals", "make_comparisons", "side"]


@dataclass(frozen=True)
class Comparisons:
    """The (document, rater pair) comparisons of a corpus: both raters submitted the document.

    ``pairs`` is an (n_pairs, 2) array of rater codes with ``pairs[:, 0] < pairs[:, 1]``;
    every other array has shape (n_comparisons,).
    """

    doc: np.ndarray
    pair: np.ndarray
    ann_a: np.ndarray
    ann_b: np.ndarray
    pairs: np.ndarray

    def __len__(self) -> int:
        return len(self.doc)


@dataclass
class Counts:
    """Counts per comparison: ``abc`` (n_comparisons, 3) under the rule; per (comparison, label)
    cell under the rule with labels strict, sparse: only the cells with a span, sorted by
    comparison then label, as ``label_comparison`` and ``label_code`` (n_cells,) and ``label_abc``
    (n_cells, 3), so their size grows with spans, not comparisons × labels; ``outcomes``
    (n_comparisons, 5) in the order of OUTCOMES, from ``outcome_pairs``, the one outcome alignment
    (:mod:`spanagree.core.outcomes`; None when the counts were merged from parts, which keep only
    the per-comparison outcome counts). ``unit_name``: what offsets were measured in."""

    comparisons: Comparisons
    rule: AlignmentRule
    unit_name: str
    abc: np.ndarray
    label_comparison: np.ndarray
    label_code: np.ndarray
    label_abc: np.ndarray
    outcomes: np.ndarray
    notes: Counter = field(default_factory=Counter)
    outcome_pairs: OutcomeAlignment | None = None


def make_comparisons(corpus: Corpus) -> Comparisons:
    """Every (document, rater pair) where both raters submitted the document.

    Annotations are sorted by (document, rater), so the partners of annotation ``i`` with a
    higher rater code are the rest of its document's block.
    """
    doc = corpus.ann_doc
    first, partner = pairs_within_blocks(doc)
    rater_a, rater_b = corpus.ann_rater[first], corpus.ann_rater[partner]
    n_raters = max(len(corpus.raters), 1)
    pair_key = rater_a * n_raters + rater_b
    keys, pair = np.unique(pair_key, return_inverse=True)
    pairs = np.stack([keys // n_raters, keys % n_raters], axis=1) if len(keys) else np.zeros((0, 2), np.int64)
    return Comparisons(doc=doc[first], pair=pair.astype(np.int64), ann_a=first, ann_b=partner, pairs=pairs)


def count(
    corpus: Corpus,
    rule: AlignmentRule,
    *,
    unit: str = "char",
    comparisons: Comparisons | None = None,
    search: str = "sweep",
) -> Counts:
    """Align every comparison of the corpus under ``rule`` and count a, b, c per comparison and label."""
    comparisons = make_comparisons(corpus) if comparisons is None else comparisons
    starts, ends, notes = unit_positions(corpus, unit)
    side_a, spans_a = side(corpus, comparisons.ann_a, starts, ends)
    side_b, spans_b = side(corpus, comparisons.ann_b, starts, ends)
    if unit != "char":
        # excluded instead (the report moves EXCLUSIONS out of the notes; kept here so that
        # counts merged from parts add up)
        notes.pop("spans covering no token", None)
        in_comparisons = np.unique(np.concatenate([comparisons.ann_a, comparisons.ann_b]))
        notes.update(unit_exclusions(corpus, in_comparisons, starts, ends))
    try:
        return _count(corpus, rule, unit, comparisons, search, side_a, spans_a, side_b, spans_b, notes)
    except DenseOverlapError as err:  # the group is a comparison: say which document and raters
        raters = [corpus.raters[r] for r in comparisons.pairs[comparisons.pair[err.group]]]
        raise InputError(
            f"raters {raters[0]!r} and {raters[1]!r}: {err.problem}", doc_id=corpus.doc_ids[comparisons.doc[err.group]]
        ) from None


def _count(corpus, rule, unit, comparisons, search, side_a, spans_a, side_b, spans_b, notes) -> Counts:
    n_comparisons, n_labels = len(comparisons), len(corpus.labels)

    strict_rule = rule if rule.by_label else _replace(rule, labels="strict")
    strict = align(side_a, side_b, strict_rule, search=search)
    label_comparison, label_code, label_abc = label_cells(side_a, side_b, strict, n_labels)

    if rule.by_label:
        abc = comparison_totals(label_comparison, label_abc, n_comparisons)
    else:
        # positions only: a rater's same-position spans with several labels are one span
        pos_a, pos_b = position_set(side_a), position_set(side_b)
        stacked = len(side_a) - len(pos_a) + len(side_b) - len(pos_b)
        if stacked:
            notes[STACKED] += stacked
        blind = align(pos_a, pos_b, rule, search=search)
        a = np.bincount(pos_a.group[blind.a_index], weights=blind.credit, minlength=n_comparisons)
        n_pos_a = np.bincount(pos_a.group, minlength=n_comparisons)
        n_pos_b = np.bincount(pos_b.group, minlength=n_comparisons)
        abc = np.stack([a, n_pos_a - a, n_pos_b - a], axis=1)

    pairs = best_explanation(comparisons, side_a, spans_a, side_b, spans_b, search=search)
    return Counts(comparisons, rule, unit, abc, label_comparison, label_code, label_abc, pairs.table(), notes, pairs)


def unit_positions(corpus: Corpus, unit: str) -> tuple[np.ndarray, np.ndarray, Counter]:
    if unit == "char":
        return corpus.span_start, corpus.span_end, Counter()
    if unit == "token":
        return corpus.token_offsets()

    raise UsageError(f"unit must be 'char' or 'token'; got {unit!r}")


#: Why a span read is not aligned in the chosen unit (token unit only; see ``docs/diagnostics.md``).
NO_TOKEN = "covers no token (white space only), in tokens"
#: Note when labels are ignored: one rater's spans at one position with several labels (per pair).
STACKED = "same position with several labels by one rater, one span when labels are ignored (per rater pair)"
MERGED = "coincides in tokens with another span of the same rater (merged into one)"
#: The reasons above: spans read but not aligned, carried in ``Counts.notes``.
EXCLUSIONS = (NO_TOKEN, MERGED)


def side(corpus: Corpus, ann: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[SpanColumns, np.ndarray]:
    """The spans of the given annotations, one alignment group per position in ``ann``, and each
    span's index in the corpus; within a group in canonical order (start, end, label).

    Spans with no extent in the chosen unit (a span over white space only, in tokens) are left
    out, and of spans of one annotation that coincide in the unit (two character spans widened
    to the same tokens, with the same label) only the first is kept; :func:`unit_exclusions`
    counts both.
    """
    lengths = corpus.ann_ptr[ann + 1] - corpus.ann_ptr[ann]
    idx = ranges(corpus.ann_ptr[ann], lengths)
    group = np.repeat(np.arange(len(ann), dtype=np.int64), lengths)
    keep = ends[idx] > starts[idx]
    if not keep.all():
        idx, group = idx[keep], group[keep]
    start, end, label = starts[idx], ends[idx], corpus.span_label[idx]
    if not _canonical(group, start, end, label):  # character spans come in canonical order already
        order = np.lexsort((idx, label, end, start, group))
        group, start, end, label, idx = group[order], start[order], end[order], label[order], idx[order]
    if len(idx) > 1:
        first = np.ones(len(idx), dtype=bool)
        first[1:] = (np.diff(group) != 0) | (np.diff(start) != 0) | (np.diff(end) != 0) | (np.diff(label) != 0)
        if not first.all():
            group, start, end, label, idx = group[first], start[first], end[first], label[first], idx[first]
    return SpanColumns(group=group, start=start, end=end, label=label), idx


def _canonical(group: np.ndarray, start: np.ndarray, end: np.ndarray, label: np.ndarray) -> bool:
    """Whether the rows are sorted by (group, start, end, label): one pass of differences, where
    a sort would cost a lexsort of every span. The corpus keeps each annotation's spans in this
    order, so in characters the check passes; token offsets may reorder them."""
    if len(group) < 2:
        return True
    later = np.diff(group)
    if (later < 0).any():
        return False
    same = later == 0
    step = np.diff(start)
    if (step[same] < 0).any():
        return False
    same &= step == 0
    step = np.diff(end)
    if (step[same] < 0).any():
        return False
    same &= step == 0
    return not (np.diff(label)[same] < 0).any()


def position_set(columns: SpanColumns) -> SpanColumns:
    """The distinct positions ``(group, start, end)`` of one side in canonical order, labels
    dropped: what ``labels="ignore"`` scores (as spaCy's unlabeled span scorer scores sets of
    positions)."""
    if len(columns) < 2:
        return SpanColumns(columns.group, columns.start, columns.end, np.zeros(len(columns), np.int64))
    first = np.ones(len(columns), dtype=bool)
    first[1:] = (np.diff(columns.group) != 0) | (np.diff(columns.start) != 0) | (np.diff(columns.end) != 0)
    return SpanColumns(columns.group[first], columns.start[first], columns.end[first], np.zeros(int(first.sum()), np.int64))


def unit_exclusions(corpus: Corpus, ann: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> Counter:
    """How many spans of the annotations ``ann`` :func:`side` leaves out, by reason."""
    lengths = corpus.ann_ptr[ann + 1] - corpus.ann_ptr[ann]
    idx = ranges(corpus.ann_ptr[ann], lengths)
    empty = int((ends[idx] <= starts[idx]).sum())
    kept = len(side(corpus, ann, starts, ends)[1])
    return +Counter({NO_TOKEN: empty, MERGED: len(idx) - empty - kept})


def label_cells(side_a: SpanColumns, side_b: SpanColumns, strict, n_labels: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (comparison, label) cells with a span of either side, sorted by comparison then label, and a, b, c
    of each (float64): ``a`` the strict alignment's credit, ``b``/``c`` each side's spans less it."""
    n = max(n_labels, 1)
    key_a = side_a.group * n + side_a.label
    key_b = side_b.group * n + side_b.label
    keys, where = np.unique(np.concatenate([key_a, key_b]), return_inverse=True)
    where = where.reshape(-1)
    cell_a, cell_b = where[: len(key_a)], where[len(key_a):]
    n_cells = len(keys)
    n_a = np.bincount(cell_a, minlength=n_cells).astype(np.float64)
    n_b = np.bincount(cell_b, minlength=n_cells).astype(np.float64)
    a = np.bincount(cell_a[strict.a_index], weights=strict.credit, minlength=n_cells).astype(np.float64)
    abc = np.stack([a, n_a - a, n_b - a], axis=1)
    keep = abc.any(axis=1)
    if not keep.all():
        keys, abc = keys[keep], abc[keep]
    return keys // n, keys % n, abc


def comparison_totals(label_comparison: np.ndarray, label_abc: np.ndarray, n_comparisons: int, block: int = 1 << 20) -> np.ndarray:
    """(n_comparisons, 3) sums of the per-label cells of each comparison, in float64, cells in order.

    Cells sorted by comparison (as :func:`count` and the engines' merge give them) are summed in blocks
    of about ``block`` cells cut between comparisons, so no float64 copy of a whole column is made and
    each comparison's sum is the same as in one pass."""
    out = np.zeros((n_comparisons, 3))
    cuts = block_cuts(label_comparison, block)
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        if hi <= lo:
            continue
        rows = label_comparison[lo:hi]
        first = int(rows[0])
        for j in range(3):
            sums = np.bincount(rows - first, weights=label_abc[lo:hi, j])
            out[first : first + len(sums), j] += sums
    return out


def label_totals(counts: "Counts", n_labels: int, rows: np.ndarray | None = None, n_rows: int = 1) -> np.ndarray:
    """(n_rows, n_labels, 3) sums of the per-label cells, by ``rows`` (a bin per comparison, e.g. its
    rater pair; all in one bin when None), in float64, cells in comparison order."""
    bins = np.zeros(len(counts.label_comparison), dtype=np.int64) if rows is None else rows[counts.label_comparison]
    key = bins * n_labels + counts.label_code
    out = np.zeros((n_rows * n_labels, 3))
    for j in range(3):
        out[:, j] = np.bincount(key, weights=counts.label_abc[:, j].astype(np.float64), minlength=n_rows * n_labels)
    return out.reshape(n_rows, n_labels, 3)


def _replace(rule: AlignmentRule, **changes) -> AlignmentRule:
    from dataclasses import replace

    return replace(rule, **changes)
