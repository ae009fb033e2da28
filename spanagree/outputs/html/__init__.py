"""``spanagree report``: one self-contained HTML page about a corpus's agreement.

What the page shows, from one :class:`~spanagree.report.AgreementReport`:

- the headline numbers with their bootstrap intervals, and interpretation bands as labels next
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

The file has no scripts and makes no requests (charts are inline SVG from matplotlib; no fonts,
no CDN), and every piece of text from the data is escaped. Intervals are part of the point, so
the report always computes them: 1,000 bootstrap replicates unless ``--bootstrap N`` says
otherwise.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ...core.files import write_bytes
from . import bands, charts
from .page import esc, frame, label_css, table
from ...core.version import __version__
from ...diagnostics.disagreements import disputed_spans, from_report, label_confusion_pairs
from ...diagnostics.raters import rater_view
from .family import section
from . import views
from .views import band_note
from ..unitizing_text import DESCRIPTIONS
from ..structure_text import tables as structure_tables
from ..tables import num as text_num
from ..tables import spans_marked

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
    """Raise a UsageError naming the extra to install when matplotlib is missing."""
    charts._matplotlib()


def render(report, *, title: str | None = None, max_documents: int = MAX_DOCUMENTS,
           sources: Sequence[str] = (), documents_csv: str | None = None) -> str:
    """The HTML page for ``report`` (an :class:`~spanagree.report.AgreementReport`);
    ``documents_csv`` names the per-document CSV beside the page, for a link."""
    report, data = page_data(report)
    return _render(report, data, title=title, max_documents=max_documents, sources=sources, documents_csv=documents_csv)


def page_data(report) -> tuple[Any, dict[str, Any]]:
    """:meth:`~spanagree.report.AgreementReport.to_dict` with only the rater pairs the page
    shows: those sharing the most documents (the pair table) and those among the heatmap's
    raters; with thousands of raters, the other pairs (up to millions) are never built, nor
    their intervals. Returns the report the page is made from, and its data."""
    comparisons = report.counts.comparisons
    pair_docs = np.bincount(comparisons.pair, minlength=len(comparisons.pairs))
    top = np.lexsort((np.arange(len(pair_docs)), -pair_docs))[:MAX_PAIR_ROWS]
    n_raters = len(report.corpus.raters)
    if n_raters <= charts.MAX_HEATMAP_RATERS:
        return report, report.to_dict()
    submitted = np.bincount(report.corpus.ann_rater, minlength=n_raters)
    heat = np.zeros(n_raters, dtype=bool)
    heat[np.argsort(-submitted, kind="stable")[: charts.MAX_HEATMAP_RATERS]] = True
    among = np.flatnonzero(heat[comparisons.pairs[:, 0]] & heat[comparisons.pairs[:, 1]])
    shown = np.unique(np.concatenate([top, among]))
    if report.interval_options is not None and report._intervals is None:
        report = replace(report, interval_pairs=shown)
    return report, report.with_pairs(shown)


def _render(report, data: dict[str, Any], *, title: str | None, max_documents: int,
            sources: Sequence[str], documents_csv: str | None) -> str:
    if "per_rater" not in data:
        data["per_rater"] = rater_view(report)
    corpus = report.corpus
    found = from_report(report)
    title = title or "Agreement report"
    parts = [f"<h1>{esc(title)}</h1>", _lead(data, sources)]
    parts += _headline(data)
    parts += _labels(data, charts)
    parts += views.per_rater(data["per_rater"], corpus.labels, charts)
    parts += _pairs(data, corpus, charts)
    if "chance_corrected" in data:
        parts += section(data["chance_corrected"])
        if "kappa_curve" in data["chance_corrected"]["pooled"]:
            parts += _kappa_curve(data["chance_corrected"], charts)
            parts.append(views.kappa_note(data["chance_corrected"], data["overall"]["pairwise_mean_psa"]))
    if "structure" in data:
        parts += _structure(data["structure"])
    parts += _outcomes(data)
    parts += _confusion(corpus.labels, label_confusion_pairs(corpus, found))
    parts += _documents(data, corpus, disputed_spans(corpus, found), max_documents)
    parts += views.documents_table(data["per_document"], documents_csv)
    parts += _excluded(data)
    parts.append(
        f"<footer>Made by spanagree {esc(__version__)}. Definitions: positive specific agreement "
        "PSA = 2a / (2a + b + c) (Hripcsak &amp; Rothschild 2005); intervals are percentile bootstrap "
        "intervals over documents. This page runs no scripts and loads nothing.</footer>"
    )
    return frame(title, "\n".join(parts), label_css(len(corpus.labels)))


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
    options = {"title": None, "max_documents": MAX_DOCUMENTS, "sources": (), **options}
    html = _render(report, page, documents_csv=csv_path.name, **options)
    data = html.encode("utf-8")
    write_bytes(out, data)
    views.write_documents_csv(page["per_document"], csv_path)
    return {"out": str(out), "bytes": len(data), "documents_csv": str(csv_path)}


# --- sections -----------------------------------------------------------------------------------


def _lead(data: dict, sources: Sequence[str]) -> str:
    rule = data["rule"]
    rule_text = f"rule {rule['rule']}, labels {rule['labels']}, unit {rule['unit']}"
    if rule["rule"] == "overlap":
        rule_text += f", min_overlap {rule['min_overlap']}"
    elif rule["rule"] == "partial":
        rule_text += f", partial_credit {rule['partial_credit']:g}"
    elif rule["rule"] == "proportional":
        rule_text += f", {rule['proportional']}"
    docs = data["documents"]
    chance = data.get("chance_corrected") or {}
    scored = (f"{docs['read']} documents with labels (document labels: the PSA sections do not apply)"
              if chance.get("scheme") in ("multiclass", "multilabel") else f"{docs['scored']} of {docs['read']} documents scored")
    pieces = [
        scored,
        f"{len(data['raters'])} raters, {data['overall']['pairs']} rater pairs",
        f"{len(data['labels_seen'])} labels",
        esc(rule_text),
    ]
    if "intervals" in data:
        iv = data["intervals"]
        pieces.append(f"{iv['level']:.0%} intervals from {iv['replicates']} bootstrap replicates over documents (seed {iv['seed']})")
    text = "; ".join(pieces) + "."
    if sources:
        text += " Input: " + ", ".join(f"<code>{esc(Path(s).name)}</code>" for s in sources) + "."
    return f"<p class=\"lead\">{text}</p>"


def _headline(data: dict) -> list[str]:
    overall, macro = data["overall"], data["macro"]
    rows = [
        _stat_row("Pairwise mean PSA (headline)", overall["pairwise_mean_psa"], overall.get("pairwise_mean_psa_interval"),
                  None, "mean over rater pairs of each pair's PSA"),
        _stat_row("Pooled PSA", overall["pooled_psa"], overall.get("pooled_psa_interval"), None,
                  "a, b, c summed over all pairs"),
        _stat_row("Macro PSA", macro["pairwise_mean_psa"], macro.get("pairwise_mean_psa_interval"), None,
                  "mean over labels of each label's pairwise mean PSA"),
    ]
    chance = data.get("chance_corrected")
    readings: list[tuple[str, str, float]] = []  # (coefficient, band word, value) shown
    if chance is not None:
        pooled, everyone = chance["pooled"], chance["all_raters"]
        kappa = pooled.get("cohen_kappa")
        if kappa is not None:  # a marked/NONE table exists (not for single-label documents)
            if kappa["value"] is not None:
                readings.append(("Cohen's κ, pooled", bands.landis_koch(kappa["value"]), kappa["value"]))
            rows.append(_stat_row("Cohen's κ, pooled", kappa["value"], kappa.get("interval"),
                                  _band(bands.landis_koch(kappa["value"]), "Landis & Koch"),
                                  "marked vs NONE over the candidate items, all pairs", kappa.get("undefined")))
        names = (
            ("krippendorff_alpha", "Krippendorff's α (nominal)", bands.krippendorff, "Krippendorff"),
            ("fleiss_kappa", "Fleiss' κ", bands.landis_koch, "Landis & Koch"),
            ("davies_fleiss_kappa", "Davies–Fleiss κ", bands.landis_koch, "Landis & Koch"),
            ("gwet_ac1", "Gwet's AC1", None, None),
        )
        for key, name, band, source in names:
            entry = everyone.get(key)
            if entry is None:
                continue
            label = _band(band(entry["value"]), source) if band else None
            if label:
                readings.append((name, band(entry["value"]), entry["value"]))
            reached = ((entry.get("benchmark") or {}).get("landis_koch") or {}).get("band")
            if reached is not None and key != "krippendorff_alpha":  # the band reached with 95 % probability
                label = _band(f"{reached} (95%)", "Landis & Koch, Gwet's probabilistic benchmarking")
            rows.append(_stat_row(name, entry["value"], entry.get("interval") or entry.get("analytic_interval"), label,
                                  "all raters, every rating", entry.get("undefined")))
    unitizing = data.get("unitizing")
    if unitizing is not None:
        a, g = unitizing["alpha_u"], unitizing["gamma"]
        rows.append(_stat_row("Krippendorff's α_U (unitizing)", a["value"], a.get("interval"),
                              _band(bands.krippendorff(a["value"]), "Krippendorff"), DESCRIPTIONS["alpha_u"],
                              a.get("reason")))
        rows.append(_stat_row("Mathet et al.'s γ", g["value"], None, None, DESCRIPTIONS["gamma"], g.get("reason")))
    notes = (
        "<p class=\"note\">Bands are words beside the number, never a substitute for it: "
        "κ-type coefficients read with Landis &amp; Koch (1977): ≤ .20 slight, ≤ .40 fair, ≤ .60 moderate, "
        "≤ .80 substantial, above almost perfect; Krippendorff's α: rely on data from .800, draw only "
        "tentative conclusions from .667. PSA is the F-measure between raters and has no conventional bands.</p>"
    )
    level = data["intervals"]["level"] if "intervals" in data else None
    header = ["statistic", "value", f"{level:.0%} interval" if level else "interval", "reading", "what it is"]
    out = ["<h2>Headline</h2>", table(header, rows, css="headline", numeric={2}), notes]

    contradiction = band_note(readings)
    if contradiction:
        out.append(contradiction)
    return out


def _labels(data: dict, charts) -> list[str]:
    labels = data["labels"]
    if not labels:
        return ["<h2>Per label</h2>", "<p class=\"note\">No spans were marked.</p>"]
    names = list(labels)
    if len(names) > charts.MAX_CHART_LABELS:
        names = sorted(names, key=lambda n: -spans_marked(labels[n]))[: charts.MAX_CHART_LABELS]
    values = [labels[n]["pairwise_mean_psa"] for n in names]
    intervals = [labels[n].get("pairwise_mean_psa_interval") or {} for n in names]
    svg = charts.label_intervals(names, values, [i.get("low") for i in intervals], [i.get("high") for i in intervals],
                                 prefix="labels-")
    rows = [
        [esc(n), num(v["pairwise_mean_psa"]), _ci(v.get("pairwise_mean_psa_interval")), num(v["pooled_psa"]),
         _count(v["a"]), _count(v["b"]), _count(v["c"])]
        for n, v in labels.items()
    ]
    out = ["<h2>Per label</h2>"]
    if svg:
        out.append(f"<div class=\"chart\" id=\"chart-labels\">{svg}</div>")
    if len(labels) > len(names):
        out.append(f"<p class=\"note\">The chart shows the {len(names)} labels with the most spans, of {len(labels)}.</p>")
    out.append(table(["label", "pairwise mean PSA", "interval", "pooled PSA", "a", "b", "c"], rows,
                     numeric={1, 2, 3, 4, 5, 6}))
    return out


def _pairs(data: dict, corpus, charts) -> list[str]:
    pairs = data["pairs"]
    raters = data["raters"]
    out = ["<h2>Rater pairs</h2>"]
    if not pairs:
        return out + ["<p class=\"note\">No two raters submitted the same document.</p>"]
    shown = raters
    if len(raters) > charts.MAX_HEATMAP_RATERS:
        submitted = np.bincount(corpus.ann_rater, minlength=len(raters))
        keep = sorted(np.argsort(-submitted, kind="stable")[: charts.MAX_HEATMAP_RATERS].tolist())
        shown = [raters[k] for k in keep]
    index = {name: k for k, name in enumerate(shown)}
    matrix = np.full((len(shown), len(shown)), np.nan)
    for p in pairs:
        a, b = p["raters"]
        if a in index and b in index and p["psa"] is not None:
            matrix[index[a], index[b]] = matrix[index[b], index[a]] = p["psa"]
    svg = charts.pair_heatmap(shown, matrix, prefix="pairs-")
    if svg:
        out.append(f"<div class=\"chart\" id=\"chart-pairs\">{svg}</div>")
    if len(shown) < len(raters):
        out.append(f"<p class=\"note\">The heatmap shows the {len(shown)} raters who submitted most documents, of {len(raters)}.</p>")
    ordered = sorted(pairs, key=lambda p: -p["documents"])[:MAX_PAIR_ROWS]
    rows = [[f"{esc(p['raters'][0])} ~ {esc(p['raters'][1])}", str(p["documents"]), num(p["psa"]), _ci(p.get("psa_interval")),
             _count(p["a"]), _count(p["b"]), _count(p["c"]),
             "; ".join(f"{esc(name)} {n}" for name, n in p.get("only_in", {}).items())] for p in ordered]
    out.append(table(["pair (A ~ B)", "documents", "PSA", "interval", "a", "b (A's unmatched)", "c (B's unmatched)",
                      "spans only one marked (outcomes)"], rows, numeric={1, 2, 3, 4, 5, 6}))
    if data["overall"]["pairs"] > len(ordered):
        out.append(f"<p class=\"note\">The {len(ordered)} pairs sharing the most documents, of {data['overall']['pairs']}.</p>")
    return out


def _kappa_curve(chance: dict, charts) -> list[str]:
    pooled = chance["pooled"]
    curve = pooled["kappa_curve"]
    svg = charts.kappa_curve(curve["d"], curve["kappa"], curve["psa"], pooled["d"], pooled["cohen_kappa"]["value"],
                             prefix="kappa-")
    out = ["<h2>κ as d grows</h2>",
           f"<p class=\"note\">With candidate items ({esc(chance['source'])}), d (items neither rater marked) is "
           f"defined: here a = {pooled['a']}, b = {pooled['b']}, c = {pooled['c']}, d = {pooled['d']}, pooled over "
           "pairs. With a, b, c fixed, Cohen's κ approaches PSA as d grows (Hripcsak &amp; Rothschild 2005): how far "
           "κ sits below PSA is how much the choice of candidates decides.</p>"]
    if svg:
        out.append(f"<div class=\"chart\" id=\"chart-kappa\">{svg}</div>")
    return out


def _structure(section: dict) -> list[str]:
    """Relations and attributes (docs/structure.md): the text output's tables, escaped."""
    out = []
    for title, header, rows in structure_tables(section, text_num):
        out.append(f"<h2>{esc(title)}</h2>")
        out.append(table([esc(h) for h in header], [[esc(str(cell)) for cell in row] for row in rows]))
    return out


