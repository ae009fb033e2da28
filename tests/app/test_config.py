"""Config files, flags and dotted overrides: one vocabulary, a fixed precedence, clear errors."""
from __future__ import annotations

import inspect
import json
import os
import re

import pytest
import click
from click.testing import CliRunner

import spanagree
from spanagree.app import cli, config
from spanagree.app.cli import app
from spanagree.app.flags import command
from spanagree.core import options
from spanagree.errors import UsageError
from locations import ROOT

CONFIGS = ROOT / "configs"
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
    ("[alignment]\nmin_overlap = 0\n", "[alignment] min_overlap: got 0; expected a whole number from 1 to 2**63 - 1"),
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
    (["--config", "."], "config file '.' is a folder; expected a .cfg file"),
])
def test_override_errors_exit_2(example_path, args, message):
    result = runner.invoke(app, ["score", str(example_path), *args])
    assert result.exit_code == 2
    assert message in " ".join(result.stderr.split())


def test_config_from_dev_null_and_from_a_pipe(example_path):
    # /dev/null: no settings; a pipe (a shell's <(...)) is read once, like a file
    plain = runner.invoke(app, ["score", str(example_path), "--output", "json"])
    empty = runner.invoke(app, ["score", str(example_path), "--output", "json", "--config", os.devnull])
    assert empty.exit_code == 0 and empty.stdout == plain.stdout
    read_end, write_end = os.pipe()
    os.write(write_end, b'[alignment]\nrule = "overlap"\n')
    os.close(write_end)
    try:
        piped = runner.invoke(app, ["score", str(example_path), "--output", "json", "--config", f"/dev/fd/{read_end}"])
    finally:
        os.close(read_end)
    assert piped.exit_code == 0, piped.stderr
    assert json.loads(piped.stdout)["rule"]["rule"] == "overlap"


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


@pytest.mark.parametrize("text,line", [
    ('[gate]\non = "point"  # or "lower"\n', 'config file {cfg}:2: \'on = "point"  # or "lower"\''),
    ('[input]\n# a comment of its own is fine\nspans_key = null   # null: doc.ents\n',
     "config file {cfg}:3: 'spans_key = null   # null: doc.ents'"),
    ('[gate]\non = "point"\n\n[gate.min]\nalpha = 0.5\n\n[gate.min.label] # likewise [gate.min.pair]\nPER = 0.7\n',
     "config file {cfg}:7: '[gate.min.label] # likewise [gate.min.pair]'"),
    ('[input]\nanswers = ["accept",\n    "ignore"]  # and ignore\n', "config file {cfg}:3: '\"ignore\"]  # and ignore'"),
])
def test_an_inline_comment_is_refused_naming_the_file_and_line(example_path, tmp_path, text, line):
    """spaCy's configs have no inline comments: confection would read the comment into the value
    ("point"  # or "lower") or fail on the section; the line is named instead."""
    cfg = write_cfg(tmp_path, text)
    expected = f"{line.format(cfg=cfg)}: inline comments are not read in spaCy configs: put the comment on its own line"
    with pytest.raises(UsageError) as caught:
        config.load_settings(cfg)
    assert str(caught.value) == expected
    result = runner.invoke(app, ["score", str(example_path), "--config", str(cfg)])
    assert result.exit_code == 2 and expected in result.stderr


def test_a_hash_in_a_quoted_string_or_a_comment_line_is_read(tmp_path):
    cfg = write_cfg(tmp_path, '# a comment\n[input]\n  ; another\nlayer = "A # B"\nanswers = ["accept #1", "ignore"]\n')
    settings = config.load_settings(cfg)
    assert settings["input"]["layer"] == "A # B" and settings["input"]["answers"] == ["accept #1", "ignore"]


def test_the_configs_shown_in_the_docs_have_no_inline_comment():
    from spanagree.core.validate import inline_comment

    shown = [(path.name, block) for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
             for block in re.findall(r"```ini\n(.*?)```", path.read_text(encoding="utf-8"), re.S)]
    shown += [(path.name, path.read_text(encoding="utf-8")) for path in CONFIGS.glob("*.cfg")]
    assert len(shown) > 5
    for name, block in shown:
        for line in block.splitlines():
            assert line.lstrip().startswith(("#", ";")) or not inline_comment(line), (name, line)


def test_library_entry_point(example_path):
    report = config.score(example_path, CONFIGS / "ner_overlap.cfg", **{"alignment.labels": "ignore"})
    assert report.counts.rule.rule == "overlap" and report.counts.rule.labels == "ignore"
    assert report.to_dict() == spanagree.score(example_path, rule="overlap", labels="ignore").to_dict()


def test_cli_and_api_defaults_give_the_same_report(example_path):
    assert run_json(example_path) == spanagree.score(example_path).to_dict()
    assert config.load_settings() == config.DEFAULTS


# --- the declaration (spanagree.core.options) reaches every route ------------------------------------


def _flags(command, application=app):
    return {p.name: p for p in application.commands[command].params}


def _bad_value(option):
    """A value the option's check refuses."""
    for value in ("bogus!", "", -5, 10**30, 0.5, {"a": 1}, [1]):
        coerced = option.check.coerce(value) if option.check.coerce else value
        if not option.check(coerced):
            return value
    return None


