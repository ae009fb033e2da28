"""Settings for ``spanagree score`` from spaCy-style ``.cfg`` files, flags and dotted overrides.

The command-line options and the config keys are one vocabulary (``--partial-credit`` is
``[alignment] partial_credit``)::

    [input]
    format = "auto"           # auto | spanagree | prodigy | docbin | ...
    answers = ["accept"]      # Prodigy answers that count
    span_keys = null          # DocBin: the span groups that are raters (one file, all raters)
    spans_key = null          # DocBin: the span group of a per-rater file (else doc.ents)

    [alignment]
    rule = "exact"            # exact | overlap | partial | proportional
    labels = "strict"         # strict | ignore
    unit = "char"             # char | token
    min_overlap = 1
    partial_credit = 0.5
    proportional = "jaccard"  # jaccard | dice

    [report]
    reference = null
    beta = 1.0
    output = "table"          # table | json | markdown
    per_rater = false         # add the per-rater view (docs/diagnostics.md)

    [candidates]
    source = null             # null | "tokens" | "documents" | a path to candidate spans
    language = "en"
    strict_candidates = false

    [intervals]
    bootstrap = null          # null, or bootstrap replicates over documents (e.g. 1000)
    ci = 0.95                 # interval level
    seed = 0

    [unitizing]               # Krippendorff's α_U and Mathet et al.'s γ (docs/unitizing.md)
    on = false                # --unitizing
    samples = 30              # γ: random continua for the expected disorder (seed: intervals.seed)
    alpha = 1.0               # γ: weight of the positional dissimilarity
    beta = 1.0                # γ: weight of the categorical dissimilarity

    [engine]
    jobs = null               # worker processes (0: every core); null: every core for large input
    stream = null             # one chunk at a time: memory bounded by the chunk, not the corpus;
                              # null: for large input grouped by document; false: in memory
    engine = "local"          # local | dask
    scheduler = null          # a Dask scheduler address; null: a local cluster of `jobs` workers

    [gate]                    # spanagree gate (see spanagree.outputs.gate for the statistic names)
    on = "point"              # point | lower (the interval's lower bound; needs intervals)
    min_documents = null      # null, or the fewest documents that must be scored

    [gate.min]                # statistic = lowest passing value
    pairwise_mean_psa = 0.8

    [gate.min.label]          # a label's pairwise mean PSA (likewise label_pooled, pair, pair_kappa)
    PER = 0.75

and, in ``[input]``, reader options passed only when set: ``scheme``, ``repair``, ``columns``
(CoNLL), ``relevant_at`` and ``assessor`` (TREC qrels), ``offsets`` (the offset unit of JSON
exports: codepoint, utf16 or grapheme), ``check_text`` (whitespace, exact or off), ``duplicates``
(latest or error), ``text_field`` (Label Studio), ``empty`` and ``rater_field`` (doccano),
``rater`` (Prodigy) and ``discontinuous`` (brat); see docs/formats.md.

Precedence, lowest first: the defaults above, the config file (``--config``), the flags given
on the command line (``--rule overlap``), and dotted overrides (``--alignment.rule overlap``),
which spaCy's CLI also accepts. Values of overrides are read as JSON when they parse
(``0.5``, ``null``, ``["accept", "ignore"]``), else as strings. An unknown section or key, in a
file or an override, is a usage error that lists the allowed ones.

The file is read with confection (spaCy's config system), so ``${section.key}`` interpolation
works as in spaCy configs. Only ``load_settings`` with a file imports confection.
"""
from __future__ import annotations

import copy
import json
import math
from enum import Enum
from pathlib import Path
from typing import Any, Mapping, Sequence

from ..errors import UsageError
from ..core.validate import MAX_REPLICATES, MAX_SAMPLES, shown
from . import api
from ..engine.mode import asked_for_engine

