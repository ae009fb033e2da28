"""Text from the data, made safe for the place it is shown in.

Annotation files carry whatever their authors typed: labels, rater names and document texts can
hold terminal escape sequences, Unicode bidirectional controls, Markdown or HTML, or a leading
``=`` that a spreadsheet runs as a formula. Nothing from the data is shown raw:

- :func:`visible` makes control characters (C0, C1, ESC sequences) and bidi controls visible as
  ``\\u202e``-style escapes, so a terminal or a page shows them instead of obeying them (bidi
  controls can reorder what a reader sees: Boucher & Anderson 2021, "Trojan Source");
- :func:`markdown` additionally escapes HTML and Markdown syntax (for Markdown tables and the
  GitHub step summary, where raw HTML and image links would render and be fetched);
- :func:`csv_cell` neutralises formula injection the way OWASP's "CSV Injection" page recommends:
  text beginning with ``=``, ``+``, ``-``, ``@``, tab or carriage return is prefixed with a single
  quote, unless it is a plain number (a Prodigy id ``-1164799570``: a spreadsheet reads a number);
- :func:`cut` shortens long values for messages.
"""
from __future__ import annotations

import re

#: Unicode bidirectional formatting characters (Unicode Standard Annex #9): embeddings, overrides,
#: isolates and the implicit marks.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

#: C0 and C1 control characters except tab and newline, DEL, and the bidi controls.
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]")
_INVISIBLE_ALL = re.compile("[\x00-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>&~])")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def _escape(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04x}"


def visible(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` with control and bidi characters shown as ``\\uXXXX`` instead of obeyed.

    >>> visible("ok\\x1b[2Jgone\\u202eevil")
    'ok\\\\u001b[2Jgone\\\\u202eevil'
    >>> visible("plain label")
    'plain label'
    """
    pattern = _INVISIBLE if keep_newlines else _INVISIBLE_ALL
    return pattern.sub(_escape, text)


_BIDI = re.compile("[" + BIDI_CONTROLS + "]")


def no_bidi(text: str) -> str:
    """``text`` with only the bidi controls shown as ``\\uXXXX`` (for HTML, where other control
    characters do no harm and line breaks of a document's text must stay as they are).

    >>> no_bidi("abc\\u202edef")
    'abc\\\\u202edef'
    """
    return _BIDI.sub(_escape, text)


def markdown(text: str) -> str:
    """``text`` for a Markdown table cell: controls made visible, Markdown and HTML escaped.

    ``|`` is escaped so a value cannot add a column; ``<``/``>``/``&`` become entities so raw HTML
    does not render; ``[``, ``]``, ``(``, ``)`` and ``!`` are escaped so an image link is text.

    >>> markdown('![x](http://example.test/a.png) <b>|')
    '\\\\!\\\\[x\\\\]\\\\(http://example\\\\.test/a\\\\.png\\\\) &lt;b&gt;\\\\|'
    """
    escaped = _MARKDOWN_SPECIAL.sub(_markdown_char, visible(text))
    return escaped


def _markdown_char(match: re.Match) -> str:
    char = match.group()
    return {"<": "&lt;", ">": "&gt;", "&": "&amp;"}.get(char, "\\" + char)


def csv_cell(value: object) -> object:
    """A value for a CSV cell: strings that a spreadsheet would run as a formula are prefixed
    with ``'`` (OWASP, "CSV Injection"); numbers (as text too) and other values pass unchanged.

    >>> csv_cell('=HYPERLINK("http://x.test")')
    '\\'=HYPERLINK("http://x.test")'
    >>> csv_cell("-1+1"), csv_cell("-1"), csv_cell(-1), csv_cell("PER")
    ("'-1+1", '-1', -1, 'PER')
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def cut(text: str, limit: int = 80) -> str:
    """``text`` shortened to about ``limit`` characters for a message, saying how long it was.

    >>> cut("x" * 1000, limit=20)
    'xxxxxxxxxxxxxxxxxxxx… (1000 characters)'
    >>> cut("short")
    'short'
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} characters)"
