"""The package's HTML templates (Jinja2, which spaCy installs) and the one environment that
renders them.

Autoescaping is on for every template, so text from the data (document texts, ids, labels, rater
names, file names) is HTML-escaped wherever it is written; ``finalize`` also shows Unicode
bidirectional controls as ``\\u202e``-style text (:func:`spanagree.core.sanitize.no_bidi`), so a
name cannot reorder what the reader sees. Markup a template receives already made (an inline
SVG chart, made by matplotlib) is inserted with the ``safe`` filter, and only such markup.
Undefined names raise (``StrictUndefined``): a template that asks for a field the data lacks
fails in the tests, not silently on a page.

Templates live in ``spanagree/templates/`` (package data) and are loaded when first rendered.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from .sanitize import no_bidi


def _finalize(value: Any) -> Any:
    """Text from the data with its bidi controls shown; markup marked safe (``__html__``) as it is."""
    return no_bidi(value) if isinstance(value, str) and not hasattr(value, "__html__") else value


#: Characters of one name from the data shown at most (a label, a rater, a document id); a
#: longer one is cut and says so where it stands (the ``cut`` filter). Texts have their own limit.
MAX_SHOWN = 300


def cut(value: Any, limit: int = MAX_SHOWN) -> Any:
    """A name from the data cut after ``limit`` characters, with its full length said in its place."""
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:limit]}… (cut: {len(value):,} characters in all)"
    return value


def number(value: float | None, digits: int = 3) -> str:
    """A statistic as text, ``undefined`` for None."""
    return "undefined" if value is None else f"{value:.{digits}f}"


def count(value: float) -> str:
    """A count of spans (whole, or fractional under partial credit)."""
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"


def interval(entry: dict | None) -> str:
    """``[low, high]`` of an interval entry, ``–`` when there is none or it is undefined."""
    if not entry or entry.get("low") is None or entry.get("high") is None:
        return "–"
    return f"[{entry['low']:.3f}, {entry['high']:.3f}]"


@lru_cache(maxsize=1)
def environment():
    """The Jinja2 environment of ``spanagree/templates`` (made once)."""
    import jinja2  # spaCy's dependency; imported when a page or a notebook view is first made

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("spanagree", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(number=number, count=count, interval=interval, cut=cut)
    return env


def render(name: str, **context: Any) -> str:
    """Template ``name`` (in ``spanagree/templates``) rendered with ``context``."""
    return environment().get_template(name).render(**context)

