"""Uncertainty of the headline statistics: bootstrap and jackknife over documents (docs/intervals.md).

Spans inside one document are not independent, so documents are the unit of resampling. Every
statistic spanagree reports is a function of sums of per-document counts (a, b, c per rater pair
and label; with candidates, the k×k table of each pair and Krippendorff's coincidence matrix), so
one replicate is one weighted sum of the per-document rows: ``W @ D`` with ``W`` the
(replicates × documents) resampling counts and ``D`` the (documents × columns) counts. Nothing
is re-aligned.

- **Bootstrap** (default 1,000 replicates, seeded: the same input and seed give the same
  interval): each replicate draws the documents with replacement; the interval is the
  percentile interval of the replicate values (Efron & Tibshirani 1993, ch. 13).
- **Pairwise means in a replicate** weight each rater pair by the share of its documents that
  the replicate drew, ``ω_p = Σ_d w_d·n_pd / Σ_d n_pd`` (``n_pd`` = 1 when the pair rated
  document d together): 1 for every pair in the data, so the point estimate is the plain mean;
  0 for a pair none of whose documents was drawn. Counting each pair once whatever its weight
  (the plain mean over the pairs that happen to be defined) is not a smooth function of the
  document weights: with thousands of sparse rater pairs, most of them seen on one or two
  documents, a replicate then averages over fewer, other pairs, and its values are neither
  centred on the point nor as spread as they should be (crowd corpora put the point outside
  its own interval). With ``ω_p`` the pairwise mean is a ratio of weighted document sums, whose
  bootstrap is valid (for pairs seen once it is the ratio estimator
  ``Σ_d w_d·Σ_{p∈d} PSA_p / Σ_d w_d·m_d``); see ``docs/intervals.md``.
- **Jackknife** standard error: leave one document out, ``se = sqrt((n−1)/n · Σ (θ₋ᵢ − θ̄)²)``
  (Efron & Tibshirani 1993, ch. 11).
- **Analytic** standard error of PSA (delta method, multinomial counts; docs/agreement.md):
  ``se = 2·sqrt(a·(b + c)·(a + b + c)) / (2a + b + c)²``.

Replicates where a statistic is undefined (e.g. no spans at all in the resample) are left out
of its interval and counted.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core import progress
from ...errors import UsageError
from ..chance.section import presence, rating_pair_rows
from .specific import psa, reported
from ..chance.krippendorff import alpha_array
from ..chance.two_raters import cohen_kappa_array
from .summary import Fixed, Layout, bin_rows, label_cells, row_psa, summarize

#: How the intervals are made, as the report says it.
METHOD = (
    "percentile bootstrap over documents (pairwise means weight each rater pair by its documents drawn); "
    "se: jackknife over documents"
)
#: Replicates per block of the weight matrix (bounds memory: block × documents floats).
BLOCK = 250
#: Cells of replicate sums computed at once (replicates per step = this / the sums' width).
STEP_CELLS = 4_000_000
#: The documents × columns count matrix is built when it has at most this many cells.
DENSE_CELLS = 20_000_000
#: Otherwise, sources with at most this many cells (documents × their columns) still get one.
SMALL_DENSE_CELLS = 2_000_000
#: Replicates whose weights are gathered for every nonzero entry at once (sparse sums).
GATHER = 8
#: Columns with at most this many nonzero entries are summed by one vector pass per entry.
GROUPED_MAX = 16
#: Documents above which the jackknife (one replicate per document) is not run.
JACKKNIFE_MAX = 20_000


@dataclass(frozen=True)
class IntervalOptions:
    """``level`` (e.g. 0.95), ``replicates`` (bootstrap draws) and ``seed``."""

    level: float = 0.95
    replicates: int = 1000
    seed: int = 0

    def __post_init__(self) -> None:
        if not 0 < self.level < 1:
            raise UsageError(f"the interval level must be between 0 and 1, got {self.level!r}")
        if type(self.replicates) is not int or self.replicates < 2:
            raise UsageError(f"bootstrap replicates must be a whole number >= 2, got {self.replicates!r}")


def analytic_psa_se(a: float, b: float, c: float) -> float | None:
    """Delta-method standard error of PSA: ``2·sqrt(a(b + c)(a + b + c)) / (2a + b + c)²``.

    >>> round(analytic_psa_se(227, 31, 50), 4)
    0.0166
    >>> analytic_psa_se(0, 0, 0) is None
    True
    """
    denominator = (2 * a + b + c) ** 2
    return None if denominator == 0 else 2 * float(np.sqrt(a * (b + c) * (a + b + c))) / denominator


class _Sources:
    """Additive per-document arrays (sources), and their weighted sums over documents.

    A source is ``(name, document of each row, flat column of each value, values, shape of the
    sums)``. A replicate's sums are ``W @ D`` with D the documents × columns matrix when that
    fits in memory (one BLAS product per block of replicates). Otherwise (many rater pairs) the
    sources with few columns (totals, labels) still make a dense matrix of their own, and the
    others are kept as their nonzero entries sorted by column: a few replicates at a time gather
    their documents' weights for every entry and sum each column's run of entries
    (``np.add.reduceat``), the product of a sparse matrix with a few weight vectors.
    """

    def __init__(self, sources: list, row_of: np.ndarray, n_documents: int, dense: bool) -> None:
        self.sources, self.row_of, self.n_documents = sources, row_of, n_documents
        self.matrix = self._dense(sources) if dense else None
        self._entries: tuple | None = None
        self._small: tuple | None = None

    @property
    def columns(self) -> int:
        return sum(int(np.prod(src[4])) for src in self.sources)

    def _dense(self, sources: list) -> np.ndarray:
        matrix = np.zeros((self.n_documents, sum(int(np.prod(src[4])) for src in sources)))
        start = 0
        for _, doc, column, values, shape in sources:
            rows = np.broadcast_to(self.row_of[doc].reshape((-1,) + (1,) * (column.ndim - 1)), column.shape)
            np.add.at(matrix, (rows.reshape(-1), start + column.reshape(-1)), np.broadcast_to(values, column.shape).reshape(-1))
            start += int(np.prod(shape))
        return matrix

    def sums(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        if self.matrix is not None:
            return self.split(weights @ self.matrix)
        if self._entries is None:
            self._prepare()
        small_columns, small_matrix = self._small
        flat = np.zeros((len(weights), self.columns))
        if len(small_columns):
            flat[:, small_columns] = weights @ small_matrix
        for lo in range(0, len(weights), GATHER):
            block = weights[lo : lo + GATHER]
            for columns, rows, values in self._entries[0]:  # columns of k entries: k gathers
                total = np.take(block, rows[0], axis=1)
                total *= values[0]
                for j in range(1, len(rows)):
                    term = np.take(block, rows[j], axis=1)
                    term *= values[j]
                    total += term
                flat[lo : lo + GATHER, columns] = total
            columns, rows, values, column_of = self._entries[1]  # the few long columns: weighted counts
            for replicate, row in enumerate(block if len(columns) else ()):
                flat[lo + replicate, columns] = np.bincount(column_of, weights=row[rows] * values, minlength=len(columns))
        return self.split(flat)

    def _prepare(self) -> None:
        """Split the sources into those summed by a small dense matrix (few columns, integer
        counts: exact in any order) and those kept as entries; group the entries' columns by
        how many entries they have (most rater pairs are seen on a few documents), so that a
        replicate costs a few vector passes, not one segment per column. Either way each
        column's entries are added in document order, as one weighted count would."""
        small, rest, small_columns, rest_columns, start = [], [], [], [], 0
        for src in self.sources:
            size = int(np.prod(src[4]))
            if size * self.n_documents <= SMALL_DENSE_CELLS and np.array_equal(src[3], np.round(src[3])):
                small.append(src)
                small_columns.append(np.arange(start, start + size))
            else:
                rest.append(src)
                rest_columns.append(np.arange(start, start + size))
            start += size
        small_columns = np.concatenate(small_columns) if small_columns else np.empty(0, dtype=np.int64)
        self._small = (small_columns, self._dense(small) if small else np.empty((self.n_documents, 0)))
        rest_columns = np.concatenate(rest_columns) if rest_columns else np.empty(0, dtype=np.int64)
        rows, values, columns = self._nonzero_entries(rest)
        runs = np.flatnonzero(np.r_[True, columns[1:] != columns[:-1]]) if len(columns) else np.empty(0, dtype=np.int64)
        lengths = np.diff(np.r_[runs, len(columns)])
        grouped = []
        for k in range(1, GROUPED_MAX + 1):
            which = np.flatnonzero(lengths == k)
            if len(which):
                index = (runs[which][:, None] + np.arange(k)).T  # (k, columns): j-th entry of each
                grouped.append((rest_columns[columns[runs[which]]], rows[index], values[index]))
        long = np.flatnonzero(lengths > GROUPED_MAX)
        entries = np.repeat(runs[long] - np.r_[0, np.cumsum(lengths[long])[:-1]], lengths[long]) + np.arange(lengths[long].sum())
        self._entries = (grouped, (rest_columns[columns[runs[long]]], rows[entries], values[entries],
                                   np.repeat(np.arange(len(long)), lengths[long])))

    def _nonzero_entries(self, sources: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The sources' nonzero values as entries (document row, value, flat column among these
        sources), one per (document, column), sorted by column."""
        rows, values, columns, start = [], [], [], 0
        for _, doc, column, value, shape in sources:
            rows.append(np.broadcast_to(self.row_of[doc].reshape((-1,) + (1,) * (column.ndim - 1)), column.shape).reshape(-1))
            values.append(np.broadcast_to(value, column.shape).reshape(-1).astype(float))
            columns.append(start + column.reshape(-1).astype(np.int64))
            start += int(np.prod(shape))
        rows, values, columns = (np.concatenate(x) if x else np.empty(0, dtype=np.int64) for x in (rows, values, columns))
        keep = np.flatnonzero(values)
        key, where = np.unique(columns[keep] * max(self.n_documents, 1) + rows[keep], return_inverse=True)
        summed = np.bincount(where.reshape(-1), weights=values[keep], minlength=len(key))
        column, row = np.divmod(key, max(self.n_documents, 1))
        return row, summed, column

    @property
    def width(self) -> int:
        return self.columns

    def split(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """Flat column sums (replicates × columns) back into one array per source."""
        out, start = {}, 0
        for name, _, _, _, shape in self.sources:
            size = int(np.prod(shape))
            out[name] = flat[:, start : start + size].reshape((len(flat), *shape))
            start += size
        return out


class DocumentCounts:
    """Per-document counts, and every statistic as a function of their weighted sums.

    Rater pairs seen on two documents or more are computed one by one in each replicate. A pair
    seen on one document only has the same PSA in every replicate that draws its document, and
    its weight in the pairwise means is that document's (see :func:`pair_weights`): such pairs
    are summed by document once (``Σ PSA`` and the number of defined pairs, overall, per label
    and per rater), so that a replicate costs a weighted sum over documents, not a pass over
    every such pair. Their own intervals follow in closed form (:meth:`single_pair_entries`).
    """

    def __init__(self, report, pairs: np.ndarray | None = None) -> None:
        self.report = report
        corpus, counts = report.corpus, report.counts
        comparisons = counts.comparisons
        n_pairs, n_labels, n_raters = len(comparisons.pairs), len(corpus.labels), len(corpus.raters)
        self.per_rater = bool(report.per_rater)
        pair_docs = np.bincount(comparisons.pair, minlength=n_pairs)
        self.multi = np.flatnonzero(pair_docs > 1)  # pairs computed one by one
        self.pair_docs = pair_docs[self.multi].astype(float)
        local = np.full(n_pairs, -1, dtype=np.int64)
        local[self.multi] = np.arange(len(self.multi))
        wanted = np.arange(n_pairs) if pairs is None else np.asarray(pairs, dtype=np.int64)
        self.wanted_multi = wanted[local[wanted] >= 0]
        self.wanted_local = local[self.wanted_multi]
        self.wanted_single = wanted[local[wanted] < 0]

        comparison_psa = row_psa(counts.abc.astype(float))
        in_multi = local[comparisons.pair] >= 0
        single = np.flatnonzero(~in_multi & ~np.isnan(comparison_psa))  # single-document pairs with a defined PSA
        self.single_doc = np.zeros(n_pairs, dtype=np.int64)
        self.single_psa = np.full(n_pairs, np.nan)
        self.single_doc[comparisons.pair[~in_multi]] = comparisons.doc[~in_multi]
        self.single_psa[comparisons.pair[~in_multi]] = comparison_psa[~in_multi]
        multi_comparisons = np.flatnonzero(in_multi)

        cell_pair, cell_label, cell_of = label_cells(comparisons.pair, counts.label_comparison, counts.label_code, n_pairs)
        cell_abc = bin_rows(cell_of, counts.label_abc, len(cell_pair))
        cell_psa = row_psa(cell_abc)
        cell_multi = local[cell_pair] >= 0
        cell_local = np.full(len(cell_pair), -1, dtype=np.int64)
        cell_local[cell_multi] = np.arange(int(cell_multi.sum()))
        multi_rows = np.flatnonzero(cell_multi[cell_of])
        fixed_cells = np.flatnonzero(~cell_multi & ~np.isnan(cell_psa))
        self.layout = Layout(comparisons.pairs[self.multi], local[cell_pair[cell_multi]], cell_label[cell_multi], n_labels, n_raters)

        three, two = np.arange(3), np.arange(2)
        n_multi, n_cells = len(self.multi), len(self.layout.cell_pair)
        label_doc = comparisons.doc[counts.label_comparison]
        # PSA needs a and b + c only: two columns per pair, cell and rater, a's then (b + c)'s
        plain = [  # summed with the documents' weights
            ("pair_docs", comparisons.doc[multi_comparisons], local[comparisons.pair[multi_comparisons]], np.ones(len(multi_comparisons)), (n_multi,)),
            ("pair_abc", comparisons.doc[multi_comparisons], local[comparisons.pair[multi_comparisons]][:, None] + two * n_multi,
             _a_bc(counts.abc[multi_comparisons]), (2, n_multi)),
            ("cell_abc", label_doc[multi_rows], cell_local[cell_of[multi_rows]][:, None] + two * n_cells,
             _a_bc(counts.label_abc[multi_rows]), (2, n_cells)),
            ("total_abc", comparisons.doc, np.broadcast_to(three, (len(comparisons.doc), 3)), counts.abc, (3,)),
            ("label_abc", label_doc, counts.label_code[:, None] * 3 + three, counts.label_abc, (n_labels, 3)),
        ]
        fixed_values = np.stack([comparison_psa[single], np.ones(len(single))], axis=1)
        fixed = [  # summed with the single-document pairs' weights in the pairwise means
            ("fixed", comparisons.doc[single], np.broadcast_to(two, (len(single), 2)), fixed_values, (2,)),
            ("fixed_label", self.single_doc[cell_pair[fixed_cells]], cell_label[fixed_cells][:, None] * 2 + two,
             np.stack([cell_psa[fixed_cells], np.ones(len(fixed_cells))], axis=1), (n_labels, 2)),
        ]
        if self.per_rater:
            first, second = comparisons.pairs[comparisons.pair, 0], comparisons.pairs[comparisons.pair, 1]
            a_bc = _a_bc(counts.abc)  # a rater's own + other spans are its pairs' b + c, either side
            plain.append(("rater_abc", np.concatenate([comparisons.doc, comparisons.doc]),
                          np.concatenate([first, second])[:, None] + two * n_raters,
                          np.concatenate([a_bc, a_bc]), (2, n_raters)))
            fixed.append(("fixed_rater", np.concatenate([comparisons.doc[single], comparisons.doc[single]]),
                          np.concatenate([first[single], second[single]])[:, None] * 2 + two,
                          np.concatenate([fixed_values, fixed_values]), (n_raters, 2)))
        self.chance = getattr(report, "items", None) is not None
        if self.chance:
            plain += _chance_sources(report)
            self.chance_has_none = report.items.has_none
        self.docs = np.unique(np.concatenate([src[1] for src in plain + fixed]))
        row_of = np.full(corpus.n_documents, -1, dtype=np.int64)
        row_of[self.docs] = np.arange(len(self.docs))
        self.single_row = row_of[self.single_doc]
        # a dense documents × columns matrix (one matrix product per block of replicates) when it
        # fits, else the nonzero entries, grouped by how many each column has (see _Sources); the
        # sources of the single-document pairs take the pairs' weights
        columns = sum(int(np.prod(src[4])) for src in plain + fixed)
        dense = len(self.docs) * columns <= DENSE_CELLS
        self.parts = [(_Sources(sources, row_of, len(self.docs), dense), by_pair)
                      for sources, by_pair in ((plain, False), (fixed, True))]

    @property
    def n_documents(self) -> int:
        return len(self.docs)

    @property
    def matrix(self) -> np.ndarray | None:
        """The documents × columns count matrix, when every source is dense."""
        if any(part.matrix is None for part, _ in self.parts):
            return None
        return np.hstack([part.matrix for part, _ in self.parts])

    def sums(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """Weighted sums of every source: ``weights`` is (replicates × documents)."""
        by_pair = pair_weights(weights, np.ones(1))  # a single-document pair's weight: its document's
        out: dict[str, np.ndarray] = {}
        for part, pair_weighted in self.parts:
            out.update(part.sums(by_pair if pair_weighted else weights))
        return out

    @property
    def width(self) -> int:
        """Cells of one replicate's sums (and of its per-entry products): what a block of
        replicates costs in memory, per replicate."""
        return sum(part.width for part, _ in self.parts)

    def point(self) -> dict[str, np.ndarray]:
        return self.sums(np.ones((1, self.n_documents)))

    def leave_one_out(self) -> dict[str, np.ndarray] | None:
        """The sums without each document in turn (the jackknife replicates); None when the
        count matrix is not built (the jackknife is then skipped, and said so)."""
        if self.matrix is None:
            return None
        out: dict[str, np.ndarray] = {}
        for part, _ in self.parts:
            out.update(part.split(part.matrix.sum(axis=0) - part.matrix))
        return out

    def statistics(self, parts: dict[str, np.ndarray]) -> dict[tuple, np.ndarray]:
        """Every statistic with an interval, one value per replicate (NaN = undefined); the
        single-document pairs' own intervals are not among them (see :meth:`single_pair_entries`)."""
        return {name: values[:, i] for names, values in self.groups(parts) for i, name in enumerate(names)}

    def groups(self, parts: dict[str, np.ndarray]) -> list[tuple[list[tuple], np.ndarray]]:
        """The statistics in groups: (names, values of shape replicates × names), all from
        :func:`~spanagree.measures.summary.summarize`."""
        labels = self.report.corpus.labels
        fixed = Fixed(parts["fixed"], parts["fixed_label"], parts.get("fixed_rater"))
        s = summarize(
            self.layout, _last(parts["pair_abc"]), _last(parts["cell_abc"]), parts["total_abc"], parts["label_abc"],
            pair_weight=pair_weights(parts["pair_docs"], self.pair_docs), fixed=fixed,
            raters=self.per_rater, rater_abc=_last(parts["rater_abc"]) if self.per_rater else None,
        )
        out = [
            (
                [("overall", "pairwise_mean_psa"), ("overall", "pooled_psa"),
                 ("macro", "pairwise_mean_psa"), ("macro", "pooled_psa")],
                np.stack([s.pairwise_mean, s.pooled, s.macro_mean, s.macro_pooled], axis=1),
            ),
            ([("labels", name, "pairwise_mean_psa") for name in labels], s.label_mean),
            ([("labels", name, "pooled_psa") for name in labels], s.label_pooled),
            ([("pairs", p, "psa") for p in self.wanted_multi.tolist()], s.pair_psa[:, self.wanted_local]),
        ]
        if self.per_rater:
            n = self.layout.n_raters
            out += [
                ([("raters", r, "mean_psa") for r in range(n)], s.rater_mean),
                ([("raters", r, "against_others", "f") for r in range(n)], s.rater_f),
            ]
        if self.chance:
            out += _chance_statistics(parts, self.chance_has_none)
        return out

    def single_pair_entries(self, drawn: np.ndarray, replicates: int, jackknife: bool) -> dict[tuple, dict[str, Any]]:
        """The intervals of the wanted pairs seen on one document, in closed form: a replicate
        that draws the document gives the pair's PSA, one that does not leaves it undefined
        (``drawn``: per document row, the replicates that drew it). The same entries as the
        replicates would give, without a row of replicates per pair."""
        out = {}
        for p in self.wanted_single.tolist():
            value = self.single_psa[p]
            times = 0 if np.isnan(value) else int(drawn[self.single_row[p]])
            left_in = self.n_documents - 1 if not np.isnan(value) else 0
            entry: dict[str, Any] = {
                "value": reported(value),
                "low": float(value) if times else None,
                "high": float(value) if times else None,
                "se": (0.0 if left_in > 1 else None) if jackknife else None,
                "bootstrap_se": 0.0 if times > 1 else None,
            }
            if times < replicates:
                entry["undefined_replicates"] = replicates - times
            out["pairs", p, "psa"] = entry
        return out


