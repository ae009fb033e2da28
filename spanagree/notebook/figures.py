"""The report's charts as matplotlib figures: one drawing of each, shown in a notebook
(``report.plot``) and inlined as SVG in the HTML report (:mod:`spanagree.outputs.html.charts`).

- :func:`labels`: each label's pairwise mean PSA as a point with its interval as a bar;
- :func:`raters`: each rater's mean PSA against every other rater, with its interval;
- :func:`pairs`: a rater × rater heatmap of the pairs' PSA;
- :func:`kappa_curve`: Cohen's κ as d (items neither rater marked) grows, with PSA as its limit
  (Hripcsak & Rothschild 2005), when candidate items are configured;
- :func:`plan`: a statistic's interval half-width against the documents of a round, with the
  target marked (the planning chart, docs/planning.md).

Each takes the report's dict (:meth:`~spanagree.report.AgreementReport.to_dict`) and returns a
``matplotlib.figure.Figure`` (not registered with pyplot: nothing accumulates, and a notebook
shows it once), or None when there is nothing to draw. Names from the data are drawn as literal
text (every ``$`` escaped: no math text).
"""
from __future__ import annotations

import importlib
import sys
from contextlib import contextmanager
from typing import Any, Sequence

import numpy as np

from ..core.extras import need
from ..errors import UsageError
from ..measures.psa.specific import spans_marked
from .frames import rater_section

#: How many raters the heatmap shows at most (those submitting the most documents).
MAX_HEATMAP_RATERS = 40
#: How many labels (or raters) an interval chart shows at most (the labels with the most spans).
MAX_CHART_LABELS = 60

