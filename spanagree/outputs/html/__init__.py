"""``spanagree report``: one self-contained HTML page about a corpus's agreement.

What the page shows, from one :class:`~spanagree.report.AgreementReport`:

- the headline numbers with their intervals, each naming its method, and interpretation bands as labels next
  to the number (Landis & Koch 1977 for κ; Krippendorff's .667/.800 for α; see
  :mod:`spanagree.outputs.html.bands`);
- per-label PSA with interval bars, and a rater × rater PSA heatmap;
- Cohen's κ as d grows towards PSA (when candidate items are configured), and the chance-corrected
  family with standard errors and probabilistic bands (:mod:`spanagree.outputs.html.family`);
- the label confusion among position-matched spans: the label-blind overlap alignment of the
  outcome counts (:mod:`spanagree.diagnostics.disagreements`), a labels × labels table of matched pairs
  pooled over rater pairs;
- the per-rater view (:mod:`spanagree.diagnostics.raters`): a table, a chart of each rater's mean PSA with
  its interval, and each rater's F against the others per label;
- the documents where raters disagree most (lowest per-document pairwise mean PSA), with each
  rater's spans highlighted in the text (one line per label when a rater's spans nest or stack)
  and the spans in a disagreement outlined;
- every document, lowest agreement first, in a collapsed table, and as a CSV beside the page
  (:func:`write`).

The page is written by the Jinja2 template ``spanagree/templates/report_page.html.j2`` (autoescape
on) from data this module gathers; the file has no scripts and makes no requests (charts are
inline SVG from matplotlib; no fonts, no CDN), and every piece of text from the data is escaped.

The document views are drawn here, not with displaCy's span style (``spacy.displacy.render(...,
style="span")``), which would draw overlapping spans well but (spaCy 3.8) takes spans in whole
tokens only (``start_token``/``end_token``), so a disagreement inside a token or at a character
boundary (the partial cases the view is for) would be drawn as another span; has no way to mark a
span as part of a disagreement; and writes the label into its markup unescaped
(``SpanRenderer._get_span_starts``), so a hostile label would become markup. Intervals are part of the point, so
the report always computes them: 1,000 bootstrap replicates unless ``--bootstrap N`` says
otherwise.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ...core.files import write_bytes
from ...core.templates import MAX_SHOWN, render as render_template
from . import bands, charts
from ...catalogue import headline as headline_rows, reference_note, replicates
from .page import CSP, label_colours, template_tables
from ...core.version import __version__
from ...diagnostics.disagreements import disputed_spans, from_report, label_confusion_pairs
from ...notebook import figures
from .family import section
from . import views
from .annotators import section as annotator_section
from .views import band_note
from ..structure_text import tables as structure_tables
from ..tables import num as text_num
from ..text import excluded_table

#: Bootstrap replicates when none were configured.
DEFAULT_REPLICATES = 1000
#: How many lowest-agreement documents the page shows.
MAX_DOCUMENTS = 10
#: Characters of a document shown at most (the rest is cut, and said so).
MAX_TEXT = 4000
#: Rater pairs listed in the pair table at most (those sharing the most documents).
MAX_PAIR_ROWS = 60
#: Labels in the confusion table at most (those in most matched pairs); the rest are counted in a note.
MAX_CONFUSION_LABELS = 40

OUTCOME_HELP = {
    "correct": "same label, same boundaries",
    "wrong_label": "overlapping spans, different labels",
    "partial": "same label, different boundaries",
    "missed": "a span only the pair's first rater (A, named first in the pair table) marked",
    "spurious": "a span only the pair's second rater (B) marked",
}


def check_dependencies() -> None:
    """Raise a UsageError naming the extra to install (of the HTML report) when matplotlib is missing."""
    figures.matplotlib("report")


def render(report, *, title: str | None = None, max_documents: int = MAX_DOCUMENTS,
           sources: Sequence[str] = (), documents_csv: str | None = None) -> str:
    """The HTML page for ``report`` (an :class:`~spanagree.report.AgreementReport`);
    ``documents_csv`` names the per-document CSV beside the page, for a link."""
    return _render(*page_data(report), title=title, max_documents=max_documents, sources=sources,
                   documents_csv=documents_csv)


def page_data(report) -> tuple[Any, dict[str, Any]]:
    """:meth:`~spanagree.report.AgreementReport.to_dict` with only the rater pairs the page
    shows: those sharing the most documents (the pair table) and those among the heatmap's
    raters; with thousands of raters, the other pairs (up to millions) are never built, nor
    their intervals. Returns the report the page is made from, and its data."""
    comparisons = report.counts.comparisons
    pair_docs = np.bincount(comparisons.pair, minlength=len(comparisons.pairs))
    top = np.lexsort((np.arange(len(pair_docs)), -pair_docs))[:MAX_PAIR_ROWS]
    n_raters = len(report.corpus.raters)
    if n_raters <= figures.MAX_HEATMAP_RATERS:
        return report, report.to_dict()
    submitted = np.bincount(report.corpus.ann_rater, minlength=n_raters)
    heat = np.zeros(n_raters, dtype=bool)
    heat[np.argsort(-submitted, kind="stable")[: figures.MAX_HEATMAP_RATERS]] = True
    among = np.flatnonzero(heat[comparisons.pairs[:, 0]] & heat[comparisons.pairs[:, 1]])
    shown = np.unique(np.concatenate([top, among]))
    if report.interval_options is not None and report._intervals is None:
        report = replace(report, interval_pairs=shown)
    return report, report.with_pairs(shown)


def _render(report, data: dict[str, Any], *, title: str | None = None, max_documents: int = MAX_DOCUMENTS,
            sources: Sequence[str] = (), documents_csv: str | None = None,
            annotators: dict[str, Any] | None = None, plan: dict[str, Any] | None = None) -> str:
    if "per_rater" not in data:
        data["per_rater"] = report.rater_rows()
    corpus = report.corpus
    found = from_report(report)
    chance = data.get("chance_corrected")
    headline, readings = _headline(data)
    ordered_documents = views.sort_documents(data["per_document"])
    return render_template(
        "report_page.html.j2",
        csp=CSP, title=title or "Agreement report", colours=label_colours(len(corpus.labels)), version=__version__,
        lead=_lead(data), sources=[Path(s).name for s in sources], cut_note=_cut_note(corpus),
        headline=headline, level=data["intervals"]["level"] if "intervals" in data else None,
        band_note=band_note(readings),
        labels=_labels(data), raters=views.per_rater(data["per_rater"], corpus.labels), pairs=_pairs(data, corpus),
        family=section(chance, replicates(data)) if chance is not None else None,
        kappa={"chart": charts.kappa_curve(data), "pooled": chance["pooled"], "source": chance["source"],
               "item_psa": chance["pooled"]["positive_agreement"], "headline": data["overall"]["pairwise_mean_psa"]}
        if chance is not None and "kappa_curve" in chance["pooled"] else None,
        outcomes=[(k, v, OUTCOME_HELP.get(k, "")) for k, v in data["overall"]["outcomes"].items()],
        confusion=_confusion(corpus.labels, label_confusion_pairs(corpus, found)),
        label_names=list(corpus.labels),
        documents=_documents(data, corpus, disputed_spans(corpus, found), max_documents),
        all_documents=ordered_documents[:views.MAX_DOCUMENT_ROWS], n_documents=len(ordered_documents),
        max_document_rows=views.MAX_DOCUMENT_ROWS, documents_csv=documents_csv,
        excluded=excluded_table(data)[2],
        annotators=annotator_section(annotators) if annotators is not None else None,
        structure=_structure(data["structure"]) if "structure" in data else None,
        plan=plan | {"chart": charts.plan(plan)} if plan is not None else None,
    )


def documents_csv_path(out: str | Path) -> Path:
    """The per-document CSV written beside the page ``out``."""
    out = Path(out)
    return out.with_name(out.stem + ".documents.csv")


def write(report, out: str | Path, **options: Any) -> dict[str, Any]:
    """Write :func:`render`'s page to ``out``, and every document by agreement to
    ``<out stem>.documents.csv`` beside it; returns ``{"out", "bytes", "documents_csv"}``."""
    out = Path(out)
    csv_path = documents_csv_path(out)
    report, page = page_data(report)
    data = _render(report, page, documents_csv=csv_path.name, **options).encode("utf-8")
    write_bytes(out, data)
    views.write_documents_csv(page["per_document"], csv_path)
    return {"out": str(out), "bytes": len(data), "documents_csv": str(csv_path)}


# --- sections: the data each part of the page shows ---------------------------------------------


def _cut_note(corpus) -> str | None:
    """Say so when some label, rater or document id is too long to show whole."""
    long = [what for what, names in (("labels", corpus.labels), ("raters", corpus.raters), ("document ids", corpus.doc_ids))
            if any(len(name) > MAX_SHOWN for name in names)]
    if not long:
        return None
    return (f"Some {' and '.join(long)} are longer than {MAX_SHOWN} characters: this page shows their first "
            f"{MAX_SHOWN} (charts: {figures.MAX_CHART_NAME}) and says where it cut; spanagree score --output json "
            "and the CSV beside this page have them whole.")


#: What the lead says of a rule beyond its name, labels and unit (``str.format`` of the report's rule).
RULE_DETAIL = {"overlap": ", min_overlap {min_overlap}", "partial": ", partial_credit {partial_credit:g}",
               "proportional": ", {proportional}"}


def _lead(data: dict) -> list[str]:
    """The facts under the title, one sentence piece each."""
    rule = data["rule"]
    rule_text = f"rule {rule['rule']}, labels {rule['labels']}, unit {rule['unit']}"
    rule_text += RULE_DETAIL.get(rule["rule"], "").format(**rule)
    docs = data["documents"]
    chance = data.get("chance_corrected") or {}
    scored = (f"{docs['read']} documents with labels (document labels: the PSA sections do not apply)"
              if chance.get("scheme") in ("multiclass", "multilabel") else f"{docs['scored']} of {docs['read']} documents scored")
    pieces = [
        scored,
        f"{len(data['raters'])} raters, {data['overall']['pairs']} rater pairs",
        *filter(None, [reference_note(data)]),
        f"{len(data['labels_seen'])} labels",
        rule_text,
    ]
    if "intervals" in data:
        iv = data["intervals"]
        pieces.append(f"{iv['level']:.0%} intervals from {iv['replicates']} bootstrap replicates over documents (seed {iv['seed']})")
    return pieces


#: The interpretation bands of the headline statistics that have one: (band, its source).
BANDS = {"kappa": (bands.landis_koch, "Landis & Koch"), "alpha": (bands.krippendorff, "Krippendorff"),
         "fleiss_kappa": (bands.landis_koch, "Landis & Koch"), "davies_fleiss_kappa": (bands.landis_koch, "Landis & Koch"),
         "alpha_u": (bands.krippendorff, "Krippendorff")}


def _headline(data: dict) -> tuple[list[dict], list[tuple[str, str, float]]]:
    """The headline rows (:func:`spanagree.catalogue.headline`) with their bands (``band``:
    (word, its source) or None), and the (coefficient, band word, value) readings shown with a band."""
    everyone = (data.get("chance_corrected") or {}).get("all_raters", {})
    rows, readings = headline_rows(data), []
    for row in rows:
        band, source = BANDS.get(row["key"], (lambda value: None, None))
        word = band(row["value"])
        row["band"] = (word, source) if word else None
        readings += [(row["name"], word, row["value"])] if word else []
        # the Landis–Koch band reached with 95 % probability (Gwet's benchmarking), where there is one
        reached = ((everyone.get(row["key"], {}).get("benchmark") or {}).get("landis_koch") or {}).get("band")
        if reached is not None:
            row["band"] = (f"{reached} (95%)", "Landis & Koch, Gwet's probabilistic benchmarking")
    return rows, readings


def _labels(data: dict) -> dict[str, Any]:
    labels = data["labels"]
    return {"entries": labels, "chart": charts.labels(data) if labels else None,
            "charted": len(figures.labels_shown(data)) if labels else 0}


def _pairs(data: dict, corpus) -> dict[str, Any]:
    pairs, raters = data["pairs"], data["raters"]
    if not pairs:
        return {"rows": [], "chart": None}
    submitted = np.bincount(corpus.ann_rater, minlength=len(raters))
    ordered = sorted(pairs, key=lambda p: -p["documents"])[:MAX_PAIR_ROWS]
    return {"rows": ordered, "chart": charts.pairs(data, submitted), "total": data["overall"]["pairs"],
            "heat_raters": len(figures.heatmap_raters(raters, submitted)), "raters": len(raters)}


def _structure(section: dict) -> list[dict[str, Any]]:
    """Relations and attributes (docs/structure.md): the text output's tables, for the template."""
    return template_tables(structure_tables(section, text_num))