def _outcomes(data: dict) -> list[str]:
    outcomes = data["overall"]["outcomes"]
    rows = [[esc(k), str(v), esc(OUTCOME_HELP.get(k, ""))] for k, v in outcomes.items()]
    return ["<h2>Outcomes</h2>",
            "<p class=\"note\">From the best explanation of every pair on every shared document: among the "
            "largest label-blind overlap matchings, the one with the most identical pairs, then the most pairs of "
            "the same label; summed over pairs. A span two raters marked identically is always correct, however "
            "many other labels sit on the same words. <em>missed</em> and <em>spurious</em> are the spans only "
            "one rater of a pair marked (the pair table names whose). "
            "<code>spanagree disagreements</code> lists every case.</p>",
            table(["outcome", "count", "meaning"], rows, numeric={1})]


def _confusion(labels: list[str], pairs: tuple[np.ndarray, np.ndarray, np.ndarray]) -> list[str]:
    out = ["<h2>Label confusion among position-matched spans</h2>",
           "<p class=\"note\">Span pairs matched by the label-blind overlap alignment, pooled over rater pairs; "
           "each matched pair counted once, so the table is a triangle. The diagonal is pairs with the same label "
           "(correct or partial); off the diagonal, the two raters chose different labels for overlapping spans.</p>"]
    high, low, n = pairs
    if not len(labels) or not n.sum():
        return out + ["<p class=\"note\">No spans were matched.</p>"]
    shown = np.arange(len(labels))
    if len(labels) > MAX_CONFUSION_LABELS:
        involved = np.bincount(high, weights=n, minlength=len(labels)) + np.bincount(low, weights=n * (high != low), minlength=len(labels))
        shown = np.sort(np.argsort(-involved, kind="stable")[:MAX_CONFUSION_LABELS])
        out.append(f"<p class=\"note\">The {len(shown)} labels in most matched pairs are shown; "
                   f"{len(labels) - len(shown)} more labels are left out (see <code>spanagree disagreements</code>).</p>")
    cell = dict(zip(zip(high.tolist(), low.tolist()), n.tolist()))
    top = max(cell.values())
    rows = []
    for i in shown.tolist():
        cells = [f"<strong>{esc(labels[i])}</strong>"]
        for j in shown.tolist():
            if j > i:
                cells.append("")
                continue
            value = cell.get((i, j), 0)
            shade = 0.08 + 0.6 * value / top if value else 0
            hue = "76,114,176" if i == j else "196,78,82"
            style = f" style=\"background: rgba({hue},{shade:.2f})\"" if value else ""
            cells.append(f"<span{style}>&nbsp;{value}&nbsp;</span>" if value else "0")
        rows.append(cells)
    names = [esc(labels[i]) for i in shown.tolist()]
    return out + [table([""] + names, rows, css="confusion", numeric=set(range(1, len(names) + 1)))]


