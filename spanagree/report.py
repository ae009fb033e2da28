"""Positive specific agreement and its aggregations: ``score()`` and the report (docs/agreement.md).

With ``a`` the matched credit and ``b``, ``c`` each rater's unmatched spans:

- ``PSA = 2a / (2a + b + c)`` (Hripcsak & Rothschild 2005), equal to F1 with either rater as the
  reference, undefined (``None``) when ``2a + b + c = 0``;
- with rater A as the reference, ``recall = a / (a + b)``, ``precision = a / (a + c)`` and
  ``F_beta = (1 + β²)·P·R / (β²·P + R)``.

Aggregations, all from the same per-comparison counts: per pair (sum over shared documents), pairwise
mean (mean of the pair PSAs: the headline for R raters), pooled (sum over all pairs), per label
and macro over labels, per document, and each rater against a reference rater, which every other
section leaves out (a standard, not a rater: docs/agreement.md). The point values and every
bootstrap replicate come from one function of summed counts (:func:`spanagree.measures.psa.summary.summarize`),
and each value is written with its interval as the dict is built.
"""
from __future__ import annotations

import copy
import gc
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

import numpy as np
import orjson

from .core import options, progress, validate
from .core.align import AlignmentRule
from .core.arrays import in_order
from .core.counts import EXCLUSIONS, OUTCOMES, Comparisons, Counts, count
from .errors import UsageError, option
from .core.model import Corpus
from .measures.psa.specific import prf_arrays, reported
from .measures.psa.summary import Layout, Summary, against, bin_psa, bin_rows, ratio, row_psa
from .measures.psa.summary import point as point_summary

if TYPE_CHECKING:  # the engines are imported only when one runs
    from .engine.merge import CorpusSummary

UNITS = options.BY_NAME["unit"].choices


#: Why documents and annotations read are not in the span tables: they hold document labels
#: (text classification), which the span counts leave out and ``candidates="documents"`` scores.
DOCUMENT_LABELS_ONLY = "document labels only (no spans; scored with candidates='documents')"


def _lowest(values: np.ndarray, limit: int) -> np.ndarray:
    """Indices of the ``limit`` lowest defined values, lowest first, ties in index order (as a
    stable sort gives them); NaN is never among them. Only the values up to the ``limit``-th
    lowest are sorted (a million documents' means are not)."""
    defined = np.where(np.isnan(values), np.inf, values)
    if limit < len(defined):
        bound = np.partition(defined, limit - 1)[limit - 1] if limit > 0 else -np.inf
        candidates = np.flatnonzero(defined <= bound)
    else:
        candidates = np.arange(len(defined))
    lowest = candidates[np.argsort(defined[candidates], kind="stable")][:limit]
    return lowest[~np.isnan(values[lowest])]


