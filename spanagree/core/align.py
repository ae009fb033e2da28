"""Aligning two raters' spans: rules, candidate pairs and optimal one-to-one matching (docs/alignment.md).

Both sides are given column-wise for many alignment *groups* at once (a group is one document as
seen by one rater pair), so a whole corpus is aligned in a handful of NumPy passes:

1. **Candidate pairs.** Two half-open spans overlap iff one starts inside the other:
   ``a.start <= b.start < a.end`` or ``b.start < a.start < b.end`` (the cases are disjoint).
   With each side sorted by ``(group, start)`` both cases are contiguous ranges found by binary
   search, so every overlapping pair is listed exactly once, without a loop over spans. An
   interval-tree search (``search="tree"``, one :class:`intervaltree.IntervalTree` per group) gives
   the same pairs; it is kept as an independent path and for comparison (``bench/``).
2. **Credit** per pair from the rule (exact, overlap, partial, proportional).
3. **Matching.** Pairs whose two spans have no other candidate are matched directly. The rest form
   connected components, each solved exactly for the lexicographic best (below): a *star* (one
   span on one side) by taking its best pair; a component whose smaller side has at most
   ``DP_MAX_SIDE`` spans by dynamic programming over that side; every larger one by a sparse
   assignment (LAPJVsp, :mod:`spanagree.core.matching`) on one whole-number weight per pair that
   folds the levels below into it (:func:`_fold`), many components per call. Its cost grows with
   the candidate pairs and the augmenting paths, not with the cube of the component size as the
   dense Hungarian algorithm's did, so dense overlap (thousands of spans in one component) stays
   fast. The lexicographic best of

   1. the largest total credit (credits within ``CREDIT_TOLERANCE`` are equal);
   2. then the most *identical* pairs (same start, end and label);
   3. then the most pairs with the same label (this only matters with ``labels="ignore"``);
   4. then the most pairs;
   5. then the earliest spans (the first optimum found, spans in canonical order), in stars and
      components solved by dynamic programming; in larger ones the assignment algorithm's choice.

   Levels 2 and 3 make the matching the best explanation of the two raters' spans: a span marked
   identically by both is never paired off elsewhere when an equally good matching keeps the
   identical pair (see ``docs/diagnostics.md``). Every level is a property of the pair of spans,
   not of which rater is A, so the totals are the same with the raters swapped or reordered.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction
from math import lcm
from typing import Sequence

import numpy as np

from .arrays import expand
from .matching import fits, max_weight_matching
from ..errors import InputError, UsageError
from . import options, validate

SEARCHES = options.BY_NAME["search"].choices

#: Credits closer than this are treated as equal when breaking ties.
CREDIT_TOLERANCE = 1e-12
#: Components whose smaller side has at most this many spans are solved by dynamic programming
#: (2^6 states at most). Larger ones go to SciPy's sparse assignment, whose import alone costs
#: about 0.4 s: with 6, real corpora (toxic_spans: one component of side 5) never pay it, and
#: dense input costs at most a fifth more than with 2 (bench/RESULTS.md, "Dense overlap").
DP_MAX_SIDE = 6


@dataclass(frozen=True)
class AlignmentRule:
    """Which spans may match and what a match is worth (docs/alignment.md).

    ===============  ================================  =========================================
    rule             may match when                    credit
    ===============  ================================  =========================================
    ``exact``        same start and same end           1
    ``overlap``      share >= ``min_overlap`` units    1
                     (or all of the shorter span)
    ``partial``      overlap                           1 if exact, else ``partial_credit``
    ``proportional`` overlap                           overlap / union (Jaccard) or Dice
    ===============  ================================  =========================================

    ``labels="strict"`` also requires equal labels; ``"ignore"`` compares positions only.
    """

    rule: str = options.default("rule")
    labels: str = options.default("labels")
    min_overlap: int = options.default("min_overlap")
    partial_credit: float = options.default("partial_credit")
    proportional: str = options.default("proportional")

    def __post_init__(self) -> None:
        for name in options.RULE_OPTIONS:  # each checked as declared in core/options.py
            options.check(name, getattr(self, name))

    @property
    def by_label(self) -> bool:
        return self.labels == "strict"

    def to_dict(self) -> dict:
        return asdict(self)

    def credit(self, a_start, a_end, b_start, b_end) -> np.ndarray:
        """Credit of each candidate pair (0 where the rule does not allow a match)."""
        a_start, a_end, b_start, b_end = map(np.asarray, (a_start, a_end, b_start, b_end))
        same = (a_start == b_start) & (a_end == b_end)
        overlap = np.minimum(a_end, b_end) - np.maximum(a_start, b_start)
        if self.rule == "exact":
            return same.astype(np.float64)
        if self.rule == "overlap":
            # a span shorter than min_overlap still matches when wholly shared (else identical
            # short spans would count as a disagreement)
            shorter = np.minimum(a_end - a_start, b_end - b_start)
            needed = np.minimum(self.min_overlap, shorter)
            return ((overlap >= needed) & (overlap > 0)).astype(np.float64)
        positive = overlap > 0
        if self.rule == "partial":
            return np.where(same, 1.0, np.where(positive, float(self.partial_credit), 0.0))
        if self.proportional == "jaccard":
            denominator = np.maximum(a_end, b_end) - np.minimum(a_start, b_start)
        else:
            denominator = ((a_end - a_start) + (b_end - b_start)) / 2.0
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(positive, overlap / np.maximum(denominator, 1), 0.0)


@dataclass(frozen=True)
class SpanColumns:
    """One side of an alignment: spans column-wise, each in an alignment group.

    All arrays have shape (n_spans,). Within a group, spans should be in canonical order
    (start, end, label) so that ties are broken the same whatever the input order.
    """

    group: np.ndarray
    start: np.ndarray
    end: np.ndarray
    label: np.ndarray

    @classmethod
    def from_spans(
        cls, spans: Sequence[tuple[int, int, object]], group: int = 0, names: dict[str, int] | None = None
    ) -> "SpanColumns":
        """Build one group from ``(start, end, label)`` tuples (labels of any hashable type), in
        canonical order; ``names`` codes the labels (by default in the order of their names)."""
        spans = sorted(spans, key=lambda s: (s[0], s[1], str(s[2])))
        names = names or {label: i for i, label in enumerate(sorted({str(s[2]) for s in spans}))}
        n = len(spans)
        return cls(
            group=np.full(n, group, dtype=np.int64),
            start=np.array([s[0] for s in spans], dtype=np.int64),
            end=np.array([s[1] for s in spans], dtype=np.int64),
            label=np.array([names[str(s[2])] for s in spans], dtype=np.int64),
        )

    def __len__(self) -> int:
        return len(self.start)


@dataclass(frozen=True)
class Matching:
    """Matched pairs: indices into side A and side B, and each pair's credit."""

    a_index: np.ndarray
    b_index: np.ndarray
    credit: np.ndarray

    @property
    def total(self) -> float:
        return float(self.credit.sum())


