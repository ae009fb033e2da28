"""Settings for ``spanagree score`` from spaCy-style ``.cfg`` files, flags and dotted overrides.

The command-line options and the config keys are one vocabulary (``--partial-credit`` is
``[alignment] partial_credit``): every section and key, with its flag, default and allowed values,
is declared once in :mod:`spanagree.core.options` and listed in docs/options.md. Besides those
keys, ``spanagree gate`` reads a table of bounds, each statistic's lowest passing value, and a
label's pairwise mean PSA in a sub-table (likewise label_pooled, pair, pair_kappa)::

    [gate.min]
    pairwise_mean_psa = 0.8

    [gate.min.label]
    PER = 0.75

and, for names a config key cannot hold (``:`` or ``=`` in a label), ``[gate] checks``: a list
written as ``--min`` takes it, ``checks = ["label:B:LOC=0.7"]``.

Precedence, lowest first: the declared defaults, the config file (``--config``), the flags given
on the command line (``--rule overlap``), and dotted overrides (``--alignment.rule overlap``),
which spaCy's CLI also accepts. Values of overrides are read as JSON when they parse
(``0.5``, ``null``, ``["accept", "ignore"]``), else as strings. An unknown section or key, in a
file or an override, is a usage error that lists the allowed ones.

The file is read with confection (spaCy's config system), so ``${section.key}`` interpolation
works as in spaCy configs; as there, comments go on lines of their own (one after a value or a
section header is refused, naming the line). Only ``load_settings`` with a file imports confection.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import UsageError, did_you_mean
from ..core import options
from ..core.validate import INLINE_COMMENT, inline_comment

#: Every section with its keys' defaults, from the declaration (:mod:`spanagree.core.options`).
DEFAULTS: dict[str, dict[str, Any]] = options.sections()

#: Command-line parameter name -> (section, key), for every option that is a flag.
FLAGS: dict[str, tuple[str, str]] = {
    o.name: (o.section, o.key) for o in options.OPTIONS if o.config and o.flag is not None
}



def parse_overrides(args: Sequence[str], flags: Sequence[str] = ()) -> dict[str, Any]:
    """Dotted overrides from command-line words: ``--section.key value`` or ``--section.key=value``.

    A name without a value (followed by another option, or last) means ``true``. Dashes in the
    key are read as underscores (``--alignment.partial-credit``).

    >>> parse_overrides(["--alignment.partial_credit", "0.25", "--report.reference=null"])
    {'alignment.partial_credit': 0.25, 'report.reference': None}
    """
    words = list(args)
    result: dict[str, Any] = {}
    while words:
        word = words.pop(0)
        if not word.startswith("--"):
            raise UsageError(f"unexpected argument {word!r}; config overrides look like --section.key VALUE")
        name = word[2:]
        if "=" in name:
            name, raw = name.split("=", 1)
        elif words and not words[0].startswith("--"):
            raw = words.pop(0)
        else:
            raw = "true"
        if "." not in name:
            raise UsageError(f"no such option: {word.partition('=')[0]}{did_you_mean(word.partition('=')[0], flags)}")
        section, _, key = name.partition(".")
        result[f"{section}.{key.replace('-', '_')}"] = _value(raw)
    return result


def split_arguments(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """Separate input paths from override words in what the command line left over.

    The paths argument of ``score`` takes any number of words, so it also collects the dotted
    overrides (and unknown options): an option-like word and the value after it are overrides.
    """
    paths: list[str] = []
    overrides: list[str] = []
    words = list(words)
    while words:
        word = words.pop(0)
        if word.startswith("-") and len(word) > 1:
            overrides.append(word)
            if "=" not in word and words and not words[0].startswith("-"):
                overrides.append(words.pop(0))
        else:
            paths.append(word)
    return paths, overrides


def load_settings(
    path: str | Path | None = None,
    *,
    flags: Mapping[str, Any] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """Every setting, by section: defaults, then the file, then ``flags``, then ``overrides``.

    Parameters
    ----------
    path : a ``.cfg`` file, or None.
    flags : command-line flags that were given, by parameter name (see :data:`FLAGS`).
    overrides : dotted overrides, ``{"alignment.partial_credit": 0.25}``.
    """
    overrides = dict(overrides or {})
    for dotted in overrides:
        _check_key(*_split(dotted), source="override --" + dotted)
    settings = options.sections()
    applied: set[str] = set()
    if path is not None:
        from_file, applied = _read_file(Path(path), overrides)
        for section, values in from_file.items():
            settings[section].update(values)
    for name, value in (flags or {}).items():
        option = options.BY_NAME.get(name)
        if option is None or not option.config or option.flag is None:
            raise UsageError(f"unknown flag {name!r}; flags with a config key: {', '.join(FLAGS)}")
        section, key = option.section, option.key
        if f"{section}.{key}" not in overrides:
            settings[section][key] = option.value(_flag_value(name, value), options.on_command_line)
    for dotted, value in overrides.items():
        if dotted not in applied:
            section, key = _split(dotted)
            settings[section][key] = value
    return _validate(settings)


def score(paths, config: str | Path | None = None, **overrides):
    """Score ``paths`` with a config file and dotted overrides (``**{"alignment.rule": "overlap"}``)."""
    from ..request import Request, run  # what it reads and scores with, imported when it runs

    return run(Request.from_settings(paths, load_settings(config, overrides=overrides)))


# --- helpers ----------------------------------------------------------------------------------------


def _read_file(path: Path, overrides: Mapping[str, Any]) -> tuple[dict, set[str]]:
    """The file's sections as plain dicts, with the overrides of the sections it has applied."""
    from confection import Config

    try:  # read once: a pipe (``--config <(...)``) or /dev/null (no settings) is read like a file
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"config file {str(path)!r} not found") from None
    except IsADirectoryError:
        raise UsageError(f"config file {str(path)!r} is a folder; expected a .cfg file") from None
    except UnicodeDecodeError as err:
        raise UsageError(f"config file {str(path)!r} is not UTF-8 text (byte {err.start}); expected a .cfg file") from None
    except OSError as err:  # a name the system refuses (too long, ...), no permission
        raise UsageError(f"config file {str(path)!r} cannot be read: {err.strerror or err}") from None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.lstrip().startswith(("#", ";")) and inline_comment(line):
            raise UsageError(f"config file {path}:{number}: {line.strip()!r}: {INLINE_COMMENT}")
    try:
        raw = Config().from_str(text, interpolate=False)
        sections = set(raw)
        for section, values in raw.items():
            _check_section(section, values, path)
        applied = {k for k in overrides if _split(k)[0] in sections}
        loaded = Config().from_str(text, overrides={k: overrides[k] for k in applied})
    except UsageError:
        raise
    except Exception as err:  # confection's validation errors and configparser's own
        raise UsageError(f"config file {path} cannot be read: {_one_line(err)}") from None
    return {section: dict(values) for section, values in loaded.items()}, applied


