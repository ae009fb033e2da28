"""The HTML page's frame: its Content-Security-Policy and its label colours.

The page is one file with no scripts and nothing to fetch; a Content-Security-Policy forbids
both, so a browser would refuse them even if some markup slipped through. The markup itself is
in ``spanagree/templates/report_page.html.j2`` (Jinja2, autoescaped: every piece of text from the
data is escaped where it is written); CSS classes are built from indices, never from names.
"""
from __future__ import annotations

#: Label colours (cycled), light enough to read black text on.
PALETTE = (
    "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
    "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5", "#d9d9d9",
)

CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


def label_colours(n_labels: int) -> list[str]:
    """The colour of each label index (class ``l<k>``), cycling through :data:`PALETTE`."""
    return [PALETTE[k % len(PALETTE)] for k in range(n_labels)]


def template_tables(tables) -> list[dict]:
    """Tables ``(title, header, rows)`` of the text output as the page template's ``text_tables``
    takes them: every cell as text (the template escapes and cuts it)."""
    return [{"title": title, "header": list(header), "rows": [[str(cell) for cell in row] for row in rows]}
            for title, header, rows in tables]