@pytest.mark.parametrize("option", options.OPTIONS, ids=lambda o: o.dotted)
def test_every_declared_option_is_reachable_with_its_default(option):
    # the config: its key, with the default
    if option.config:
        assert config.DEFAULTS[option.section][option.key] == option.default
    else:
        assert option.key not in config.DEFAULTS.get(option.section, {})
    # the command line: the flag on the commands it applies to, with the default and the config key
    for command in ("score", "gate", "report", "disagreements", "alt-test", "compare"):
        found = _flags(command).get(option.name)
        if option.flag is None or command not in option.commands:
            assert found is None, (command, option.name)
            continue
        scalar = isinstance(option.default, (str, int, float, bool)) and not option.multiple  # a list's flag: a string
        given = None if repr(found.default) == "Sentinel.UNSET" else found.default  # click 8.3: no default
        assert option.flag in found.opts and given == (option.default if scalar else None)
        assert (f"(config: {option.dotted})" in found.help) == option.config
    # the API: a keyword of score() with the same default
    parameters = inspect.signature(spanagree.score).parameters
    assert (option.name in parameters) == option.api
    if option.api:
        assert parameters[option.name].default == option.default
    # a bad value: the config and the keyword name the option and say what it allows
    bad = _bad_value(option)
    if bad is not None and option.config:
        with pytest.raises(UsageError, match=re.escape(f"[{option.section}] {option.key}: got ")) as caught:
            config.load_settings(overrides={option.dotted: bad})
        assert option.check.expected in str(caught.value)
    if bad is not None and option.api:
        with pytest.raises(UsageError, match=re.escape(f"{option.name} must be ")):
            options.keywords({option.name: bad}, [option.name])


def test_the_components_take_the_declared_alignment_options():
    spacy = pytest.importorskip("spacy")
    from spanagree.diagnostics.consensus import consensus
    from spanagree.integrations import component

    declared = {o.name: o.default for o in options.OPTIONS if o.component}
    assert set(declared) == {"rule", "labels", "unit", "min_overlap", "partial_credit", "proportional"}
    for name, factory in (("span_agreement", component.make_span_agreement), ("span_consensus", component.make_span_consensus)):
        default_config = spacy.Language.get_factory_meta(name).default_config
        assert {k: default_config[k] for k in declared} == declared
        assert declared.keys() <= inspect.signature(factory).parameters.keys()  # spaCy checks configs against it
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("span_agreement", config={"rule": "partial", "partial_credit": 0.25})
    assert pipe.rule.partial_credit == 0.25 and pipe.unit == declared["unit"]
    with pytest.raises(UsageError, match="span_consensus: partial_credit must be a number in"):
        nlp.add_pipe("span_consensus", config={"partial_credit": 2.0})
    with pytest.raises(UsageError, match="unit must be one of char, token"):
        consensus(spanagree.read(ROOT / "corpora" / "news_ner.jsonl"), min_raters=2, unit="word")


def test_an_option_added_to_the_declaration_shows_up_everywhere(example_path, monkeypatch):
    greeting = options.Option("report", "greeting", "hello", options.choice("hello", "bye"), "A greeting")
    monkeypatch.setattr(options, "OPTIONS", options.OPTIONS + (greeting,))
    monkeypatch.setattr(options, "BY_NAME", {**options.BY_NAME, "greeting": greeting})
    # the config: key, default, check
    assert config.load_settings()["report"]["greeting"] == "hello"
    assert config.load_settings(overrides={"report.greeting": "bye"})["report"]["greeting"] == "bye"
    with pytest.raises(UsageError, match=re.escape("[report] greeting: got 'nope'; expected one of hello, bye")):
        config.load_settings(overrides={"report.greeting": "nope"})
    # the command line: a command made from the declaration has the flag
    greeting.commands = ("score",)
    fresh = click.Group()
    command(fresh, "score", overrides=True)(cli.score_command.callback.__wrapped__)
    fresh.command("other")(lambda: None)
    flag = _flags("score", fresh)["greeting"]
    assert flag.opts == ["--greeting"] and flag.default == "hello" and "(config: report.greeting)" in flag.help
    ok = runner.invoke(fresh, ["score", str(example_path), "--greeting", "bye", "--output", "json"])
    assert ok.exit_code == 0, ok.output
    bad = runner.invoke(fresh, ["score", str(example_path), "--greeting", "nope"])
    assert bad.exit_code == 2 and "--greeting nope: expected one of hello, bye" in bad.stderr


def test_the_keywords_of_score_are_the_declared_options_with_their_defaults():
    """score() and the other entry points spell their keywords in the source (for type
    checkers); they must stay the declaration's."""
    from spanagree.app.api import ScoreOptions

    parameters = inspect.signature(spanagree.score).parameters
    declared = [o.name for o in options.api_options()]
    assert [p for p in parameters if p in declared or p in ("read_options", "client", "progress", "corpus")] == \
        ["corpus", *declared, "read_options", "client", "progress"]
    assert all(parameters[o.name].default == o.default for o in options.api_options())
    assert [p.name for p in parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD] == \
        ["corpus", *(o.name for o in options.api_options() if o.positional)]
    assert set(ScoreOptions.__annotations__) == set(declared) | {"read_options"}


def test_the_options_page_lists_the_declaration():
    page = (ROOT / "docs" / "options.md").read_text(encoding="utf-8")
    assert page.endswith(options.table())  # regenerate: the table below "## Every option" is options.table()
