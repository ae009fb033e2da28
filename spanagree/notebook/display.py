"""How a report shows itself in a notebook: ``AgreementReport._repr_html_`` (a short HTML view:
the headline with its intervals, per label, per rater pair) and a short ``repr``-sized summary
for the other results. Rendered from ``spanagree/templates`` (:mod:`spanagree.core.templates`,
autoescaped)."""
from __future__ import annotations

from typing import Any

from ..core.templates import render

#: Rater pairs listed at most (those sharing the most documents).
MAX_PAIRS = 20


def headline(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The headline statistics of a report dict, each with its interval (None without one)."""
    overall, macro = data["overall"], data["macro"]
    rows = [
        {"name": "pairwise mean PSA (headline)", "value": overall["pairwise_mean_psa"],
         "interval": overall.get("pairwise_mean_psa_interval"), "what": "mean over rater pairs of each pair's PSA"},
        {"name": "pooled PSA", "value": overall["pooled_psa"], "interval": overall.get("pooled_psa_interval"),
         "what": "a, b, c summed over all pairs"},
        {"name": "macro PSA", "value": macro["pairwise_mean_psa"], "interval": macro.get("pairwise_mean_psa_interval"),
         "what": "mean over labels of each label's pairwise mean PSA"},
    ]
    chance = data.get("chance_corrected")
    if chance is not None:
        kappa = chance["pooled"].get("cohen_kappa")
        if kappa is not None:
            rows.append({"name": "Cohen's κ, pooled", "value": kappa["value"], "interval": kappa.get("interval"),
                         "what": "marked vs NONE over the candidate items, all pairs"})
        alpha = chance["all_raters"].get("krippendorff_alpha")
        if alpha is not None:
            rows.append({"name": "Krippendorff's α (nominal)", "value": alpha["value"],
                         "interval": alpha.get("interval") or alpha.get("analytic_interval"),
                         "what": "all raters, every rating"})
    unitizing = data.get("unitizing")
    if unitizing is not None:
        rows.append({"name": "Krippendorff's α_U (unitizing)", "value": unitizing["alpha_u"]["value"],
                     "interval": unitizing["alpha_u"].get("interval"), "what": "disagreement on where units lie"})
        rows.append({"name": "Mathet et al.'s γ", "value": unitizing["gamma"]["value"], "interval": None,
                     "what": "units aligned across raters, chance-corrected"})
    return rows


def report_html(report) -> str:
    """The notebook view of an :class:`~spanagree.report.AgreementReport`."""
    data = report.summary(max_pairs=MAX_PAIRS, max_documents=0)
    level = data["intervals"]["level"] if "intervals" in data else None
    return render(
        "report_notebook.html.j2", documents=data["documents"], raters=data["raters"], n_pairs=data["overall"]["pairs"],
        labels=data["labels"], rule=data["rule"], headline=headline(data), pairs=data["pairs"],
        level=f"{level:.0%} interval" if level else "interval (score with bootstrap=N)",
        chance="chance_corrected" in data, unitizing="unitizing" in data,
    )