#: The charts' matplotlib settings (the SVG ones take effect when the HTML report saves a chart).
RC = {
    "svg.fonttype": "path",
    "svg.hashsalt": "spanagree",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def matplotlib(extra: str = "notebook"):
    """matplotlib, or a UsageError naming the extra that installs it."""
    return need(extra, "charts are drawn with matplotlib", "matplotlib", "matplotlib.figure")


@contextmanager
def style():
    """The charts' matplotlib settings, for drawing and for saving."""
    with matplotlib().rc_context(RC):
        yield


@contextmanager
def _axes(width: float, height: float):
    """A new figure of ``width`` × ``height`` inches and its one axes, drawn in :func:`style`."""
    from matplotlib.figure import Figure

    with style():
        fig = Figure(figsize=(width, height))
        yield fig, fig.add_subplot()


def labels_shown(data: dict[str, Any]) -> list[str]:
    """The labels the per-label chart shows: all, or the :data:`MAX_CHART_LABELS` with most spans."""
    labels = data["labels"]
    names = list(labels)
    if len(names) > MAX_CHART_LABELS:
        names = sorted(names, key=lambda n: -spans_marked(labels[n]))[:MAX_CHART_LABELS]
    return names


def labels(data: dict[str, Any]):
    """Each label's pairwise mean PSA with its interval (:func:`labels_shown`)."""
    names = labels_shown(data)
    entries = [data["labels"][n] for n in names]
    return interval_chart(names, [e["pairwise_mean_psa"] for e in entries],
                          [e.get("pairwise_mean_psa_interval") for e in entries])


def raters_ordered(rows: list[dict]) -> list[dict]:
    """Per-rater rows (``per_rater``), lowest mean PSA first (undefined last)."""
    return sorted(rows, key=lambda r: (r["mean_psa"] is None, r["mean_psa"] or 0.0, r["rater"]))


def raters(rows: list[dict]):
    """Each rater's mean PSA against every other rater with its interval; ``rows`` is the
    report's ``per_rater`` section. None beyond :data:`MAX_CHART_LABELS` raters."""
    ordered = raters_ordered(rows)
    if len(ordered) > MAX_CHART_LABELS:
        return None
    return interval_chart([r["rater"] for r in ordered], [r["mean_psa"] for r in ordered],
                          [r.get("mean_psa_interval") for r in ordered],
                          xlabel="mean PSA against every other rater (bar: interval)")


def heatmap_raters(raters: Sequence[str], submitted: np.ndarray | None = None) -> list[str]:
    """The raters the heatmap shows: all, or the :data:`MAX_HEATMAP_RATERS` with the most
    ``submitted`` documents (in the report's rater order)."""
    if len(raters) <= MAX_HEATMAP_RATERS or submitted is None:
        return list(raters)[:MAX_HEATMAP_RATERS]
    keep = sorted(np.argsort(-np.asarray(submitted), kind="stable")[:MAX_HEATMAP_RATERS].tolist())
    return [raters[k] for k in keep]


def pairs(data: dict[str, Any], submitted: np.ndarray | None = None):
    """The rater × rater PSA heatmap of :func:`heatmap_raters` (a reference left out: it has no pairs)."""
    reference = (data.get("reference") or {}).get("rater")
    shown = [name for name in heatmap_raters(data["raters"], submitted) if name != reference]
    index = {name: k for k, name in enumerate(shown)}
    matrix = np.full((len(shown), len(shown)), np.nan)
    for pair in data["pairs"]:
        a, b = pair["raters"]
        if a in index and b in index and pair["psa"] is not None:
            matrix[index[a], index[b]] = matrix[index[b], index[a]] = pair["psa"]
    return heatmap(shown, matrix)


def kappa_curve(data: dict[str, Any]):
    """Cohen's κ of the pooled marked/NONE table as d grows; None without candidate items."""
    pooled = (data.get("chance_corrected") or {}).get("pooled") or {}
    curve = pooled.get("kappa_curve")
    if curve is None:
        return None
    return kappa_curve_chart(curve["d"], curve["kappa"], curve["psa"], pooled["d"], pooled["cohen_kappa"]["value"])


# --- the drawings ---------------------------------------------------------------------------------


def interval_chart(names: Sequence[str], values: Sequence[float | None], intervals: Sequence[dict | None], *,
                   xlabel: str = "pairwise mean PSA (bar: interval)"):
    """Values as points with interval bars (``{"low", "high"}``, or None), one row per name top to bottom."""
    if not len(names):
        return None
    with _axes(6.4, 0.9 + 0.32 * len(names)) as (fig, ax):
        y = np.arange(len(names))[::-1]
        for yi, value, interval in zip(y, values, intervals):
            low, high = (interval or {}).get("low"), (interval or {}).get("high")
            if value is None:
                ax.text(0.01, yi, "undefined", va="center", fontsize=8, color="#888888")
                continue
            if low is not None and high is not None:
                ax.plot([low, high], [yi, yi], color="#4c72b0", linewidth=2.2, solid_capstyle="butt")
                ax.plot([low, low], [yi - 0.18, yi + 0.18], color="#4c72b0", linewidth=1)
                ax.plot([high, high], [yi - 0.18, yi + 0.18], color="#4c72b0", linewidth=1)
            ax.plot([value], [yi], "o", color="#1f3b73", markersize=5)
        ax.set_yticks(y, labels=[plain(n) for n in names])
        ax.set_xlim(0, 1.0)
        ax.set_ylim(-0.7, len(names) - 0.3)
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
    return fig


def heatmap(raters: Sequence[str], matrix: np.ndarray):
    """Rater × rater PSA (NaN: not a pair, or undefined), values written in the cells."""
    n = len(raters)
    if n < 2:
        return None
    mpl = matplotlib()
    side = min(2.2 + 0.45 * n, 14.0)
    with _axes(side + 1.4, side) as (fig, ax):
        masked = np.ma.masked_invalid(matrix)
        cmap = mpl.colormaps["viridis"].with_extremes(bad="#eeeeee")
        # cells as vector shapes (pcolormesh), not an embedded raster image
        image = ax.pcolormesh(masked, vmin=0.0, vmax=1.0, cmap=cmap, edgecolors="white", linewidth=0.5)
        ax.set_xlim(0, n)
        ax.set_ylim(n, 0)
        ax.set_aspect("equal")
        centres = np.arange(n) + 0.5
        ax.set_xticks(centres, labels=[plain(r) for r in raters], rotation=45, ha="right", rotation_mode="anchor")
        ax.set_yticks(centres, labels=[plain(r) for r in raters])
        for spine in ax.spines.values():
            spine.set_visible(False)
        if n <= 12:
            for i in range(n):
                for j in range(n):
                    if not np.isnan(matrix[i, j]):
                        value = matrix[i, j]
                        ax.text(j + 0.5, i + 0.5, f"{value:.2f}", ha="center", va="center", fontsize=8,
                                color="black" if value > 0.6 else "white")
        colorbar = fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="PSA")
        colorbar.solids.set_rasterized(False)  # vector, like the rest
    return fig


def kappa_curve_chart(d: Sequence[float], kappa: Sequence[float | None], psa: float | None, observed_d: float,
                      observed_kappa: float | None):
    """Cohen's κ as d (items neither rater marked) grows, with PSA as its limit."""
    points = [(x, k) for x, k in zip(d, kappa) if k is not None and x > 0]
    if not points:
        return None
    with _axes(6.4, 3.6) as (fig, ax):
        xs, ks = zip(*points)
        ax.plot(xs, ks, color="#4c72b0", linewidth=1.8, label="Cohen's κ(d)")
        if psa is not None:
            ax.axhline(psa, color="#c44e52", linestyle="--", linewidth=1.2, label=f"PSA = {psa:.3f} (limit)")
        if observed_kappa is not None and observed_d > 0:
            ax.plot([observed_d], [observed_kappa], "o", color="#1f3b73", markersize=6,
                    label=f"observed: d = {observed_d:g}, κ = {observed_kappa:.3f}")
        ax.set_xscale("log")
        ax.set_xlabel("d: items neither rater marked (log scale)")
        ax.set_ylabel("κ")
        ax.grid(color="#dddddd", linewidth=0.6)
        ax.legend(loc="lower right", frameon=False)
    return fig


