"""α_U and γ in the report: score(unitizing=True), the CLI, the config section and the gate."""
from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app
from spanagree.errors import UsageError
from spanagree.measures.unitizing.alpha_u import alpha_u
from spanagree.measures.unitizing.section import corpus_columns
from records import line

runner = CliRunner()
TEXT = "Alice met Bob in Paris on Monday."


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def small(write_jsonl):
    return write_jsonl([
        line("d1", "ann1", [(0, 5, "PER"), (10, 13, "PER"), (17, 22, "LOC")]),
        line("d1", "ann2", [(0, 5, "PER"), (10, 13, "PER"), (17, 23, "LOC")]),
        line("d2", "ann1", [(0, 5, "PER")]),
        line("d2", "ann2", [(0, 9, "PER"), (26, 32, "DATE")]),
        line("d3", "ann1", [(0, 5, "PER")]),  # only one rater: left out, and counted
    ])


def test_score_adds_the_unitizing_section(small):
    report = spanagree.score(small, unitizing=True, seed=1).to_dict()
    section = report["unitizing"]
    assert section["documents"] == 2
    assert section["documents_excluded"] == {"not annotated by every rater": 1}
    assert section["spans_excluded"] == {"on a document not annotated by every rater": 1}
    assert set(section["alpha_u_per_label"]) == {"DATE", "LOC", "PER"}
    assert set(section["alpha_u"]) >= {"value", "observed", "expected", "per_document_mean", "continuum_length"}
    assert section["alpha_u"]["continuum_length"] == 2 * len(TEXT)
    g = section["gamma"]
    assert set(g) >= {"value", "observed_disorder", "expected_disorder", "samples", "seed", "sampler", "precision"}
    assert g["samples"] == 30 and g["seed"] == 1
    assert set(section["gamma_per_label"]) == {"DATE", "LOC", "PER"}
    # the same numbers as the measures on the columns (documents in id order, end to end)
    corpus = spanagree.read(small)
    cols = corpus_columns(corpus)
    direct = alpha_u(cols["doc"], cols["rater"], cols["label"], cols["start"], cols["end"], cols["length"], n_raters=2)
    assert section["alpha_u"]["value"] == direct["value"]
    assert "unitizing" not in spanagree.score(small).to_dict()


def test_options_seed_and_undefined(write_jsonl, small):
    a = spanagree.score(small, unitizing={"samples": 5, "alpha": 3.0}, seed=2).to_dict()["unitizing"]["gamma"]
    b = spanagree.score(small, unitizing={"samples": 5, "alpha": 3.0}, seed=2).to_dict()["unitizing"]["gamma"]
    assert a == b and a["samples"] == 5 and a["alpha"] == 3.0
    empty = write_jsonl([line("d1", "ann1", []), line("d1", "ann2", [])], name="empty.jsonl")
    section = spanagree.score(empty, unitizing=True).to_dict()["unitizing"]
    assert section["alpha_u"]["value"] is None and section["alpha_u"]["reason"] == "no units"
    assert section["gamma"]["value"] is None and section["gamma"]["reason"] == "no units"
    partial = write_jsonl([line("d1", "ann1", [(0, 5, "PER")]), line("d2", "ann2", [(0, 5, "PER")])], name="p.jsonl")
    section = spanagree.score(partial, unitizing=True).to_dict()["unitizing"]
    assert section["gamma"] == {"value": None, "reason": "no document was annotated by every rater"}
    assert section["documents_excluded"] == {"not annotated by every rater": 2}
    with pytest.raises(UsageError, match="samples"):
        spanagree.score(small, unitizing={"samples": 1})
    with pytest.raises(UsageError, match="unknown unitizing option"):
        spanagree.score(small, unitizing={"sample": 5})


def test_engines_are_refused(small):
    with pytest.raises(UsageError, match="every span in memory"):
        spanagree.score([small], unitizing=True, stream=True)


def test_cli_flag_config_and_tables(small, tmp_path):
    result = run("score", small, "--unitizing", "--seed", "4", "--output", "json")
    assert result.exit_code == 0, result.output
    section = json.loads(result.stdout)["unitizing"]
    assert section["gamma"]["seed"] == 4
    cfg = tmp_path / "u.cfg"
    cfg.write_text("[unitizing]\non = true\nsamples = 7\nbeta = 0.5\n")
    result = run("score", small, "--config", cfg, "--output", "json")
    assert json.loads(result.stdout)["unitizing"]["gamma"]["samples"] == 7
    assert json.loads(result.stdout)["unitizing"]["gamma"]["beta"] == 0.5
    text = run("score", small, "--unitizing")
    assert "unitizing α_U" in text.output and "Unitizing per label" in text.output
    markdown = run("score", small, "--unitizing", "--output", "markdown")
    # Markdown cells are escaped (docs/robustness.md): the underscore shows as \_
    assert "### Unitizing agreement" in markdown.output and "Krippendorff's α\\_U:" in markdown.output
    bad = run("score", small, "--unitizing.samples", "1")
    assert bad.exit_code == 2 and "[unitizing] samples" in bad.output