def bootstrap(report, options: IntervalOptions = IntervalOptions(), pairs: np.ndarray | None = None) -> dict[tuple, dict[str, Any]]:
    """Percentile bootstrap intervals and jackknife standard errors for every statistic.

    Returns ``{statistic path: {"value", "low", "high", "se", ...}}`` where the path is a tuple
    naming the statistic in the report (``("overall", "pairwise_mean_psa")``,
    ``("labels", "PER", "pooled_psa")``, ``("pairs", 0, "psa")``, ...). Rater pairs get their
    own interval only when in ``pairs`` (indices; default ``report.interval_pairs``, or all).
    """
    counts = DocumentCounts(report, report.interval_pairs if pairs is None else pairs)
    n = counts.n_documents
    point = counts.statistics(counts.point())
    names = list(point)
    values = np.empty((len(names), options.replicates))  # (statistics, replicates)
    drawn_in = np.zeros(n, dtype=np.int64)  # replicates that drew each document
    rng = np.random.default_rng(options.seed)
    done = 0
    buffer = np.empty((min(BLOCK, options.replicates), n))  # reused: no fresh pages per block
    with progress.phase("bootstrap", options.replicates, unit="replicate") as bar:
        while done < options.replicates:
            block = min(BLOCK, options.replicates - done)
            draws = rng.integers(0, n, size=(block, n), dtype=np.int32)  # n documents, with replacement
            weights = buffer[:block]
            for row, drawn in enumerate(draws):  # a row at a time: cache-friendly, faster than one flat bincount
                weights[row] = np.bincount(drawn, minlength=n)
            drawn_in += (weights > 0).sum(axis=0)
            step = max(1, STEP_CELLS // max(counts.width, 1))  # bounded memory with many pairs and labels
            for lo in range(0, block, step):
                row = 0
                for group, group_values in counts.groups(counts.sums(weights[lo : lo + step])):
                    values[row : row + len(group), done + lo : done + lo + len(group_values)] = group_values.T
                    row += len(group)
            done += block
            bar.update(block)
    left_out = counts.leave_one_out() if 1 < n <= JACKKNIFE_MAX else None
    jackknife = counts.statistics(left_out) if left_out is not None else None
    alpha = (1 - options.level) / 2
    low, high, spread, n_defined = row_quantiles(values, alpha)
    out = {}
    for row, name in enumerate(names):
        defined = int(n_defined[row])
        entry: dict[str, Any] = {
            "value": reported(point[name][0]),
            "low": float(low[row]) if defined else None,
            "high": float(high[row]) if defined else None,
            "se": _jackknife_se(jackknife[name]) if jackknife is not None else None,
            "bootstrap_se": float(spread[row]) if defined > 1 else None,
        }
        if defined < values.shape[1]:
            entry["undefined_replicates"] = values.shape[1] - defined
        out[name] = entry
    out.update(counts.single_pair_entries(drawn_in, options.replicates, jackknife is not None))
    return out


def row_quantiles(values: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_row_quantiles` a block of rows at a time (the sorted copy stays small)."""
    chunk = max(1, STEP_CELLS // max(1, values.shape[1]))
    return tuple(
        np.concatenate(parts) for parts in zip(*(_row_quantiles(values[lo : lo + chunk], alpha)
                                                 for lo in range(0, max(1, len(values)), chunk)))
    )


def _row_quantiles(values: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row, over its defined (non-NaN) values: the ``alpha`` and ``1 − alpha`` quantiles
    (numpy's default, linear interpolation between order statistics), the standard deviation
    (ddof 1) and the number of defined values. One sort for all rows."""
    ordered = np.sort(values, axis=1)  # NaN sorts last
    n = (~np.isnan(ordered)).sum(axis=1)
    rows = np.arange(len(values))
    quantiles = []
    for q in (alpha, 1 - alpha):
        position = q * np.maximum(n - 1, 0)
        below = np.floor(position).astype(np.int64)
        above = np.minimum(below + 1, np.maximum(n - 1, 0))
        t = position - below
        a, b = ordered[rows, below], ordered[rows, above]
        with np.errstate(invalid="ignore"):
            diff = b - a
            quantiles.append(np.where(t >= 0.5, b - diff * (1 - t), a + diff * t))  # numpy's _lerp
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nansum(ordered, axis=1) / np.maximum(n, 1)
        spread = np.sqrt(np.nansum((ordered - mean[:, None]) ** 2, axis=1) / np.maximum(n - 1, 1))
    return quantiles[0], quantiles[1], spread, n


def interval_section(report, options: IntervalOptions, pairs: np.ndarray | None = None) -> dict[str, Any]:
    """The intervals in the shape of the report: ``{"method": ..., "statistics": {...}}``."""
    return {
        "method": METHOD,
        "level": options.level,
        "replicates": options.replicates,
        "seed": options.seed,
        "statistics": bootstrap(report, options, pairs),
    }


# --- chance-corrected statistics ---------------------------------------------------------------


def _chance_sources(report) -> list:
    """Per-item contributions to the pair tables and to the coincidence matrix, by document."""

    items = report.items
    k = len(items.categories)
    pairs, pair_index, first, second = rating_pair_rows(items, len(report.corpus.raters))
    doc = items.item_doc[items.rating_item[first]]
    ci, cj = items.rating_code[first], items.rating_code[second]
    per_item = np.bincount(items.rating_item, minlength=items.n_items)
    weight = 1.0 / (per_item[items.rating_item[first]] - 1)
    return [
        ("chance_tables", doc, pair_index * k * k + ci * k + cj, np.ones(len(doc)), (len(pairs), k, k)),
        ("coincidence", np.concatenate([doc, doc]), np.concatenate([ci * k + cj, cj * k + ci]),
         np.concatenate([weight, weight]), (k, k)),
    ]


def _chance_statistics(parts: dict[str, np.ndarray], has_none: bool = True) -> list[tuple[list[tuple], np.ndarray]]:
    tables = parts["chance_tables"]  # (R, P, k, k)
    kappa = cohen_kappa_array(tables)
    out = [
        ([("chance", "pairs", p, "cohen_kappa") for p in range(tables.shape[1])], kappa),
        ([("chance", "all_raters", "krippendorff_alpha")], alpha_array(parts["coincidence"])[:, None]),
    ]
    if not has_none:  # single-label documents: no marked/NONE table
        return out
    marked = presence(tables).sum(axis=1)  # over the pairs
    out.append((
        [("chance", "pooled", "cohen_kappa"), ("chance", "pooled", "positive_agreement")],
        np.stack([cohen_kappa_array(marked.reshape(-1, 2, 2)), psa(marked[:, 0], marked[:, 1], marked[:, 2])], axis=1),
    ))
    return out


# --- helpers ------------------------------------------------------------------------------------


def pair_weights(drawn: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Each rater pair's weight in a replicate's pairwise means: the weighted count of its
    documents over their count in the data (1 in the data, 0 when none is drawn)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(seen > 0, drawn / np.where(seen > 0, seen, 1), 0.0)


def _a_bc(abc: np.ndarray) -> np.ndarray:
    """Rows of a, b, c as rows of a and b + c: all that PSA needs (see summary.psa)."""
    return np.stack([abc[:, 0], abc[:, 1] + abc[:, 2]], axis=1)


def _last(sums: np.ndarray) -> np.ndarray:
    """Sums laid out (R, 2, n) as a (R, n, 2) view: the a's and the (b + c)'s stay contiguous."""
    return np.moveaxis(sums, 1, -1)


def _jackknife_se(values: np.ndarray) -> float | None:
    defined = values[~np.isnan(values)]
    n = len(defined)
    if n < 2:
        return None
    return float(np.sqrt((n - 1) / n * ((defined - defined.mean()) ** 2).sum()))