def _documents(data: dict, corpus, disputed: np.ndarray, limit: int) -> list[str]:
    docs = sorted((d for d in data["per_document"] if d["pairwise_mean_psa"] is not None),
                  key=lambda d: (d["pairwise_mean_psa"], d["doc_id"]))[:limit]
    out = ["<h2>Documents where raters disagree most</h2>",
           f"<p class=\"note\">The {len(docs)} documents with the lowest pairwise mean PSA; each rater's spans in "
           "the colour of their label, with the label after the span. A span with a dashed outline is part of a disagreement "
           "(missed, spurious, partial or wrong label against some other rater). When a rater's spans nest or "
           "stack (one inside another, or the same words under two labels), the rater gets one line per label.</p>"]
    if corpus.labels:
        legend = "".join(f"<span><span class=\"swatch l{k}\"></span>{esc(name)}</span>" for k, name in enumerate(corpus.labels))
        out.append(f"<p class=\"legend\">{legend}</p>")
    index = {doc_id: k for k, doc_id in enumerate(corpus.doc_ids)}
    for entry in docs:
        d = index[entry["doc_id"]]
        text = corpus.texts[d]
        rows = []
        for ann in np.flatnonzero(corpus.ann_doc == d).tolist():
            lo, hi = int(corpus.ann_ptr[ann]), int(corpus.ann_ptr[ann + 1])
            spans = [
                (int(corpus.span_start[i]), int(corpus.span_end[i]), int(corpus.span_label[i]), bool(disputed[i]))
                for i in range(lo, hi)
            ]
            name = esc(corpus.raters[int(corpus.ann_rater[ann])])
            shown_layers = views.layers(spans)
            for layer in shown_layers:
                who = name
                if len(shown_layers) > 1:  # nested or stacked spans: one line per label
                    who += f" <span class=\"muted\">· {esc(corpus.labels[layer[0][2]])}</span>"
                if not spans:
                    who += " <span class=\"muted\">(no spans)</span>"
                marked = _highlight(text, layer, corpus.labels)
                rows.append(f"<div class=\"rater\"><div class=\"who\">{who}</div><div class=\"text\">{marked}</div></div>")
        heading = (f"document <code>{esc(entry['doc_id'])}</code>: pairwise mean PSA {num(entry['pairwise_mean_psa'])} "
                   f"(a {_count(entry['a'])}, b {_count(entry['b'])}, c {_count(entry['c'])}; {entry['raters']} raters)")
        out.append(f"<div class=\"doc\"><h3>{heading}</h3>{''.join(rows)}</div>")
    if not docs:
        out.append("<p class=\"note\">No document has a defined PSA.</p>")
    return out