def test_sampler_option_in_every_interface(small, tmp_path):
    """γ's random continua: statistical by default; shuffle by flag, config key or keyword."""
    default = json.loads(run("score", small, "--unitizing", "--output", "json").stdout)["unitizing"]["gamma"]
    assert default["sampler"].startswith("statistical")
    flag = run("score", small, "--unitizing", "--unitizing.sampler", "shuffle", "--output", "json")
    assert flag.exit_code == 0, flag.output
    shuffled = json.loads(flag.stdout)["unitizing"]["gamma"]
    assert shuffled["sampler"].startswith("shuffle")
    assert shuffled["observed_disorder"] == default["observed_disorder"]
    cfg = tmp_path / "s.cfg"
    cfg.write_text("[unitizing]\non = true\nsampler = \"shuffle\"\n")
    assert json.loads(run("score", small, "--config", cfg, "--output", "json").stdout)["unitizing"]["gamma"] == shuffled
    api = spanagree.score(small, unitizing={"sampler": "shuffle"}).to_dict()["unitizing"]["gamma"]
    assert api == shuffled
    assert "random continua (shuffle sampler)" in run("score", small, "--unitizing", "--unitizing.sampler", "shuffle").output
    bad = run("score", small, "--unitizing", "--unitizing.sampler", "mathet")
    assert bad.exit_code == 2 and "[unitizing] sampler" in bad.output and "statistical" in bad.output
    with pytest.raises(UsageError, match="sampler must be one of 'statistical', 'shuffle'"):
        spanagree.score(small, unitizing={"sampler": "mathet"})


def test_gate_names(small):
    ok = run("gate", small, "--min", "alpha_u=-1", "--min", "gamma=-1", "--min", "gamma_k:PER=-5",
             "--min", "alpha_u_label:PER=-5")
    assert ok.exit_code == 0, ok.output
    failed = run("gate", small, "--min", "gamma=0.999")
    assert failed.exit_code == 1 and "gamma" in failed.output
    missing = run("gate", small, "--min", "alpha_u_label:ORG=0.5")
    assert missing.exit_code == 1 and "has no unit" in missing.output
    lower = run("gate", small, "--on", "lower", "--bootstrap", "50", "--min", "alpha_u=-1", "--min", "alpha_u_label:PER=-1")
    assert lower.exit_code == 0, lower.output
    no_interval = run("gate", small, "--on", "lower", "--min", "gamma=0.1")
    assert no_interval.exit_code == 2 and "no bootstrap interval" in no_interval.output


def test_alpha_u_intervals_in_the_report(small):
    section = spanagree.score(small, unitizing=True, bootstrap=40, seed=5).to_dict()["unitizing"]
    interval = section["alpha_u"]["interval"]
    assert interval["replicates"] == 40 and interval["seed"] == 5 and interval["level"] == 0.95
    assert interval["low"] <= interval["high"]
    assert all("interval" in v for v in section["alpha_u_per_label"].values())
    assert "interval" not in section["gamma"]


def test_token_unit(write_jsonl):
    records = []
    for rater, spans in (("ann1", [(0, 5, "PER"), (10, 13, "PER")]), ("ann2", [(0, 5, "PER"), (10, 16, "PER")])):
        record = line("d1", rater, spans)
        record["tokens"] = [{"text": w, "start": s, "end": s + len(w), "id": k}
                            for k, (w, s) in enumerate([("Alice", 0), ("met", 6), ("Bob", 10), ("in", 14), ("Paris", 17)])]
        records.append(record)
    path = write_jsonl(records)
    section = spanagree.score(path, unit="token", unitizing=True).to_dict()["unitizing"]
    assert section["unit"] == "token" and section["alpha_u"]["continuum_length"] == 5
    # in tokens: ann1 marks tokens [0,1) and [2,3); ann2 [0,1) and [2,4)
    direct = alpha_u(np.zeros(4, int), np.array([0, 0, 1, 1]), np.zeros(4, int), np.array([0, 2, 0, 2]),
                     np.array([1, 3, 1, 4]), np.array([5]), n_raters=2)
    assert section["alpha_u"]["value"] == direct["value"]


def test_potts_in_seconds(real_dir):
    """Two raters, about 6,300 documents: both measures on the real corpus."""
    corpus = spanagree.read(real_dir / "potts.jsonl")
    from spanagree.measures.unitizing.section import unitizing_section

    section = unitizing_section(corpus, options={"samples": 5})
    assert section["documents"] > 6000
    assert -1 < section["alpha_u"]["value"] < 1 and 0 < section["gamma"]["value"] < 1


def test_html_report_shows_both(small, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "r.html"
    result = run("report", small, "--unitizing", "--bootstrap", "20", "-o", out)
    assert result.exit_code == 0, result.output
    html = out.read_text()
    assert "α_U (unitizing)" in html and "Mathet et al." in html