def plan(curve: dict[str, Any]):
    """The planning chart (:func:`spanagree.app.runs.plan_curve`): the interval's half-width against
    the documents of a round like the pilot's, the pilot's documents and the target marked."""
    with _axes(6.4, 3.6) as (fig, ax):
        xs = [p["documents"] for p in curve["points"]]
        ax.plot(xs, [p["half_width"] for p in curve["points"]], "o-", color="#4c72b0", linewidth=1.8, markersize=4,
                label=f"{plain(curve['statistic'])}: half-width of its {curve['level']:.0%} interval (resampled)")
        ax.axvline(curve["pilot"], color="#888888", linestyle=":", linewidth=1.2, label=f"this round: {curve['pilot']:,} documents")
        if curve["target"] is not None:
            ax.axhline(curve["target"], color="#c44e52", linestyle="--", linewidth=1.2, label=f"target: ±{curve['target']:g}")
            ax.axvline(curve["documents_needed"], color="#c44e52", linewidth=1.2,
                       label=f"needed: {curve['documents_needed']:,} documents")
        ax.set_xscale("log")
        ax.set_xlabel("documents annotated by two raters or more (log scale)")
        ax.set_ylabel("interval half-width")
        ax.set_ylim(bottom=0)
        ax.grid(color="#dddddd", linewidth=0.6)
        ax.legend(loc="lower left", frameon=False, fontsize=8)
    return fig


#: Characters of a name drawn in a chart at most (the rest is cut, marked with …): matplotlib
#: measures every glyph of a tick label, so a 1 MB label would take minutes to draw.
MAX_CHART_NAME = 40


def plain(text: str) -> str:
    """A name from the data as literal text, cut to :data:`MAX_CHART_NAME` characters:
    matplotlib reads ``$...$`` as math unless escaped."""
    text = str(text)
    if len(text) > MAX_CHART_NAME:
        text = text[: MAX_CHART_NAME - 1] + "…"
    return text.replace("$", r"\$")


class Plots:
    """``report.plot``: the report's charts as matplotlib figures (needs matplotlib).

    >>> report.plot.labels()        # doctest: +SKIP
    """

    def __init__(self, report) -> None:
        self._report = report
        self._data: dict[str, Any] | None = None

    def _dict(self) -> dict[str, Any]:
        if self._data is None:
            matplotlib()
            _shown_inline()
            self._data = self._report.to_dict()
        return self._data

    def labels(self):
        """Each label's pairwise mean PSA with its interval (with ``bootstrap``)."""
        return labels(self._dict())

    def pairs(self):
        """The rater × rater PSA heatmap."""
        corpus = self._report.corpus
        # who submitted most decides which raters a large heatmap shows (unknown after an engine's run)
        submitted = np.bincount(corpus.ann_rater, minlength=len(corpus.raters)) if hasattr(corpus, "ann_rater") else None
        return pairs(self._dict(), submitted)

    def raters(self):
        """Each rater's mean PSA against every other rater, with its interval."""
        return raters(rater_section(self._report, self._dict()))

    def plan(self, statistic: str = "pairwise_mean_psa", half_width: float | None = None):
        """The planning chart: ``statistic``'s interval half-width against the documents of a round
        like these, with a target ``half_width`` and the documents it needs marked (docs/planning.md)."""
        from ..plans import plan_curve

        matplotlib()
        _shown_inline()
        return plan(plan_curve(self._report, statistic, half_width))

    def kappa_curve(self):
        """Cohen's κ as d grows towards PSA; needs candidate items (``candidates=...``)."""
        if "chance_corrected" not in self._dict():
            raise UsageError("the κ curve needs candidate items: score with candidates='tokens' "
                             "(or a file of candidate spans)")
        figure = kappa_curve(self._dict())
        if figure is None:
            raise UsageError("no κ curve: the candidates give no marked/NONE table (document labels, or no items)")
        return figure


def _shown_inline() -> None:
    """In a Jupyter kernel, have a returned Figure shown as an image, as ``%matplotlib inline``
    does for pyplot's figures (IPython's PNG formatter for matplotlib figures; once)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    from matplotlib.figure import Figure

    formatter = shell.display_formatter.formatters["image/png"]
    try:
        formatter.lookup_by_type(Figure)
    except KeyError:
        # IPython is running (it is in sys.modules): not a dependency, never imported otherwise
        importlib.import_module("IPython.core.pylabtools").select_figure_formats(shell, {"png"})
