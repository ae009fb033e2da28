"""Every PSA statistic from summed counts: one function for the point estimate and every replicate.

The report's point values, each bootstrap or jackknife replicate (:mod:`spanagree.measures.intervals`)
and the spaCy scorer all call :func:`summarize`. Its input is counts already summed over
documents, with a leading replicate axis (``R = 1`` for the point estimate). Shapes, with
``P`` the rater pairs computed one by one, ``C`` their (pair, label) cells with any count,
``K`` the labels and ``N`` the raters:

- ``pair_abc`` (R, P, 3): a, b, c of each pair (b: the pair's first rater's unmatched spans),
  or (R, P, 2): a and b + c (all PSA needs; so for ``cell_abc`` and ``rater_abc``);
- ``pair_weight`` (R, P): each pair's weight in the pairwise means (1 in the data; in a
  bootstrap replicate the share of the pair's documents drawn, see docs/intervals.md);
- ``cell_abc`` (R, C, 3): a, b, c of each cell, labels strict; the layout says its pair and label;
- ``total_abc`` (R, 3) and ``label_abc`` (R, K, 3): sums over every pair (pooled statistics);
- ``rater_abc`` (R, N, 3): per rater ``(a, own, other)`` summed over its pairs (None: from
  ``pair_abc``);
- ``fixed`` (optional): pairs whose PSA is the same in every replicate that draws them (pairs seen
  on one document only), already summed by document: ``Σ ω·PSA`` and ``Σ ω`` over the defined
  ones, overall (R, 2), per label (R, K, 2) and per rater (R, N, 2). A replicate then costs a
  weighted sum over documents, not a pass over every such pair.

Statistics (NaN where undefined), definitions in docs/agreement.md: PSA ``2a / (2a + b + c)``
(Hripcsak & Rothschild 2005); the pairwise mean ``Σ_p ω_p·PSA_p / Σ_p ω_p`` over the pairs
where PSA is defined; pooled PSA of the summed counts; per label the same with labels strict;
macro, the mean over labels where defined; per rater the mean PSA of its pairs and its F
against the others, ``2a / (2a + own + other)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core.arrays import block_cuts, dense_codes

from .specific import add_rows, psa


@dataclass(frozen=True)
class Layout:
    """What stays the same across replicates: the rater pairs computed one by one (``pairs``,
    (P, 2) rater codes), the pair and label of each cell (``cell_pair``, ``cell_label``, (C,),
    cells sorted by label), and the numbers of labels and raters."""

    pairs: np.ndarray
    cell_pair: np.ndarray
    cell_label: np.ndarray
    n_labels: int
    n_raters: int

    @property
    def label_runs(self) -> np.ndarray:
        """Where each label's cells start (cells are sorted by label)."""
        return np.searchsorted(self.cell_label, np.arange(self.n_labels))


@dataclass
class Fixed:
    """Sums over pairs whose PSA does not change between replicates: ``[Σ ω·PSA, Σ ω]`` over the
    defined ones, overall (R, 2), per label (R, K, 2) and per rater (R, N, 2) or None."""

    overall: np.ndarray
    label: np.ndarray
    rater: np.ndarray | None = None


@dataclass
class Summary:
    """Every statistic, one value per replicate (first axis R); NaN = undefined."""

    pair_abc: np.ndarray  # (R, P, 3), as given
    pair_psa: np.ndarray  # (R, P)
    cell_abc: np.ndarray  # (R, C, 3), as given
    cell_psa: np.ndarray  # (R, C)
    total: np.ndarray  # (R, 3)
    pairwise_mean: np.ndarray  # (R,)
    pooled: np.ndarray  # (R,)
    label_total: np.ndarray  # (R, K, 3)
    label_mean: np.ndarray  # (R, K)
    label_pooled: np.ndarray  # (R, K)
    macro_mean: np.ndarray  # (R,)
    macro_pooled: np.ndarray  # (R,)
    rater_abc: np.ndarray | None = None  # (R, N, 3): a, own, other
    rater_mean: np.ndarray | None = None  # (R, N)
    rater_f: np.ndarray | None = None  # (R, N)


