"""Sections as tables, ``(title, header, rows)``, written as plain text or Markdown."""
from __future__ import annotations

import re
from typing import Any

from ..core.sanitize import markdown, visible

#: How many pairs and documents the tables show (the JSON output has them all).
MAX_PAIRS = 20
MAX_DOCUMENTS = 10

Table = tuple[str, list[str], list[list[Any]]]


def tables_as_text(sections: list[Table]) -> str:
    """Titled sections ``(title, header, rows)`` as plain-text tables (wasabi)."""
    from wasabi import table

    parts = []
    for title, header, rows in sections:
        title = visible(str(title))
        rows = [[visible(v) if isinstance(v, str) else v for v in row] for row in rows]
        parts.append(f"\n{title}\n{'=' * len(title)}")
        parts.append(table(rows, header=header if any(header) else None, divider=any(header), max_col=80))
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


def num(value: float | None, digits: int = 3) -> str:
    """A probability to ``digits`` places; a count without decimals when it is whole."""
    if value is None:
        return "undefined"
    if digits != 3 and float(value).is_integer():
        return str(int(value))
    return f"{value:.{digits}f}"

