"""What a plan of the next round reads off a scored round (docs/planning.md): which statistics a
plan can resample, the warning a crowd's pilot gets, and the planning chart's points.

The resampling itself and the published sample sizes are :mod:`spanagree.measures.psa.planning`;
``spanagree plan`` and ``spanagree next`` are run by :mod:`spanagree.app.runs`.
"""
from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from . import catalogue
from .errors import PlanWarning, UsageError

#: A pilot is a crowd when its median rater pair co-annotates less than this share of its documents.
CROWD_SHARE = 0.5


def refuse_unplannable(keys: Sequence[str], names: Sequence[str]) -> None:
    """Refuse a statistic (catalogue ``keys``, as the user ``names`` them) that is not a sum of
    per-document counts: a plan resamples those."""
    unsupported = [name for key, name in zip(keys, names) if catalogue.STATISTICS[key].path is None]
    if unsupported:
        raise UsageError(f"plan resamples the statistics that are sums of per-document counts, not "
                         f"{', '.join(unsupported)}; plannable: "
                         f"{', '.join(s.name for s in catalogue.STATISTICS.values() if s.path is not None)}")


def crowd_warning(corpus: Any, names: Sequence[str]) -> list[str]:
    """A warning (said as a :class:`PlanWarning` and kept in the plan) when a pairwise mean
    (``names``) is planned on a crowd: with raters in sparse pairs, the mean over rater pairs moves
    with the pairs a larger round brings, which resampling the pilot's documents cannot show
    (docs/planning.md, "A crowd"). A crowd: the median rater pair annotated less than
    :data:`CROWD_SHARE` of the documents two raters or more annotated."""
    if not names:
        return []
    # documents × raters incidence: its Gram matrix counts the documents each pair annotated together
    from scipy.sparse import csr_matrix, triu

    incidence = csr_matrix((np.ones(len(corpus.ann_doc)), (corpus.ann_doc, corpus.ann_rater)),
                           shape=(corpus.n_documents, len(corpus.raters)))
    incidence.data[:] = 1  # a rater counted once per document
    shared = int((np.diff(incidence.indptr) > 1).sum())
    together = triu(incidence.T @ incidence, k=1).tocoo().data
    median = float(np.median(together)) if len(together) else 0.0
    if not len(together) or median >= CROWD_SHARE * shared:
        return []
    said = (f"the pilot's raters are a crowd ({len(together):,} rater pairs; the median pair annotated {median:g} of "
            f"its {shared:,} shared documents together): the plan for {', '.join(names)} assumes the pairs a round "
            f"brings are the pilot's, and a round with new pairs varies more than it says; the pooled PSA "
            f"(--statistic pooled_psa) plans within its target on a crowd (docs/planning.md, 'A crowd')")
    warnings.warn(said, PlanWarning, stacklevel=3)
    return [said]


def plan_curve(scored: Any, statistic: str = "pairwise_mean_psa", half_width: float | None = None) -> dict[str, Any]:
    """The planning chart of a scored report (docs/planning.md, "The chart"): the half-width of
    ``statistic``'s interval for rounds of documents like the scored ones (their number times
    :data:`~spanagree.measures.psa.planning.GRID`), and, for a target ``half_width``, the documents
    it needs. The report's interval level, replicates and seed (0.95, 1,000 and 0 when it has none)."""
    from .measures.psa import planning

    found, argument = catalogue.find(statistic, "--statistic")
    name = statistic if argument is None else f"{found.key}:{argument}"
    refuse_unplannable([found.key], [name])
    path = found.path_of(argument)
    data = scored.summary(0, 0)  # the totals and labels: no pair or document rows
    reason = found.read(data, argument)[2]
    if reason is not None:
        raise UsageError(f"no planning chart for {name}: {reason}")
    options = scored.interval_options
    level, replicates, seed = (options.level, options.replicates, options.seed) if options else (0.95, 1000, 0)
    curve = {"statistic": name, "pilot": int(data["documents"]["scored"]), "level": level,
             "points": planning.half_width_grid(counts := planning.pilot_counts(scored), path, level=level,
                                                replicates=replicates, seed=seed),
             "target": half_width, "documents_needed": None,
             "warnings": crowd_warning(scored.corpus, [name] if "pairwise_mean_psa" in path else [])}
    if not curve["points"]:
        raise UsageError(f"no planning chart for {name}: its interval is undefined on these documents")
    if half_width is not None:
        curve["documents_needed"] = planning.documents_for_half_width(counts, path, half_width, level=level,
                                                                      replicates=replicates, seed=seed)[0]
    return curve
