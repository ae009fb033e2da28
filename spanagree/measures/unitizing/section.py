"""Unitizing agreement of a corpus: Krippendorff's α_U and Mathet et al.'s γ, side by side.

Both measures look at the raters' spans directly, without candidate items: α_U
(:mod:`spanagree.measures.alpha_u`) compares how the raters cut the continuum into units and
gaps; γ (:mod:`spanagree.measures.unitizing.gamma`) aligns the units and weighs positional and label
differences. This module turns a :class:`~spanagree.core.model.Corpus` into their columns and the
results into the ``"unitizing"`` section of the report.

Every rater must have annotated a document for it to count (a missing annotation is not an
empty one); other documents are left out and counted, as are spans that cover no unit.
Documents are laid end to end in document-id order. Definitions: ``docs/unitizing.md``.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

import numpy as np

from ...errors import UsageError
from ...core.model import Corpus
from .alpha_u import alpha_u
from .gamma import SAMPLERS, Dissimilarity, gamma


OPTION_KEYS = ("samples", "sampler", "alpha", "beta", "categorical")


def unitizing_section(
    corpus: Corpus,
    *,
    unit: str = "char",
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    intervals: Any = None,
) -> dict[str, Any]:
    """The ``"unitizing"`` report section: α_U and γ overall and per label.

    ``options``: ``samples`` (random continua for γ, default 30), ``sampler`` (how they are
    drawn: ``"statistical"``, pygamma-agreement's default, or ``"shuffle"``), ``alpha`` and ``beta`` (weights
    of the positional and categorical dissimilarity, default 1), ``categorical`` (a
    ``{label: {label: distance}}`` table; default 0/1). ``intervals``: an
    :class:`~spanagree.measures.intervals.IntervalOptions` to add bootstrap intervals of α_U over
    documents (γ gets none: each replicate would need its own random continua).
    """
    options = dict(options or {})
    unknown = set(options) - set(OPTION_KEYS)
    if unknown:
        raise UsageError(f"unknown unitizing option(s) {', '.join(sorted(unknown))}; allowed: {', '.join(OPTION_KEYS)}")
    samples = options.get("samples", 30)
    if type(samples) is not int or samples < 2:
        raise UsageError(f"unitizing samples must be a whole number >= 2, got {samples!r}")
    sampler = options.get("sampler", "statistical")
    if sampler not in SAMPLERS:
        raise UsageError(f"unitizing sampler must be one of {', '.join(map(repr, SAMPLERS))}, got {sampler!r}")
    for key in ("alpha", "beta"):
        value = options.get(key, 1.0)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise UsageError(f"unitizing {key} must be a number >= 0, got {value!r}")
    columns = corpus_columns(corpus, unit)
    n_raters, labels = len(corpus.raters), corpus.labels
    section: dict[str, Any] = {
        "unit": unit,
        "raters": n_raters,
        "documents": columns["documents"],
        "documents_excluded": columns["documents_excluded"],
        "spans_excluded": columns["spans_excluded"],
        "continuum": "documents laid end to end in document-id order",
    }
    reason = None
    if n_raters < 2:
        reason = "needs at least 2 raters"
    elif columns["documents"] == 0:
        reason = "no document was annotated by every rater"
    if reason is not None:
        section.update(
            alpha_u={"value": None, "reason": reason}, alpha_u_per_label={},
            gamma={"value": None, "reason": reason}, gamma_per_label={},
        )
        return section
    doc, rater, label, start, end, length = (columns[k] for k in ("doc", "rater", "label", "start", "end", "length"))
    how = {}
    if intervals is not None:
        how = {"replicates": intervals.replicates, "level": intervals.level, "seed": intervals.seed}
    a = alpha_u(doc, rater, label, start, end, length, n_raters=n_raters, n_labels=len(labels), **how)
    per_label = {labels[k]: v for k, v in sorted(a.pop("per_label").items())}
    for entry in [a, *per_label.values()]:
        if "interval" in entry:
            entry["interval"].update(method="percentile bootstrap over documents", **how)
    section["alpha_u"] = a
    section["alpha_u_per_label"] = per_label
    dissimilarity = Dissimilarity(
        alpha=float(options.get("alpha", 1.0)),
        beta=float(options.get("beta", 1.0)),
        categorical=_matrix(options.get("categorical"), labels),
    )
    g = gamma(
        doc, rater, label, start, end, length, n_raters=n_raters, n_labels=len(labels),
        dissimilarity=dissimilarity, samples=samples, seed=seed, sampler=sampler,
    )
    gamma_k = g.pop("gamma_k", {})
    g.update(alpha=dissimilarity.alpha, beta=dissimilarity.beta,
             categorical="0/1" if dissimilarity.categorical is None else "matrix")
    section["gamma"] = g
    section["gamma_per_label"] = {labels[k]: {"gamma_k": v} for k, v in sorted(gamma_k.items())}
    return section


def corpus_columns(corpus: Corpus, unit: str = "char") -> dict[str, Any]:
    """The spans of documents every rater annotated, as columns, with what was left out.

    Returns ``doc`` (codes 0.. over the kept documents, in document-id order), ``rater``,
    ``label``, ``start``, ``end`` (offsets in ``unit``), ``length`` (each kept document's length
    in ``unit``), ``documents`` and the exclusion counts.
    """
    n_raters = len(corpus.raters)
    span_ann = corpus.span_ann
    if unit == "token":
        start, end, _ = corpus.token_offsets()
        doc_length = np.array(
            [len(t) if t is not None else 0 for t in corpus.doc_tokens], dtype=np.int64
        )
    elif unit == "char":
        start, end = corpus.span_start, corpus.span_end
        doc_length = np.array([len(t) for t in corpus.texts], dtype=np.int64)
    else:
        raise UsageError(f"unit must be char or token; got {unit!r}")
    per_doc = np.bincount(corpus.ann_doc, minlength=corpus.n_documents)
    complete = per_doc == n_raters
    submitted = per_doc > 0
    docs_excluded: Counter = Counter()
    partial = int((submitted & ~complete).sum())
    if partial:
        docs_excluded["not annotated by every rater"] = partial
    kept_doc = np.flatnonzero(complete)
    new_code = np.full(corpus.n_documents, -1, np.int64)
    new_code[kept_doc] = np.arange(len(kept_doc))
    span_doc = corpus.ann_doc[span_ann]
    spans_excluded: Counter = Counter()
    on_kept = complete[span_doc]
    if (~on_kept).any():
        spans_excluded["on a document not annotated by every rater"] = int((~on_kept).sum())
    empty = on_kept & (end <= start)
    if empty.any():
        spans_excluded[f"covers no {unit}"] = int(empty.sum())
    outside = on_kept & ~empty & (end > doc_length[span_doc])
    if outside.any():
        spans_excluded["ends past the end of its document"] = int(outside.sum())
    keep = on_kept & ~empty & ~outside
    return {
        "doc": new_code[span_doc[keep]],
        "rater": corpus.ann_rater[span_ann][keep],
        "label": corpus.span_label[keep],
        "start": np.asarray(start)[keep],
        "end": np.asarray(end)[keep],
        "length": doc_length[kept_doc],
        "documents": int(len(kept_doc)),
        "documents_excluded": dict(docs_excluded),
        "spans_excluded": dict(spans_excluded),
    }


def _matrix(table: Mapping[str, Mapping[str, float]] | None, labels: list[str]) -> np.ndarray | None:
    """A ``{label: {label: distance}}`` table as a symmetric matrix over ``labels`` (0 on the diagonal)."""
    if table is None:
        return None
    if not isinstance(table, Mapping):
        raise UsageError("unitizing categorical must be a table {label: {label: distance}}")
    index = {name: k for k, name in enumerate(labels)}
    m = np.ones((len(labels), len(labels)))
    np.fill_diagonal(m, 0.0)
    for a, row in table.items():
        for b, value in dict(row).items():
            if a not in index or b not in index:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise UsageError(f"unitizing categorical[{a!r}][{b!r}] must be a number in [0, 1], got {value!r}")
            m[index[a], index[b]] = m[index[b], index[a]] = float(value)
    return m



