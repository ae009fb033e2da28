"""How results show themselves in a notebook: ``_repr_html_`` of a report, an alternative annotator
test and a gate (headline numbers, escaping), and ``report.plot`` (the HTML report's drawings)."""
from __future__ import annotations

import html
import re
import sys

import pytest

import spanagree
from spanagree.errors import UsageError
from spanagree.outputs import gate


@pytest.fixture(scope="module")
def report():
    from conftest import EXAMPLE

    return spanagree.score(EXAMPLE, bootstrap=50, candidates="tokens", unitizing=True)


def cells(page: str) -> list[str]:
    """The text of every table cell, unescaped."""
    return [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", page, re.S)]


def test_report_html_shows_the_headline_with_its_intervals(report):
    data = report.to_dict()
    page = report._repr_html_()
    shown = cells(page)
    overall = data["overall"]
    for value, entry in ((overall["pairwise_mean_psa"], overall["pairwise_mean_psa_interval"]),
                         (overall["pooled_psa"], overall["pooled_psa_interval"]),
                         (data["macro"]["pairwise_mean_psa"], data["macro"]["pairwise_mean_psa_interval"])):
        at = shown.index(f"{value:.3f}")
        assert shown[at + 1] == f"[{entry['low']:.3f}, {entry['high']:.3f}]"
    kappa = data["chance_corrected"]["pooled"]["cohen_kappa"]["value"]
    assert f"{kappa:.3f}" in shown and f"{data['unitizing']['alpha_u']['value']:.3f}" in shown
    for label, entry in data["labels"].items():  # per label
        at = shown.index(label)
        assert shown[at + 1] == f"{entry['pairwise_mean_psa']:.3f}"
    for pair in data["pairs"]:  # per pair
        assert f"{pair['psa']:.3f}" in shown and pair["raters"][0] in shown
    assert "<script" not in page and len(page) < 20_000


def test_report_html_without_intervals_says_how_to_get_them(example_path):
    page = spanagree.score(example_path)._repr_html_()
    assert "score with bootstrap=N" in page and "–" in cells(page)


def test_hostile_names_stay_escaped(write_jsonl):
    evil = "<img src=x onerror=alert(1)>\u202e"
    path = write_jsonl([
        {"doc_id": "d", "annotator": evil, "text": "abc def", "spans": [{"start": 0, "end": 3, "label": evil}]},
        {"doc_id": "d", "annotator": "B", "text": "abc def", "spans": [{"start": 0, "end": 3, "label": evil}]},
    ])
    page = spanagree.score(path)._repr_html_()
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "\u202e" not in page and "\\u202e" in page


def test_alt_test_html_shows_the_verdict_and_each_human(example_path):
    result = spanagree.alt_test(example_path, "news_ner-carol")
    page = result._repr_html_()
    shown = cells(page)
    assert result.verdict.upper() in page
    assert f"{result.advantage_probability:.3f}" in shown
    for row in result.per_human:
        assert row["rater"] in shown and f"{row['mean_w_candidate']:.3f}" in shown


def test_gate_result_html_shows_each_check(report):
    checks = [gate.parse_check("pairwise_mean_psa=0.7"), gate.parse_check("label:DATE=0.8")]
    result = gate.evaluate(report.to_dict(), checks, on="lower", min_documents=10)
    assert isinstance(result, dict)
    shown = cells(result._repr_html_())
    for check in result["checks"]:
        assert check["name"] in shown and check["verdict"] in shown
    assert f"{result['checks'][1]['value']:.3f}" in shown


def test_min_documents_alone_passing_does_not_make_the_gate_fail(report):
    result = gate.evaluate(report.to_dict(), [gate.parse_check("pairwise_mean_psa=0.5")], min_documents=10)
    assert result["passed"] and result["verdict"] == "passed"


def test_plots_are_the_charts_of_the_html_report(report):
    matplotlib = pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from spanagree.outputs.html import charts

    data = report.to_dict()
    labels = report.plot.labels()
    assert isinstance(labels, Figure)
    ticks = sorted(((t.get_position()[1], t.get_text()) for t in labels.axes[0].get_yticklabels()), reverse=True)
    assert [text for _, text in ticks] == list(data["labels"])  # top to bottom
    points = [line.get_xdata()[0] for line in labels.axes[0].lines if line.get_marker() == "o"]
    assert points == pytest.approx([e["pairwise_mean_psa"] for e in data["labels"].values()])
    heat = report.plot.pairs()
    assert [t.get_text() for t in heat.axes[0].get_xticklabels()] == data["raters"]
    assert len(report.plot.raters().axes[0].get_yticklabels()) == len(data["raters"])
    curve = report.plot.kappa_curve()
    assert curve.axes[0].get_xscale() == "log"
    # the HTML report draws the same figure: its SVG is the figure saved
    assert charts.labels(data) == charts._svg(report.plot.labels(), "labels-")
    assert matplotlib.get_backend()  # nothing registered with pyplot
    assert "matplotlib.pyplot" not in sys.modules or not __import__("matplotlib.pyplot").pyplot.get_fignums()


def test_kappa_curve_needs_candidates(example_path):
    with pytest.raises(UsageError, match="candidates"):
        spanagree.score(example_path).plot.kappa_curve()


def test_missing_matplotlib_names_the_extra(example_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(UsageError, match=r"spanagree\[notebook\]"):
        spanagree.score(example_path).plot.labels()
