"""The report's annotator-model section (``report --model dawid-skene|mace``): convergence, the
raters ranked by accuracy, competence per label, the gold comparison and what to adjudicate first,
the same tables as ``spanagree raters`` (:mod:`spanagree.outputs.annotators_text`).

Definitions: ``docs/annotators.md``. The page's template escapes everything from the data.
"""
from __future__ import annotations

from typing import Any

from ..annotators_text import annotator_tables
from .page import template_tables


def section(report: dict[str, Any]) -> dict[str, Any]:
    """The section's data for the page template, from the model report of
    :func:`spanagree.diagnostics.annotators.model_consensus`."""
    return {
        "method": report["method"],
        "tables": template_tables(annotator_tables(report)),
    }
