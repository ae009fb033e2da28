"""Sections as tables, ``(title, header, rows)``, written as plain text or Markdown."""
from __future__ import annotations

import re
from typing import Any, Callable, Sequence

from ..core.sanitize import markdown, visible
from ..measures.psa.specific import spans_marked  # noqa: F401  (re-exported: the tables rank labels by it)

#: How many pairs, documents and labels (or categories) the tables show (the JSON output has
#: them all).
MAX_PAIRS = 20
MAX_DOCUMENTS = 10
MAX_LABELS = 50

Table = tuple[str, list[str], list[list[Any]]]


def bounds(interval: dict | None, method: str = "") -> str:
    """`` [low, high]`` of an interval and ``method`` after it, or nothing without an interval
    (or when it is undefined)."""
    if not interval or interval.get("low") is None:
        return ""
    return f" [{interval['low']:.3f}, {interval['high']:.3f}]" + (f" {method}" if method else "")


def ci(holder: dict, name: str) -> str:
    """:func:`bounds` of the interval of the statistic ``name`` of ``holder``."""
    return bounds(holder.get(f"{name}_interval"))


def plain_table(rows: Sequence[Sequence[Any]], header: Sequence[Any] | None = None, *,
                max_width: int = 80, gap: int = 3) -> str:
    """Rows as a plain-text table between two newlines: each cell left-aligned and padded to its
    column's width (its longest cell, header included, at most ``max_width``; a longer cell runs
    over), columns ``gap`` spaces apart, and under a header a line of dashes as wide as each column.
    The layout of wasabi's ``table`` (spaCy's printer), made here without importing it at every
    command's end (bench/RESULTS.md, start-up).

    >>> plain_table([["a", 1], ["bcd", 22]], header=["x", "y"])
    '\\nx     y \\n---   --\\na     1 \\nbcd   22\\n'
    """
    shown = [*rows, *([header] if header else [])]
    widths = [min(max(len(str(cell)) for cell in column), max_width) for column in zip(*shown)]
    lines = [*([header, ["-" * width for width in widths]] if header else []), *rows]
    spacer = " " * gap
    return "\n" + "\n".join(spacer.join(f"{str(cell):<{width}}" for cell, width in zip(line, widths))
                             for line in lines) + "\n"


def tables_as_text(sections: list[Table]) -> str:
    """Titled sections ``(title, header, rows)`` as plain-text tables (:func:`plain_table`)."""
    parts = []
    for title, header, rows in sections:
        title = visible(str(title))
        rows = [[visible(v) if isinstance(v, str) else v for v in row] for row in rows]
        parts.append(f"\n{title}\n{'=' * len(title)}")
        parts.append(plain_table(rows, header if any(header) else None))
    return "\n".join(parts)


def tables_as_markdown(sections: list[Table]) -> str:
    """Titled sections ``(title, header, rows)`` as GitHub-flavoured Markdown tables."""
    parts = []
    for title, header, rows in sections:
        parts.append(f"### {visible(str(title))}\n")
        head = header if any(header) else ["", ""]
        parts.append("| " + " | ".join(map(str, head)) + " |")
        parts.append("|" + "|".join("---" for _ in head) + "|")
        parts.extend("| " + " | ".join(_cell(v) for v in row) + " |" for row in rows)
        parts.append("")
    return "\n".join(parts)


_NUMBER = re.compile(r"-?[0-9][0-9.,]*(e[-+]?[0-9]+)?( \[-?[0-9.]+, -?[0-9.]+\])?")


def _cell(value: Any) -> str:
    """A cell from the data, Markdown and HTML escaped (numbers as they are)."""
    text = str(value)
    return text if _NUMBER.fullmatch(text) else markdown(text)


def largest(names: Sequence[str], weight: Callable[[str], float], limit: int = MAX_LABELS) -> list[str]:
    """The ``limit`` names of largest ``weight`` (ties: the earlier name), in their given order."""
    if len(names) <= limit:
        return list(names)
    ranked = sorted(range(len(names)), key=lambda i: -weight(names[i]))[:limit]
    return [names[i] for i in sorted(ranked)]


def shown_of(shown: int, total: int, which: str) -> str:
    """A title's note when a table shows part of its rows, e.g. ``shown_of(50, 812, "the {n} with
    most spans")``: ``"the 50 with most spans, of 812; --output json lists all"`` (else ``""``)."""
    return f"{which.format(n=shown)}, of {total}; --output json lists all" if shown < total else ""


def listed(values: Sequence[Any], limit: int = MAX_LABELS) -> str:
    """Values joined by commas, the first ``limit`` of them and how many more."""
    text = ", ".join(map(str, values[:limit]))
    return text + (f", ... ({len(values) - limit} more)" if len(values) > limit else "")


def num(value: float | None, digits: int = 3) -> str:
    """A probability to ``digits`` places; a count without decimals when it is whole."""
    if value is None:
        return "undefined"
    if digits != 3 and float(value).is_integer():
        return str(int(value))
    return f"{value:.{digits}f}"