def _confusion(labels: list[str], pairs: tuple[np.ndarray, np.ndarray, np.ndarray]) -> dict[str, Any] | None:
    """The lower triangle of matched label pairs: rows of cells (None above the diagonal; else the
    count and its shade), or None when nothing was matched."""
    high, low, n = pairs
    if not len(labels) or not n.sum():
        return None
    shown = np.arange(len(labels))
    if len(labels) > MAX_CONFUSION_LABELS:
        involved = np.bincount(high, weights=n, minlength=len(labels)) + np.bincount(low, weights=n * (high != low), minlength=len(labels))
        shown = np.sort(np.argsort(-involved, kind="stable")[:MAX_CONFUSION_LABELS])
    cell = dict(zip(zip(high.tolist(), low.tolist()), n.tolist()))
    top = max(cell.values())
    rows = []
    for i in shown.tolist():
        cells = []
        for j in shown.tolist():
            value = cell.get((i, j), 0)
            cells.append(None if j > i else {
                "n": value, "hue": "76,114,176" if i == j else "196,78,82", "shade": f"{0.08 + 0.6 * value / top:.2f}",
            })
        rows.append({"label": labels[i], "cells": cells})
    return {"names": [labels[i] for i in shown.tolist()], "rows": rows, "left_out": len(labels) - len(shown)}


