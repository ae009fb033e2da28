"""The per-rater view: which rater parts from the others, and on which label.

For each rater ``r`` (definitions in ``docs/diagnostics.md``):

- ``documents``, ``spans``: what ``r`` submitted (annotations and spans read, in documents that at
  least one other rater submitted too);
- ``mean_psa``: the mean of the pair PSAs of ``r`` with every other rater it shares documents
  with (pairs where PSA is undefined are left out, and counted);
- ``against_others``: ``r`` against the other raters, pooled over ``r``'s pairs: with ``a`` the
  matched credit, ``own`` the spans of ``r`` no partner matched and ``other`` the partners' spans
  ``r`` did not match, summed over the pairs, ``precision = a / (a + own)`` (the share of ``r``'s
  spans the others confirm), ``recall = a / (a + other)`` and ``F = 2a / (2a + own + other)``;
  per label the same with labels strict;
- ``against_consensus``: ``r`` against the consensus of the *other* raters (the vote of
  :mod:`spanagree.diagnostics.consensus` with the same rule, kept when more than half of the other raters
  support a span), precision / recall / F as above with the consensus as the reference, overall
  and per label. It is computed when there are at most :data:`MAX_CONSENSUS_RATERS` raters (one
  consensus per rater); otherwise it is ``None`` and the reason is given;
- ``only_theirs``: spans of ``r`` that no other rater's span explains — unmatched in the outcome
  alignment (:mod:`spanagree.core.outcomes`) of every pair ``r`` is in — by label;
- ``parts_most``: the three labels where ``r``'s F against the others is lowest relative to the
  label's pooled PSA over all pairs (``gap = F − pooled PSA``, most negative first; a positive gap
  means ``r`` agrees with the others better than the pairs do on average).

Every figure but the consensus is a function of the per-pair sums of the counts (nothing is
re-aligned), so the bootstrap over documents gives intervals for ``mean_psa`` and
``against_others.f`` in the same replicates as the headline (see :mod:`spanagree.measures.psa.intervals`);
``against_consensus.f`` gets its own percentile bootstrap over the consensus documents, with the
same level, replicates and seed.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
from .disagreements import from_report
from .consensus import consensus
from ..core.counts import count, label_totals
from ..measures.psa.specific import prf, psa, reported
from ..measures.psa.summary import bin_rows, oriented_sums
from ..measures.psa.intervals import BLOCK
from ..core.builder import CorpusBuilder

#: The consensus of the other raters is computed per rater up to this many raters.
MAX_CONSENSUS_RATERS = 12
#: How many labels ``parts_most`` lists.
PARTS_MOST = 3


def rater_view(report, interval=None) -> list[dict[str, Any]]:
    """The per-rater section of an :class:`~spanagree.report.AgreementReport` (point values from
    the report's summary, :mod:`spanagree.measures.psa.summary`); ``interval`` (path → bootstrap
    entry or None) puts ``mean_psa_interval`` and ``against_others.f_interval`` beside them."""
    corpus, counts = report.corpus, report.counts
    comparisons = counts.comparisons
    names, labels = corpus.raters, corpus.labels
    n_raters, n_labels = len(names), len(labels)
    pairs = comparisons.pairs
    layout, s = report.point()
    mean = s.rater_mean[0]
    per_rater = s.rater_abc[0]  # (raters, 3)
    # per (rater, label): each cell's two raters, coded rater × labels + label
    cell_raters = pairs[layout.cell_pair] * n_labels + layout.cell_label[:, None]
    per_label = oriented_sums(s.cell_abc, cell_raters, n_raters * n_labels)[0].reshape(n_raters, n_labels, 3)
    label_pooled = s.label_pooled[0]
    n_pairs = np.bincount(pairs.reshape(-1), minlength=n_raters)
    undefined = np.bincount(pairs[np.isnan(s.pair_psa[0])].reshape(-1), minlength=n_raters)
    interval = interval or (lambda path: None)

    # the rater of every annotation in some pair, from the pairs themselves; an annotation in no
    # pair goes to an extra bin, n_raters (codes in the smallest integer type: a million documents'
    # annotations cost a byte each, not eight)
    code = np.min_scalar_type(n_raters)
    rater_of = np.full(corpus.n_annotations, n_raters, dtype=code)
    rater_of[comparisons.ann_a] = pairs[:, 0].astype(code)[comparisons.pair]
    rater_of[comparisons.ann_b] = pairs[:, 1].astype(code)[comparisons.pair]
    documents = np.bincount(rater_of, minlength=n_raters + 1)[:n_raters]
    spans = bin_rows(rater_of, np.diff(corpus.ann_ptr), n_raters + 1)[:n_raters].astype(np.int64)  # in blocks
    del rater_of
    has_spans = corpus.has_spans
    only = _only_theirs(report) if has_spans else None
    consensus, why_not = _against_consensus(report)

    out = []
    for r, name in enumerate(names):
        by_label = {}
        gaps = []
        for k, label in enumerate(labels):
            a, own, other = per_label[r, k].tolist()
            if a + own + other == 0:
                continue
            by_label[label] = prf(a, own, other)
            f, pooled = by_label[label]["f"], label_pooled[k]
            if f is not None and not np.isnan(pooled):
                gaps.append((f - float(pooled), label, f, float(pooled)))
        gaps.sort()
        against_others = {**prf(*per_rater[r].tolist()), "labels": by_label}
        out.append({
            "rater": name,
            "documents": int(documents[r]),
            "spans": int(spans[r]),
            "pairs": int(n_pairs[r]),
            "pairs_undefined": int(undefined[r]),
            "mean_psa": reported(mean[r]),
            "against_others": against_others,
            "against_consensus": consensus.get(name) if consensus is not None else None,
            "only_theirs": None if only is None else {
                "spans": sum(only.get(name, Counter()).values()),
                "labels": dict(sorted(only.get(name, Counter()).items())),
            },
            "parts_most": [
                {"label": label, "f": f, "label_pooled_psa": pooled, "gap": gap}
                for gap, label, f, pooled in gaps[:PARTS_MOST]
            ],
        })
        for holder, key, *path in ((against_others, "f_interval", "against_others", "f"),
                                   (out[-1], "mean_psa_interval", "mean_psa")):
            entry = interval(("raters", r, *path))
            if entry is not None:
                holder[key] = entry
        if consensus is None:
            out[-1]["against_consensus_not_computed"] = why_not
    return out


def _only_theirs(report) -> dict[str, Counter]:
    """Per rater and label, scored spans that no other rater's span explains."""
    corpus = report.corpus
    found = from_report(report)
    matched = np.zeros(corpus.n_spans, dtype=bool)
    matched[found.match_a] = True
    matched[found.match_b] = True
    unmatched = np.concatenate([found.missed_span, found.spurious_span])
    alone = np.unique(unmatched[~matched[unmatched]])
    rater = corpus.ann_rater[corpus.span_ann[alone]]
    out: dict[str, Counter] = {}
    for r, lab in zip(rater.tolist(), corpus.span_label[alone].tolist()):
        out.setdefault(corpus.raters[r], Counter())[corpus.labels[lab]] += 1
    return out


