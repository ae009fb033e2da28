"""Report sections that answer a lead's questions: who parts from the others and on which label,
every document by agreement, and what the κ curve and the bands mean next to the headline.

Definitions: ``docs/diagnostics.md``. Everything from the data is escaped (:func:`page.esc`);
nothing here adds a script or a request.
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from ..text import RATER_COLUMNS, rater_cells
from .page import esc, table
from ...notebook.figures import raters_ordered
from ...core.files import atomic_write
from ...core.sanitize import csv_cell

#: Documents listed in the page's full table at most (the CSV beside the page has them all).
MAX_DOCUMENT_ROWS = 5000
#: Columns of the per-document CSV (and of the page's table).
DOCUMENT_COLUMNS = ("rank", "doc_id", "raters", "pairwise_mean_psa", "pooled_psa", "a", "b", "c")


def per_rater(rows: list[dict], labels: list[str], charts) -> list[str]:
    """The per-rater table, a chart of each rater's mean PSA with its interval, and each rater's F
    against the others per label (shaded, lowest first to read)."""
    out = ["<h2 id=\"raters\">Per rater</h2>",
           "<p class=\"note\">Each rater against the others, lowest mean PSA first. <em>mean PSA</em>: the mean "
           "of the rater's pair PSAs; <em>P / R / F vs others</em>: the rater's spans pooled over its pairs "
           "(P = share of the rater's spans some partner matched, R = share of the partners' spans the rater "
           "matched); <em>F vs others' consensus</em>: against the majority vote of the other raters; "
           "<em>only theirs</em>: spans no other rater's span explains; <em>parts most on</em>: labels where the "
           "rater's F is furthest below the label's pooled PSA.</p>"]
    if not rows:
        return out + ["<p class=\"note\">No rater shares a document with another.</p>"]
    ordered = raters_ordered(rows)
    svg = charts.raters(rows)
    if svg:
        out.append(f"<div class=\"chart\" id=\"chart-raters\">{svg}</div>")
    cells = [[esc(c) for c in rater_cells(r, _interval_text)] for r in ordered]
    out.append(table(RATER_COLUMNS, cells, css="raters", numeric={1, 2, 3, 5, 6}))
    shown = [label for label in labels if any(label in r["against_others"]["labels"] for r in ordered)]
    if shown:
        grid = []
        for r in ordered:
            row = [esc(r["rater"])]
            for label in shown:
                entry = r["against_others"]["labels"].get(label)
                f = entry["f"] if entry else None
                row.append(_shaded(f))
            grid.append(row)
        out.append("<h3>F against the others, per label</h3>")
        out.append(table(["rater", *[esc(x) for x in shown]], grid, css="confusion", numeric=set(range(1, len(shown) + 1))))
    return out


def kappa_note(chance: dict, headline: float | None) -> str:
    """Which PSA the κ(d) curve approaches, and why it is not the headline."""
    pooled = chance["pooled"]
    a, b, c = pooled["a"], pooled["b"], pooled["c"]
    item_psa = 2 * a / (2 * a + b + c) if 2 * a + b + c else None
    return (
        "<p class=\"note\">The curve approaches "
        f"<strong>PSA over the candidate items = {num(item_psa)}</strong> (2a / (2a + b + c) with the item counts "
        f"above), not the headline span PSA ({num(headline)}): here each candidate item "
        f"({esc(chance['source'])}) is counted, so a long span counts once per item it covers and two spans "
        "that overlap agree on the items they share, while the headline counts whole spans matched under the "
        "rule.</p>"
    )


#: How strong each band word reads: 0 weak, 1 middling, 2 strong.
GRADE = {
    "poor": 0, "slight": 0, "fair": 0, "moderate": 1, "substantial": 2, "almost perfect": 2,
    "unreliable (α < .667)": 0, "tentative only (.667 ≤ α < .800)": 1, "reliable (α ≥ .800)": 2,
}


def band_note(readings: list[tuple[str, str, float]]) -> str | None:
    """One sentence when the band words on the page grade the agreement differently.

    ``readings``: (coefficient, band word, value) for every coefficient shown with a band.
    """
    graded = [(name, word, value) for name, word, value in readings if word in GRADE]
    if len({GRADE[word] for _, word, _ in graded}) < 2:
        return None
    strong = max(graded, key=lambda r: GRADE[r[1]])
    weak = min(graded, key=lambda r: GRADE[r[1]])
    return (f"<p class=\"note\">{esc(strong[0])} reads “{esc(strong[1])}” ({strong[2]:.3f}) while "
            f"{esc(weak[0])} reads “{esc(weak[1])}” ({weak[2]:.3f}): the words come from different conventions — "
            "Landis &amp; Koch's for κ are lenient (.61 is already \"substantial\"), Krippendorff's for α are "
            "strict (reliable only from .800) — so compare the numbers, which differ less than the words.</p>")


def documents_table(per_document: list[dict], csv_name: str | None) -> list[str]:
    """Every document, lowest agreement first (documents with PSA undefined last); pre-sorted, no
    scripts. ``csv_name``: the CSV written beside the page, linked."""
    ordered = sort_documents(per_document)
    out = ["<h2 id=\"all-documents\">Every document, by agreement</h2>"]
    note = f"{len(ordered)} documents, lowest pairwise mean PSA first."
    if csv_name:
        note += f" All of them are also in <a href=\"{esc(csv_name)}\">{esc(csv_name)}</a> (CSV, same order)."
    out.append(f"<p class=\"note\">{note}</p>")
    rows = [[str(k), f"<code>{esc(d['doc_id'])}</code>", str(d["raters"]), num(d["pairwise_mean_psa"]),
             num(d.get("pooled_psa")), _count(d["a"]), _count(d["b"]), _count(d["c"])]
            for k, d in enumerate(ordered[:MAX_DOCUMENT_ROWS], 1)]
    body = table(["#", "document", "raters", "pairwise mean PSA", "pooled PSA", "a", "b", "c"], rows,
                 numeric={0, 2, 3, 4, 5, 6, 7})
    out.append(f"<details><summary>Show the table</summary>{body}</details>")
    if len(ordered) > MAX_DOCUMENT_ROWS:
        out.append(f"<p class=\"note\">The page lists the first {MAX_DOCUMENT_ROWS}; the CSV has all.</p>")
    return out


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


def _interval_text(holder: dict, name: str) -> str:
    interval = holder.get(f"{name}_interval")
    if not interval or interval.get("low") is None:
        return ""
    return f" [{interval['low']:.3f}, {interval['high']:.3f}]"


def _shaded(value: float | None) -> str:
    if value is None:
        return "–"
    shade = 0.12 + 0.6 * (1 - value)
    return f"<span style=\"background: rgba(196,78,82,{shade:.2f})\">&nbsp;{value:.3f}&nbsp;</span>"


def num(value: Any) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _csv_num(value: Any) -> str:
    return "" if value is None else repr(float(value))


def _count(value) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"
