"""The report's charts inlined as SVG: the figures of :mod:`spanagree.notebook.figures` (the same
drawings a notebook shows with ``report.plot``), saved by matplotlib's SVG backend.

The SVG backend writes plain vector markup: no JavaScript, no fonts to load (text is drawn as
glyph outlines, ``svg.fonttype = "path"``), nothing fetched, and the same input gives the same
bytes (``svg.hashsalt`` fixed, no date). Names from the data are drawn as outlines too, with every
``$`` escaped (no math text), so a ``$`` or a ``<`` in a name is just a character.

Each function returns an ``<svg>`` element as a string (ids prefixed, so that several charts
can share one page), or None when there is nothing to draw.
"""
from __future__ import annotations

import io
import re
from typing import Any

import numpy as np

from ...notebook import figures


def labels(data: dict[str, Any]) -> str | None:
    """:func:`spanagree.notebook.figures.labels` as SVG."""
    return _svg(figures.labels(data), "labels-")


def raters(rows: list[dict]) -> str | None:
    """:func:`spanagree.notebook.figures.raters` as SVG."""
    return _svg(figures.raters(rows), "raters-")


def pairs(data: dict[str, Any], submitted: np.ndarray | None) -> str | None:
    """:func:`spanagree.notebook.figures.pairs` as SVG."""
    return _svg(figures.pairs(data, submitted), "pairs-")


def kappa_curve(data: dict[str, Any]) -> str | None:
    """:func:`spanagree.notebook.figures.kappa_curve` as SVG."""
    return _svg(figures.kappa_curve(data), "kappa-")


def plan(curve: dict[str, Any]) -> str | None:
    """:func:`spanagree.notebook.figures.plan` as SVG."""
    return _svg(figures.plan(curve), "plan-")


def _svg(fig, prefix: str) -> str | None:
    """The figure as an inline ``<svg>`` element: no XML prolog, namespace declarations,
    metadata or comments, and every id prefixed with ``prefix`` (None for no figure)."""
    if fig is None:
        return None
    buffer = io.StringIO()
    with figures.style():  # the SVG settings apply when saving
        fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    # inside HTML the namespaces are implied (the parser knows svg and xlink:href)
    text = re.sub(r'\s+xmlns(:xlink)?="[^"]*"', "", text, count=2)
    text = text.replace('id="', f'id="{prefix}').replace('href="#', f'href="#{prefix}').replace("url(#", f"url(#{prefix}")
    return text.strip()
