"""Text from the data is shown, never obeyed: terminal, Markdown, CSV and messages."""
from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from spanagree.core.sanitize import BIDI_CONTROLS, csv_cell, cut, markdown, visible

HOSTILE = [
    "\x1b[2J\x1b[31mred",            # clear screen, colour
    "\x1b]8;;http://x.test\x07link",  # OSC 8 hyperlink
    "abc\u202egnp.exe",               # right-to-left override
    "\u2066isolate\u2069",
    "bell\x07 and nul\x00",
    "\x9b31m C1 CSI",
]


def test_visible_escapes_every_control_and_bidi_character():
    for text in HOSTILE:
        shown = visible(text)
        assert not re.search("[\x00-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]", shown), shown
    assert visible("a\x1bb") == "a\\u001bb"
    assert visible("line\nnext", keep_newlines=True) == "line\nnext"
    assert visible("line\nnext") == "line\\u000anext"


@given(st.text())
def test_visible_leaves_no_control_character(text):
    assert not re.search("[\x00-\x1f\x7f-\x9f" + BIDI_CONTROLS + "]", visible(text))


@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cf")), max_size=40))
def test_visible_is_identity_on_printable_text(text):
    assert visible(text) == text


def test_markdown_renders_no_html_image_or_column():
    cell = markdown('<img src=x onerror=alert(1)> ![t](http://evil.test/p.png) a|b')
    assert "<" not in cell and ">" not in cell
    assert "![" not in cell and "](" not in cell
    assert re.search(r"(?<!\\)\|", cell) is None


@given(st.text())
def test_markdown_never_leaves_raw_html_or_pipes(text):
    cell = markdown(text)
    assert "<" not in cell and ">" not in cell
    assert re.search(r"(?<!\\)\|", cell.replace("\\\\", "")) is None


def test_csv_cells_that_start_a_formula_are_neutralised():
    for value in ["=1+1", "+1+1", "-1+1", "-A1", "-2*3", "+1e5)", "-", "@SUM(A1)", "\t=x", "\t5", "\r=x",
                  '=HYPERLINK("http://x.test","y")']:
        assert csv_cell(value) == "'" + value
    assert csv_cell("PER") == "PER"
    # a plain number, as text, is read by a spreadsheet as that number: it stays as it is
    for number in ["-1164799570", "+1", "-1", "-0.5", "-.5", "-1e-5", "+2E10"]:
        assert csv_cell(number) == number
    assert csv_cell(3) == 3 and csv_cell(None) is None


def test_cut_says_how_long_the_value_was():
    assert cut("x" * 1_000_000, limit=10) == "x" * 10 + "… (1000000 characters)"
    assert cut("short") == "short"
