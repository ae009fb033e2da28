"""Positive specific agreement and its aggregations: ``score()`` and the report (docs/agreement.md).

With ``a`` the matched credit and ``b``, ``c`` each rater's unmatched spans:

- ``PSA = 2a / (2a + b + c)`` (Hripcsak & Rothschild 2005), equal to F1 with either rater as the
  reference, undefined (``None``) when ``2a + b + c = 0``;
- with rater A as the reference, ``recall = a / (a + b)``, ``precision = a / (a + c)`` and
  ``F_beta = (1 + β²)·P·R / (β²·P + R)``.

Aggregations, all from the same per-unit counts: per pair (sum over shared documents), pairwise
mean (mean of the pair PSAs: the headline for R raters), pooled (sum over all pairs), per label
and macro over labels, per document, and each rater against a reference rater.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .core import options
from .core.align import AlignmentRule
from .core.counts import EXCLUSIONS, OUTCOMES, Counts, count, label_totals
from .errors import UsageError
from .core.model import Corpus
from .measures.psa import f_beta, psa, psa_array

if TYPE_CHECKING:  # the engines are imported only when one runs
    from .engine.merge import CorpusSummary

UNITS = options.BY_NAME["unit"].choices



#: Why documents and annotations read are not in the span tables: they hold document labels
#: (text classification), which the span counts leave out and ``candidates="documents"`` scores.
DOCUMENT_LABELS_ONLY = "document labels only (no spans; scored with candidates='documents')"


def _balanced(read: int, scored: int, excluded: dict, rest: str) -> dict:
    """``{"read", "scored", "excluded"}`` with zero counts left out and whatever the named
    reasons do not account for under ``rest``, so that read = scored + excluded always holds."""
    excluded = {reason: n for reason, n in excluded.items() if n}
    missing = read - scored - sum(excluded.values())
    if missing > 0:
        excluded[rest] = excluded.get(rest, 0) + missing
    return {"read": read, "scored": scored, "excluded": dict(sorted(excluded.items()))}



@dataclass
class AgreementReport:
    """The result of :func:`spanagree.score`: the counts and every aggregation of them.

    ``counts`` holds the per-unit arrays; :meth:`to_dict` gives the JSON-ready summary.
    """

    corpus: Corpus | CorpusSummary  # a summary (ids and counters, no spans) when an engine counted
    counts: Counts
    reference: str | None = None
    beta: float = 1.0
    chance: dict | None = None
    items: Any = None  # the candidates' ItemMatrix, when candidates were configured
    interval_options: Any = None  # IntervalOptions, when intervals were asked for
    per_rater: bool = False  # add the per-rater view (spanagree.diagnostics.raters) to the output
    unitizing: dict | None = None  # α_U and γ (spanagree.measures.unitizing), when asked for
    interval_pairs: Any = None  # indices of the rater pairs that get their own interval (None: all)
    _intervals: dict | None = field(default=None, repr=False)

    # --- per pair -----------------------------------------------------------------------------

    @property
    def raters(self) -> list[str]:
        return self.corpus.raters

    def pair_abc(self) -> np.ndarray:
        """(n_pairs, 3) sums of a, b, c over each pair's shared documents."""
        return _sum_rows(self.counts.units.pair, self.counts.abc, len(self.counts.units.pairs))

    def pair_label_abc(self) -> np.ndarray:
        """(n_pairs, n_labels, 3) sums per pair and label (labels always strict)."""
        return label_totals(self.counts, len(self.corpus.labels), self.counts.units.pair, len(self.counts.units.pairs))

    def pair_psa(self) -> np.ndarray:
        abc = self.pair_abc()
        return psa_array(abc[:, 0], abc[:, 1], abc[:, 2])

    @property
    def pairwise_mean_psa(self) -> float | None:
        """Mean of the per-pair PSAs over pairs where PSA is defined (the "average F")."""
        return _mean(self.pair_psa())

    @property
    def pooled_psa(self) -> float | None:
        """PSA of a, b, c summed over all pairs and documents."""
        return psa(*self.counts.abc.sum(axis=0).tolist())

    # --- output -------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Everything, as plain JSON types (floats, None for undefined)."""
        return self._build(max_pairs=None, max_documents=None)

    def summary(self, max_pairs: int = 20, max_documents: int = 10) -> dict[str, Any]:
        """:meth:`to_dict` with only the ``max_pairs`` pairs that share most documents and the
        ``max_documents`` documents of lowest agreement (for tables; the totals are unchanged)."""
        return self._build(max_pairs=max_pairs, max_documents=max_documents)

    def with_pairs(self, pairs: np.ndarray) -> dict[str, Any]:
        """:meth:`to_dict` with only the rater pairs ``pairs`` (pair indices into
        ``counts.units.pairs``) in its ``"pairs"`` list, in pair order; every total, and
        ``overall.pairs``, is unchanged. For pages that show some pairs of very many."""
        return self._build(max_pairs=None, max_documents=None, pairs=np.unique(np.asarray(pairs, dtype=np.int64)))

    def _build(self, max_pairs: int | None, max_documents: int | None, pairs: np.ndarray | None = None) -> dict[str, Any]:
        corpus, counts = self.corpus, self.counts
        units = counts.units
        pair_abc = self.pair_abc()
        pair_psa = psa_array(pair_abc[:, 0], pair_abc[:, 1], pair_abc[:, 2])
        pair_label = self.pair_label_abc()
        pair_label_psa = psa_array(pair_label[..., 0], pair_label[..., 1], pair_label[..., 2])
        total = counts.abc.sum(axis=0)

        labels = {}
        for k, name in enumerate(corpus.labels):
            label_total = pair_label[:, k].sum(axis=0)
            column = pair_label_psa[:, k]
            labels[name] = {
                "pairwise_mean_psa": _mean(column),
                "pooled_psa": psa(*label_total.tolist()),
                "a": float(label_total[0]),
                "b": float(label_total[1]),
                "c": float(label_total[2]),
                "pairs_undefined": int(np.isnan(column).sum()),
            }
        pair_docs = np.bincount(units.pair, minlength=len(units.pairs))
        shown = np.lexsort((np.arange(len(pair_docs)), -pair_docs))[:max_pairs] if max_pairs else pairs
        result = {
            "documents": self._documents_section(),
            "annotations": self._annotations_section(),
            "spans": self._spans_section(),
            "raters": list(corpus.raters),
            "labels_seen": list(corpus.labels),
            "rule": {**counts.rule.to_dict(), "unit": counts.unit_name},
            "overall": {
                "pairwise_mean_psa": _mean(pair_psa),
                "pooled_psa": psa(*total.tolist()),
                "a": float(total[0]),
                "b": float(total[1]),
                "c": float(total[2]),
                "pairs": len(units.pairs),
                "pairs_undefined": int(np.isnan(pair_psa).sum()),
                "outcomes": dict(zip(OUTCOMES, counts.outcomes.sum(axis=0).tolist())),
            },
            "macro": {
                "pairwise_mean_psa": _mean_none([v["pairwise_mean_psa"] for v in labels.values()]),
                "pooled_psa": _mean_none([v["pooled_psa"] for v in labels.values()]),
            },
            "pairs": self._pairs(pair_abc, pair_psa, pair_label, pair_label_psa, pair_docs, shown),
            "labels": labels,
            "per_document": self._per_document(max_documents),
        }
        if self.per_rater:
            from .diagnostics.raters import rater_view  # optional section: imported when asked for

            result["per_rater"] = rater_view(self)
        if self.reference is not None:
            result["reference"] = self._against_reference(pair_abc)
        if self.chance is not None:
            result["chance_corrected"] = copy.deepcopy(self.chance)
        if self.unitizing is not None:
            result["unitizing"] = copy.deepcopy(self.unitizing)
        if self.interval_options is not None:
            from .measures.intervals import attach  # optional section: imported when asked for

            attach(result, self.intervals(), self)
        return result

    def intervals(self) -> dict[str, Any]:
        """Bootstrap intervals and jackknife standard errors of every headline statistic
        (computed once; see :mod:`spanagree.measures.intervals`)."""
        if self.interval_options is None:
            raise UsageError("no intervals were asked for: pass bootstrap=N to score()")
        if self._intervals is None:
            from .measures.intervals import interval_section  # optional section: imported when asked for

            self._intervals = interval_section(self, self.interval_options)
        return self._intervals

    def _pairs(self, pair_abc, pair_psa, pair_label, pair_label_psa, pair_docs, shown) -> list[dict]:
        """One dict per rater pair (those in ``shown``, or all), in pair order."""
        corpus, units = self.corpus, self.counts.units
        shown = np.arange(len(units.pairs)) if shown is None else np.asarray(shown)
        outcomes = _sum_rows(units.pair, self.counts.outcomes, len(units.pairs))[shown].astype(np.int64)
        label_rows: list[dict] = [{} for _ in range(len(shown))]
        sub_label, sub_psa = pair_label[shown], pair_label_psa[shown]
        present_p, present_k = np.nonzero(sub_label.any(axis=-1))
        for p, k, (a, b, c), value in zip(
            present_p.tolist(), present_k.tolist(), sub_label[present_p, present_k].tolist(),
            _floats(sub_psa[present_p, present_k]),
        ):
            label_rows[p][corpus.labels[k]] = {"a": a, "b": b, "c": c, "psa": value}
        names = corpus.raters
        return [
            {
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
            for (ra, rb), docs, (a, b, c), value, label_row, outcome_row in zip(
                units.pairs[shown].tolist(), pair_docs[shown].tolist(), pair_abc[shown].tolist(),
                _floats(pair_psa[shown]), label_rows, outcomes.tolist(),
            )
        ]

    def _documents_section(self) -> dict:
        corpus, units = self.corpus, self.counts.units
        scored = _count_distinct(units.doc, corpus.n_documents)
        excluded = dict(corpus.exclusions.documents)
        alone = _count_distinct(corpus.ann_doc, corpus.n_documents) - scored
        if alone:
            excluded["fewer than two raters submitted it"] = alone
        return _balanced(corpus.n_documents_read, scored, excluded, DOCUMENT_LABELS_ONLY)

    def _annotations_section(self) -> dict:
        corpus = self.corpus
        scored = int(self._annotations_in_units().sum())
        excluded = dict(corpus.exclusions.annotations)
        alone = corpus.n_annotations - scored
        if alone:
            excluded["in a document no other rater submitted"] = alone
        return _balanced(corpus.n_annotations_read, scored, excluded, DOCUMENT_LABELS_ONLY)

    def _annotations_in_units(self) -> np.ndarray:
        """Boolean mask over annotations: True where the annotation is part of some pair."""
        units = self.counts.units
        mask = np.zeros(self.corpus.n_annotations, dtype=bool)
        mask[units.ann_a] = True
        mask[units.ann_b] = True
        return mask

    def _spans_section(self) -> dict:
        corpus = self.corpus
        in_units = self._annotations_in_units()
        lengths = np.diff(corpus.ann_ptr)
        excluded = dict(corpus.exclusions.spans)
        alone = int(lengths[~in_units].sum())
        if alone:
            excluded["in a document no other rater submitted"] = alone
        scored = int(lengths[in_units].sum())
        notes = corpus.exclusions.notes + self.counts.notes
        for reason in EXCLUSIONS:  # spans the unit leaves out of the alignment
            if notes.get(reason):
                excluded[reason] = notes.pop(reason)
                scored -= excluded[reason]
        section = _balanced(corpus.n_spans_read, scored, excluded, "not scored")
        if notes:
            section["notes"] = dict(sorted(notes.items()))
        return section

    def _per_document(self, limit: int | None = None) -> list[dict]:
        """Per-document counts and PSA (all documents in id order, or the ``limit`` lowest)."""
        units = self.counts.units
        n_docs = self.corpus.n_documents
        abc = _sum_rows(units.doc, self.counts.abc, n_docs)
        unit_psa = psa_array(*self.counts.abc.T)
        defined = ~np.isnan(unit_psa)
        mean_sum = np.bincount(units.doc[defined], weights=unit_psa[defined], minlength=n_docs)
        mean_n = np.bincount(units.doc[defined], minlength=n_docs)
        n_pairs = np.bincount(units.doc, minlength=n_docs)
        raters = np.bincount(self.corpus.ann_doc, minlength=n_docs)
        scored = np.flatnonzero(n_pairs)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_values = mean_sum[scored] / mean_n[scored]
        if limit is not None:
            lowest = np.argsort(np.where(np.isnan(mean_values), np.inf, mean_values), kind="stable")[:limit]
            lowest = lowest[~np.isnan(mean_values[lowest])]
            scored, mean_values = scored[lowest], mean_values[lowest]
        means = _floats(mean_values)
        pooled = _floats(psa_array(*abc[scored].T))
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
                scored.tolist(), raters[scored].tolist(), n_pairs[scored].tolist(), abc[scored].tolist(), pooled, means
            )
        ]

    def _against_reference(self, pair_abc: np.ndarray) -> dict:
        raters = self.corpus.raters
        if self.reference not in raters:
            raise UsageError(f"reference rater {self.reference!r} not found; raters: {', '.join(raters)}")
        ref = raters.index(self.reference)
        result = {}
        for p, (ra, rb) in enumerate(self.counts.units.pairs.tolist()):
            if ref not in (ra, rb):
                continue
            a, b, c = pair_abc[p].tolist()
            if rb == ref:  # the reference must be side A: b = its unmatched spans
                b, c = c, b
            other = raters[rb if ra == ref else ra]
            result[other] = {
                "precision": None if a + c == 0 else a / (a + c),
                "recall": None if a + b == 0 else a / (a + b),
                "f": f_beta(a, b, c, self.beta),
                "a": a,
                "b": b,
                "c": c,
            }
        return {"rater": self.reference, "beta": self.beta, "raters": dict(sorted(result.items()))}