def _against_consensus(report) -> tuple[dict[str, dict] | None, str | None]:
    """Each rater against the consensus of the other raters (or None, and why not)."""
    corpus, counts = report.corpus, report.counts
    names = corpus.raters
    if len(names) > MAX_CONSENSUS_RATERS:
        return None, f"more than {MAX_CONSENSUS_RATERS} raters (one consensus per rater would be needed)"
    if not corpus.has_spans:
        return None, "the counts were computed in parts, without the spans"
    rule, unit = counts.rule, counts.unit_name
    gold_name = "consensus of the others"
    while gold_name in names:
        gold_name += "'"
    out: dict[str, dict] = {}
    for r, name in enumerate(names):
        others = [x for x in names if x not in (name, report.reference)]  # a reference is no rater
        if not others or name == report.reference:
            continue
        majority = len(others) // 2 + 1
        gold, _ = consensus(subset(corpus, others), min_raters=majority, rule=rule, unit=unit, name=gold_name)
        pair, pair_counts, order, entry = rater_against(corpus, r, gold, rule, unit)
        if not len(pair_counts.comparisons):
            continue
        by_label = label_totals(pair_counts, len(pair.labels))[0][:, order]
        labels = {
            pair.labels[k]: prf(*by_label[k].tolist()) for k in range(len(pair.labels)) if by_label[k].any()
        }
        out[name] = {**entry, "min_raters": majority, "labels": labels}
        if report.interval_options is not None:
            out[name]["f_interval"] = _bootstrap_f(pair_counts.abc[:, order], report.interval_options)
    return out, None


