"""The HTML page: its stylesheet, its frame, and escaping helpers.

The page is one file with no scripts and nothing to fetch; a Content-Security-Policy forbids
both, so a browser would refuse them even if some markup slipped through. Every piece of text
that comes from the data (document text, ids, labels, rater names, file names) goes through
:func:`esc`; CSS classes are built from indices, never from names.
"""
from __future__ import annotations

from html import escape

from ...core.sanitize import no_bidi

#: Label colours (cycled), light enough to read black text on.
PALETTE = (
    "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
    "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5", "#d9d9d9",
)

CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

STYLE = """
:root { --ink: #1b1f24; --muted: #5f6b7a; --line: #d8dee4; --bg: #ffffff; --panel: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--ink); background: var(--bg); }
main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 60px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 36px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 20px 0 6px; }
p.lead, p.note, .muted { color: var(--muted); }
p.note { font-size: 12.5px; margin: 6px 0; }
table { border-collapse: collapse; margin: 8px 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 4px 9px; text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; }
td.num { text-align: right; white-space: nowrap; }
.headline .value { font-size: 17px; font-weight: 600; white-space: nowrap; }
.band { display: inline-block; padding: 1px 8px; border-radius: 10px; background: #e8eef6; font-size: 12.5px; }
.chart { margin: 10px 0; }
.chart svg { max-width: 100%; height: auto; }
.confusion td.num { min-width: 3.2em; }
.doc { border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; margin: 14px 0; background: var(--panel); }
.doc h3 { margin: 0 0 6px; font-size: 14px; }
.rater { display: grid; grid-template-columns: 170px 1fr; gap: 10px; padding: 6px 0; border-top: 1px dashed var(--line); }
.rater .who { font-weight: 600; overflow-wrap: anywhere; }
.rater .text { white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.9; }
mark { padding: 1px 0; border-radius: 2px; color: inherit; }
mark.disputed { outline: 2px dashed #1b1f24; outline-offset: 1px; }
.tag { font-size: 10px; font-weight: 700; padding: 0 3px; margin: 0 2px 0 1px; border-radius: 3px; vertical-align: 1px; }
.legend span { margin-right: 10px; white-space: nowrap; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 2px; vertical-align: -1px; margin-right: 4px; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
"""


#: Characters of one name or value from the data shown at most (a label, a rater, a document id);
#: a longer one is cut and says so where it stands. Document texts have their own limit.
MAX_SHOWN = 300


def esc(value, limit: int | None = MAX_SHOWN) -> str:
    """Text from the data, escaped for HTML text and attribute values; cut after ``limit``
    characters (None: whole), with the full length said in its place."""
    text = str(value)
    if limit is not None and len(text) > limit:
        text = f"{text[:limit]}… (cut: {len(text):,} characters in all)"
    return escape(no_bidi(text), quote=True)


def label_css(n_labels: int) -> str:
    """One class per label index: ``.l0`` ... (colours cycle through :data:`PALETTE`)."""
    return "\n".join(f".l{k} {{ background: {PALETTE[k % len(PALETTE)]}; }}" for k in range(n_labels))


def frame(title: str, body: str, extra_css: str = "") -> str:
    """The whole document around ``body`` (``title`` is escaped here)."""
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<meta name=\"referrer\" content=\"no-referrer\">\n"
        f"<title>{esc(title)}</title>\n<style>{STYLE}\n{extra_css}\n</style>\n</head>\n"
        f"<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
    )


def table(header: list[str], rows: list[list[str]], *, css: str = "", numeric: set[int] = frozenset()) -> str:
    """An HTML table; ``header`` and ``rows`` are HTML already (escape data before)."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td class=\"num\">{c}</td>" if i in numeric else f"<td>{c}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in rows
    )
    cls = f" class=\"{css}\"" if css else ""
    return f"<table{cls}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
