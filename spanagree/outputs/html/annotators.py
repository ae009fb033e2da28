"""The report's annotator-model section (``report --model dawid-skene|mace``): convergence, the
raters ranked by accuracy, competence per label, the gold comparison and what to adjudicate first,
the same tables as ``spanagree raters`` (:mod:`spanagree.outputs.annotators_text`).

Definitions: ``docs/annotators.md``. Everything from the data is escaped (:func:`page.esc`).
"""
from __future__ import annotations

from typing import Any

from ..annotators_text import annotator_tables
from .page import esc, table


def section(report: dict[str, Any]) -> list[str]:
    """HTML parts of the model report of :func:`spanagree.diagnostics.annotators.model_consensus`."""
    out = [
        "<h2 id=\"annotators\">Whom to trust: an annotator model</h2>",
        f"<p class=\"note\">{esc(report['method'])} fitted on every boundary a rater marked (each rater who submitted a "
        "document answers each of its items with a label, other boundaries or nothing); <em>accuracy</em>: the chance "
        "that the rater's answer is the item's true class; per label, <em>marks what is there</em> = recall, "
        "<em>marks what is not</em> = the share of unlabelled places they mark with it. Intervals: posterior "
        "(docs/annotators.md).</p>",
    ]
    for title, header, rows in annotator_tables(report):
        out.append(f"<h3>{esc(title)}</h3>")
        cells = [[esc(str(cell)) for cell in row] for row in rows]
        out.append(table([esc(h) for h in header], cells))
    return out