def _documents(data: dict, corpus, disputed: np.ndarray, limit: int) -> list[dict[str, Any]]:
    """The documents of lowest agreement, each rater's spans as runs of text to draw."""
    docs = sorted((d for d in data["per_document"] if d["pairwise_mean_psa"] is not None),
                  key=lambda d: (d["pairwise_mean_psa"], d["doc_id"]))[:limit]
    index = {doc_id: k for k, doc_id in enumerate(corpus.doc_ids)}
    out = []
    for entry in docs:
        d = index[entry["doc_id"]]
        text = corpus.texts[d]
        lines = []
        for ann in np.flatnonzero(corpus.ann_doc == d).tolist():
            lo, hi = int(corpus.ann_ptr[ann]), int(corpus.ann_ptr[ann + 1])
            spans = [
                (int(corpus.span_start[i]), int(corpus.span_end[i]), int(corpus.span_label[i]), bool(disputed[i]))
                for i in range(lo, hi)
            ]
            shown_layers = views.layers(spans)
            for layer in shown_layers:
                lines.append({
                    "rater": corpus.raters[int(corpus.ann_rater[ann])],
                    # nested or stacked spans: one line per label
                    "label": corpus.labels[layer[0][2]] if len(shown_layers) > 1 else None,
                    "empty": not spans, "runs": _runs(text, layer, corpus.labels),
                    "cut": max(len(text) - MAX_TEXT, 0),
                })
        out.append({**entry, "lines": lines})
    return out


def _runs(text: str, spans: list[tuple[int, int, int, bool]], labels: list[str]) -> list[dict[str, Any]]:
    """The text cut where spans start and end: each run with the label index of the shortest span
    covering it (None: plain text), the names of every label covering it, whether one of its spans
    is in a disagreement, and the label indices of the spans ending after it (drawn as tags)."""
    shown = text[:MAX_TEXT]
    n = len(shown)
    spans = [(s, min(e, n), k, bad) for s, e, k, bad in spans if s < n and e > s]
    cuts = sorted({0, n, *(s for s, _, _, _ in spans), *(e for _, e, _, _ in spans)})
    runs = []
    for p, q in zip(cuts, cuts[1:]):
        cover = [sp for sp in spans if sp[0] <= p and sp[1] >= q]
        inner = min(cover, key=lambda sp: (sp[1] - sp[0], sp[2])) if cover else None
        runs.append({
            "text": shown[p:q], "label": None if inner is None else inner[2],
            "covering": ", ".join(sorted({labels[sp[2]] for sp in cover})), "disputed": any(sp[3] for sp in cover),
            "tags": [k for s, e, k, _ in sorted(sp for sp in spans if sp[1] == q)],
        })
    return runs
