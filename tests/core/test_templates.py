"""The package's Jinja2 templates: autoescaped, bidi controls shown, strict about missing names,
and shipped as package data."""
from __future__ import annotations

import fnmatch
import tomllib

import jinja2
import pytest

from spanagree.core.templates import environment, interval, number
from locations import ROOT

HOSTILE = "<script>alert(1)</script>\u202eabc"


def test_text_is_escaped_and_bidi_controls_shown():
    out = environment().from_string("<p title='{{ x }}'>{{ x }}</p>").render(x=HOSTILE)
    assert "<script>" not in out and "&lt;script&gt;alert(1)&lt;/script&gt;" in out
    assert "\u202e" not in out and out.count("\\u202e") == 2


def test_markup_marked_safe_is_kept_and_nothing_else():
    env = environment()
    assert env.from_string("{{ x|safe }}").render(x="<svg></svg>") == "<svg></svg>"
    assert env.from_string("{{ x }}").render(x="<svg></svg>") == "&lt;svg&gt;&lt;/svg&gt;"


def test_a_missing_name_fails_instead_of_printing_nothing():
    with pytest.raises(jinja2.UndefinedError):
        environment().from_string("{{ nope }}").render()


def test_every_template_is_autoescaped_and_shipped():
    env = environment()
    names = env.list_templates()
    assert {"report_page.html.j2", "report_notebook.html.j2", "alt_test.html.j2", "gate.html.j2"} <= set(names)
    assert env.autoescape is True
    shipped = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["spanagree"]
    for name in names:
        assert any(fnmatch.fnmatch(f"templates/{name}", pattern) for pattern in shipped), name


def test_filters():
    assert number(None) == "undefined" and number(0.12345) == "0.123" and number(0.5, 1) == "0.5"
    assert interval(None) == "–" and interval({"low": None, "high": None}) == "–"
    assert interval({"low": 0.1, "high": 0.25}) == "[0.100, 0.250]"