def score_corpus(
    corpus: Corpus,
    rule: str | AlignmentRule = options.default("rule"),
    settings: dict[str, Any] | None = None,
    *,
    counts: Counts | None = None,
    **given: Any,
) -> AgreementReport:
    """The report on a corpus in memory, or on ``counts`` already computed for it (by an engine).

    ``rule`` is an :class:`~spanagree.core.align.AlignmentRule` or a rule's name (its other
    options then among ``given``). The other options of :func:`spanagree.score` (``unit``,
    ``reference``, ``candidates``, ``bootstrap``, ...) come either as ``settings``, every one of
    them already checked (from :func:`spanagree.app.api.score_settings`), or as keywords
    ``given``, checked here against their declarations.
    """
    if not isinstance(rule, AlignmentRule):
        rule_options = {name: given.pop(name) for name in options.RULE_OPTIONS[1:] if name in given}
        rule = AlignmentRule(**options.keywords({"rule": rule, **rule_options}, options.RULE_OPTIONS))
    if settings is None:
        settings = options.keywords(given, [
            o.name for o in options.api_options()
            if o.name not in options.RULE_OPTIONS and o.section not in ("input", "engine")
        ])
    unit, reference, candidates, ci = (settings[name] for name in ("unit", "reference", "candidates", "ci"))
    bootstrap, seed, unitizing = settings["bootstrap"], settings["seed"], settings["unitizing"]
    if reference is not None and reference not in corpus.raters:
        raise UsageError(f"reference rater {reference!r} not found; raters: {', '.join(corpus.raters)}")
    chance = None
    items = None
    if candidates is not None:
        # optional sections (here and below): imported when asked for (see tests/test_layers.py LAZY)
        from .measures.candidates import build_items
        from .measures.chance import chance_corrected

        items = build_items(
            corpus, candidates, rule, unit=unit, language=settings["language"],
            strict_candidates=settings["strict_candidates"],
        )
        chance = chance_corrected(items, corpus.raters, reference=reference, confidence=ci)
    interval_options = None
    if bootstrap is not None:
        from .measures.intervals import IntervalOptions

        interval_options = IntervalOptions(level=ci, replicates=bootstrap, seed=seed)
    if counts is None:
        counts = count(corpus, rule, unit=unit, search=settings["search"])
    section = None
    if unitizing:
        from .measures.unitizing import unitizing_section

        section = unitizing_section(
            corpus, unit=unit, seed=seed, options=unitizing if isinstance(unitizing, dict) else None,
            intervals=interval_options,
        )
    return AgreementReport(
        corpus, counts, reference=reference, beta=settings["beta"], chance=chance, items=items,
        interval_options=interval_options, per_rater=settings["per_rater"], unitizing=section,
    )


def _sum_rows(index: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """Sum rows of ``values`` into ``n`` bins by ``index`` (any trailing shape)."""
    flat = values.reshape(len(values), int(np.prod(values.shape[1:])))
    out = np.zeros((n, flat.shape[1]))
    for j, col in enumerate(flat.T):
        out[:, j] = np.bincount(index, weights=col, minlength=n)
    return out.reshape((n, *values.shape[1:]))


def _count_distinct(codes: np.ndarray, n: int) -> int:
    """How many distinct values in ``codes`` (integers in ``range(n)``)."""
    return int(np.count_nonzero(np.bincount(codes, minlength=n)))


def _mean(values: np.ndarray) -> float | None:
    defined = values[~np.isnan(values)]
    return float(defined.mean()) if len(defined) else None


def _mean_none(values: list[float | None]) -> float | None:
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


def _floats(values: np.ndarray) -> list[float | None]:
    """An array as a list of floats, with None where it is NaN (undefined)."""
    return [None if v != v else v for v in np.asarray(values, dtype=np.float64).tolist()]

