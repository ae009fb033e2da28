"""Options named in error messages are spelled as the interface in use spells them: the keyword in
Python, the flag on the command line, and the flag with the config key when a config file is in use
(spanagree.errors.option, spanagree.core.options.as_flag / as_config_key)."""
from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app
from spanagree.core import options
from spanagree.errors import SPELLING, InputError, UsageError, option, spelled

runner = CliRunner()


def test_one_reference_three_spellings():
    error = InputError("name the text with " + option("text_field", "body"), field="to_name")
    assert str(error).endswith("name the text with text_field='body'")
    token = SPELLING.set(options.as_flag)
    try:
        assert str(error).endswith("name the text with --text-field body")
    finally:
        SPELLING.reset(token)
    token = SPELLING.set(options.as_config_key)
    try:
        assert str(error).endswith('name the text with [input] text_field = "body"')
    finally:
        SPELLING.reset(token)
    # the message keeps the mark (it travels from worker processes as text) and is spelled when shown
    assert "\x1e" in error.args[0] and "\x1e" not in str(error)


@pytest.mark.parametrize("name, value, flag", [
    ("offsets", "utf16", "--offsets utf16"),
    ("check_text", "off", "--check-text off"),
    ("per_rater", True, "--per-rater"),
    ("per_rater", False, "--no-per-rater"),
    ("samples", 30, "--unitizing.samples 30"),  # config-only: its dotted override
    ("labelstudio_texts", "my texts.jsonl", "--labelstudio-texts 'my texts.jsonl'"),
])
def test_flags_are_spelled_as_the_command_line_takes_them(name, value, flag):
    assert options.as_flag(name, value) == flag
    assert spelled(option(name, value)) == f"{name}={value!r}"


def test_every_option_named_by_a_message_is_declared():
    # each option() in the package names a declared option (or the convert command's own flags)
    import pathlib

    package = pathlib.Path(spanagree.__file__).parent
    named = set()
    for path in package.rglob("*.py"):
        named |= set(re.findall(r"\boption\('([a-z_]+)'", path.read_text(encoding="utf-8")))
        named |= set(re.findall(r"\bspell_option\('([a-z_]+)'", path.read_text(encoding="utf-8")))
    assert named and named <= set(options.BY_NAME), sorted(named - set(options.BY_NAME))


def test_the_same_error_on_each_interface(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"id": 1, "text": "x", "label": [[0, 1, "X"]]}\n')
    with pytest.raises(UsageError) as raised:
        spanagree.read(path, offsets="bytes")
    assert str(raised.value) == "offsets='bytes': expected one of codepoint, utf16, grapheme, e.g. offsets='codepoint'"
    result = runner.invoke(app, ["score", str(path), "--offsets", "bytes"])
    assert result.exit_code == 2
    assert "--offsets bytes: expected one of codepoint, utf16, grapheme, e.g. --offsets codepoint" in result.output
    config = tmp_path / "read.cfg"
    config.write_text('[input]\noffsets = "bytes"\n')
    result = runner.invoke(app, ["score", str(path), "--config", str(config)])
    assert result.exit_code == 2
    assert '(config: [input] offsets = "bytes")' in result.output and "e.g. --offsets codepoint" in result.output
    # after a command, Python spells keywords again
    with pytest.raises(UsageError, match=r"^offsets='bytes'"):
        spanagree.read(path, offsets="bytes")
    # no stray marks anywhere
    assert "\x1e" not in result.output and "\x1f" not in result.output
