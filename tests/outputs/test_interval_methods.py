"""Every rendering (text, Markdown, JSON, the HTML page, the notebook view) shows a statistic with
the same interval and names the interval's method beside it; and when a reference rater is named,
each says the headline leaves it out."""
from __future__ import annotations

import html
import json
import re

import pytest
from click.testing import CliRunner

import spanagree
from spanagree import catalogue
from spanagree.app.cli import app

pytest.importorskip("matplotlib", reason="the HTML report needs matplotlib (pip install 'spanagree[report]')")

ALPHA = "Krippendorff's α (nominal)"


def run(*args) -> str:
    """The command's output (Markdown's escapes taken out)."""
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout.replace("\\", "") if "markdown" in args else result.stdout


def cells(page: str) -> list[str]:
    """The text of every table cell, unescaped."""
    return [html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", page, re.S)]


def rows_of(text: str, name: str) -> list[str]:
    return [row for row in text.splitlines() if name in row]


def test_alpha_has_one_interval_named_alike_in_every_rendering(example_path, tmp_path):
    args = [example_path, "--candidates", "tokens", "--bootstrap", "200"]
    report = json.loads(run("score", *args, "--output", "json"))
    alpha = report["chance_corrected"]["all_raters"]["krippendorff_alpha"]
    interval = alpha["interval"]  # the catalogue's method for α: the bootstrap over documents
    assert catalogue.STATISTICS["alpha"].interval == "bootstrap" and "bootstrap_se" in interval
    shown, method = f"[{interval['low']:.3f}, {interval['high']:.3f}]", "bootstrap percentile, 200 replicates"
    analytic = alpha["analytic_interval"]
    assert shown != f"[{analytic['low']:.3f}, {analytic['high']:.3f}]"  # the two methods differ here
    names = (ALPHA, catalogue.STATISTICS["alpha"].description)  # the headline's row, the family table's
    for output in ("table", "markdown"):
        text = run("score", *args, "--output", output)
        rows = [row for name in names for row in rows_of(text, name)]
        assert len(rows) == 2 and all(shown in row and method in row for row in rows), rows
    run("report", *args, "-o", tmp_path / "r.html")
    page = cells((tmp_path / "r.html").read_text(encoding="utf-8"))
    notebook = cells(spanagree.score(example_path, candidates="tokens", bootstrap=200)._repr_html_())
    for found, n in ((page, 2), (notebook, 1)):
        at = [k for k, cell in enumerate(found[:-1]) if cell in names and found[k + 1] == f"{alpha['value']:.3f}"]
        assert len(at) == n and all(shown in found[k:k + 4] and method in found[k:k + 5] for k in at), at


def test_without_replicates_the_analytic_interval_is_shown_and_named(example_path):
    report = json.loads(run("score", example_path, "--candidates", "tokens", "--output", "json"))
    analytic = report["chance_corrected"]["all_raters"]["krippendorff_alpha"]["analytic_interval"]
    text = run("score", example_path, "--candidates", "tokens")
    rows = rows_of(text, ALPHA) + rows_of(text, catalogue.STATISTICS["alpha"].description)
    assert len(rows) == 2
    for row in rows:
        assert f"[{analytic['low']:.3f}, {analytic['high']:.3f}]" in row and f"analytic ({analytic['method']})" in row


def test_the_gate_names_the_method_of_each_interval(example_path):
    text = run("gate", example_path, "--candidates", "tokens", "--bootstrap", "200", "--min", "alpha=0.5",
               "--min", "fleiss_kappa=0.5")
    assert "bootstrap percentile, 200 replicates" in rows_of(text, "alpha")[0]
    assert "analytic (Student t on Gwet's linearised variance)" in rows_of(text, "fleiss_kappa")[0]


def test_every_rendering_says_the_headline_leaves_the_reference_out(example_path, tmp_path):
    gold = tmp_path / "gold.jsonl"
    run("consensus", example_path, "--min-raters", "2", "-o", gold)
    alone = json.loads(run("score", example_path, "--output", "json"))["overall"]["pairwise_mean_psa"]
    said = "headline over 3 raters; reference 'consensus' left out"
    for output in ("table", "markdown"):
        text = run("score", example_path, gold, "--reference", "consensus", "--output", output)
        assert said in text and f"{alone:.3f}" in rows_of(text, "pairwise mean PSA (headline)")[0]
    run("report", example_path, gold, "--reference", "consensus", "-o", tmp_path / "r.html")
    assert said in html.unescape((tmp_path / "r.html").read_text(encoding="utf-8"))
    assert said in html.unescape(spanagree.score([example_path, gold], reference="consensus")._repr_html_())