#: Reader options of the annotation tools' exports (docs/formats.md): passed when set, checked
#: by the readers, whose messages name the key.
READER_KEYS = (
    "offsets", "check_text", "duplicates", "text_field", "empty", "rater_field", "rater", "discontinuous", "assessor",
)

DEFAULTS: dict[str, dict[str, Any]] = {
    "input": {
        "format": "auto",
        "answers": ["accept"],
        "span_keys": None,
        "spans_key": None,
        "scheme": None,
        "repair": None,
        "columns": None,
        "relevant_at": None,
        **dict.fromkeys(READER_KEYS),
    },
    "alignment": {
        "rule": "exact",
        "labels": "strict",
        "unit": "char",
        "min_overlap": 1,
        "partial_credit": 0.5,
        "proportional": "jaccard",
    },
    "report": {"reference": None, "beta": 1.0, "output": "table", "per_rater": False},
    "candidates": {"source": None, "language": "en", "strict_candidates": False},
    "intervals": {"bootstrap": None, "ci": 0.95, "seed": 0},
    "engine": {"jobs": None, "stream": None, "engine": "local", "scheduler": None},
    "unitizing": {"on": False, "samples": 30, "alpha": 1.0, "beta": 1.0},
    "gate": {"on": "point", "min_documents": None, "min": {}},
}

#: ``spanagree score`` parameter name -> (section, key).
FLAGS: dict[str, tuple[str, str]] = {
    "format": ("input", "format"),
    "answers": ("input", "answers"),
    "span_keys": ("input", "span_keys"),
    "spans_key": ("input", "spans_key"),
    "rule": ("alignment", "rule"),
    "labels": ("alignment", "labels"),
    "unit": ("alignment", "unit"),
    "min_overlap": ("alignment", "min_overlap"),
    "partial_credit": ("alignment", "partial_credit"),
    "proportional": ("alignment", "proportional"),
    "reference": ("report", "reference"),
    "beta": ("report", "beta"),
    "output": ("report", "output"),
    "per_rater": ("report", "per_rater"),
    "candidates": ("candidates", "source"),
    "language": ("candidates", "language"),
    "strict_candidates": ("candidates", "strict_candidates"),
    "scheme": ("input", "scheme"),
    "repair": ("input", "repair"),
    "columns": ("input", "columns"),
    "relevant_at": ("input", "relevant_at"),
    **{key: ("input", key) for key in READER_KEYS},
    "bootstrap": ("intervals", "bootstrap"),
    "ci": ("intervals", "ci"),
    "seed": ("intervals", "seed"),
    "jobs": ("engine", "jobs"),
    "stream": ("engine", "stream"),
    "engine": ("engine", "engine"),
    "scheduler": ("engine", "scheduler"),
    "unitizing": ("unitizing", "on"),
    "on": ("gate", "on"),
    "min_documents": ("gate", "min_documents"),
}

CHOICES = {
    ("alignment", "rule"): ("exact", "overlap", "partial", "proportional"),
    ("alignment", "labels"): ("strict", "ignore"),
    ("alignment", "unit"): ("char", "token"),
    ("alignment", "proportional"): ("jaccard", "dice"),
    ("report", "output"): ("table", "json", "markdown"),
    ("engine", "engine"): ("local", "dask"),
    ("gate", "on"): ("point", "lower"),
}


def parse_overrides(args: Sequence[str]) -> dict[str, Any]:
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
            raise UsageError(f"no such option: {word}")
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
    settings = copy.deepcopy(DEFAULTS)
    applied: set[str] = set()
    if path is not None:
        from_file, applied = _read_file(Path(path), overrides)
        for section, values in from_file.items():
            settings[section].update(values)
    for name, value in (flags or {}).items():
        if name not in FLAGS:
            raise UsageError(f"unknown flag {name!r}; flags with a config key: {', '.join(FLAGS)}")
        section, key = FLAGS[name]
        if f"{section}.{key}" not in overrides:
            settings[section][key] = _flag_value(name, value)
    for dotted, value in overrides.items():
        if dotted not in applied:
            section, key = _split(dotted)
            settings[section][key] = value
    return _validate(settings)


