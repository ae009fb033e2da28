"""The report's charts, drawn with matplotlib and inlined as SVG.

matplotlib's SVG backend writes plain vector markup: no JavaScript, no fonts to load (text is
drawn as glyph outlines, ``svg.fonttype = "path"``), nothing fetched, and the same input gives
the same bytes (``svg.hashsalt`` fixed, no date). Names from the data (labels, raters) are drawn
as outlines too, with every ``$`` escaped (no math text), so a ``$`` or a ``<`` in a name is just a
character.

Each function returns an ``<svg>`` element as a string (ids prefixed, so that several charts
can share one page), or None when there is nothing to draw.
"""
from __future__ import annotations

import io
import re
from typing import Sequence

import numpy as np

from ...errors import UsageError

#: How many raters the heatmap shows at most (those sharing the most documents).
MAX_HEATMAP_RATERS = 40
#: How many labels the per-label chart shows at most (those with the most spans).
MAX_CHART_LABELS = 60

_RC = {
    "svg.fonttype": "path",
    "svg.hashsalt": "spanagree",
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def _matplotlib():
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        raise UsageError("the HTML report draws its charts with matplotlib: pip install 'spanagree[report]'") from None
    return matplotlib, Figure


def label_intervals(names: Sequence[str], values: Sequence[float | None], lows: Sequence[float | None],
                    highs: Sequence[float | None], *, prefix: str,
                    xlabel: str = "pairwise mean PSA (bar: interval)") -> str | None:
    """Values as points with interval bars, one row per name top to bottom (per label, per rater)."""
    if not len(names):
        return None
    matplotlib, Figure = _matplotlib()
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(6.4, 0.9 + 0.32 * len(names)))
        ax = fig.add_subplot()
        y = np.arange(len(names))[::-1]
        for yi, value, low, high in zip(y, values, lows, highs):
            if value is None:
                ax.text(0.01, yi, "undefined", va="center", fontsize=8, color="#888888")
                continue
            if low is not None and high is not None:
                ax.plot([low, high], [yi, yi], color="#4c72b0", linewidth=2.2, solid_capstyle="butt")
                ax.plot([low, low], [yi - 0.18, yi + 0.18], color="#4c72b0", linewidth=1)
                ax.plot([high, high], [yi - 0.18, yi + 0.18], color="#4c72b0", linewidth=1)
            ax.plot([value], [yi], "o", color="#1f3b73", markersize=5)
        ax.set_yticks(y, labels=[_plain(n) for n in names])
        ax.set_xlim(0, 1.0)
        ax.set_ylim(-0.7, len(names) - 0.3)
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        return _svg(fig, prefix)


def pair_heatmap(raters: Sequence[str], matrix: np.ndarray, *, prefix: str) -> str | None:
    """Rater × rater PSA (NaN: not a pair, or undefined), values written in the cells."""
    n = len(raters)
    if n < 2:
        return None
    matplotlib, Figure = _matplotlib()
    with matplotlib.rc_context(_RC):
        side = min(2.2 + 0.45 * n, 14.0)
        fig = Figure(figsize=(side + 1.4, side))
        ax = fig.add_subplot()
        masked = np.ma.masked_invalid(matrix)
        cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#eeeeee")
        # cells as vector shapes (pcolormesh), not an embedded raster image
        image = ax.pcolormesh(masked, vmin=0.0, vmax=1.0, cmap=cmap, edgecolors="white", linewidth=0.5)
        ax.set_xlim(0, n)
        ax.set_ylim(n, 0)
        ax.set_aspect("equal")
        centres = np.arange(n) + 0.5
        ax.set_xticks(centres, labels=[_plain(r) for r in raters], rotation=45, ha="right", rotation_mode="anchor")
        ax.set_yticks(centres, labels=[_plain(r) for r in raters])
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
        return _svg(fig, prefix)


def kappa_curve(d: Sequence[float], kappa: Sequence[float | None], psa: float | None, observed_d: float,
                observed_kappa: float | None, *, prefix: str) -> str | None:
    """Cohen's κ as d (items neither rater marked) grows, with PSA as its limit."""
    points = [(x, k) for x, k in zip(d, kappa) if k is not None and x > 0]
    if not points:
        return None
    matplotlib, Figure = _matplotlib()
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(6.4, 3.6))
        ax = fig.add_subplot()
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
        return _svg(fig, prefix)


#: Characters of a name drawn in a chart at most (the rest is cut, marked with …): matplotlib
#: measures every glyph of a tick label, so a 1 MB label would take minutes to draw.
MAX_CHART_NAME = 40


def _plain(text: str) -> str:
    """A name from the data as literal text, cut to :data:`MAX_CHART_NAME` characters:
    matplotlib reads ``$...$`` as math unless escaped."""
    text = str(text)
    if len(text) > MAX_CHART_NAME:
        text = text[: MAX_CHART_NAME - 1] + "…"
    return text.replace("$", r"\$")


def _svg(fig, prefix: str) -> str:
    """The figure as an inline ``<svg>`` element: no XML prolog, namespace declarations,
    metadata or comments, and every id prefixed with ``prefix``."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    # inside HTML the namespaces are implied (the parser knows svg and xlink:href)
    text = re.sub(r'\s+xmlns(:xlink)?="[^"]*"', "", text, count=2)
    text = text.replace('id="', f'id="{prefix}').replace('href="#', f'href="#{prefix}').replace("url(#", f"url(#{prefix}")
    return text.strip()