def _check_section(section: str, values: Any, path: Path) -> None:
    source = f"config file {path}"
    _check_key(section, None, source=source)
    if not isinstance(values, Mapping):
        raise UsageError(f"{source}: [{section}] must be a section of keys")
    for key in values:
        _check_key(section, key, source=source)


def _check_key(section: str, key: str | None, *, source: str) -> None:
    """A declared section and (unless None) key, or a usage error listing the allowed ones."""
    declared = options.sections()
    if section not in declared:
        raise UsageError(f"{source}: unknown section [{section}]; allowed sections: {', '.join(f'[{s}]' for s in declared)}")
    if key is not None and key not in declared[section]:
        raise UsageError(f"{source}: unknown key {key!r} in [{section}]; allowed keys: {', '.join(declared[section])}")


def _split(dotted: str) -> tuple[str, str]:
    section, _, key = dotted.partition(".")
    if not key or "." in key:
        raise UsageError(f"override --{dotted}: expected --section.key; sections: {', '.join(options.sections())}")
    return section, key


def _flag_value(name: str, value: Any) -> Any:
    return str(value) if isinstance(value, Path) else value


def _validate(settings: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Check every value against its declaration; the message names the config key and what it
    allows."""
    for option in options.OPTIONS:
        if option.config:
            settings[option.section][option.key] = option.value(settings[option.section][option.key], options.in_config)
    _validate_gate(settings["gate"])
    return settings


def _validate_gate(gate: dict[str, Any]) -> None:
    """``[gate]``: the bounds are numbers, by statistic (``[gate.min]``) or, for statistics of
    one label or pair, by its name in a sub-table (``[gate.min.label]``). The statistic names
    themselves are checked by :mod:`spanagree.outputs.gate`."""
    bounds = gate["min"]
    for name, value in bounds.items():
        inner = value.items() if isinstance(value, Mapping) else [(None, value)]
        for key, bound in inner:
            if not options.is_number(bound):
                where = f"[gate.min.{name}] {key}" if key is not None else f"[gate.min] {name}"
                raise UsageError(f"{where}: got {bound!r}; expected a number")
    gate["min"] = {k: dict(v) if isinstance(v, Mapping) else v for k, v in bounds.items()}


def _value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _one_line(err: Exception) -> str:
    return " ".join(str(err).split())