def _excluded(data: dict) -> list[str]:
    rows = [[esc(kind), esc(reason), str(n)] for kind in ("documents", "annotations", "spans")
            for reason, n in data[kind]["excluded"].items()]
    rows += [["spans", esc(f"note: {reason}"), str(n)] for reason, n in data["spans"].get("notes", {}).items()]
    if not rows:
        rows = [["-", "nothing was excluded", "0"]]
    return ["<h2>Excluded, and why</h2>", table(["what", "reason", "count"], rows, numeric={2})]


# --- helpers ------------------------------------------------------------------------------------


def _highlight(text: str, spans: list[tuple[int, int, int, bool]], labels: list[str]) -> str:
    """The text with each span in a ``<mark>`` of its label's class, the label after it.

    Overlapping spans split the text into segments; a segment takes the colour of the shortest
    span covering it. Everything from the data is escaped.
    """
    shown = text[:MAX_TEXT]
    n = len(shown)
    spans = [(s, min(e, n), k, bad) for s, e, k, bad in spans if s < n and e > s]
    cuts = sorted({0, n, *(s for s, _, _, _ in spans), *(e for _, e, _, _ in spans)})
    out = []
    for p, q in zip(cuts, cuts[1:]):
        piece = esc(shown[p:q])
        cover = [sp for sp in spans if sp[0] <= p and sp[1] >= q]
        if cover:
            inner = min(cover, key=lambda sp: (sp[1] - sp[0], sp[2]))
            names = ", ".join(sorted({labels[sp[2]] for sp in cover}))
            cls = f"l{inner[2]}" + (" disputed" if any(sp[3] for sp in cover) else "")
            piece = f"<mark class=\"{cls}\" title=\"{esc(names)}\">{piece}</mark>"
        out.append(piece)
        for s, e, k, _ in sorted(sp for sp in spans if sp[1] == q):
            out.append(f"<span class=\"tag l{k}\">{esc(labels[k])}</span>")
    if len(text) > n:
        out.append(f"<span class=\"muted\"> … ({len(text) - n} more characters not shown)</span>")
    return "".join(out)


def _stat_row(name: str, value, interval, band: str | None, what: str, undefined: str | None = None) -> list[str]:
    shown = num(value) if value is not None else f"undefined{': ' + esc(undefined) if undefined else ''}"
    return [esc(name), f"<span class=\"value\">{shown}</span>", _ci(interval), band or "", esc(what)]


def _band(name: str | None, source: str | None) -> str | None:
    if name is None:
        return None
    return f"<span class=\"band\" title=\"{esc(source or '')}\">{esc(name)}</span>"


def num(value) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _count(value) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def _ci(interval: dict | None) -> str:
    if not interval or interval.get("low") is None:
        return "–"
    return f"[{interval['low']:.3f}, {interval['high']:.3f}]"