def read_options(settings: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Reader keyword arguments for :func:`spanagree.read` (only those that differ from the
    readers' own defaults, so that formats without the option are not handed it)."""
    section = settings["input"]
    options: dict[str, Any] = {}
    if list(section["answers"]) != ["accept"]:
        options["answers"] = tuple(section["answers"])
    for key in ("span_keys", "spans_key", "scheme", "repair", "columns", "relevant_at", *READER_KEYS):
        if section[key] is not None:
            options[key] = section[key]
    return options


def score_options(settings: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Keyword arguments for :func:`spanagree.score`.

    The ``[candidates]`` keys are passed only when ``source`` is set.
    """
    options = dict(settings["alignment"])
    options["reference"] = settings["report"]["reference"]
    options["beta"] = settings["report"]["beta"]
    if settings["report"].get("per_rater"):
        options["per_rater"] = True
    candidates = settings["candidates"]
    if candidates["source"] is not None:
        options["candidates"] = candidates["source"]
        options["language"] = candidates["language"]
        options["strict_candidates"] = candidates["strict_candidates"]
        options["ci"] = settings["intervals"]["ci"]  # also the level of the family's analytic intervals
    intervals = settings["intervals"]
    if intervals["bootstrap"] is not None:
        options.update(bootstrap=intervals["bootstrap"], ci=intervals["ci"], seed=intervals["seed"])
    unitizing = settings["unitizing"]
    if unitizing["on"]:
        options.update(unitizing={k: unitizing[k] for k in ("samples", "alpha", "beta")}, seed=intervals["seed"])
    return options


def uses_engine(settings: Mapping[str, Mapping[str, Any]]) -> bool:
    """True when ``[engine]`` asks for workers, streaming or Dask instead of the in-memory path."""
    engine = settings["engine"]
    return asked_for_engine(engine["jobs"], engine["stream"], engine["engine"])


def score_with_settings(paths, settings: Mapping[str, Mapping[str, Any]], *, progress=None, needs_texts: bool = False):
    """Read ``paths`` and score them as ``settings`` say; the :class:`~spanagree.AgreementReport`.

    ``needs_texts``: the caller reads document texts and spans from the report (the HTML report,
    the disagreements), which the parallel and streaming engines do not keep.
    """

    if uses_engine(settings):
        if needs_texts:
            raise UsageError(
                "this command shows document texts and spans, which --jobs, --stream and --engine do not "
                "keep (they hold counts only); run it without them"
            )
    engine = settings["engine"]
    return api.score(
        paths, format=settings["input"]["format"], read_options=read_options(settings), progress=progress,
        jobs=engine["jobs"], stream=False if needs_texts else engine["stream"], engine=engine["engine"],
        client=engine["scheduler"], **score_options(settings),
    )


def score(paths, config: str | Path | None = None, **overrides):
    """Score ``paths`` with a config file and dotted overrides (``**{"alignment.rule": "overlap"}``)."""
    return score_with_settings(paths, load_settings(config, overrides=overrides))


# --- helpers ----------------------------------------------------------------------------------------


def _read_file(path: Path, overrides: Mapping[str, Any]) -> tuple[dict, set[str]]:
    """The file's sections as plain dicts, with the overrides of the sections it has applied."""
    from confection import Config

    if not path.is_file():
        raise UsageError(f"config file {str(path)!r} not found")
    try:
        raw = Config().from_disk(path, interpolate=False)
        sections = set(raw)
        for section, values in raw.items():
            _check_section(section, values, path)
        applied = {k for k in overrides if _split(k)[0] in sections}
        loaded = Config().from_disk(path, overrides={k: overrides[k] for k in applied})
    except UsageError:
        raise
    except Exception as err:  # confection's validation errors and configparser's own
        raise UsageError(f"config file {path} cannot be read: {_one_line(err)}") from None
    return {section: dict(values) for section, values in loaded.items()}, applied


def _check_section(section: str, values: Any, path: Path) -> None:
    source = f"config file {path}"
    if section not in DEFAULTS:
        raise UsageError(f"{source}: unknown section [{section}]; allowed sections: {', '.join(f'[{s}]' for s in DEFAULTS)}")
    if not isinstance(values, Mapping):
        raise UsageError(f"{source}: [{section}] must be a section of keys")
    for key in values:
        _check_key(section, key, source=source)


def _check_key(section: str, key: str, *, source: str) -> None:
    if section not in DEFAULTS:
        raise UsageError(f"{source}: unknown section [{section}]; allowed sections: {', '.join(f'[{s}]' for s in DEFAULTS)}")
    if key not in DEFAULTS[section]:
        raise UsageError(f"{source}: unknown key {key!r} in [{section}]; allowed keys: {', '.join(DEFAULTS[section])}")


def _split(dotted: str) -> tuple[str, str]:
    section, _, key = dotted.partition(".")
    if not key or "." in key:
        raise UsageError(f"override --{dotted}: expected --section.key; sections: {', '.join(DEFAULTS)}")
    return section, key


def _flag_value(name: str, value: Any) -> Any:
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, Path):
        value = str(value)
    if name in ("answers", "span_keys") and isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    return value


def _validate(settings: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Check every value's type and choices; the message names the config key."""

    def fail(section: str, key: str, expected: str) -> None:
        raise UsageError(f"[{section}] {key}: got {shown(settings[section][key])}; expected {expected}")

    for (section, key), allowed in CHOICES.items():
        if settings[section][key] not in allowed:
            fail(section, key, "one of " + ", ".join(allowed))
    inp, align, report, cand = (settings[s] for s in ("input", "alignment", "report", "candidates"))
    if not isinstance(inp["format"], str) or not inp["format"]:
        fail("input", "format", "a format name or 'auto'")
    if isinstance(inp["answers"], str):
        inp["answers"] = [a.strip() for a in inp["answers"].split(",") if a.strip()]
    if not isinstance(inp["answers"], list) or not inp["answers"] or not all(isinstance(a, str) for a in inp["answers"]):
        fail("input", "answers", 'a list of answers, e.g. ["accept"]')
    if inp["span_keys"] is not None and not (
        isinstance(inp["span_keys"], list) and inp["span_keys"] and all(isinstance(k, str) and k for k in inp["span_keys"])
    ):
        fail("input", "span_keys", "null or a list of span group keys")
    if inp["spans_key"] is not None and not (isinstance(inp["spans_key"], str) and inp["spans_key"]):
        fail("input", "spans_key", "null or a span group key")
    if type(align["min_overlap"]) is not int or align["min_overlap"] < 1:
        fail("alignment", "min_overlap", "a whole number >= 1")
    if not _number(align["partial_credit"]) or not 0 < align["partial_credit"] <= 1:
        fail("alignment", "partial_credit", "a number in (0, 1]")
    if report["reference"] is not None and not isinstance(report["reference"], (str, int)):
        fail("report", "reference", "null or a rater's name")
    if report["reference"] is not None:
        report["reference"] = str(report["reference"])
    if not _number(report["beta"]) or report["beta"] <= 0:
        fail("report", "beta", "a number > 0")
    if not isinstance(report.get("per_rater", False), bool):
        fail("report", "per_rater", "true or false")
    if cand["source"] is not None and not (isinstance(cand["source"], str) and cand["source"]):
        fail("candidates", "source", 'null, "tokens", "documents" or a path')
    if not isinstance(cand["language"], str) or not cand["language"]:
        fail("candidates", "language", "a spaCy language code")
    if not isinstance(cand["strict_candidates"], bool):
        fail("candidates", "strict_candidates", "true or false")
    for key in ("scheme", "repair"):
        if inp[key] is not None and not (isinstance(inp[key], str) and inp[key]):
            fail("input", key, "null or a name")
    if isinstance(inp["columns"], str):
        inp["columns"] = [c.strip() for c in inp["columns"].split(",") if c.strip()]
    if inp["columns"] is not None and not (isinstance(inp["columns"], list) and all(isinstance(c, str) for c in inp["columns"])):
        fail("input", "columns", "null or a list of rater names")
    if inp["relevant_at"] is not None and type(inp["relevant_at"]) is not int:
        fail("input", "relevant_at", "null or a whole number")
    for key in READER_KEYS:
        allowed = (str, bool) if key == "check_text" else str
        if inp[key] is not None and not (isinstance(inp[key], allowed) and inp[key] != ""):
            fail("input", key, "null or a name (see docs/formats.md)")
    iv = settings["intervals"]
    if iv["bootstrap"] is not None and (type(iv["bootstrap"]) is not int or not 2 <= iv["bootstrap"] <= MAX_REPLICATES):
        fail("intervals", "bootstrap", f"null or a whole number from 2 to {MAX_REPLICATES:,} (docs/robustness.md)")
    if not _number(iv["ci"]) or not 0 < iv["ci"] < 1:
        fail("intervals", "ci", "a number in (0, 1)")
    if type(iv["seed"]) is not int or not 0 <= iv["seed"] < 2**64:
        fail("intervals", "seed", "a whole number from 0 to 2**64 - 1")
    engine = settings["engine"]
    if engine["jobs"] is not None and (type(engine["jobs"]) is not int or engine["jobs"] < 0):
        fail("engine", "jobs", "null or a whole number >= 0 (0: every core)")
    if engine["stream"] is not None and not isinstance(engine["stream"], bool):
        fail("engine", "stream", "null, true or false")
    if engine["scheduler"] is not None and not (isinstance(engine["scheduler"], str) and engine["scheduler"]):
        fail("engine", "scheduler", "null or a Dask scheduler address")
    un = settings["unitizing"]
    if not isinstance(un["on"], bool):
        fail("unitizing", "on", "true or false")
    if type(un["samples"]) is not int or not 2 <= un["samples"] <= MAX_SAMPLES:
        fail("unitizing", "samples", f"a whole number from 2 to {MAX_SAMPLES:,} (docs/robustness.md)")
    for key in ("alpha", "beta"):
        if not _number(un[key]) or un[key] < 0:
            fail("unitizing", key, "a number >= 0")
    _validate_gate(settings["gate"])
    return settings


def _validate_gate(gate: dict[str, Any]) -> None:
    """``[gate]``: the bounds are numbers, by statistic (``[gate.min]``) or, for statistics of
    one label or pair, by its name in a sub-table (``[gate.min.label]``). The statistic names
    themselves are checked by :mod:`spanagree.outputs.gate`."""
    if gate["min_documents"] is not None and (type(gate["min_documents"]) is not int or gate["min_documents"] < 0):
        raise UsageError(f"[gate] min_documents: got {gate['min_documents']!r}; expected null or a whole number >= 0")
    bounds = gate["min"]
    if not isinstance(bounds, Mapping):
        raise UsageError(f"[gate] min: got {bounds!r}; expected a table of statistic = bound ([gate.min])")
    for name, value in bounds.items():
        inner = value.items() if isinstance(value, Mapping) else [(None, value)]
        for key, bound in inner:
            if not _number(bound):
                where = f"[gate.min.{name}] {key}" if key is not None else f"[gate.min] {name}"
                raise UsageError(f"{where}: got {bound!r}; expected a number")
    gate["min"] = {k: dict(v) if isinstance(v, Mapping) else v for k, v in bounds.items()}


def _number(value: Any) -> bool:
    """A finite int or float (not a bool, not nan or inf)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _one_line(err: Exception) -> str:
    return " ".join(str(err).split())
