"""Diagnostic outcomes: the best explanation of two raters' spans (see ``docs/diagnostics.md``).

For each comparison (one document as submitted by both raters of a pair) the spans of the two raters
are matched one-to-one by overlap, labels ignored, choosing among the matchings of maximum size

1. the one with the most *identical* pairs (same label, start and end), then
2. the most pairs with the same label, then
3. the earliest spans (spans in canonical order; only which pair is listed can change, never a
   count).

Each matched pair is then ``correct`` (same label and boundaries), ``partial`` (same label, other
boundaries) or ``wrong_label`` (different labels, whatever the boundaries); a span that matched
nothing is its own rater's alone (``only_a``/``only_b``, also reported under the SemEval-2013 /
nervaluate names ``missed``/``spurious`` with the pair's first rater as the reference).

Because every choice above depends only on the pair of spans, the five counts are the same when
the two raters are swapped or their spans reordered, and a span two raters marked identically is
always ``correct`` unless it is wholly absent from one of them. The alignment is computed once, by
:func:`spanagree.core.counts.count`, and reused by the report, ``disagreements``, the label confusion
and the per-rater view.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .align import AlignmentRule, SpanColumns, align

#: Outcome names, in the order of the outcome arrays. ``missed`` is a span of the pair's first
#: rater that matched nothing, ``spurious`` one of the second rater's.
OUTCOMES = ("correct", "wrong_label", "partial", "missed", "spurious")
#: The matching the outcomes come from: label-blind overlap (any shared unit).
OUTCOME_RULE = AlignmentRule(rule="overlap", labels="ignore")


@dataclass(frozen=True)
class OutcomeAlignment:
    """The outcome alignment of every comparison, in corpus span indices.

    ``match_comparison``, ``match_a``, ``match_b`` and ``match_kind`` have one entry per matched pair
    (the comparison, rater A's span, rater B's span, and the outcome code in the order of
    :data:`OUTCOMES`: 0 correct, 1 wrong_label, 2 partial). ``missed_comparison``/``missed_span`` are
    A's unmatched spans, ``spurious_comparison``/``spurious_span`` B's.
    """

    comparisons: object  # spanagree.core.counts.Comparisons
    match_comparison: np.ndarray
    match_a: np.ndarray
    match_b: np.ndarray
    match_kind: np.ndarray
    missed_comparison: np.ndarray
    missed_span: np.ndarray
    spurious_comparison: np.ndarray
    spurious_span: np.ndarray

    def kind_counts(self) -> dict[str, int]:
        """How many cases of each outcome (the report's ``overall.outcomes``)."""
        return dict(zip(OUTCOMES, self.table().sum(axis=0).tolist()))

    def table(self, n_rows: int | None = None, row_of_comparison: np.ndarray | None = None) -> np.ndarray:
        """Outcome counts per comparison, shape (n_comparisons, 5); or summed into ``n_rows`` rows by
        ``row_of_comparison`` (one row index per comparison)."""
        if row_of_comparison is None:
            row_of_comparison, n_rows = np.arange(len(self.comparisons)), len(self.comparisons)
        out = np.zeros((n_rows, len(OUTCOMES)), dtype=np.int64)
        np.add.at(out, (row_of_comparison[self.match_comparison], self.match_kind), 1)
        out[:, 3] = np.bincount(row_of_comparison[self.missed_comparison], minlength=n_rows)
        out[:, 4] = np.bincount(row_of_comparison[self.spurious_comparison], minlength=n_rows)
        return out


def best_explanation(
    comparisons, side_a: SpanColumns, spans_a: np.ndarray, side_b: SpanColumns, spans_b: np.ndarray,
    *, search: str = "sweep",
) -> OutcomeAlignment:
    """The outcome alignment of two sides (as :func:`spanagree.core.counts.side` gives them)."""
    found = align(side_a, side_b, OUTCOME_RULE, search=search)
    ia, ib = found.a_index, found.b_index
    same_label = side_a.label[ia] == side_b.label[ib]
    same_bounds = (side_a.start[ia] == side_b.start[ib]) & (side_a.end[ia] == side_b.end[ib])
    kind = np.where(same_label, np.where(same_bounds, 0, 2), 1).astype(np.int64)
    unmatched_a = np.ones(len(side_a), dtype=bool)
    unmatched_a[ia] = False
    unmatched_b = np.ones(len(side_b), dtype=bool)
    unmatched_b[ib] = False
    return OutcomeAlignment(
        comparisons=comparisons,
        match_comparison=side_a.group[ia],
        match_a=spans_a[ia],
        match_b=spans_b[ib],
        match_kind=kind,
        missed_comparison=side_a.group[unmatched_a],
        missed_span=spans_a[unmatched_a],
        spurious_comparison=side_b.group[unmatched_b],
        spurious_span=spans_b[unmatched_b],
    )