def summarize(
    layout: Layout,
    pair_abc: np.ndarray,
    cell_abc: np.ndarray,
    total_abc: np.ndarray,
    label_abc: np.ndarray,
    *,
    pair_weight: np.ndarray | None = None,
    fixed: Fixed | None = None,
    raters: bool = False,
    rater_abc: np.ndarray | None = None,
) -> Summary:
    """Every PSA statistic from summed counts (shapes in the module docstring).

    >>> layout = Layout(np.array([[0, 1]]), np.array([0]), np.array([0]), 1, 2)
    >>> s = summarize(layout, np.array([[[2., 1, 1]]]), np.array([[[2., 1, 1]]]),
    ...               np.array([[2., 1, 1]]), np.array([[[2., 1, 1]]]), raters=True)
    >>> float(s.pairwise_mean[0]), float(s.macro_pooled[0]), s.rater_f.tolist()
    (0.6666666666666666, 0.6666666666666666, [[0.6666666666666666, 0.6666666666666666]])
    """
    pair_psa = row_psa(pair_abc)
    weight = np.where(np.isnan(pair_psa), 0.0, np.ones(pair_psa.shape) if pair_weight is None else pair_weight)
    values = np.where(weight > 0, pair_psa, 0.0) * weight
    numerator, denominator = values.sum(axis=-1), weight.sum(axis=-1)  # weighted_sums(pair_psa, weight)
    if fixed is not None:
        numerator, denominator = numerator + fixed.overall[:, 0], denominator + fixed.overall[:, 1]

    cell_psa = row_psa(cell_abc)
    cell_weight = np.where(np.isnan(cell_psa), 0.0, np.take(weight, layout.cell_pair, axis=1))
    label_numerator = by_label(layout, np.where(cell_weight > 0, cell_psa, 0.0) * cell_weight)
    label_denominator = by_label(layout, cell_weight)
    if fixed is not None:
        label_numerator, label_denominator = label_numerator + fixed.label[..., 0], label_denominator + fixed.label[..., 1]
    label_mean = ratio(label_numerator, label_denominator)
    label_pooled = row_psa(label_abc)
    out = Summary(
        pair_abc=pair_abc, pair_psa=pair_psa, cell_abc=cell_abc, cell_psa=cell_psa, total=total_abc,
        pairwise_mean=ratio(numerator, denominator), pooled=row_psa(total_abc),
        label_total=label_abc, label_mean=label_mean, label_pooled=label_pooled,
        macro_mean=nanmean(label_mean), macro_pooled=nanmean(label_pooled),
    )
    if raters:
        out.rater_abc = oriented_sums(pair_abc, layout.pairs, layout.n_raters) if rater_abc is None else rater_abc
        out.rater_f = row_psa(out.rater_abc)
        rater_numerator = per_rater(values, layout.pairs, layout.n_raters)
        rater_denominator = per_rater(weight, layout.pairs, layout.n_raters)
        if fixed is not None and fixed.rater is not None:
            rater_numerator, rater_denominator = rater_numerator + fixed.rater[..., 0], rater_denominator + fixed.rater[..., 1]
        out.rater_mean = ratio(rater_numerator, rater_denominator)
    return out


def row_psa(abc: np.ndarray) -> np.ndarray:
    """:func:`~.specific.psa` of every (…, 3) row of a, b, c, or (…, 2) row of a and b + c (all
    PSA needs: the replicates sum only these); NaN where ``2a + b + c = 0``."""
    return psa(abc[..., 0], abc[..., 1], abc[..., 2] if abc.shape[-1] == 3 else 0.0)


