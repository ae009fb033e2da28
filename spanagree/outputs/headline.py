"""The headline every rendering shows first (text, Markdown, HTML page, notebook): the statistics
of :data:`NAMES`, each read by its catalogue entry (:mod:`spanagree.catalogue`) with its interval
and the interval's method; and which raters it is over when a reference is left out."""
from __future__ import annotations

from typing import Any, Mapping

from ..catalogue import NOT_COMPUTED, STATISTICS, interval_method
from .tables import replicates

#: The headline statistics (catalogue keys), in order, and the name each rendering gives them.
NAMES = {
    "pairwise_mean_psa": "pairwise mean PSA (headline)",
    "pooled_psa": "pooled PSA",
    "macro_psa": "macro PSA (mean over labels)",
    "kappa": "Cohen's κ, pooled",
    "alpha": "Krippendorff's α (nominal)",
    "fleiss_kappa": "Fleiss' κ",
    "davies_fleiss_kappa": "Davies–Fleiss κ",
    "gwet_ac1": "Gwet's AC1",
    "alpha_u": "Krippendorff's α_U (unitizing)",
    "gamma": "Mathet et al.'s γ",
    "relation_psa": "relation pairwise mean PSA",
    "relation_both_psa": "relation PSA, both spans marked",
}


def rows(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """``{"key", "name", "value", "interval", "method", "what", "undefined"}`` per headline
    statistic the report has (``undefined``: why the value is None)."""
    drawn = replicates(report)
    out = []
    for key, name in NAMES.items():
        statistic = STATISTICS[key]
        value, interval, reason = statistic.read(report, None)
        if reason is not None and reason.endswith(NOT_COMPUTED):  # not asked for (or no pooled κ for document labels)
            continue
        out.append({"key": key, "name": name, "value": value, "interval": interval,
                    "method": interval_method(interval, drawn), "what": statistic.description,
                    "undefined": None if reason is None else reason.removeprefix("undefined: ")})
    return out


def reference_note(report: Mapping[str, Any]) -> str | None:
    """Which raters the headline is over, when a reference rater is left out of it (None without one)."""
    reference = report.get("reference")
    return None if reference is None else (
        f"headline over {len(reference['headline_raters'])} raters; reference {reference['rater']!r} left out "
        "(each rater is scored against it in its own section)")
