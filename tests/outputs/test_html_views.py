"""The report's answers: per-rater view, every document by agreement (page and CSV), what the κ
curve approaches, the bands sentence, and nested layers drawn per label."""
from __future__ import annotations

import csv

import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app
from spanagree.outputs.html import render, views
from spanagree.core.sanitize import csv_cell
from records import line
from locations import ROOT

pytest.importorskip("matplotlib", reason="the HTML report needs matplotlib (pip install 'spanagree[report]')")

EXAMPLE = ROOT / "corpora" / "news_ner.jsonl"


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("views") / "report.html"
    result = CliRunner().invoke(app, ["report", str(EXAMPLE), "--candidates", "tokens", "--bootstrap", "50", "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def test_per_rater_table_with_intervals(written):
    html = written.read_text(encoding="utf-8")
    report = spanagree.score(spanagree.read(EXAMPLE), candidates="tokens", bootstrap=50, per_rater=True).to_dict()
    assert "<h2 id=\"raters\">Per rater</h2>" in html and "F against the others, per label" in html
    for row in report["per_rater"]:
        iv = row["mean_psa_interval"]
        assert f"{row['mean_psa']:.3f} [{iv['low']:.3f}, {iv['high']:.3f}]" in html
        assert f"{row['against_consensus']['f']:.3f}" in html


def test_every_document_in_the_page_and_the_csv_lowest_first(written):
    html = written.read_text(encoding="utf-8")
    report = spanagree.score(spanagree.read(EXAMPLE)).to_dict()
    rows = list(csv.DictReader(open(written.with_name("report.documents.csv"), encoding="utf-8")))
    assert len(rows) == report["documents"]["scored"] == len(report["per_document"])
    values = [float(r["pairwise_mean_psa"]) for r in rows if r["pairwise_mean_psa"]]
    assert values == sorted(values)
    # ids a spreadsheet would run as a formula (negative hash ids) carry a leading quote
    assert {r["doc_id"] for r in rows} == {csv_cell(d["doc_id"]) for d in report["per_document"]}
    assert "report.documents.csv" in html
    assert html.count("<tr><td class=\"num\">") >= len(rows)  # every document has a row
    assert "<script" not in html.lower()


def test_the_kappa_curve_says_which_psa_it_approaches(written):
    html = written.read_text(encoding="utf-8")
    report = spanagree.score(spanagree.read(EXAMPLE), candidates="tokens").to_dict()
    pooled = report["chance_corrected"]["pooled"]
    item_psa = 2 * pooled["a"] / (2 * pooled["a"] + pooled["b"] + pooled["c"])
    assert f"PSA over the candidate items = {item_psa:.3f}" in html
    assert f"headline span PSA ({report['overall']['pairwise_mean_psa']:.3f})" in html


def test_the_bands_sentence_only_when_the_words_disagree(written):
    from spanagree.outputs.html import bands

    agree = [("κ", bands.landis_koch(0.85), 0.85), ("α", bands.krippendorff(0.83), 0.83)]
    assert views.band_note(agree) is None
    assert "different conventions" not in written.read_text(encoding="utf-8")  # κ .874 and α .870 agree
    differ = [("κ", bands.landis_koch(0.72), 0.72), ("α", bands.krippendorff(0.70), 0.70)]
    note = views.band_note(differ)
    assert "κ reads “substantial” (0.720)" in note and "α reads “tentative only" in note


def test_nested_spans_are_drawn_one_label_per_line(write_jsonl):
    text = "Heute gibts endlich wieder HARD MELODY !"
    path = write_jsonl([
        line("d1", "ann", [(0, 39, "sentiment"), (27, 37, "emo")], text=text),
        line("d1", "bob", [(0, 39, "sentiment"), (27, 37, "emo")], text=text),
    ])
    report = spanagree.score(path, bootstrap=20)
    html = render(report)
    assert html.count("class=\"who\">ann <span class=\"muted\">· ") == 2
    assert views.layers([(0, 3, 0, False), (5, 8, 1, False)]) == [[(0, 3, 0, False), (5, 8, 1, False)]]
    assert len(views.layers([(0, 9, 0, False), (2, 4, 1, False)])) == 2
    # the stacked layers agree: the confusion is diagonal and nothing is disputed
    assert report.to_dict()["overall"]["outcomes"]["correct"] == 2
    assert "disputed" not in html.split("<h2>Documents where raters disagree most</h2>")[1].split("<h2")[0]
