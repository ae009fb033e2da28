"""How a report shows itself in a notebook: ``AgreementReport._repr_html_``, a short HTML view of
the headline (:func:`spanagree.catalogue.headline`: each statistic with its interval and the
interval's method), per label and per rater pair. Rendered from ``spanagree/templates``
(:mod:`spanagree.core.templates`, autoescaped)."""
from __future__ import annotations

from ..core.templates import render
from ..catalogue import headline, reference_note

#: Rater pairs listed at most (those sharing the most documents).
MAX_PAIRS = 20


def report_html(report) -> str:
    """The notebook view of an :class:`~spanagree.report.AgreementReport`."""
    data = report.summary(max_pairs=MAX_PAIRS, max_documents=0)
    level = data["intervals"]["level"] if "intervals" in data else None
    return render(
        "report_notebook.html.j2", documents=data["documents"], raters=data["raters"], n_pairs=data["overall"]["pairs"],
        labels=data["labels"], rule=data["rule"], headline=headline(data), reference=reference_note(data), pairs=data["pairs"],
        level=f"{level:.0%} interval" if level else "interval (score with bootstrap=N)",
        chance="chance_corrected" in data, unitizing="unitizing" in data,
    )
