"""Config files, flags and dotted overrides: one vocabulary, a fixed precedence, clear errors."""
from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import spanagree
from spanagree.app import config
from spanagree.app.cli import app
from spanagree.errors import UsageError

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
runner = CliRunner()


def run_json(*args):
    result = runner.invoke(app, ["score", *map(str, args), "--output", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def write_cfg(tmp_path, text, name="my.cfg"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_shipped_configs_use_only_the_vocabulary():
    names = sorted(p.name for p in CONFIGS.glob("*.cfg"))
    assert names == ["gate.cfg", "markup_partial.cfg", "ner_exact.cfg", "ner_overlap.cfg", "tokens_kappa.cfg"]
    for path in CONFIGS.glob("*.cfg"):
        assert path.read_text().startswith("# " + path.name)  # a header saying what it is for
        settings = config.load_settings(path)
        assert set(settings) == set(config.DEFAULTS)
    assert config.load_settings(CONFIGS / "tokens_kappa.cfg")["candidates"]["source"] == "tokens"
    assert config.load_settings(CONFIGS / "tokens_kappa.cfg")["alignment"]["unit"] == "token"


@pytest.mark.parametrize("name,flags", [
    ("ner_exact.cfg", ["--rule", "exact"]),
    ("ner_overlap.cfg", ["--rule", "overlap"]),
    ("markup_partial.cfg", ["--rule", "partial"]),
])
def test_a_config_gives_the_numbers_of_the_same_flags(example_path, name, flags):
    assert run_json(example_path, "--config", CONFIGS / name) == run_json(example_path, *flags)


def test_tokens_kappa_config_scores_candidates(example_path):
    if "candidates" not in inspect.signature(spanagree.score).parameters:
        pytest.skip("score() does not take candidate sets in this version")
    report = run_json(example_path, "--config", CONFIGS / "tokens_kappa.cfg")
    assert report["rule"]["unit"] == "token" and "chance_corrected" in report


def test_precedence_defaults_file_flags_overrides(example_path, tmp_path):
    cfg = write_cfg(tmp_path, '[alignment]\nrule = "partial"\npartial_credit = 0.25\n\n[report]\nbeta = 2.0\n')
    from_file = run_json(example_path, "--config", cfg)
    assert from_file["rule"]["rule"] == "partial" and from_file["rule"]["partial_credit"] == 0.25
    assert from_file["rule"]["labels"] == "strict"  # a default the file did not set
    flag = run_json(example_path, "--config", cfg, "--partial-credit", "0.75")
    assert flag["rule"]["partial_credit"] == 0.75 and flag["rule"]["rule"] == "partial"
    both = run_json(example_path, "--config", cfg, "--partial-credit", "0.75", "--alignment.partial_credit", "0.125")
    assert both["rule"]["partial_credit"] == 0.125
    # an override of a section the file does not have, and the = form
    override = run_json(example_path, "--config", cfg, "--report.reference=news_ner-alice", "--candidates.language", "en")
    assert override["reference"]["rater"] == "news_ner-alice" and override["reference"]["beta"] == 2.0
    # the flag's value equal to its default still counts as given
    assert run_json(example_path, "--config", cfg, "--rule", "exact")["rule"]["rule"] == "exact"


def test_overrides_without_a_config_file(example_path):
    report = run_json(example_path, "--alignment.rule", "overlap", "--alignment.labels", "ignore")
    assert (report["rule"]["rule"], report["rule"]["labels"]) == ("overlap", "ignore")
    assert report == run_json(example_path, "--rule", "overlap", "--labels", "ignore")
    # overrides may come before the paths too
    assert run_json("--alignment.rule", "overlap", "--alignment.labels", "ignore", example_path) == report


def test_output_and_input_sections(example_path, tmp_path):
    cfg = write_cfg(tmp_path, '[report]\noutput = "json"\n\n[input]\nanswers = ["accept", "ignore"]\n')
    result = runner.invoke(app, ["score", str(example_path), "--config", str(cfg)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert "Prodigy answer 'ignore'" not in report["annotations"]["excluded"]
    assert json.loads(runner.invoke(app, ["score", str(example_path), "--answers", "accept,ignore", "--output", "json"]).stdout) == report


@pytest.mark.parametrize("text,message", [
    ("[alignmnt]\nrule = \"exact\"\n", "unknown section [alignmnt]; allowed sections: [input], [alignment], [report], [candidates]"),
    ("[alignment]\nrules = \"exact\"\n", "unknown key 'rules' in [alignment]; allowed keys: rule, labels, unit, min_overlap, partial_credit, proportional"),
    ("[alignment]\nrule = \"fuzzy\"\n", "[alignment] rule: got 'fuzzy'; expected one of exact, overlap, partial, proportional"),
    ("[alignment]\nmin_overlap = 0\n", "[alignment] min_overlap: got 0; expected a whole number >= 1"),
    ("[report]\nbeta = \"big\"\n", "[report] beta: got 'big'; expected a number > 0"),
    ("[candidates]\nstrict_candidates = \"yes\"\n", "[candidates] strict_candidates: got 'yes'; expected true or false"),
    ("[alignment\nrule = 1\n", "cannot be read"),
])
def test_config_file_errors_exit_2_and_say_what_is_allowed(example_path, tmp_path, text, message):
    cfg = write_cfg(tmp_path, text)
    result = runner.invoke(app, ["score", str(example_path), "--config", str(cfg)])
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())


@pytest.mark.parametrize("args,message", [
    (["--alignment.rulez", "exact"], "unknown key 'rulez' in [alignment]; allowed keys: rule, labels"),
    (["--align.rule", "exact"], "unknown section [align]; allowed sections"),
    (["--alignment.partial_credit", "2"], "[alignment] partial_credit: got 2; expected a number in (0, 1]"),
    (["--nonsense"], "no such option: --nonsense"),
    (["--config", "missing.cfg"], "config file 'missing.cfg' not found"),
])
def test_override_errors_exit_2(example_path, args, message):
    result = runner.invoke(app, ["score", str(example_path), *args])
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())


def test_parse_overrides():
    assert config.parse_overrides(["--a.b", "1", "--a.c=[1, 2]", "--a.flag", "--a.d-e", "x y"]) == {
        "a.b": 1, "a.c": [1, 2], "a.flag": True, "a.d_e": "x y"
    }
    assert config.parse_overrides(["--a.b", "null", "--a.c", "true"]) == {"a.b": None, "a.c": True}
    with pytest.raises(UsageError, match="unexpected argument"):
        config.parse_overrides(["value"])


def test_split_arguments():
    assert config.split_arguments(["a.jsonl", "--x.y", "1", "b.jsonl", "--x.z=2", "--x.w"]) == (
        ["a.jsonl", "b.jsonl"], ["--x.y", "1", "--x.z=2", "--x.w"]
    )


def test_interpolation_works_as_in_spacy(tmp_path):
    cfg = write_cfg(tmp_path, '[report]\nbeta = 0.5\n\n[alignment]\nrule = "partial"\npartial_credit = ${report.beta}\n')
    assert config.load_settings(cfg)["alignment"]["partial_credit"] == 0.5
    # an override is seen by the interpolation, as in spaCy
    assert config.load_settings(cfg, overrides={"report.beta": 0.25})["alignment"]["partial_credit"] == 0.25
    broken = write_cfg(tmp_path, '[alignment]\nlabels = ${nowhere.x}\n', name="broken.cfg")
    with pytest.raises(UsageError, match="cannot be read"):
        config.load_settings(broken)


def test_library_entry_point(example_path):
    report = config.score(example_path, CONFIGS / "ner_overlap.cfg", **{"alignment.labels": "ignore"})
    assert report.counts.rule.rule == "overlap" and report.counts.rule.labels == "ignore"
    assert report.to_dict() == spanagree.score(example_path, rule="overlap", labels="ignore").to_dict()


def test_defaults_equal_the_cli_defaults(example_path):
    assert run_json(example_path) == spanagree.score(example_path).to_dict()
    assert config.load_settings() == config.DEFAULTS
