"""Report sections that answer a lead's questions: who parts from the others and on which label,
every document by agreement, and what the κ curve and the bands mean next to the headline.

Definitions: ``docs/diagnostics.md``. The sections are data; ``report_page.html.j2`` writes them
(escaped); nothing here adds a script or a request.
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from ..tables import ci
from ..text import RATER_COLUMNS, rater_cells
from . import charts
from ...notebook.figures import raters_ordered
from ...core.files import atomic_write
from ...core.sanitize import csv_cell

#: Documents listed in the page's full table at most (the CSV beside the page has them all).
MAX_DOCUMENT_ROWS = 5000
#: Columns of the per-document CSV (and of the page's table).
DOCUMENT_COLUMNS = ("rank", "doc_id", "raters", "pairwise_mean_psa", "pooled_psa", "a", "b", "c")


def per_rater(rows: list[dict], labels: list[str]) -> dict[str, Any]:
    """The per-rater section's data: the table's cells (lowest mean PSA first), the chart of each
    rater's mean PSA with its interval, and each rater's F against the others per label."""
    ordered = raters_ordered(rows)
    shown = [label for label in labels if any(label in r["against_others"]["labels"] for r in ordered)]
    grid = [{"rater": r["rater"], "f": [(r["against_others"]["labels"].get(label) or {}).get("f") for label in shown]}
            for r in ordered]
    return {
        "columns": RATER_COLUMNS, "cells": [[str(c) for c in rater_cells(r, ci)] for r in ordered],
        "chart": charts.raters(rows) if rows else None, "grid_labels": shown, "grid": grid,
    }


#: How strong each band word reads: 0 weak, 1 middling, 2 strong.
GRADE = {
    "poor": 0, "slight": 0, "fair": 0, "moderate": 1, "substantial": 2, "almost perfect": 2,
    "unreliable (α < .667)": 0, "tentative only (.667 ≤ α < .800)": 1, "reliable (α ≥ .800)": 2,
}


def band_note(readings: list[tuple[str, str, float]]) -> str | None:
    """One sentence (plain text) when the band words on the page grade the agreement differently.

    ``readings``: (coefficient, band word, value) for every coefficient shown with a band.
    """
    graded = [(name, word, value) for name, word, value in readings if word in GRADE]
    if len({GRADE[word] for _, word, _ in graded}) < 2:
        return None
    strong = max(graded, key=lambda r: GRADE[r[1]])
    weak = min(graded, key=lambda r: GRADE[r[1]])
    return (f"{strong[0]} reads “{strong[1]}” ({strong[2]:.3f}) while "
            f"{weak[0]} reads “{weak[1]}” ({weak[2]:.3f}): the words come from different conventions — "
            "Landis & Koch's for κ are lenient (.61 is already \"substantial\"), Krippendorff's for α are "
            "strict (reliable only from .800) — so compare the numbers, which differ less than the words.")


def sort_documents(per_document: list[dict]) -> list[dict]:
    return sorted(per_document, key=lambda d: (d["pairwise_mean_psa"] is None, d["pairwise_mean_psa"] or 0.0, d["doc_id"]))


def write_documents_csv(per_document: list[dict], path: str | Path) -> int:
    """Every document, lowest agreement first, as CSV (columns :data:`DOCUMENT_COLUMNS`)."""
    ordered = sort_documents(per_document)
    with atomic_write(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(DOCUMENT_COLUMNS)
        for k, d in enumerate(ordered, 1):
            writer.writerow([k, csv_cell(str(d["doc_id"])), d["raters"], _csv_num(d["pairwise_mean_psa"]), _csv_num(d.get("pooled_psa")),
                             d["a"], d["b"], d["c"]])
    return len(ordered)


def layers(spans: list[tuple[int, int, int, bool]]) -> list[list[tuple[int, int, int, bool]]]:
    """One rater's spans as layers to draw one under the other: a single layer when no two spans
    overlap, else one layer per label (nested and stacked spans each visible)."""
    ordered = sorted(spans)
    nested = any(x[1] > y[0] for x, y in zip(ordered, ordered[1:]))
    if not nested:
        return [ordered]
    by_label: dict[int, list] = {}
    for span in ordered:
        by_label.setdefault(span[2], []).append(span)
    return [by_label[k] for k in sorted(by_label)]


def _csv_num(value: Any) -> str:
    return "" if value is None else repr(float(value))