def _bootstrap_f(rows: np.ndarray, options) -> dict[str, Any]:
    """Percentile bootstrap interval of ``F = 2a / (2a + own + other)`` over the rows (one per
    document), with the report's level, replicates and seed."""
    n = len(rows)
    rng = np.random.default_rng(options.seed)
    values = []
    done = 0
    while done < options.replicates:
        block = min(BLOCK, options.replicates - done)
        draws = rng.integers(0, n, size=(block, n))
        weights = np.stack([np.bincount(row, minlength=n) for row in draws]).astype(float)
        sums = weights @ rows
        values.append(psa(sums[:, 0], sums[:, 1], sums[:, 2]))
        done += block
    values = np.concatenate(values)
    defined = values[~np.isnan(values)]
    alpha = (1 - options.level) / 2
    total = rows.sum(axis=0)
    entry: dict[str, Any] = {
        "value": prf(*total.tolist())["f"],
        "low": float(np.quantile(defined, alpha)) if len(defined) else None,
        "high": float(np.quantile(defined, 1 - alpha)) if len(defined) else None,
    }
    if len(defined) < len(values):
        entry["undefined_replicates"] = int(len(values) - len(defined))
    return entry


def subset(corpus, keep: list[str]):
    """The corpus with only the raters ``keep`` (same documents, spans and tokens)."""
    return copied((corpus, {corpus.raters.index(x) for x in keep}, None))


def rater_against(corpus, r: int, gold, rule, unit: str) -> tuple[Any, Any, list[int], dict[str, Any]]:
    """Rater ``r`` of ``corpus`` against ``gold`` (one rater) on the documents both submitted:
    their corpus (:func:`pair_corpus`) and counts, the order of a, b, c that puts ``r`` first,
    and precision, recall and F with ``gold`` as the reference, and the documents."""
    pair = pair_corpus(corpus, r, gold)
    counts = count(pair, rule, unit=unit)
    order = [0, 2, 1] if pair.raters and pair.raters[0] != corpus.raters[r] else [0, 1, 2]
    total = counts.abc.sum(axis=0) if len(counts.comparisons) else np.zeros(3)
    return pair, counts, order, {**prf(*total[order].tolist()), "documents": int(len(np.unique(counts.comparisons.doc)))}


def pair_corpus(corpus, r: int, gold):
    """Rater ``r``'s annotations of the documents in ``gold``, and ``gold`` itself."""
    return copied((corpus, {r}, set(gold.doc_ids)), (gold, None, None))


def copied(*parts: tuple[Any, set[int] | None, set[str] | None]):
    """One corpus of the annotations of each ``(corpus, raters, doc_ids)`` of ``parts``: those of
    the raters (codes) and documents (ids) given, all where None (the same texts, spans and tokens)."""
    builder = CorpusBuilder()
    for corpus, raters, doc_ids in parts:
        for ann in range(corpus.n_annotations):
            d, rater = int(corpus.ann_doc[ann]), int(corpus.ann_rater[ann])
            if (raters is None or rater in raters) and (doc_ids is None or corpus.doc_ids[d] in doc_ids):
                builder.add(corpus.doc_ids[d], corpus.doc_ids[d], corpus.texts[d], corpus.raters[rater],
                            corpus.annotation_spans(ann), None, corpus.doc_tokens[d])
    return builder.build()
