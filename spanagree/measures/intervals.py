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

from ..errors import UsageError
from .chance import _pair_rows
from .psa import interval_statistics as rater_statistics, psa_array

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


class DocumentCounts:
    """Per-document counts, and every statistic as a function of their weighted sums.

    Each source is one additive array of the report with a document per row (a unit, i.e. a
    document and rater pair, or an item). A replicate's sums are ``W @ D`` with D the documents ×
    columns matrix when that fits in memory (one BLAS product per block of replicates); with
    many rater pairs (crowd corpora) D would be huge and mostly zeros, so the sums are formed
    per source instead, by segment sums over its rows.
    """

    def __init__(self, report) -> None:
        self.report = report
        corpus, counts = report.corpus, report.counts
        units = counts.units
        n_pairs, n_labels = len(units.pairs), len(corpus.labels)
        # (name, document of each row, flat column of each value, values, shape of the sums)
        self.sources = [
            ("pair_docs", units.doc, units.pair, np.ones(len(units.doc)), (n_pairs,)),
            ("pair_abc", units.doc, units.pair[:, None] * 3 + np.arange(3), counts.abc, (n_pairs, 3)),
            self._label_cells(units, counts, n_labels),
        ]
        self.chance = getattr(report, "items", None) is not None
        if self.chance:
            self.sources += _chance_sources(report)
            self.chance_has_none = report.items.has_none
        self.docs = np.unique(np.concatenate([src[1] for src in self.sources]))
        self.row_of = np.full(corpus.n_documents, -1, dtype=np.int64)
        self.row_of[self.docs] = np.arange(len(self.docs))
        width = sum(int(np.prod(src[4])) for src in self.sources)
        self.matrix = self._dense() if len(self.docs) * width <= DENSE_CELLS else None
        self._entries: list | None = None
        self.pair_docs = np.bincount(units.pair, minlength=n_pairs).astype(float)

    def _label_cells(self, units, counts, n_labels: int) -> tuple:
        """The (rater pair, label) cells with any count, as a source of (cells, 3) sums: only
        these have a defined PSA, so replicates cost the cells, not pairs × labels. Sets
        ``cell_pair`` and ``cell_label`` (cells sorted by label, then pair) and ``label_runs``
        (where each label's cells start)."""
        unit, label = counts.label_unit, counts.label_code
        cells, cell_of = np.unique(label * len(units.pairs) + units.pair[unit], return_inverse=True)
        self.cell_label, self.cell_pair = np.divmod(cells, len(units.pairs))
        self.label_runs = np.searchsorted(self.cell_label, np.arange(n_labels))
        return (
            "pair_label_abc",
            units.doc[unit],
            cell_of.reshape(-1)[:, None] * 3 + np.arange(3),
            counts.label_abc,
            (len(cells), 3),
        )

    def _by_label(self, values: np.ndarray) -> np.ndarray:
        """Sums over each label's cells: ``values`` (R, cells, ...) → (R, labels, ...); 0 for a
        label without cells."""
        n_labels = len(self.label_runs)
        out = np.zeros((values.shape[0], n_labels, *values.shape[2:]))
        has = self.label_runs < np.r_[self.label_runs[1:], values.shape[1]]
        if values.shape[1]:
            out[:, has] = np.add.reduceat(values, self.label_runs[has], axis=1)
        return out

    @property
    def n_documents(self) -> int:
        return len(self.docs)

    def _dense(self) -> np.ndarray:
        offsets, offset = [], 0
        for src in self.sources:
            offsets.append(offset)
            offset += int(np.prod(src[4]))
        matrix = np.zeros((len(self.docs), offset))
        for (name, doc, column, values, shape), start in zip(self.sources, offsets):
            rows = np.broadcast_to(self.row_of[doc].reshape((-1,) + (1,) * (column.ndim - 1)), column.shape)
            np.add.at(matrix, (rows.reshape(-1), start + column.reshape(-1)), np.broadcast_to(values, column.shape).reshape(-1))
        return matrix

    def sums(self, weights: np.ndarray) -> dict[str, np.ndarray]:
        """Weighted sums of every source: ``weights`` is (replicates × documents)."""
        if self.matrix is not None:
            return self._split(weights @ self.matrix)
        if self._entries is None:
            self._entries = [self._nonzero_entries(src) for src in self.sources]
        out = {}
        for (name, *_, shape), (rows, values, starts, columns) in zip(self.sources, self._entries):
            total = np.zeros((len(weights), int(np.prod(shape))))
            if len(rows):
                total[:, columns] = np.add.reduceat(weights[:, rows] * values, starts, axis=1)
            out[name] = total.reshape((len(weights), *shape))
        return out

    def _nonzero_entries(self, source) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """A source's nonzero values as entries sorted by column: (document row, value) of each,
        where each column's run starts, and the columns. A replicate's sums are then one segment
        sum over the entries, whatever the number of rater pairs and labels."""
        _, doc, column, values, _ = source
        rows = np.broadcast_to(self.row_of[doc].reshape((-1,) + (1,) * (column.ndim - 1)), column.shape).reshape(-1)
        values = np.broadcast_to(values, column.shape).reshape(-1).astype(float)
        column = column.reshape(-1)
        keep = np.flatnonzero(values)
        order = keep[np.argsort(column[keep], kind="stable")]
        column = column[order]
        starts = np.flatnonzero(np.r_[True, column[1:] != column[:-1]]) if len(column) else np.empty(0, np.int64)
        return rows[order], values[order], starts, column[starts]

    @property
    def width(self) -> int:
        """Cells of one replicate's sums (and of its per-entry products): what a block of
        replicates costs in memory, per replicate."""
        size = sum(int(np.prod(src[4])) for src in self.sources)
        if self.matrix is None and self._entries is not None:
            size = max(size, sum(len(entry[0]) for entry in self._entries))
        return size

    def point(self) -> dict[str, np.ndarray]:
        return self.sums(np.ones((1, self.n_documents)))

    def leave_one_out(self) -> dict[str, np.ndarray] | None:
        """The sums without each document in turn (the jackknife replicates); None when the
        count matrix is not built (the jackknife is then skipped, and said so)."""
        if self.matrix is None:
            return None
        return self._split(self.matrix.sum(axis=0) - self.matrix)

    def _split(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """Flat column sums (replicates × columns) back into one array per source."""
        out, start = {}, 0
        for name, _, _, _, shape in self.sources:
            size = int(np.prod(shape))
            out[name] = flat[:, start : start + size].reshape((len(flat), *shape))
            start += size
        return out

    def _pair_statistics(self, pair_psa: np.ndarray) -> tuple[list[tuple], np.ndarray]:
        """Each rater pair's PSA, or only those of ``report.interval_pairs`` when it is set (a
        page showing a few of very many pairs): one interval per pair costs a row of replicates."""
        shown = getattr(self.report, "interval_pairs", None)
        if shown is None:
            return [("pairs", p, "psa") for p in range(pair_psa.shape[1])], pair_psa
        return [("pairs", p, "psa") for p in shown.tolist()], pair_psa[:, shown]

    def statistics(self, parts: dict[str, np.ndarray]) -> dict[tuple, np.ndarray]:
        """Every statistic with an interval, one value per replicate (NaN = undefined)."""
        return {name: values[:, i] for names, values in self.groups(parts) for i, name in enumerate(names)}

    def groups(self, parts: dict[str, np.ndarray]) -> list[tuple[list[tuple], np.ndarray]]:
        """The statistics in groups: (names, values of shape replicates × names)."""
        labels = self.report.corpus.labels
        pair = parts["pair_abc"]
        pair_psa = psa_array(pair[..., 0], pair[..., 1], pair[..., 2])
        weight = pair_weights(parts["pair_docs"], self.pair_docs)  # (R, P)
        total = pair.sum(axis=1)
        label = parts["pair_label_abc"]  # (R, cells, 3)
        label_psa = psa_array(label[..., 0], label[..., 1], label[..., 2])  # (R, cells): defined on every cell
        label_total = self._by_label(label)
        defined = ~np.isnan(label_psa)  # a cell none of whose documents was drawn
        cell_weight = np.where(defined, weight[:, self.cell_pair], 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            weight_sum = self._by_label(cell_weight)
            label_mean = np.where(weight_sum > 0, self._by_label(np.where(defined, label_psa, 0.0) * cell_weight)
                                  / np.where(weight_sum > 0, weight_sum, 1), np.nan)
        label_pooled = psa_array(label_total[..., 0], label_total[..., 1], label_total[..., 2])
        out = [
            (
                [("overall", "pairwise_mean_psa"), ("overall", "pooled_psa"),
                 ("macro", "pairwise_mean_psa"), ("macro", "pooled_psa")],
                np.stack([_weighted_nanmean(pair_psa, weight, axis=1), psa_array(total[:, 0], total[:, 1], total[:, 2]),
                          _nanmean(label_mean, axis=1), _nanmean(label_pooled, axis=1)], axis=1),
            ),
            ([("labels", name, "pairwise_mean_psa") for name in labels], label_mean),
            ([("labels", name, "pooled_psa") for name in labels], label_pooled),
            self._pair_statistics(pair_psa),
        ]
        if self.report.per_rater:
            out += rater_statistics(pair, self.report.counts.units.pairs, len(self.report.corpus.raters), weight)
        if self.chance:
            out += _chance_statistics(parts, self.chance_has_none)
        return out


def bootstrap(report, options: IntervalOptions = IntervalOptions()) -> dict[tuple, dict[str, Any]]:
    """Percentile bootstrap intervals and jackknife standard errors for every statistic.

    Returns ``{statistic path: {"value", "low", "high", "se", ...}}`` where the path is a tuple
    naming the statistic in the report (``("overall", "pairwise_mean_psa")``,
    ``("labels", "PER", "pooled_psa")``, ``("pairs", 0, "psa")``, ...).
    """
    counts = DocumentCounts(report)
    n = counts.n_documents
    point = counts.statistics(counts.point())
    names = list(point)
    values = np.empty((len(names), options.replicates))  # (statistics, replicates)
    rng = np.random.default_rng(options.seed)
    done = 0
    buffer = np.empty((min(BLOCK, options.replicates), n))  # reused: no fresh pages per block
    while done < options.replicates:
        block = min(BLOCK, options.replicates - done)
        draws = rng.integers(0, n, size=(block, n), dtype=np.int32)  # n documents, with replacement
        weights = buffer[:block]
        for row, drawn in enumerate(draws):  # a row at a time: cache-friendly, faster than one flat bincount
            weights[row] = np.bincount(drawn, minlength=n)
        step = max(1, STEP_CELLS // max(counts.width, 1))  # bounded memory with many pairs and labels
        for lo in range(0, block, step):
            row = 0
            for group, group_values in counts.groups(counts.sums(weights[lo : lo + step])):
                values[row : row + len(group), done + lo : done + lo + len(group_values)] = group_values.T
                row += len(group)
        done += block
    left_out = counts.leave_one_out() if 1 < n <= JACKKNIFE_MAX else None
    jackknife = counts.statistics(left_out) if left_out is not None else None
    alpha = (1 - options.level) / 2
    chunk = max(1, STEP_CELLS // options.replicates)  # the sorted copy stays small
    low, high, spread, n_defined = (
        np.concatenate(parts) for parts in zip(*(_row_quantiles(values[lo : lo + chunk], alpha)
                                                 for lo in range(0, len(values), chunk)))
    )
    out = {}
    for row, name in enumerate(names):
        defined = int(n_defined[row])
        entry: dict[str, Any] = {
            "value": _float(point[name][0]),
            "low": float(low[row]) if defined else None,
            "high": float(high[row]) if defined else None,
            "se": _jackknife_se(jackknife[name]) if jackknife is not None else None,
            "bootstrap_se": float(spread[row]) if defined > 1 else None,
        }
        if defined < values.shape[1]:
            entry["undefined_replicates"] = values.shape[1] - defined
        out[name] = entry
    return out


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


def interval_section(report, options: IntervalOptions) -> dict[str, Any]:
    """The intervals in the shape of the report: ``{"method": ..., "statistics": {...}}``."""
    return {
        "method": METHOD,
        "level": options.level,
        "replicates": options.replicates,
        "seed": options.seed,
        "statistics": bootstrap(report, options),
    }


def attach(result: dict[str, Any], intervals: dict[str, Any], report) -> None:
    """Put each statistic's interval object beside it in the report dict (``<name>_interval``),
    with the analytic PSA standard error where it applies."""
    stats = intervals["statistics"]
    corpus, units = report.corpus, report.counts.units
    pair_names = {p: (corpus.raters[a], corpus.raters[b]) for p, (a, b) in enumerate(units.pairs.tolist())}
    pair_rows = {tuple(row["raters"]): row for row in result["pairs"]}
    rater_rows = {row["rater"]: row for row in result.get("per_rater", ())}
    for path, entry in stats.items():
        parts = list(path)
        if parts[0] == "pairs":
            target = pair_rows.get(pair_names[parts[1]])
            if target is None:  # a summary shows only some pairs
                continue
            entry = {**entry, "analytic_se": analytic_psa_se(target["a"], target["b"], target["c"])}
            target["psa_interval"] = entry
            continue
        if parts[0] == "raters":
            row = rater_rows.get(corpus.raters[parts[1]])
            if row is None:
                continue
            holder = row if len(parts) == 3 else row[parts[2]]
            holder[f"{parts[-1]}_interval"] = entry
            continue
        if parts[0] == "chance":
            _attach_chance(result.get("chance_corrected"), parts[1:], entry)
            continue
        holder = result
        for key in parts[:-1]:
            holder = holder[key]
        if path == ("overall", "pooled_psa"):
            entry = {**entry, "analytic_se": analytic_psa_se(holder["a"], holder["b"], holder["c"])}
        holder[f"{parts[-1]}_interval"] = entry
    result["intervals"] = {k: v for k, v in intervals.items() if k != "statistics"}


# --- chance-corrected statistics ---------------------------------------------------------------


def _chance_sources(report) -> list:
    """Per-item contributions to the pair tables and to the coincidence matrix, by document."""

    items = report.items
    k = len(items.categories)
    pairs, pair_index, first, second = _pair_rows(items, len(report.corpus.raters))
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
    kappa = _cohen_kappa(tables)
    out = [
        ([("chance", "pairs", p, "cohen_kappa") for p in range(tables.shape[1])], kappa),
        ([("chance", "all_raters", "krippendorff_alpha")], _nominal_alpha(parts["coincidence"])[:, None]),
    ]
    if not has_none:  # single-label documents: no marked/NONE table
        return out
    marked = np.stack(
        [tables[:, :, 1:, 1:].sum(axis=(1, 2, 3)), tables[:, :, 1:, 0].sum(axis=(1, 2)),
         tables[:, :, 0, 1:].sum(axis=(1, 2)), tables[:, :, 0, 0].sum(axis=1)], axis=1,
    )
    two_by_two = np.stack([marked[:, :2], marked[:, 2:]], axis=1)
    out.append((
        [("chance", "pooled", "cohen_kappa"), ("chance", "pooled", "positive_agreement")],
        np.stack([_cohen_kappa(two_by_two), psa_array(marked[:, 0], marked[:, 1], marked[:, 2])], axis=1),
    ))
    return out


def _cohen_kappa(tables: np.ndarray) -> np.ndarray:
    """Cohen's κ of every (…, k, k) table, computed as 1 − Do/De (Cohen 1960)."""
    n = tables.sum(axis=(-1, -2))
    rows, cols = tables.sum(axis=-1), tables.sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed_disagreement = (n - np.trace(tables, axis1=-2, axis2=-1)) / n
        expected_disagreement = 1 - (rows * cols).sum(axis=-1) / (n * n)
        return np.where(expected_disagreement > 0, 1 - observed_disagreement / expected_disagreement, np.nan)


def _nominal_alpha(o: np.ndarray) -> np.ndarray:
    """Krippendorff's α (nominal) of every (…, k, k) coincidence matrix:
    α = 1 − (n − 1)(n − Σ_c o_cc) / (n² − Σ_c n_c²) (Krippendorff 2011)."""
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = n * n - (n_c * n_c).sum(axis=-1)
        return np.where(expected > 0, 1 - (n - 1) * (n - np.trace(o, axis1=-2, axis2=-1)) / expected, np.nan)


def _attach_chance(chance: dict | None, parts: list[str], entry: dict) -> None:
    if chance is None:
        return
    if parts[0] == "pairs":
        if parts[1] < len(chance["pairs"]):
            chance["pairs"][parts[1]]["coefficients"]["cohen_kappa"]["interval"] = entry
    elif parts[0] == "pooled":
        holder = chance["pooled"]
        if parts[1] == "cohen_kappa":
            holder["cohen_kappa"]["interval"] = entry
        else:
            holder[f"{parts[1]}_interval"] = entry
    elif parts[0] == "all_raters":
        chance["all_raters"][parts[1]]["interval"] = entry


# --- helpers ------------------------------------------------------------------------------------


def pair_weights(drawn: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Each rater pair's weight in a replicate's pairwise means: the weighted count of its
    documents over their count in the data (1 in the data, 0 when none is drawn)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(seen > 0, drawn / np.where(seen > 0, seen, 1), 0.0)


def _weighted_nanmean(values: np.ndarray, weights: np.ndarray, axis: int) -> np.ndarray:
    """Mean of the defined values weighted by ``weights``; NaN where no weight is on a defined value."""
    weights = np.where(np.isnan(values), 0.0, weights)
    total = np.where(weights > 0, values, 0.0) * weights
    count = weights.sum(axis=axis)
    total = total.sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.where(count > 0, count, 1), np.nan)


def _nanmean(values: np.ndarray, axis: int) -> np.ndarray:
    defined = ~np.isnan(values)
    count = defined.sum(axis=axis)
    total = np.where(defined, values, 0.0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def _jackknife_se(values: np.ndarray) -> float | None:
    defined = values[~np.isnan(values)]
    n = len(defined)
    if n < 2:
        return None
    return float(np.sqrt((n - 1) / n * ((defined - defined.mean()) ** 2).sum()))


def _float(value: float) -> float | None:
    return None if np.isnan(value) else float(value)