def against(pair_abc: np.ndarray, pairs: np.ndarray, rater: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs with ``rater`` and their (…, 3) sums with ``rater`` as side A: returns (pair
    indices, ``pair_abc[..., those pairs, :]`` with b and c swapped where ``rater`` is second)."""
    index = np.flatnonzero((pairs[:, 0] == rater) | (pairs[:, 1] == rater))
    abc = pair_abc[..., index, :]
    swap = pairs[index, 1] == rater
    return index, np.where(swap[:, None], abc[..., [0, 2, 1]], abc)


def oriented_sums(pair_abc: np.ndarray, pairs: np.ndarray, n_raters: int) -> np.ndarray:
    """Per rater ``(a, own, other)`` summed over its pairs, from (R, P, 3) pair sums: (R, N, 3)."""
    moved = np.moveaxis(pair_abc, 1, 0)
    out = np.zeros((n_raters, *moved.shape[1:]))
    add_rows(out, pairs[:, 0], moved)
    add_rows(out, pairs[:, 1], moved[..., [0, 2, 1]])
    return np.moveaxis(out, 0, 1)


def per_rater(values: np.ndarray, pairs: np.ndarray, n_raters: int) -> np.ndarray:
    """Sums per rater of per-pair values (R, P) over the pairs it is in: (R, N); one weighted
    count per replicate."""
    index = pairs.T.reshape(-1)  # each pair's first raters, then its second
    both = np.concatenate([values, values], axis=-1)
    return np.stack([np.bincount(index, weights=row, minlength=n_raters) for row in both]).reshape(len(values), n_raters)


def by_label(layout: Layout, values: np.ndarray) -> np.ndarray:
    """Sums over each label's cells: (R, C, …) → (R, K, …); 0 for a label without cells."""
    runs = layout.label_runs
    out = np.zeros((values.shape[0], layout.n_labels, *values.shape[2:]))
    has = runs < np.r_[runs[1:], values.shape[1]]
    if values.shape[1]:
        out[:, has] = np.add.reduceat(values, runs[has], axis=1)
    return out


def weighted_sums(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(Σ w·v, Σ w)`` over the last axis, over the defined (non-NaN) values only: the terms
    of a weighted mean (the plain mean with weights 1)."""
    weights = np.where(np.isnan(values), 0.0, weights)
    return (np.where(weights > 0, values, 0.0) * weights).sum(axis=-1), weights.sum(axis=-1)


def ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator``, NaN where the denominator is not positive."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan)


def nanmean(values: np.ndarray) -> np.ndarray:
    """Mean over the last axis of the defined (non-NaN) values; NaN when none is."""
    defined = ~np.isnan(values)
    return ratio(np.where(defined, values, 0.0).sum(axis=-1), defined.sum(axis=-1).astype(float))


def label_cells(
    comparison_pair: np.ndarray, label_comparison: np.ndarray, label_code: np.ndarray, n_pairs: int, block: int = 1 << 20
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (pair, label) cells of per-label count rows (row i: comparison ``label_comparison[i]``, label
    ``label_code[i]``; ``comparison_pair``: each comparison's rater pair): ``(cell_pair, cell_label, cell of
    each row)``, cells sorted by label, then pair.

    With few possible cells (labels × pairs), the rows' keys are formed and coded in blocks of
    ``block`` rows through a table of the cells present, so the only array as long as the rows
    is the result."""
    n_labels = int(label_code.max()) + 1 if len(label_code) else 0
    bound = n_labels * n_pairs
    key_type = np.int32 if bound < 2**31 else np.int64
    n = len(label_code)

    def keys(lo: int, hi: int) -> np.ndarray:
        key = label_code[lo:hi].astype(key_type) * n_pairs
        key += comparison_pair[label_comparison[lo:hi]]
        return key

    if bound > 1 << 22 or bound > 4 * n + 1024:
        cells, cell_of = dense_codes(keys(0, n), bound)
    else:
        present = np.zeros(bound, dtype=bool)
        for lo in range(0, n, block):
            present[keys(lo, lo + block)] = True
        cells = np.flatnonzero(present)
        table = np.zeros(bound, dtype=np.int32)
        table[cells] = np.arange(len(cells))
        cell_of = np.empty(n, dtype=np.int32)
        for lo in range(0, n, block):
            cell_of[lo : lo + block] = table[keys(lo, lo + block)]
    cell_label, cell_pair = np.divmod(cells.astype(np.int64), n_pairs)
    return cell_pair, cell_label, cell_of


def point(counts, n_labels: int, n_raters: int, *, raters: bool = False) -> tuple[Layout, Summary]:
    """The point estimate from per-comparison counts (``spanagree.core.counts.Counts``): every rater
    pair computed one by one, weight 1."""
    comparisons = counts.comparisons
    n_pairs = len(comparisons.pairs)
    pair_abc = bin_rows(comparisons.pair, counts.abc, n_pairs)
    label_abc = bin_rows(counts.label_code, counts.label_abc, n_labels)
    cell_pair, cell_label, cell_of = label_cells(comparisons.pair, counts.label_comparison, counts.label_code, n_pairs)
    cell_abc = bin_rows(cell_of, counts.label_abc, len(cell_pair))
    layout = Layout(comparisons.pairs, cell_pair, cell_label, n_labels, n_raters)
    total = counts.abc.sum(axis=0).astype(np.float64)
    return layout, summarize(layout, pair_abc[None], cell_abc[None], total[None], label_abc[None], raters=raters)


def bin_psa(index: np.ndarray, abc: np.ndarray, n: int, block: int = 1 << 20) -> tuple[np.ndarray, np.ndarray]:
    """Per bin (``index`` of each (…, 3) row of a, b, c, ``n`` bins): the sum of the rows' PSA
    where defined (:func:`row_psa`) and how many rows it is defined for, the two parts of a
    pairwise mean. Rows in ``block``s (no float64 copy of every row, nor every row's PSA, at once),
    cut where the bin changes when ``index`` is sorted, so that each bin's sum adds its rows in
    order, one after the other, as one pass over all rows would (the same bits)."""
    total, defined = np.zeros(n), np.zeros(n, dtype=np.int64)
    cuts = block_cuts(index, block)
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        values = row_psa(abc[lo:hi])
        undefined = np.isnan(values)
        values[undefined] = 0.0
        total += np.bincount(index[lo:hi], weights=values, minlength=n)
        defined += np.bincount(index[lo:hi], minlength=n) - np.bincount(index[lo:hi][undefined], minlength=n)
    return total, defined


def bin_rows(index: np.ndarray, values: np.ndarray, n: int, block: int = 1 << 20) -> np.ndarray:
    """Sum the rows of ``values`` (rows, …) into ``n`` bins by ``index``, in float64.

    Whole-number values (integer arrays) are summed in blocks of ``block`` rows, so no float64
    copy of a whole column is made (their sums are exact in any order); fractional values in one
    pass, rows in order."""
    flat = values.reshape(len(values), int(np.prod(values.shape[1:])))
    out = np.zeros((n, flat.shape[1]))
    step = block if flat.dtype.kind in "ui" else max(len(flat), 1)
    for lo in range(0, len(flat), step):
        rows = index[lo : lo + step].astype(np.intp, copy=False)  # as bincount takes it: cast once, not per column
        for j in range(flat.shape[1]):
            out[:, j] += np.bincount(rows, weights=flat[lo : lo + step, j], minlength=n)
    return out.reshape((n, *values.shape[1:]))