def _document_means(doc: np.ndarray, abc: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Of ``n`` documents, from their comparisons' documents ``doc`` and a/b/c rows: the pairs of
    each, the documents scored (in some pair), and their pairwise mean PSA (undefined pairs add
    nothing and are not counted; NaN where none is defined)."""
    mean_sum, mean_n = bin_psa(doc, abc, n)
    n_pairs = np.bincount(doc, minlength=n)
    scored = np.flatnonzero(n_pairs)
    if len(scored) < n:
        mean_sum, mean_n = mean_sum[scored], mean_n[scored]
    return n_pairs, scored, ratio(mean_sum, mean_n.astype(np.float64))


def _extra_parts(corpus) -> np.ndarray | int:
    """Per annotation, its spans beyond what the input counts as one (the fragments of a
    discontinuous annotation scored apart), so that spans scored count as spans read do."""
    extra = getattr(corpus, "extra_parts", None)
    if not extra:
        return 0
    by_cell = np.zeros(corpus.n_annotations, dtype=np.int64)
    cell = {(d, r): i for i, (d, r) in enumerate(zip(corpus.ann_doc.tolist(), corpus.ann_rater.tolist()))}
    doc_code = {doc_id: d for d, doc_id in enumerate(corpus.doc_ids)}
    rater_code = {rater: r for r, rater in enumerate(corpus.raters)}
    for (doc_id, rater), n in extra.items():
        i = cell.get((doc_code.get(doc_id), rater_code.get(rater)))
        if i is not None:
            by_cell[i] += n
    return by_cell


def _balanced(read: int, scored: int, excluded: dict, rest: str) -> dict:
    """``{"read", "scored", "excluded"}`` with zero counts left out and whatever the named
    reasons do not account for under ``rest``, so that read = scored + excluded always holds."""
    excluded = {reason: n for reason, n in excluded.items() if n}
    missing = read - scored - sum(excluded.values())
    if missing > 0:
        excluded[rest] = excluded.get(rest, 0) + missing
    return {"read": read, "scored": scored, "excluded": dict(sorted(excluded.items()))}


@contextmanager
def _no_cycle_collection():
    """Pause Python's cyclic garbage collector while a block builds many small containers that
    form no reference cycles (it would otherwise rescan them again and again as they pile up:
    about half the time of the full JSON report on 16k documents and 41k rater pairs)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass
class AgreementReport:
    """The result of :func:`spanagree.score`: the counts and every aggregation of them.

    ``counts`` holds the per-comparison arrays; :meth:`to_dict` gives the JSON-ready summary.
    """

    corpus: Corpus | CorpusSummary  # a summary (ids and counters, no spans) when an engine counted
    counts: Counts
    reference: str | None = None
    reference_counts: Counts | None = None  # the comparisons with the reference (``counts`` has the others)
    beta: float = 1.0
    chance: dict | None = None
    items: Any = None  # the candidates' ItemMatrix, when candidates were configured
    interval_options: Any = None  # IntervalOptions, when intervals were asked for
    per_rater: bool = False  # add the per-rater view (spanagree.diagnostics.raters) to the output
    unitizing: dict | None = None  # α_U and γ (spanagree.measures.unitizing.section), when asked for
    structure: dict | None = None  # relations and attributes (spanagree.measures.structure), when asked for
    interval_pairs: Any = None  # indices of the rater pairs that get their own interval (None: all)
    show_progress: bool = False  # the bootstrap, run when first asked for, draws a bar (spanagree.core.progress)
    _intervals: tuple | None = field(default=None, repr=False)  # (pairs key, interval section)
    _point: tuple | None = field(default=None, repr=False)  # (Layout, Summary) of the data

    # --- per pair -----------------------------------------------------------------------------

    @property
    def raters(self) -> list[str]:
        return self.corpus.raters

    def pair_abc(self) -> np.ndarray:
        """(n_pairs, 3) sums of a, b, c over each pair's shared documents."""
        return self.point()[1].pair_abc[0]

    def pair_label_abc(self) -> np.ndarray:
        """(n_pairs, n_labels, 3) sums per pair and label (labels always strict; dense: for a
        few pairs and labels)."""
        layout, s = self.point()
        out = np.zeros((len(self.counts.comparisons.pairs), len(self.corpus.labels), 3))
        out[layout.cell_pair, layout.cell_label] = s.cell_abc[0]
        return out

    def pair_psa(self) -> np.ndarray:
        return self.point()[1].pair_psa[0]

    @property
    def pairwise_mean_psa(self) -> float | None:
        """Mean of the per-pair PSAs over pairs where PSA is defined (the "average F")."""
        return reported(self.point()[1].pairwise_mean[0])

    @property
    def pooled_psa(self) -> float | None:
        """PSA of a, b, c summed over all pairs and documents."""
        return reported(self.point()[1].pooled[0])

    def __repr__(self) -> str:
        """Raters, documents, rule and the headline numbers, in a line (the texts, arrays and
        sections are in :meth:`to_dict`)."""
        rule = self.counts.rule
        mean, pooled = self.pairwise_mean_psa, self.pooled_psa
        shown = lambda x: "undefined" if x is None else f"{x:.4f}"  # noqa: E731
        return (f"AgreementReport({len(self.raters)} raters, {len(self.corpus.doc_ids)} documents, "
                f"rule {rule.rule}/labels {rule.labels}: pairwise mean PSA {shown(mean)}, pooled PSA {shown(pooled)})")

    # --- output -------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Everything, as plain JSON types (floats, None for undefined)."""
        return self._build(max_pairs=None, max_documents=None)

    def json_chunks(self, documents_per_chunk: int = 10_000) -> Iterator[bytes]:
        """:meth:`to_dict` as indented JSON (``orjson.dumps(..., option=OPT_INDENT_2)``, the same
        bytes), in pieces: the per-document rows are made and written ``documents_per_chunk`` at a
        time, so memory does not grow with the number of documents."""
        marker = f"per-document rows {uuid.uuid4().hex}"
        head, tail = orjson.dumps(self._build(None, None, per_document=marker), option=orjson.OPT_INDENT_2).split(
            orjson.dumps(marker), 1
        )
        yield head
        n = 0
        for columns in self._per_document_pieces(documents_per_chunk):
            rows = self._per_document_rows(*columns)
            if not rows:
                continue
            # one row at the list's depth (two levels in): each of its lines indented by 4 spaces
            text = b",\n".join(orjson.dumps(row, option=orjson.OPT_INDENT_2) for row in rows).replace(b"\n", b"\n    ")
            yield (b"[\n    " if n == 0 else b",\n    ") + text
            n += len(rows)
        yield b"\n  ]" if n else b"[]"
        yield tail

    def frame(self, name: str):
        """Table ``name`` as a pandas DataFrame: ``"pairs"``, ``"labels"``, ``"documents"``,
        ``"raters"``, ``"outcomes"``, ``"disagreements"``, ``"chance"`` or ``"unitizing"``
        (columns and dtypes: :data:`spanagree.notebook.frames.COLUMNS`; needs pandas)."""
        from .notebook.frames import frame  # pandas, imported when a table is asked for

        return frame(self, name)

    @property
    def plot(self):
        """The report's charts as matplotlib figures: ``report.plot.labels()``, ``.pairs()``,
        ``.raters()``, ``.kappa_curve()`` (the drawings of the HTML report; needs matplotlib)."""
        from .notebook.figures import Plots  # matplotlib, imported when a chart is asked for

        return Plots(self)

    def _repr_html_(self) -> str:
        """The headline with its intervals, per label and per rater pair, for Jupyter."""
        from .notebook.display import report_html  # jinja2, imported when a notebook shows a report

        return report_html(self)

    def summary(self, max_pairs: int = 20, max_documents: int = 10) -> dict[str, Any]:
        """:meth:`to_dict` with only the ``max_pairs`` pairs that share most documents and the
        ``max_documents`` documents of lowest agreement (for tables; the totals are unchanged)."""
        validate.whole("max_pairs", max_pairs, 0)
        validate.whole("max_documents", max_documents, 0)
        return self._build(max_pairs=max_pairs, max_documents=max_documents)

    def with_pairs(self, pairs: np.ndarray) -> dict[str, Any]:
        """:meth:`to_dict` with only the rater pairs ``pairs`` (pair indices into
        ``counts.comparisons.pairs``) in its ``"pairs"`` list, in pair order; every total, and
        ``overall.pairs``, is unchanged. For pages that show some pairs of very many."""
        try:
            chosen = np.unique(np.asarray(pairs, dtype=np.int64))
        except (TypeError, ValueError, OverflowError):
            raise UsageError(f"pairs must be pair indices (whole numbers), got {validate.shown(pairs)}") from None
        n_pairs = len(self.counts.comparisons.pairs)
        if len(chosen) and (chosen[0] < 0 or chosen[-1] >= n_pairs):
            raise UsageError(f"pair indices run from 0 to {n_pairs - 1}; got {validate.shown(pairs)}")
        return self._build(max_pairs=None, max_documents=None, pairs=chosen)

    def point(self) -> tuple[Layout, Summary]:
        """Every PSA statistic of the data (:func:`spanagree.measures.psa.summary.summarize`, one
        replicate), computed once."""
        if self._point is None:
            self._point = point_summary(self.counts, len(self.corpus.labels), len(self.corpus.raters), raters=True)
        return self._point

    def pairs_written(self, written: Sequence[str]) -> np.ndarray:
        """Indices of the rater pairs written ``A~B`` (either order; where a name holds ``~``,
        every split that names two raters counts), for :meth:`with_pairs`."""
        if written is None or isinstance(written, str) or not all(isinstance(text, str) for text in written):
            raise UsageError(f"written must be a list of 'A~B' strings, got {validate.shown(written)}")
        raters = self.corpus.raters
        code = {name: i for i, name in enumerate(raters)}
        keys = set()
        for text in written:
            for k, char in enumerate(text):
                if char == "~" and text[:k] in code and text[k + 1:] in code:
                    a, b = sorted((code[text[:k]], code[text[k + 1:]]))
                    keys.add(a * len(raters) + b)
        pairs = self.counts.comparisons.pairs
        return np.flatnonzero(np.isin(pairs[:, 0] * len(raters) + pairs[:, 1], list(keys)))

    @_no_cycle_collection()  # a dict per pair and per document: tens of thousands, no cycles
    def _build(
        self, max_pairs: int | None, max_documents: int | None, pairs: np.ndarray | None = None,
        per_document: str | None = None,
    ) -> dict[str, Any]:
        """The report; with ``per_document`` (a marker) that string stands for the per-document rows."""
        corpus, counts = self.corpus, self.counts
        comparisons = counts.comparisons
        layout, s = self.point()
        pair_abc, pair_psa, total = s.pair_abc[0], s.pair_psa[0], s.total[0]
        pair_docs = np.bincount(comparisons.pair, minlength=len(comparisons.pairs))
        shown = np.lexsort((np.arange(len(pair_docs)), -pair_docs))[:max_pairs] if max_pairs else pairs
        interval = self._interval_lookup(shown)
        defined_cells = np.bincount(layout.cell_label[~np.isnan(s.cell_psa[0])], minlength=len(corpus.labels))

        labels = {name: _psa_entry(
            interval, ("labels", name), s.label_mean[0, k], s.label_pooled[0, k], s.label_total[0, k].tolist(),
            pairs_undefined=len(comparisons.pairs) - int(defined_cells[k]),
        ) for k, name in enumerate(corpus.labels)}
        overall = _psa_entry(
            interval, ("overall",), s.pairwise_mean[0], s.pooled[0], [float(x) for x in total], analytic=True,
            pairs=len(comparisons.pairs), pairs_undefined=int(np.isnan(pair_psa).sum()),
            outcomes=dict(zip(OUTCOMES, counts.outcomes.sum(axis=0).tolist())),
        )
        result = {
            "documents": self._documents_section(),
            "annotations": self._annotations_section(),
            "spans": self._spans_section(),
            "raters": list(corpus.raters),
            "labels_seen": list(corpus.labels),
            "rule": {**counts.rule.to_dict(), "unit": counts.unit_name},
            "overall": overall,
            "macro": _psa_entry(interval, ("macro",), s.macro_mean[0], s.macro_pooled[0]),
            "pairs": self._pairs(pair_abc, pair_psa, layout, s.cell_abc[0], s.cell_psa[0], pair_docs, shown, interval),
            "labels": labels,
            "per_document": per_document or self._per_document_rows(*self._per_document_columns(max_documents)),
        }
        if self.per_rater:
            result["per_rater"] = self.rater_rows(interval)
        if self.reference is not None:
            result["reference"] = self._against_reference()
        if self.chance is not None:
            result["chance_corrected"] = _chance_with_intervals(_copy_data(self.chance), interval)
        if self.unitizing is not None:
            result["unitizing"] = _copy_data(self.unitizing)
        if self.structure is not None:
            result["structure"] = _copy_data(self.structure)
        if self.interval_options is not None:
            result["intervals"] = {k: v for k, v in self.intervals(shown).items() if k != "statistics"}
        return result

    def rater_rows(self, interval=None) -> list[dict[str, Any]]:
        """The per-rater view (:func:`spanagree.diagnostics.raters.rater_view`), a reference left out."""
        from .diagnostics.raters import rater_view  # optional section: imported when asked for

        return [row for row in rater_view(self, interval) if row["rater"] != self.reference]

    def intervals(self, pairs: np.ndarray | None = None) -> dict[str, Any]:
        """Bootstrap intervals and jackknife standard errors of every headline statistic, and of
        the rater pairs ``pairs`` (indices; default ``interval_pairs``, or all); computed once
        per set of pairs (see :mod:`spanagree.measures.psa.intervals`)."""
        if self.interval_options is None:
            raise UsageError(f"no intervals were asked for: ask for them with {option('bootstrap', 1000)}")
        key = None if pairs is None else tuple(np.asarray(pairs).tolist())
        if self._intervals is None or self._intervals[0] != key:
            from .measures.psa.intervals import interval_section  # optional section: imported when asked for

            with progress.shown(self.show_progress or progress.enabled()):
                self._intervals = (key, interval_section(self, self.interval_options, pairs))
        return self._intervals[1]

    def _interval_lookup(self, pairs: np.ndarray | None):
        """``path → interval entry`` (None without intervals or for a statistic without one)."""
        if self.interval_options is None:
            return lambda path: None
        return self.intervals(pairs)["statistics"].get

    def _pairs(self, pair_abc, pair_psa, layout, cell_abc, cell_psa, pair_docs, shown, interval) -> list[dict]:
        """One dict per rater pair (those in ``shown``, or all), in pair order."""
        corpus, comparisons = self.corpus, self.counts.comparisons
        shown = np.arange(len(comparisons.pairs)) if shown is None else np.asarray(shown)
        outcomes = bin_rows(comparisons.pair, self.counts.outcomes, len(comparisons.pairs))[shown].astype(np.int64)
        row_of = np.full(len(comparisons.pairs), -1, dtype=np.int64)
        row_of[shown] = np.arange(len(shown))
        label_rows: list[dict] = [{} for _ in range(len(shown))]
        cells = np.flatnonzero((row_of[layout.cell_pair] >= 0) & cell_abc.any(axis=-1))
        cells = cells[np.lexsort((layout.cell_label[cells], layout.cell_pair[cells]))]  # by pair, then label
        for p, k, (a, b, c), value in zip(
            row_of[layout.cell_pair[cells]].tolist(), layout.cell_label[cells].tolist(), cell_abc[cells].tolist(),
            _floats(cell_psa[cells]),
        ):
            label_rows[p][corpus.labels[k]] = {"a": a, "b": b, "c": c, "psa": value}
        names = corpus.raters
        rows = []
        for p, (ra, rb), docs, (a, b, c), value, label_row, outcome_row in zip(
            shown.tolist(), comparisons.pairs[shown].tolist(), pair_docs[shown].tolist(), pair_abc[shown].tolist(),
            _floats(pair_psa[shown]), label_rows, outcomes.tolist(),
        ):
            row = {
                "raters": [names[ra], names[rb]],
                "documents": docs,
                "a": a,
                "b": b,
                "c": c,
                "psa": value,
                "labels": label_row,
                "outcomes": dict(zip(OUTCOMES, outcome_row)),
                # missed / spurious by whose span it is (the pair's first rater is A)
                "only_in": {names[ra]: outcome_row[3], names[rb]: outcome_row[4]},
            }
            entry = interval(("pairs", p, "psa"))
            if entry is not None:
                row["psa_interval"] = _with_analytic_se(entry, a, b, c)
            rows.append(row)
        return rows

    def _scored(self) -> list[Comparisons]:
        """The comparisons scored: the headline's, and those with the reference."""
        return [counts.comparisons for counts in (self.counts, self.reference_counts) if counts is not None]

    def _documents_section(self) -> dict:
        corpus = self.corpus
        scored = _count_distinct(np.concatenate([c.doc for c in self._scored()]), corpus.n_documents)
        alone = _count_distinct(corpus.ann_doc, corpus.n_documents) - scored
        excluded = {**corpus.exclusions.documents, "fewer than two raters submitted it": alone}
        return _balanced(corpus.n_documents_read, scored, excluded, DOCUMENT_LABELS_ONLY)

    def _annotations_section(self) -> dict:
        corpus = self.corpus
        scored = int(self._annotations_in_comparisons().sum())
        alone = corpus.n_annotations - scored
        excluded = {**corpus.exclusions.annotations, "in a document no other rater submitted": alone}
        return _balanced(corpus.n_annotations_read, scored, excluded, DOCUMENT_LABELS_ONLY)

    def _annotations_in_comparisons(self, scored: Sequence[Comparisons] | None = None) -> np.ndarray:
        """Boolean mask over annotations: in some pair of ``scored`` (default: :meth:`_scored`)."""
        mask = np.zeros(self.corpus.n_annotations, dtype=bool)
        for comparisons in self._scored() if scored is None else scored:
            mask[comparisons.ann_a] = True
            mask[comparisons.ann_b] = True
        return mask

    def _spans_section(self) -> dict:
        corpus = self.corpus
        in_comparisons = self._annotations_in_comparisons()
        lengths = np.diff(corpus.ann_ptr) - _extra_parts(corpus)  # in the input's units
        alone = int(lengths[~in_comparisons].sum())
        excluded = {**corpus.exclusions.spans, "in a document no other rater submitted": alone}
        scored = int(lengths[in_comparisons].sum())
        notes = corpus.exclusions.notes + self.counts.notes
        for reason in EXCLUSIONS:  # spans the unit leaves out of the alignment
            if notes.get(reason):
                excluded[reason] = notes.pop(reason)
                scored -= excluded[reason]
        section = _balanced(corpus.n_spans_read, scored, excluded, "not scored")
        if notes:
            section["notes"] = dict(sorted(notes.items()))
        return section

    def _per_document_columns(self, limit: int | None = None) -> tuple[np.ndarray, ...]:
        """The per-document rows as arrays: (documents scored, raters, pairs, a/b/c (n, 3), pooled
        PSA, pairwise mean PSA), all documents in id order, or the ``limit`` lowest."""
        n_docs = self.corpus.n_documents
        if limit is None:
            return self._document_columns(0, n_docs)
        if not self._in_document_order():
            columns = self._document_columns(0, n_docs)
            return tuple(column[_lowest(columns[-1], limit)] for column in columns)
        # the means first, then the other columns of the lowest documents only
        _, scored, means = _document_means(self.counts.comparisons.doc, self.counts.abc, n_docs)
        chosen = [self._document_columns(d, d + 1) for d in scored[_lowest(means, limit)].tolist()]
        return tuple(np.concatenate(parts) for parts in zip(*chosen)) if chosen else self._document_columns(0, 0)

    def _in_document_order(self) -> bool:
        """True when the comparisons and the annotations are in document order (a part of the
        documents is then a stretch of each: :meth:`_document_columns`). An engine's annotations
        are in the order its tasks read them."""
        return in_order(self.counts.comparisons.doc) and in_order(self.corpus.ann_doc)

    def _per_document_pieces(self, size: int) -> Iterator[tuple[np.ndarray, ...]]:
        """:meth:`_per_document_columns` of every document, ``size`` documents at a time (the
        same rows; computed piece by piece, so a million documents' columns are never all held)."""
        n_docs = self.corpus.n_documents
        if not self._in_document_order():  # every document at once, then in pieces
            columns = self._document_columns(0, n_docs)
            for begin in range(0, len(columns[0]), size):
                yield tuple(column[begin:begin + size] for column in columns)
            return
        for begin in range(0, n_docs, size):
            yield self._document_columns(begin, min(begin + size, n_docs))

    def _document_columns(self, first: int, last: int) -> tuple[np.ndarray, ...]:
        """The per-document columns of :meth:`_per_document_columns` for documents ``first`` to
        ``last - 1``, from their comparisons and annotations only (a part of the documents needs
        both in document order)."""
        comparisons, corpus = self.counts.comparisons, self.corpus
        n = last - first
        if first == 0 and last == corpus.n_documents:  # every document, in any order
            lo, hi, doc, rows = 0, len(comparisons.doc), comparisons.doc, self.counts.abc
            a_lo, a_hi = 0, corpus.n_annotations
        else:
            lo, hi = np.searchsorted(comparisons.doc, [first, last]).tolist()
            doc, rows = comparisons.doc[lo:hi] - first, self.counts.abc[lo:hi]
            a_lo, a_hi = np.searchsorted(corpus.ann_doc, [first, last]).tolist()
        abc = bin_rows(doc, rows, n)
        n_pairs, scored, mean_values = _document_means(doc, rows, n)
        in_headline = np.zeros(a_hi - a_lo, dtype=bool)  # annotations in some comparison
        in_headline[comparisons.ann_a[lo:hi] - a_lo] = True
        in_headline[comparisons.ann_b[lo:hi] - a_lo] = True
        raters = np.bincount(corpus.ann_doc[a_lo:a_hi][in_headline] - first, minlength=n)
        del in_headline
        if len(scored) < n:  # the usual case, every document scored, makes no copies
            abc, raters, n_pairs = abc[scored], raters[scored], n_pairs[scored]
        return scored + first, raters, n_pairs, abc, row_psa(abc), mean_values

    def _per_document_rows(self, scored, raters, n_pairs, abc, pooled, means) -> list[dict]:
        """One dict per document from :meth:`_per_document_columns` (or a slice of them)."""
        doc_ids = self.corpus.doc_ids
        return [
            {
                "doc_id": doc_ids[d],
                "raters": n_raters,
                "pairs": n,
                "a": a,
                "b": b,
                "c": c,
                "pooled_psa": pooled_value,
                "pairwise_mean_psa": mean,
            }
            for d, n_raters, n, (a, b, c), pooled_value, mean in zip(
                scored.tolist(), raters.tolist(), n_pairs.tolist(), abc.tolist(), _floats(pooled), _floats(means)
            )
        ]

    def _against_reference(self) -> dict:
        raters = self.corpus.raters
        ref = raters.index(self.reference)
        pairs, counts = self.reference_counts.comparisons.pairs, self.reference_counts
        pair_abc = bin_rows(counts.comparisons.pair, counts.abc, len(pairs))
        index, abc = against(pair_abc, pairs, ref)  # the reference as side A: b = its unmatched spans
        precision, recall, f = (_floats(x) for x in prf_arrays(abc, self.beta))
        result = {}
        for p, (a, b, c), pr, rc, fb in zip(index.tolist(), abc.tolist(), precision, recall, f):
            ra, rb = pairs[p].tolist()
            result[raters[rb if ra == ref else ra]] = {"precision": pr, "recall": rc, "f": fb, "a": a, "b": b, "c": c}
        return {"rater": self.reference, "beta": self.beta, "raters": dict(sorted(result.items())),
                "headline_raters": [name for name in raters if name != self.reference]}


def score_corpus(corpus: Corpus, rule: AlignmentRule, settings: Mapping[str, Any], *,
                 counts: Counts | None = None) -> AgreementReport:
    """The report on a corpus in memory, or on ``counts`` already computed for it (by an engine),
    as a :class:`~spanagree.request.Request` asks: ``settings`` are its checked options of
    :func:`spanagree.score` other than the rule and how to run (``unit``, ``reference``,
    ``candidates``, ``bootstrap``, ...)."""
    unit, reference, candidates, ci = (settings[name] for name in ("unit", "reference", "candidates", "ci"))
    bootstrap, seed, unitizing = settings["bootstrap"], settings["seed"], settings["unitizing"]
    if reference is not None and reference not in corpus.raters:
        raise UsageError(f"reference rater {reference!r} not found; raters: {', '.join(corpus.raters)}")
    headline = [name for name in corpus.raters if name != reference]
    chance = None
    items = None
    if candidates is not None:
        # optional sections (here and below): imported when asked for (see tests/test_layers.py LAZY)
        from .io.candidates import document_tokens, read_candidates
        from .measures.chance.candidates import build_items
        from .measures.chance.section import chance_corrected

        with progress.phase("candidates, chance-corrected family", None):
            read = ({} if candidates == "documents" else {"tokens": document_tokens(corpus, settings["language"])}
                    if candidates == "tokens" else {"spans": read_candidates(candidates, corpus)})
            items = build_items(corpus, candidates, rule, unit=unit, **read, strict_candidates=settings["strict_candidates"])
            chance = chance_corrected(items, corpus.raters, reference=reference, confidence=ci)
            if reference is not None:  # the family over the other raters, Shah's S against them kept
                items = _without_rater(items, corpus.raters.index(reference))
                against = chance["all_raters"].get("s_against_group")
                chance = chance_corrected(items, headline, confidence=ci)
                if against is not None:
                    chance["all_raters"]["s_against_group"] = against
    interval_options = None
    if bootstrap is not None:
        from .measures.psa.intervals import IntervalOptions

        interval_options = IntervalOptions(level=ci, replicates=bootstrap, seed=seed)
    if counts is None:
        with progress.phase("aligning", None):
            counts = count(corpus, rule, unit=unit, search=settings["search"])
    reference_counts = None
    if reference is not None:
        with_reference = (counts.comparisons.pairs == corpus.raters.index(reference)).any(axis=1)[counts.comparisons.pair]
        counts, reference_counts = _comparisons_of(counts, ~with_reference), _comparisons_of(counts, with_reference)
    section = None
    if unitizing:
        from .diagnostics.raters import subset
        from .measures.unitizing.section import unitizing_section

        with progress.phase("unitizing: α_U and γ", None):
            section = unitizing_section(
                corpus if reference is None else subset(corpus, headline), unit=unit, seed=seed,
                options=unitizing if isinstance(unitizing, dict) else None,
                intervals=interval_options,
            )
    structure = None
    if settings.get("structure"):
        from .measures.structure.attributes import declared_scales
        from .measures.structure.section import structure_section

        structure = structure_section(
            corpus, rule, interval_options=interval_options,
            attribute_scales=declared_scales(settings.get("attribute_scales")),
        )
    return AgreementReport(
        corpus, counts, reference=reference, reference_counts=reference_counts, beta=settings["beta"], chance=chance, items=items,
        interval_options=interval_options, per_rater=settings["per_rater"], unitizing=section, structure=structure,
        show_progress=progress.enabled(),
    )


def _comparisons_of(counts: Counts, keep: np.ndarray) -> Counts:
    """``counts`` of the comparisons where ``keep`` (a mask) is True, their pairs renumbered (the
    outcome alignment is made again from them when asked for, as for counts merged from parts)."""
    comparisons = counts.comparisons
    kept_pairs = np.unique(comparisons.pair[keep])
    pair_code = np.zeros(len(comparisons.pairs), dtype=np.int64)
    pair_code[kept_pairs] = np.arange(len(kept_pairs))
    cells = keep[counts.label_comparison]
    return replace(
        counts, comparisons=Comparisons(comparisons.doc[keep], pair_code[comparisons.pair[keep]], comparisons.ann_a[keep],
                                        comparisons.ann_b[keep], comparisons.pairs[kept_pairs]),
        abc=counts.abc[keep], label_comparison=(np.cumsum(keep) - 1)[counts.label_comparison[cells]],
        label_code=counts.label_code[cells], label_abc=counts.label_abc[cells], outcomes=counts.outcomes[keep],
        outcome_pairs=None,
    )


def _without_rater(items, rater: int):
    """The candidate items (:class:`~spanagree.measures.chance.candidates.ItemMatrix`) without
    the ratings of ``rater``, the raters after it coded one lower, and the items no other rater
    rated left out."""
    keep = items.rating_rater != rater
    rated = np.unique(items.rating_item[keep])
    item_code = np.zeros(items.n_items, dtype=np.int64)
    item_code[rated] = np.arange(len(rated))
    others = items.rating_rater[keep]
    return replace(
        items, item_doc=items.item_doc[rated], extra=items.extra[rated],
        item_label=None if items.item_label is None else items.item_label[rated],
        rating_item=item_code[items.rating_item[keep]], rating_rater=others - (others > rater),
        rating_code=items.rating_code[keep], rating_labels=items.rating_labels[keep],
    )


def _count_distinct(codes: np.ndarray, n: int) -> int:
    """How many distinct values in ``codes`` (integers in ``range(n)``)."""
    return int(np.count_nonzero(np.bincount(codes, minlength=n)))


def _psa_entry(interval, path: tuple, mean: float, pooled: float, abc: Sequence[float] = (), *,
               analytic: bool = False, **more: Any) -> dict:
    """The pairwise mean and pooled PSA (None: undefined), then ``a``, ``b``, ``c`` and ``more`` when
    given, with ``<name>_interval`` beside each PSA that has an interval at ``(*path, name)`` (and the
    analytic standard error of the pooled PSA, from a, b, c, when ``analytic``)."""
    holder = {"pairwise_mean_psa": reported(mean), "pooled_psa": reported(pooled), **dict(zip("abc", abc)), **more}
    for name in ("pairwise_mean_psa", "pooled_psa"):
        entry = interval((*path, name))
        if entry is None:
            continue
        if analytic and name == "pooled_psa":
            entry = _with_analytic_se(entry, holder["a"], holder["b"], holder["c"])
        holder[f"{name}_interval"] = entry
    return holder


def _with_analytic_se(entry: dict, a: float, b: float, c: float) -> dict:
    """An interval entry of a PSA with its delta-method standard error added."""
    from .measures.psa.intervals import analytic_psa_se  # optional section: imported when asked for

    return {**entry, "analytic_se": analytic_psa_se(a, b, c)}


def _chance_with_intervals(chance: dict, interval) -> dict:
    """The chance-corrected section with the interval of each coefficient that has one."""
    pooled = chance.get("pooled", {})
    places = [(("chance", "pairs", p, "cohen_kappa"), pair["coefficients"]["cohen_kappa"], "interval")
              for p, pair in enumerate(chance["pairs"])]
    places += [(("chance", "pooled", "cohen_kappa"), pooled.get("cohen_kappa"), "interval"),
               (("chance", "pooled", "positive_agreement"), pooled, "positive_agreement_interval"),
               (("chance", "all_raters", "krippendorff_alpha"), chance["all_raters"].get("krippendorff_alpha"), "interval")]
    for path, holder, key in places:
        entry = interval(path)
        if entry is not None:
            holder[key] = entry
    return chance


_SCALARS = (str, int, float, bool, type(None))


def _copy_data(value: Any) -> Any:
    """A deep copy of a section of nested dicts and lists (the report's own copy stays as it is
    when the caller changes the one returned); much faster than ``copy.deepcopy`` on tens of
    thousands of entries, which keeps a memo of every object."""
    kind = type(value)
    if kind is dict:
        return {k: v if type(v) in _SCALARS else _copy_data(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _SCALARS else _copy_data(v) for v in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)


def _floats(values: np.ndarray) -> list[float | None]:
    """An array as a list of floats, with None where it is NaN (undefined)."""
    return [None if v != v else v for v in np.asarray(values, dtype=np.float64).tolist()]