def align(a: SpanColumns, b: SpanColumns, rule: AlignmentRule, *, search: str = "sweep") -> Matching:
    """Optimal one-to-one matching of ``a`` and ``b`` within each group under ``rule``."""
    if search not in SEARCHES:
        raise UsageError(f"search must be one of {', '.join(SEARCHES)}; got {search!r}")
    ia, ib = candidate_pairs(a, b, by_label=rule.by_label, exact=rule.rule == "exact", search=search)
    credit = rule.credit(a.start[ia], a.end[ia], b.start[ib], b.end[ib])
    keep = credit > 0
    ia, ib, credit = ia[keep], ib[keep], credit[keep]
    return match(ia, ib, credit, len(a), len(b), levels=tie_levels(a, b, ia, ib))


def tie_levels(a: SpanColumns, b: SpanColumns, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """Per candidate pair, the tie-break levels after credit: (identical, same label), as 0/1."""
    same_label = a.label[ia] == b.label[ib]
    identical = same_label & (a.start[ia] == b.start[ib]) & (a.end[ia] == b.end[ib])
    return np.stack([identical, same_label], axis=1).astype(np.int64)


def candidate_pairs(
    a: SpanColumns, b: SpanColumns, *, by_label: bool, exact: bool = False, search: str = "sweep"
) -> tuple[np.ndarray, np.ndarray]:
    """Every pair ``(i, j)`` of overlapping spans in the same group (and label, if ``by_label``).

    With ``exact=True`` only pairs with identical boundaries. Pairs are sorted by ``(i, j)``.
    """
    if not len(a) or not len(b):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if search == "tree":
        ia, ib = _tree_pairs(a, b, by_label)
        if exact:
            same = (a.start[ia] == b.start[ib]) & (a.end[ia] == b.end[ib])
            ia, ib = ia[same], ib[same]
        return ia, ib
    key_a, key_b, width = _sort_keys(a, b, by_label)
    if exact:
        # join on (key, end): spans sharing a start but not an end never meet (nested spans
        # that all start at one offset would otherwise make every pair a candidate)
        code_a, code_b = _joint_codes(key_a, a.end, key_b, b.end)
        order_b = np.argsort(code_b, kind="stable")
        sorted_b = code_b[order_b]
        order_a = np.argsort(code_a, kind="stable")
        lo = _search(sorted_b, code_a, order_a, "left")
        hi = _search(sorted_b, code_a, order_a, "right")
        ia, pos = expand(lo, hi)
        ib = order_b[pos]
    else:
        order_a = np.argsort(key_a, kind="stable")
        order_b = np.argsort(key_b, kind="stable")
        sorted_a, sorted_b = key_a[order_a], key_b[order_b]
        base_a = key_a - a.start  # group part of the key
        # case 1: b starts inside a (a.start <= b.start < a.end)
        lo1 = _search(sorted_b, key_a, order_a, "left")
        hi1 = _search(sorted_b, base_a + a.end, order_a, "left")
        # case 2: a starts strictly inside b (b.start < a.start < b.end)
        base_b = key_b - b.start
        lo2 = _search(sorted_a, key_b, order_b, "right")
        hi2 = _search(sorted_a, base_b + b.end, order_b, "left")
        _check_density(a.group, hi1 - lo1, b.group, hi2 - lo2)
        ia1, pos1 = expand(lo1, hi1)
        ib2, pos2 = expand(lo2, hi2)
        ia = np.concatenate([ia1, order_a[pos2]])
        ib = np.concatenate([order_b[pos1], ib2])
    order = np.lexsort((ib, ia))
    return ia[order], ib[order]


def match(
    ia: np.ndarray, ib: np.ndarray, credit: np.ndarray, n_a: int, n_b: int, levels: np.ndarray | None = None
) -> Matching:
    """Largest-credit one-to-one matching of a bipartite graph given as an edge list.

    Edges must be sorted by ``(ia, ib)``. ``levels`` (n_edges, k) holds whole-number tie-break
    scores per edge: among matchings of equal credit the one with the larger sums wins, level by
    level, then the one with more pairs. Isolated edges (both ends of degree one) are matched
    directly; every other connected component is solved exactly.
    """
    if levels is None:
        levels = np.zeros((len(ia), 0), dtype=np.int64)
    if not len(ia):
        return Matching(ia, ib, credit)
    deg_a = np.bincount(ia, minlength=n_a)
    deg_b = np.bincount(ib, minlength=n_b)
    simple = (deg_a[ia] == 1) & (deg_b[ib] == 1)
    keep = [np.flatnonzero(simple)]
    rest = np.flatnonzero(~simple)
    if len(rest):
        comp = edge_components(ia[rest], ib[rest], n_a)
        order = np.argsort(comp, kind="stable")
        rest, comp = rest[order], comp[order]
        _, comp = np.unique(comp, return_inverse=True)
        comp = comp.reshape(-1)
        n_comp = int(comp[-1]) + 1
        n_rows = _distinct_per_group(comp, ia[rest], n_comp)
        n_cols = _distinct_per_group(comp, ib[rest], n_comp)
        small_side = np.minimum(n_rows, n_cols)[comp]
        star = (small_side == 1) & (DP_MAX_SIDE >= 1)
        keep.append(rest[star][_best_per_star(comp[star], ia[rest][star], ib[rest][star], credit[rest][star], levels[rest][star])])
        large = (small_side > DP_MAX_SIDE) & ~star
        if large.any():
            keep.append(_sparse_batch(rest, large, ia, ib, credit, levels, comp, n_rows, n_cols, small_side))
        middle = ~star & ~large
        rest, comp = rest[middle], comp[middle]
        bounds = [0, *(np.flatnonzero(np.diff(comp)) + 1).tolist(), len(rest)]
        unit_credit = bool(np.all(credit[rest] == 1.0))
        rows, cols, weights = ia[rest].tolist(), ib[rest].tolist(), credit[rest].tolist()
        keys = [tuple(k) for k in levels[rest].tolist()]
        chosen = []
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            if lo == hi:
                continue
            picked = _solve_component(rows[lo:hi], cols[lo:hi], weights[lo:hi], keys[lo:hi], unit_credit)
            chosen.extend(lo + k for k in picked)
        keep.append(rest[np.array(chosen, dtype=np.int64)])
    take = np.sort(np.concatenate(keep))
    return Matching(ia[take], ib[take], credit[take])


def align_spans(
    spans_a: Sequence[tuple[int, int, object]],
    spans_b: Sequence[tuple[int, int, object]],
    rule: AlignmentRule | None = None,
    **rule_options,
) -> list[tuple[tuple[int, int, object], tuple[int, int, object], float]]:
    """Align two lists of ``(start, end, label)`` spans of one document.

    Returns the matched pairs as ``(span_a, span_b, credit)``, in the order of ``span_a``.

    >>> align_spans([(0, 5, "PER"), (10, 14, "ORG")], [(0, 4, "PER")], rule="overlap")
    [((0, 5, 'PER'), (0, 4, 'PER'), 1.0)]
    """

    spans_a = validate.spans("spans_a", spans_a)
    spans_b = validate.spans("spans_b", spans_b)
    if rule is None or isinstance(rule, str):
        unknown = sorted(set(rule_options) - set(options.RULE_OPTIONS) - {"rule"})
        if unknown:
            raise UsageError(f"unknown option(s) {', '.join(unknown)}; allowed: {', '.join(options.RULE_OPTIONS)}")
        rule = AlignmentRule(**{**rule_options, **({"rule": rule} if rule else {})})
    elif not isinstance(rule, AlignmentRule):
        raise UsageError(f"rule must be a rule's name or an AlignmentRule, got {validate.shown(rule)}")
    elif rule_options:
        raise UsageError(f"options ({', '.join(sorted(rule_options))}) cannot be given with an AlignmentRule")
    spans_a = sorted(spans_a, key=lambda s: (s[0], s[1], str(s[2])))
    spans_b = sorted(spans_b, key=lambda s: (s[0], s[1], str(s[2])))
    names = {lab: i for i, lab in enumerate(sorted({str(s[2]) for s in [*spans_a, *spans_b]}))}
    found = align(SpanColumns.from_spans(spans_a, names=names), SpanColumns.from_spans(spans_b, names=names), rule)
    return [
        (spans_a[i], spans_b[j], float(w))
        for i, j, w in zip(found.a_index.tolist(), found.b_index.tolist(), found.credit.tolist())
    ]


# --- candidate search -------------------------------------------------------------------------


#: Most pairs of overlapping spans one alignment group (one document, two raters) may hold. Real
#: dense overlap stays far below (100,000 spans per rater a few deep: about 640,000 pairs); every
#: span of one rater overlapping every span of the other reaches it at about 3,200 spans each,
#: where weighing the pairs takes about 2 GB and half a minute. Beyond it the memory grows as the
#: square of the spans, so such input is refused with a message rather than left to exhaust memory.
MAX_PAIRS_PER_GROUP = 10_000_000


class DenseOverlapError(InputError):
    """One alignment group holds more candidate pairs than :data:`MAX_PAIRS_PER_GROUP`;
    ``group`` says which (callers that know the document say it in their message)."""

    def __init__(self, group: int, n_pairs: int) -> None:
        self.group, self.n_pairs = group, n_pairs
        super().__init__(
            f"{n_pairs:,} pairs of overlapping spans of two raters in one document, more than the "
            f"{MAX_PAIRS_PER_GROUP:,} that alignment weighs (docs/robustness.md, 'Dense overlap')"
        )


def _check_density(group_a: np.ndarray, per_a: np.ndarray, group_b: np.ndarray, per_b: np.ndarray) -> None:
    """Raise :class:`DenseOverlapError` before the pairs are listed if a group has too many."""
    if int(per_a.sum()) + int(per_b.sum()) <= MAX_PAIRS_PER_GROUP:
        return
    n_groups = int(max(group_a.max(initial=0), group_b.max(initial=0))) + 1
    per_group = np.bincount(group_a, weights=per_a, minlength=n_groups)
    per_group += np.bincount(group_b, weights=per_b, minlength=n_groups)
    worst = int(np.argmax(per_group))
    if per_group[worst] > MAX_PAIRS_PER_GROUP:
        raise DenseOverlapError(worst, int(per_group[worst]))


def _search(haystack: np.ndarray, needles: np.ndarray, order: np.ndarray, side: str) -> np.ndarray:
    """``np.searchsorted(haystack, needles, side)``, the needles looked up in ``order`` (ascending,
    or nearly: a start key's order serves its end key). NumPy's binary search starts each needle
    where the one before it ended when they ascend, and the haystack stays in cache: about seven
    times faster on a million needles than in the order of the rows (by label within a group)."""
    found = np.empty(len(needles), dtype=np.int64)
    found[order] = np.searchsorted(haystack, needles[order], side=side)
    return found


def _joint_codes(key_a: np.ndarray, end_a: np.ndarray, key_b: np.ndarray, end_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One integer code per distinct ``(key, end)`` over both sides."""
    keys = np.concatenate([key_a, key_b])
    ends = np.concatenate([end_a, end_b])
    order = np.lexsort((ends, keys))
    new = np.ones(len(order), dtype=bool)
    new[1:] = (keys[order][1:] != keys[order][:-1]) | (ends[order][1:] != ends[order][:-1])
    codes = np.empty(len(order), dtype=np.int64)
    codes[order] = np.cumsum(new) - 1
    return codes[: len(key_a)], codes[len(key_a):]


def _sort_keys(a: SpanColumns, b: SpanColumns, by_label: bool) -> tuple[np.ndarray, np.ndarray, int]:
    """One int64 key per span: ``group_key * width + start``, group_key including the label."""
    width = int(max(a.end.max(), b.end.max())) + 1
    if by_label:
        n_labels = int(max(a.label.max(), b.label.max())) + 1
        gk_a = a.group * n_labels + a.label
        gk_b = b.group * n_labels + b.label
    else:
        gk_a, gk_b = a.group, b.group
    top = int(max(gk_a.max(), gk_b.max())) + 1
    if top * width > 2**63:  # every key, and key + end, stays below top * width
        raise UsageError("too many alignment groups at once for 64-bit keys; align in smaller batches")
    return gk_a * width + a.start, gk_b * width + b.start, width


def _tree_pairs(a: SpanColumns, b: SpanColumns, by_label: bool) -> tuple[np.ndarray, np.ndarray]:
    """Overlapping pairs by interval trees, one tree per group of side B."""
    from intervaltree import IntervalTree

    key_a = a.group * (int(max(a.label.max(), b.label.max())) + 1) + a.label if by_label else a.group
    key_b = b.group * (int(max(a.label.max(), b.label.max())) + 1) + b.label if by_label else b.group
    trees: dict[int, IntervalTree] = {}
    for j, (k, s, e) in enumerate(zip(key_b.tolist(), b.start.tolist(), b.end.tolist())):
        trees.setdefault(k, IntervalTree()).addi(s, e, j)
    pairs = [
        (i, iv.data)
        for i, (k, s, e) in enumerate(zip(key_a.tolist(), a.start.tolist(), a.end.tolist()))
        if k in trees
        for iv in trees[k].overlap(s, e)
    ]
    if not pairs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    ia, ib = np.array(pairs, dtype=np.int64).T
    order = np.lexsort((ib, ia))
    return ia[order], ib[order]


# --- matching ---------------------------------------------------------------------------------


def edge_components(ia: np.ndarray, ib: np.ndarray, n_a: int) -> np.ndarray:
    """Connected-component label of each edge (min-label propagation with pointer jumping)."""
    nodes_a, ua = np.unique(ia, return_inverse=True)
    nodes_b, ub = np.unique(ib, return_inverse=True)
    ub = ub + len(nodes_a)
    label = np.arange(len(nodes_a) + len(nodes_b))
    while True:
        low = np.minimum(label[ua], label[ub])
        new = label.copy()
        np.minimum.at(new, ua, low)
        np.minimum.at(new, ub, low)
        new = new[new]
        if np.array_equal(new, label):
            return label[ua]
        label = new


def _distinct_per_group(group: np.ndarray, node: np.ndarray, n_groups: int) -> np.ndarray:
    """How many distinct nodes each group's edges touch."""
    pairs = np.unique(group * (int(node.max()) + 1) + node) if len(node) else np.zeros(0, np.int64)
    return np.bincount(pairs // (int(node.max()) + 1) if len(node) else pairs, minlength=n_groups)


def _best_per_star(comp: np.ndarray, ia: np.ndarray, ib: np.ndarray, credit: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Positions of the chosen edge of each *star* (a component one of whose sides is one span):
    the largest credit (within ``CREDIT_TOLERANCE``), then the larger levels, then the earliest
    span of the larger side, which is what :func:`_solve_component` would choose."""
    if not len(comp):
        return np.zeros(0, np.int64)
    centre_is_b = _distinct_per_group(comp, ib, int(comp.max()) + 1) == 1
    leaf = np.where(centre_is_b[comp], ia, ib)
    level = np.round(credit / CREDIT_TOLERANCE)
    order = np.lexsort((leaf, *(-levels[:, ::-1].T), -level, comp))
    first = np.ones(len(order), dtype=bool)
    first[1:] = comp[order][1:] != comp[order][:-1]
    return order[first]


def _solve_component(
    ia: list[int], ib: list[int], credit: list[float], keys: list[tuple[int, ...]], unit_credit: bool
) -> list[int]:
    """Positions (into the given edges) of an optimal matching of one component.

    Maximises total credit; ties go to the larger sums of ``keys`` (level by level), then to more
    matched pairs, then to matching earlier spans first. For components whose smaller side has
    at most ``DP_MAX_SIDE`` spans (larger ones go to :func:`_sparse_batch`): when every credit is
    1 and every key the same, a maximum-cardinality matching (augmenting paths), else dynamic
    programming over the smaller side.
    """
    rows = {a: k for k, a in enumerate(sorted(set(ia)))}
    cols = {b: k for k, b in enumerate(sorted(set(ib)))}
    r = [rows[a] for a in ia]
    c = [cols[b] for b in ib]
    if len(cols) > len(rows):
        rows, cols, r, c = cols, rows, c, r
    if unit_credit and len(set(keys)) == 1:
        return _augmenting_matching(r, c, len(rows))
    keys = [(*k, 1) for k in keys]
    if unit_credit:  # credit 1 and every level a whole number: one exact score per edge
        base = len(cols) + 1
        score = [sum(k * base ** (len(key) - l) for l, k in enumerate(key)) + base ** (len(key) + 1) for key in keys]
        return _dp_matching(r, c, [float(x) for x in score], [()] * len(keys), len(rows))
    return _dp_matching(r, c, credit, keys, len(rows))


def _augmenting_matching(r: list[int], c: list[int], n_rows: int) -> list[int]:
    """Maximum-cardinality matching by augmenting paths (Kuhn 1955), rows and columns in order.

    Iterative depth-first search, so a large component cannot exhaust the recursion limit.
    """
    by_row: list[list[tuple[int, int]]] = [[] for _ in range(n_rows)]
    for e, (ri, ci) in enumerate(zip(r, c)):
        by_row[ri].append((ci, e))
    col_match: dict[int, tuple[int, int]] = {}  # column -> (row, edge)
    row_match: dict[int, int] = {}  # row -> column
    for root in range(n_rows):
        reached_by: dict[int, tuple[int, int]] = {}  # column -> (row, edge) that reached it
        stack = [(root, iter(by_row[root]))]
        free_col = None
        while stack and free_col is None:
            row, options = stack[-1]
            for col, e in options:
                if col in reached_by:
                    continue
                reached_by[col] = (row, e)
                if col not in col_match:
                    free_col = col
                else:
                    partner = col_match[col][0]
                    stack.append((partner, iter(by_row[partner])))
                break
            else:
                stack.pop()
        col = free_col
        while col is not None:  # flip the path back to the root
            row, e = reached_by[col]
            previous = row_match.get(row)
            col_match[col] = (row, e)
            row_match[row] = col
            col = previous
    return sorted(e for _, e in col_match.values())


def _dp_matching(r: list[int], c: list[int], w: list[float], keys: list[tuple[int, ...]], n_rows: int) -> list[int]:
    """Exact lexicographic (credit, key sums) optimum by DP over rows with a bitmask of used columns."""
    by_row: list[list[tuple[int, int]]] = [[] for _ in range(n_rows)]
    for e, (ri, ci) in enumerate(zip(r, c)):
        by_row[ri].append((ci, e))
    zero = tuple(0 for _ in keys[0]) if keys else ()
    plain = not zero  # no key levels: compare the scores alone
    # state: used-column mask -> (credit, key sums, chosen edges as a tuple)
    states: dict[int, tuple[float, tuple[int, ...], tuple[int, ...]]] = {0: (0.0, zero, ())}
    for options in by_row:
        nxt: dict[int, tuple[float, tuple[int, ...], tuple[int, ...]]] = {}
        for mask, (total, sums, edges) in states.items():
            for ci, e in options:
                if mask >> ci & 1:
                    continue
                added = sums if plain else tuple(x + y for x, y in zip(sums, keys[e]))
                _offer(nxt, mask | 1 << ci, (total + w[e], added, edges + (e,)))
            _offer(nxt, mask, (total, sums, edges))
        states = nxt
    best = None
    for value in states.values():
        if best is None or _better(value, best):
            best = value
    return list(best[2])


def _offer(states: dict, mask: int, value: tuple[float, tuple[int, ...], tuple[int, ...]]) -> None:
    held = states.get(mask)
    if held is None or _better(value, held):
        states[mask] = value


def _better(x: tuple[float, tuple[int, ...], tuple[int, ...]], y: tuple[float, tuple[int, ...], tuple[int, ...]]) -> bool:
    """Larger credit; within tolerance, larger key sums level by level (the last level counts
    pairs); then the earlier choice (kept on a tie)."""
    if x[0] > y[0] + CREDIT_TOLERANCE:
        return True
    if x[0] < y[0] - CREDIT_TOLERANCE:
        return False
    return x[1] > y[1]


#: Credit grid when credits are not whole multiples of a small fraction: 2^-36 (about 1.5e-11).
GRID = 2**36
#: Largest denominator looked for when writing a credit as an exact fraction (spans up to 2^20 long).
MAX_DENOMINATOR = 2**20
#: With more distinct credits than this in the large components, credits go on the grid directly.
MAX_DISTINCT_CREDITS = 50_000


def _sparse_batch(
    rest: np.ndarray, large: np.ndarray, ia: np.ndarray, ib: np.ndarray, credit: np.ndarray, levels: np.ndarray,
    comp: np.ndarray, n_rows: np.ndarray, n_cols: np.ndarray, small_side: np.ndarray,
) -> np.ndarray:
    """Edges (indices into all edges) of the optimal matching of the ``large`` components of the
    ``rest`` edges, by sparse assignment. A component whose tie-break levels would not all fit the
    folded weights and whose smaller side has at most ``DP_FALLBACK_SIDE`` spans is solved by
    dynamic programming instead (``large`` is cleared there, for the caller)."""
    at = np.flatnonzero(large)
    weight, short = _fold_batch(credit[rest[at]], levels[rest[at]], comp[at], n_rows, n_cols)
    back = short & (small_side[at] <= DP_FALLBACK_SIDE)
    large[at[back]] = False
    at, weight = at[~back], weight[~back]
    if not len(at):
        return np.zeros(0, np.int64)
    edges = rest[at]
    _, r = np.unique(ia[edges], return_inverse=True)
    _, c = np.unique(ib[edges], return_inverse=True)
    r, c = r.reshape(-1), c.reshape(-1)
    return edges[max_weight_matching(r, c, weight, int(r.max()) + 1, int(c.max()) + 1, group=comp[at])]


#: Components up to this many spans on the smaller side whose tie-break levels would not all fit
#: the sparse assignment's weights (non-whole credits only) are solved by dynamic programming.
DP_FALLBACK_SIDE = 8


def _fold_batch(
    credit: np.ndarray, levels: np.ndarray, comp: np.ndarray, n_rows: np.ndarray, n_cols: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_fold` for many independent components at once, each on its own scale (vectorised;
    one by one for a component whose credit alone would not fit). Returns the weights and, per
    edge, whether its component lost tie-break levels."""
    full = np.concatenate([levels, np.ones((len(credit), 1), dtype=np.int64)], axis=1)  # the pair count last
    keys = _useful_levels(credit, full)
    base = (np.minimum(n_rows, n_cols) + 1).astype(np.float64)
    q = _denominators_per_group(credit, comp, len(n_rows))
    top = np.zeros(len(n_rows))
    np.maximum.at(top, comp, credit)
    # per component, as many levels as keep 2 (n_rows + n_cols) (largest weight + 1) < 2^52
    room = 51.5 - 1 - np.log2(n_rows + n_cols) - np.log2(np.ceil(q * np.maximum(top, 1)) + 1)
    n_levels = np.minimum(np.floor(room / np.log2(base)), keys.shape[1]).astype(np.int64)
    ok = (n_levels >= 0)[comp]
    weight = np.zeros(len(credit))
    if ok.any():
        b, depth = base[comp[ok]], n_levels[comp[ok]]
        lower = np.zeros(int(ok.sum()))
        for level in range(keys.shape[1]):
            used = level < depth
            lower = np.where(used, lower * b + keys[ok, level], lower)
        weight[ok] = np.maximum(np.round(credit[ok] * q[comp[ok]]), 1) * b**depth + lower
    for k in np.unique(comp[~ok]).tolist():
        at = np.flatnonzero(comp == k)
        weight[at] = _fold(credit[at], full[at], int(n_rows[k]), int(n_cols[k]))
    return weight, (n_levels < keys.shape[1])[comp]


def _fold(credit: np.ndarray, keys: np.ndarray, n_rows: int, n_cols: int) -> np.ndarray:
    """One whole-number weight per edge whose sums order matchings as (credit, key sums) do.

    With ``base = min(n_rows, n_cols) + 1`` (no key sum of a matching reaches it), ``weight =
    credit·Q·base^k + Σ_l key_l·base^(k-1-l)``. ``Q`` makes every credit whole: the least common
    multiple of the credits' denominators when each is an exact fraction with a denominator up to
    2^20 (the partial rule's ``{1, p}``; Jaccard's shared ÷ union), else the grid ``2^36``. Levels
    that add nothing are dropped first (constant columns, repeats, the pair count when every
    credit is the same). Sums must stay exact in 64-bit floats (:func:`.matching.fits`); if they
    would not, the last levels are dropped (they only order matchings of equal credit) and, as a
    last resort, the credit grid is made coarser; docs/alignment.md says when that can happen.
    """
    keys = _useful_levels(credit, keys)
    base = min(n_rows, n_cols) + 1
    q_exact = _common_denominator(credit)
    top = max(float(credit.max()), 1.0)
    for n_levels in range(keys.shape[1], -1, -1):
        scale = base ** n_levels
        for q in ([q_exact] if q_exact else []) + [GRID]:
            if fits(n_rows, n_cols, int(np.ceil(q * top)) * scale + scale):
                return _weights(credit, keys[:, :n_levels], q, base)
    q = 1
    while fits(n_rows, n_cols, int(np.ceil(4 * q * top))):
        q *= 2
    return _weights(credit, keys[:, :0], q, base)


def _weights(credit: np.ndarray, keys: np.ndarray, q: int, base: int) -> np.ndarray:
    n_levels = keys.shape[1]
    whole = np.maximum(np.round(credit * q), 1)  # a candidate pair is worth something
    lower = np.zeros(len(credit))
    for level in range(n_levels):
        lower = lower * base + keys[:, level]
    return whole * float(base ** n_levels) + lower


def _useful_levels(credit: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The key columns that can change the order of matchings, in order."""
    kept: list[np.ndarray] = []
    for level in range(keys.shape[1]):
        column = keys[:, level]
        if not column.any() or any(np.array_equal(column, k) for k in kept):
            continue
        if column.min() == column.max() and np.all(credit == credit[0]):
            continue  # a constant level counts pairs, and so does a constant credit
        kept.append(column)
    return np.stack(kept, axis=1) if kept else np.zeros((len(credit), 0), dtype=np.int64)


def _denominators_per_group(credit: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group, the credit scale of :func:`_fold`: the least common multiple of its credits'
    denominators (exact fractions up to ``MAX_DENOMINATOR``) when it is at most 2^40, else ``GRID``
    (``GRID`` for all when there are more than ``MAX_DISTINCT_CREDITS`` distinct credits)."""
    values, where = np.unique(credit, return_inverse=True)
    if len(values) > MAX_DISTINCT_CREDITS:  # writing each as a fraction would cost more than it saves
        return np.full(n_groups, float(GRID))
    dens = []
    for value in values.tolist():
        fraction = Fraction(value).limit_denominator(MAX_DENOMINATOR)
        dens.append(fraction.denominator if float(fraction) == value else 0)
    den = np.array(dens, dtype=np.int64)[where.reshape(-1)]
    # distinct (group, denominator) pairs; the product of a group's bounds its lcm
    pairs = np.unique(group * (MAX_DENOMINATOR + 1) + den)
    g, d = pairs // (MAX_DENOMINATOR + 1), pairs % (MAX_DENOMINATOR + 1)
    inexact = np.zeros(n_groups, dtype=bool)
    inexact[g[d == 0]] = True
    size = np.bincount(g, weights=np.log2(np.maximum(d, 1)), minlength=n_groups)
    q = np.full(n_groups, float(GRID))
    small = ~inexact & (size <= 40)
    if small.any():
        starts = np.flatnonzero(np.concatenate([[True], g[1:] != g[:-1]]))
        per_group = np.lcm.reduceat(np.maximum(d, 1), starts)
        q[g[starts][small[g[starts]]]] = per_group[small[g[starts]]].astype(np.float64)
    return q


def _common_denominator(credit: np.ndarray) -> int | None:
    """The least common multiple of the credits' denominators, if each credit is an exact fraction
    with a denominator up to ``MAX_DENOMINATOR`` (None otherwise, or when it exceeds 2^40)."""
    q = 1
    for value in np.unique(credit).tolist():
        fraction = Fraction(value).limit_denominator(MAX_DENOMINATOR)
        if float(fraction) != value:
            return None
        q = lcm(q, fraction.denominator)
        if q > 2**40:
            return None
    return q
