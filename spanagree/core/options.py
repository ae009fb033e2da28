"""Every option of reading, aligning, scoring, intervals and engines, declared once.

An :class:`Option` says its config place (``[section] key``), its parameter name (the keyword of
:func:`spanagree.score` and the name of the command-line flag, ``partial_credit`` is
``--partial-credit``), its default, what values it allows, its help text, and where it applies.
Everything else is derived from :data:`OPTIONS`:

- the config sections and keys, their defaults and their checks (``spanagree.app.config``);
- the flags of ``spanagree score`` and of the commands that score (``spanagree.app.cli``);
- the keyword arguments of :func:`spanagree.score`, their defaults and their checks
  (``spanagree.app.api``);
- the default configs of the spaCy components (``spanagree.integrations.component``) and of
  :func:`spanagree.diagnostics.consensus.consensus`, and the defaults of
  :class:`~spanagree.core.align.AlignmentRule`.

A value is checked by its option's :class:`Check`, once, where it enters (a config file or flag,
a keyword argument, a component config); the message names the option and what it allows. The
definitions behind the options are in docs/alignment.md, docs/intervals.md,
docs/chance-corrected.md, docs/unitizing.md and docs/formats.md.
"""
from __future__ import annotations

import json
import math
import numbers
import os
import shlex
from typing import Any, Callable, Iterable, Mapping

from ..errors import UsageError, did_you_mean
from .validate import MAX_REPLICATES, MAX_SAMPLES, MAX_SEED, MAX_WHOLE, shown

#: The CLI commands that read and score as ``score`` does (they share its flags and config).
SCORING = ("score", "gate", "report", "disagreements", "alt-test", "compare", "plan")
#: The commands that align raters' spans: every alignment option is a flag of each.
ALIGNING = SCORING + ("consensus", "raters", "next")
#: The commands that read annotations: every reader option and ``--config`` is a flag of each.
READING = ALIGNING + ("convert",)

#: The sections of a command's ``--help``, in order: what to read, how to align, what to compute,
#: what to write, how to run; the per-format reader options last, out of the way.
GROUPS = ("reading", "alignment", "statistics", "output", "running", "format")


# --- checks -----------------------------------------------------------------------------------------


class Check:
    """What values an option allows: ``check(value)`` is True for them; ``expected`` says which in
    config words (``null``, ``true or false``); ``coerce`` (optional) turns an accepted spelling
    into the stored value (a comma-separated string into a list). (Plain classes here, not
    dataclasses: this module is on the path of ``import spanagree``.)"""

    __slots__ = ("test", "expected", "choices", "coerce", "nullable")

    def __init__(self, test: Callable[[Any], bool], expected: str, choices: tuple[str, ...] | None = None,
                 coerce: Callable[[Any], Any] | None = None, nullable: bool = False) -> None:
        self.test, self.expected, self.choices, self.coerce, self.nullable = test, expected, choices, coerce, nullable

    def __call__(self, value: Any) -> bool:
        return (self.nullable and value is None) or self.test(value)

    def __repr__(self) -> str:
        return f"Check({self.expected!r})"


def is_number(value: Any) -> bool:
    """A finite int or float (not a bool, not nan or inf)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or type(value).__name__ == "bool_":
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return False


def choice(*values: str) -> Check:
    """One of ``values``."""
    return Check(lambda v: isinstance(v, str) and v in values, "one of " + ", ".join(values), choices=values)


def whole(low: int, high: int | None = None, *, nullable: bool = False, note: str = "") -> Check:
    """An int (not a bool) from ``low`` to ``high`` (inclusive; None: the 64-bit bound, 2**63 - 1)."""
    span = f"from {low:,} to {high:,}" if high is not None else f"from {low:,} to 2**63 - 1"
    if high == MAX_SEED:
        span = f"from {low} to 2**64 - 1"
    top = MAX_WHOLE if high is None else high
    return Check(
        lambda v: type(v) is int and low <= v <= top,
        ("null or " if nullable else "") + f"a whole number {span}{note}",
        nullable=nullable,
    )


def number(low: float, high: float | None = None, *, closed_high: bool = False, closed_low: bool = False, text: str) -> Check:
    """A finite number between ``low`` and ``high`` (open ends unless ``closed_*``)."""

    def test(v: Any) -> bool:
        if not is_number(v):
            return False
        above = v >= low if closed_low else v > low
        below = high is None or (v <= high if closed_high else v < high)
        return above and below

    return Check(test, text)


FLAG = Check(lambda v: isinstance(v, bool), "true or false")
#: A command's own flag: its type is click's to convert, its range the function's to check.
ANY = Check(lambda v: True, "any value")


def name(what: str, *, nullable: bool = True, also: tuple[type, ...] = ()) -> Check:
    """A non-empty string (or a value of a type in ``also``)."""
    return Check(
        lambda v: (isinstance(v, str) and v != "") or (bool(also) and isinstance(v, also) and not isinstance(v, str)),
        ("null or " if nullable else "") + what,
        nullable=nullable,
    )


def _split_commas(value: Any) -> Any:
    # an empty part ("a,,b", "a,") is kept, so that the check refuses it rather than drop a name
    if not isinstance(value, str):
        return value
    return [part.strip() for part in value.split(",")] if value.strip() else []


def names(what: str, *, nullable: bool, empty: bool = False) -> Check:
    """A list of non-empty strings; a comma-separated string is read as one."""
    return Check(
        lambda v: isinstance(v, (list, tuple)) and (empty or bool(v)) and all(isinstance(x, str) and x for x in v),
        ("null or " if nullable else "") + what,
        coerce=_split_commas,
        nullable=nullable,
    )


# --- the declaration --------------------------------------------------------------------------------

#: The ``--help`` section of an option, by its config section (an option may name another).
_SECTION_GROUP = {"input": "format", "alignment": "alignment", "engine": "running", "command": "output"}


class Option:
    """One option. ``section``/``key``: its config place; ``name``: its parameter and flag name
    (default ``key``); ``flag``: the command-line flag (``""``: ``--`` + name with dashes; None:
    config only); ``commands``: the CLI commands that have the flag; ``api``: a keyword of
    :func:`spanagree.score`; ``component``: a key of the spaCy components' configs and a keyword
    of the consensus; ``positional``: may be given by position to :func:`spanagree.score`;
    ``config``: has a config key; ``cli_type``: the flag's type when it is not the default's."""

    __slots__ = ("section", "key", "default", "check", "help", "name", "flag", "short", "commands", "api",
                 "component", "positional", "config", "cli_type", "group", "multiple")

    def __init__(self, section: str, key: str, default: Any, check: Check, help: str, *, name: str = "",
                 flag: str | None = "", short: str | None = None, commands: tuple[str, ...] = SCORING,
                 api: bool = True, component: bool = False, positional: bool = False, config: bool = True,
                 cli_type: Any = None, group: str = "", multiple: bool = False) -> None:
        self.section, self.key, self.default, self.check, self.help = section, key, default, check, help
        self.name = name or key
        self.flag = "--" + self.name.replace("_", "-") if flag == "" else flag
        self.short, self.commands, self.api, self.component = short, commands, api, component
        self.positional, self.config, self.cli_type = positional, config, cli_type
        self.group = group or _SECTION_GROUP.get(section, "statistics")
        self.multiple = multiple

    def __repr__(self) -> str:
        return f"Option({self.dotted!r}, default={self.default!r})"

    @property
    def dotted(self) -> str:
        return f"{self.section}.{self.key}"

    @property
    def choices(self) -> tuple[str, ...] | None:
        return self.check.choices

    def value(self, value: Any, where: Callable[["Option", Any], str]) -> Any:
        """``value`` checked (and coerced); else a UsageError whose text ``where`` words."""
        if self.check.coerce is not None:
            value = self.check.coerce(value)
        if not self.check(value):
            raise UsageError(where(self, value))
        return value


def in_config(option: Option, value: Any) -> str:
    """The message for a bad value from a config file or a dotted override."""
    return f"[{option.section}] {option.key}: got {shown(value)}; expected {option.check.expected}{_close(option, value)}"


def on_command_line(option: Option, value: Any) -> str:
    """The message for a bad value of a flag, as it was typed."""
    return f"{option.flag} {_word(value)}: expected {option.check.expected}{_close(option, value)}"


def _close(option: Option, value: Any) -> str:
    """A "did you mean" for a mistyped choice."""
    return did_you_mean(value, option.choices) if option.choices and isinstance(value, str) else ""


def as_keyword(option: Option, value: Any) -> str:
    """The message for a bad keyword argument (Python spellings of null and true/false)."""
    expected = option.check.expected.replace("null", "None").replace("true or false", "True or False")
    return f"{option.name} must be {expected}, got {shown(value)}"


#: Reader options that are passed to the reader only when set (docs/formats.md).
_TOOL = dict(api=False, check=name("a name (see docs/formats.md)"), commands=READING)

OPTIONS: tuple[Option, ...] = (
    # [input]: what to read and how
    Option("input", "format", "auto", name("a format name or 'auto'", nullable=False),
           "Input format: auto, or one of {formats}", short="-f", commands=READING, group="reading"),
    Option("input", "answers", ["accept"], names('a list of answers, e.g. ["accept"]', nullable=False),
           "Prodigy answers that count, comma-separated (default accept)", api=False, cli_type=str,
           commands=READING, group="reading"),
    Option("input", "span_keys", None, names("a list of span group keys", nullable=True),
           "DocBin span groups that are raters, comma-separated", api=False, cli_type=str, commands=READING),
    Option("input", "spans_key", None, name("a span group key"),
           "Span group of per-rater DocBins (default doc.ents)", api=False, commands=READING),
    Option("input", "scheme", None, name("a name"),
           "CoNLL tag scheme: IOB1, IOB2, IOE1, IOE2, IOBES, BILOU (default auto)", api=False, commands=READING),
    Option("input", "repair", None, name("a name"), "CoNLL ill-formed tag sequences: begin, drop or error", api=False,
           commands=READING),
    Option("input", "columns", None, names("a list of rater names", nullable=True, empty=True),
           "CoNLL: one file whose last N columns are these raters' tags, e.g. ann1,ann2", api=False, cli_type=str,
           commands=READING),
    Option("input", "relevant_at", None, Check(lambda v: type(v) is int and abs(v) <= MAX_WHOLE, "null or a whole number (at most 2**63 - 1 either way)", nullable=True),
           "TREC qrels: lowest grade that counts as relevant", api=False, cli_type=int, commands=READING),
    Option("input", "offsets", None, help="Offset unit of the export: codepoint, utf16 or grapheme (default per tool; docs/formats.md)", **_TOOL),
    Option("input", "check_text", None, api=False, check=name("a name (see docs/formats.md)", also=(bool,)), commands=READING,
           help="Label Studio, brat: check region texts: whitespace (default), exact or off", cli_type=str),
    Option("input", "duplicates", None, help="Label Studio, Prodigy: a rater's repeated annotation: latest (default) or error", **_TOOL),
    Option("input", "text_field", None, help="Label Studio: the data field holding the text", **_TOOL),
    Option("input", "labelstudio_config", None, help="Label Studio: the project's labeling config (XML file), "
           "mapping each region's to_name to its data field", api=False, check=name("a path", also=(os.PathLike,)),
           commands=READING),
    Option("input", "labelstudio_texts", None, help="Label Studio valueType=\"url\" projects: the texts, a JSONL "
           "file of {url or id, text} or a folder of files named by the URL's last part or TASKID.txt", api=False,
           check=name("a path", also=(os.PathLike,)), commands=READING),
    Option("input", "empty", None, help="doccano: an example with no span is missing (default) or nothing", **_TOOL),
    Option("input", "rater_field", None, help="doccano: a field naming the rater (default: the file's name)", **_TOOL),
    Option("input", "rater", None, help="Prodigy: rater from annotator (default), session, prefix (session without its timestamp) or file", **_TOOL),
    Option("input", "discontinuous", None, help="brat, BioC: a discontinuous entity as its covering span (default) or its fragments", **_TOOL),
    Option("input", "layer", None, help="WebAnno TSV, UIMA CAS, INCEpTION: the span layer(s) read, comma-separated (default: the one custom layer, else named entities); BioC: the type infons read", **_TOOL),
    Option("input", "feature", None, help="WebAnno TSV, UIMA CAS, INCEpTION: the feature holding the label (default: value, else the layer's only feature); BioC: the infon (default type)", **_TOOL),
    Option("input", "typesystem", None, help="UIMA CAS XMI: the type system file(s), comma-separated, merged (default: TypeSystem.xml beside each file)", **_TOOL),
    Option("input", "states", None, help="INCEpTION export: the annotation states read, comma-separated (default FINISHED; also IN_PROGRESS, NEW, IGNORE)", **_TOOL),
    Option("input", "layout", None, help="WebAnno TSV, UIMA CAS: folders are annotators (annotator-folders), documents (document-folders), or auto", **_TOOL),
    Option("input", "assessor", None, help="TREC qrels: the assessor from the file (file), column 2 (column) or auto", **_TOOL),
    # [alignment]: which spans match (docs/alignment.md)
    Option("alignment", "rule", "exact", choice("exact", "overlap", "partial", "proportional"),
           "Which spans match, see docs/alignment.md", short="-r", component=True, positional=True, commands=ALIGNING),
    Option("alignment", "labels", "strict", choice("strict", "ignore"),
           "strict: labels must match; ignore: positions only", component=True, positional=True, commands=ALIGNING),
    Option("alignment", "unit", "char", choice("char", "token"),
           "Measure offsets in characters or tokens", component=True, positional=True, commands=ALIGNING),
    Option("alignment", "min_overlap", 1, whole(1), "Overlap rule: units two spans must share", component=True,
           commands=ALIGNING),
    Option("alignment", "partial_credit", 0.5, number(0, 1, closed_high=True, text="a number in (0, 1]"),
           "Partial rule: credit of an inexact match", component=True, commands=ALIGNING),
    Option("alignment", "proportional", "jaccard", choice("jaccard", "dice"),
           "Proportional rule: jaccard or dice", component=True, commands=ALIGNING),
    Option("alignment", "search", "sweep", choice("sweep", "tree"),
           "How candidate pairs are found (the same pairs either way; docs/alignment.md)", flag=None, config=False),
    # [report]
    Option("report", "reference", None, Check(lambda v: isinstance(v, (str, int)) and not isinstance(v, bool), "null or a rater's name", nullable=True, coerce=lambda v: str(v) if isinstance(v, int) and not isinstance(v, bool) else v),
           "Score every rater against this rater (P, R, F)"),
    Option("report", "beta", 1.0, number(0, text="a number > 0"), "Beta of F-beta against the reference"),
    Option("report", "output", None, name("an output format"),
           "Output format (the command's choices are listed beside the flag; score's csv and parquet write every "
           "table as a file in the folder -o names)",
           commands=("score", "raters", "alt-test", "compare", "disagreements", "convert", "info", "plan", "next"), api=False,
           group="output"),
    Option("report", "quiet", False, FLAG, "No progress bars on stderr (they show for a phase that runs 2 s or more)",
           short="-q", api=False, config=False, commands=READING, group="running"),
    Option("report", "per_rater", False, FLAG,
           "Add the per-rater view: each rater against the others and their consensus (docs/diagnostics.md)"),
    Option("report", "structure", False, FLAG,
           "Also agreement on relations, events and span attributes, on the span alignment (docs/structure.md)"),
    Option("report", "attribute_scales", None, names('a list of NAME=SCALE: nominal, ordinal, interval, or values in order "Low<Mid<High"', nullable=True),
           "Attribute scales for α, comma-separated NAME=ordinal|interval|V1<V2<... (default nominal)", cli_type=str),
    # [candidates]: chance-corrected coefficients (docs/chance-corrected.md)
    Option("candidates", "source", None, name('"tokens", "documents" or a path', also=(os.PathLike,)), name="candidates",
           help="Candidate items: tokens, documents or a file of candidate spans", cli_type=str),
    Option("candidates", "language", "en", name("a spaCy language code", nullable=False),
           "Language of the blank spaCy tokenizer, for documents without tokens (candidate tokens, .spacy output)",
           commands=SCORING + ("consensus",)),
    Option("candidates", "strict_candidates", False, FLAG, "A span matching no candidate is an error"),
    # [intervals] (docs/intervals.md)
    Option("intervals", "bootstrap", None, whole(2, MAX_REPLICATES, nullable=True, note=" (docs/robustness.md)"),
           "Intervals: bootstrap replicates over documents, e.g. 1000", cli_type=int),
    Option("intervals", "ci", 0.95, number(0, 1, text="a number in (0, 1)"),
           "Level of every interval: bootstrap, analytic or posterior", commands=SCORING + ("raters",)),
    Option("intervals", "seed", 0, whole(0, MAX_SEED),
           "Seed of every random draw: bootstrap replicates, γ's random continua, a model's posterior draws",
           commands=SCORING + ("raters",)),
    # [unitizing] (docs/unitizing.md); the keyword unitizing takes True or a dict of γ's options
    Option("unitizing", "on", False, Check(lambda v: isinstance(v, (bool, dict)), "true, false or a table of γ's options"),
           "Also Krippendorff's α_U and Mathet et al.'s γ on the spans themselves, no candidates needed (docs/unitizing.md)",
           name="unitizing", cli_type=bool),
    Option("unitizing", "samples", 30, whole(2, MAX_SAMPLES, note=" (docs/robustness.md)"),
           "γ: random continua for the expected disorder (seed: intervals.seed)", name="samples", flag=None, api=False),
    Option("unitizing", "sampler", "statistical", choice("statistical", "shuffle"),
           "γ: how the random continua are drawn: statistical (pygamma-agreement's default) or shuffle "
           "(Mathet et al. 2015)", name="sampler", flag=None, api=False),
    Option("unitizing", "alpha", 1.0, number(0, closed_low=True, text="a number >= 0"),
           "γ: weight of the positional dissimilarity", name="gamma_alpha", flag=None, api=False),
    Option("unitizing", "beta", 1.0, number(0, closed_low=True, text="a number >= 0"),
           "γ: weight of the categorical dissimilarity", name="gamma_beta", flag=None, api=False),
    # [engine] (spanagree.engine)
    Option("engine", "jobs", None, whole(0, nullable=True, note=" (0: every core)"),
           "Read, align and count in N worker processes; 0: every core; default: every core for large input "
           "grouped by document", short="-j", cli_type=int),
    Option("engine", "stream", None, Check(lambda v: isinstance(v, bool), "null, true or false", nullable=True),
           "One chunk at a time: memory bounded by the chunk, not the corpus; --no-stream: in memory; "
           "default: chosen by size", cli_type=bool),
    Option("engine", "engine", "local", choice("local", "dask"), "local or dask"),
    Option("engine", "scheduler", None, name("a Dask scheduler address"),
           "Dask scheduler address; default a local cluster of --jobs workers", api=False),
    # [gate] (spanagree gate; the statistic names are checked by spanagree.outputs.gate)
    Option("gate", "on", "point", choice("point", "lower"),
           "--min bounds: point: the point estimate; lower: the interval's lower end (1000 bootstrap replicates unless --bootstrap N)",
           commands=("gate", "raters"), api=False),
    Option("gate", "min_documents", None, whole(0, nullable=True), "Also fail when fewer documents were scored",
           commands=("gate",), api=False, cli_type=int),
    Option("gate", "min", {}, Check(lambda v: isinstance(v, Mapping), "a table of statistic = bound ([gate.min])"),
           "statistic = lowest passing value", name="gate_min", flag=None, api=False),
    Option("gate", "checks", [], Check(lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
                                       'a list of "NAME=BOUND" strings, as --min takes them'),
           "checks written as --min takes them, for names a config key cannot hold (with ':' or '=')",
           name="gate_checks", flag=None, api=False),
    # the flags of one or a few commands, with no config key: one meaning each, wherever they show
    *(Option("command", name, default, ANY, help, flag=flag, short=short, commands=commands, api=False, config=False,
             cli_type=kind, group=group, multiple=multiple)
      for name, flag, short, default, kind, multiple, group, commands, help in (
        ("config", "--config", "-c", None, "path", False, "reading", READING,
         "A .cfg file of settings (docs/options.md); flags override it, --section.key VALUE overrides both"),
        ("out", "--out", "-o", None, "path", False, "output", READING,
         "Where to write the output (-: standard output, for the commands that print)"),
        ("min", "--min", None, None, str, True, "statistics", ("gate", "raters", "compare", "plan"),
         "A bound NAME=BOUND on a named statistic, repeatable: fail when it is lower (compare: on the change "
         "NEW - OLD; plan: the documents to decide it); spanagree info --statistics lists the names"),
        ("junit", "--junit", None, None, "path", False, "output", ("gate",),
         "Also write JUnit XML to this file: one test case per check"),
        ("method", "--method", None, None, str, False, "statistics", ("consensus", "raters", "report", "next", "gate"),
         "How the raters are weighed: vote (consensus only) or an annotator model, dawid-skene, mace or bsc-seq "
         "(docs/annotators.md)"),
        ("gold", "--gold", None, None, str, False, "statistics", ("consensus", "raters"),
         "A rater taken as gold, left out of the model: P/R/F of the consensus and of every rater against them"),
        ("threshold", "--threshold", None, 0.5, float, False, "statistics", ("consensus", "raters"),
         "Annotator models: keep a consensus span when its posterior exceeds this"),
        ("competence_prior", "--competence-prior", None, None, float, False, "statistics", ("consensus", "raters", "next"),
         "Annotator models: the believed share of right answers of a rater (default: the method's, "
         "docs/annotators.md)"),
        ("prior_strength", "--prior-strength", None, None, float, False, "statistics", ("consensus", "raters", "next"),
         "Annotator models: how many items that belief is worth (default: the method's)"),
        ("pooling", "--pooling", None, None, float, False, "statistics", ("consensus", "raters", "next"),
         "Dawid-Skene and bsc-seq: how many items of the crowd's pooled confusion each rater's prior holds "
         "(default: the method's)"),
        ("items", "--items", None, "spans", str, False, "statistics", ("consensus", "raters", "next"),
         "Annotator models: what the model sees: spans (every marked boundary) or tokens (each token's BIO tag)"),
        ("min_raters", "--min-raters", "-k", None, "count", False, "statistics", ("consensus",),
         "Vote: keep a span when at least this many raters have a span aligned to it (the vote needs it); "
         "models: only documents at least this many raters submitted (default 1)"),
        ("name", "--name", None, "consensus", str, False, "output", ("consensus",),
         "The consensus rater's name in the output"),
        ("report_file", "", None, None, "path", False, "output", ("consensus",),
         "Also write the full report (ties listed) as JSON to this file"),
        ("ents", "", None, True, bool, False, "output", ("consensus",),
         ".spacy output: also write the consensus as doc.ents (overlapping spans counted, left out of doc.ents)"),
        ("ents_from", "--ents-from", None, None, str, False, "output", ("convert",),
         ".spacy output: this rater's spans also go to doc.ents, for spacy train/evaluate/debug data (docs/spacy.md)"),
        ("out_spans_key", "--out-spans-key", None, None, str, False, "output", ("consensus", "convert"),
         ".spacy output: also copy the consensus (convert: the --ents-from rater's spans) to this span group, "
         "e.g. sc for spancat"),
        ("adjudicate", "--adjudicate", None, None, "path", False, "output", ("consensus",),
         "Annotator models: write the documents to adjudicate first (least certain items, by expected change) "
         "as a Prodigy review file"),
        ("title", "--title", None, None, str, False, "output", ("report",), "The page's title"),
        ("documents", "--documents", None, 10, "count", False, "output", ("report",),
         "How many lowest-agreement documents to show with each rater's spans"),
        ("context", "--context", None, 40, "count", False, "output", ("disagreements",),
         "Characters of context on each side of a case"),
        ("include_agreed", "--include-agreed", None, False, bool, False, "output", ("disagreements",),
         "prodigy-review: also write the documents everyone agreed on (default: left out and counted), so the "
         "reviewed dataset is complete"),
        ("candidate", "--candidate", None, None, str, True, "statistics", ("alt-test",),
         "The rater to test (a model); repeatable: several are ranked by advantage probability. Every other "
         "rater is a human"),
        ("epsilon", "--epsilon", None, 0.2, float, False, "statistics", ("alt-test",),
         "Cost-benefit margin ε: 0.2 against experts, 0.15 skilled annotators, 0.1 crowd workers"),
        ("alpha", "--alpha", None, 0.05, float, False, "statistics", ("alt-test",),
         "False discovery rate of the Benjamini-Yekutieli correction"),
        ("min_documents_per_human", "--min-documents-per-human", None, 30, "count", False, "statistics", ("alt-test",),
         "Fewest documents a human must share with the candidate and another human to be tested"),
        ("statistic", "--statistic", None, "pairwise_mean_psa", str, False, "statistics", ("plan", "report"),
         "The statistic --half-width plans for (spanagree info --statistics lists the names)"),
        ("half_width", "--half-width", None, None, float, False, "statistics", ("plan", "report"),
         "Target half-width of the statistic's interval at --ci: the documents needed for it"),
        ("power", "--power", None, 0.8, float, False, "statistics", ("plan",),
         "--min bounds: the chance that the planned documents decide the bound"),
        ("post", "--post", None, False, bool, False, "output", ("consensus", "next"),
         "Write back to the Label Studio project read (its address the only input): consensus posts the "
         "consensus as predictions, next its tasks as a Data Manager tab (docs/labelstudio.md)"),
        ("budget", "--budget", None, None, "count", False, "statistics", ("next",),
         "Extra annotations: one more rater for each of this many documents, in priority order"),
        ("max_per_rater", "--max-per-rater", None, None, "count", False, "statistics", ("next",),
         "Most documents one rater is asked to take (default: the budget shared evenly, rounded up)"),
        ("statistics", "--statistics", None, False, bool, False, "output", ("info",),
         "List the catalogue of statistics (the names --min takes) instead"),
    )),
)

#: By parameter name.
BY_NAME: dict[str, Option] = {o.name: o for o in OPTIONS}


# --- an option named in a message, as each interface spells it (spanagree.errors.option) ---------


def as_flag(option_name: str, value: Any) -> str:
    """The command line's spelling: ``--text-field body`` (a config-only option as its dotted
    override, ``--unitizing.samples 30``; a flag that takes no value as ``--flag``/``--no-flag``)."""
    option = BY_NAME.get(option_name)
    if option is None:
        return f"--{option_name.replace('_', '-')} {_word(value)}"
    flag = option.flag if option.flag is not None else f"--{option.dotted}"
    if isinstance(value, bool) and (option.check is FLAG or isinstance(option.default, bool)):
        return flag if value else "--no-" + flag[2:]
    return f"{flag} {_word(value)}"


def as_config_key(option_name: str, value: Any) -> str:
    """A config file's spelling: ``[input] text_field = "body"``."""
    option = BY_NAME.get(option_name)
    place = f"[{option.section}] {option.key}" if option is not None else option_name
    return f"{place} = {json.dumps(value)}"


def as_flag_or_key(option_name: str, value: Any) -> str:
    """The command line's spelling when a config file is in use: the flag, and the config key
    (``--offsets utf16 (config: [input] offsets = "utf16")``)."""
    return f"{as_flag(option_name, value)} (config: {as_config_key(option_name, value)})"


def _word(value: Any) -> str:
    """A value as typed after a flag: a plain word as it is, else quoted for a shell."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return shlex.quote(str(value))
#: The options of an alignment rule (the fields of :class:`~spanagree.core.align.AlignmentRule`).
RULE_OPTIONS = ("rule", "labels", "min_overlap", "partial_credit", "proportional")
#: The options the spaCy components and the consensus take (the rule and the unit).
COMPONENT_OPTIONS = tuple(o.name for o in OPTIONS if o.component)


def default(option_name: str) -> Any:
    """The declared default of an option (a fresh copy of a list or table)."""
    value = BY_NAME[option_name].default
    return type(value)(value) if isinstance(value, (list, dict)) else value


def sections() -> dict[str, dict[str, Any]]:
    """Every config section with its keys' defaults, in declaration order."""
    result: dict[str, dict[str, Any]] = {}
    for option in OPTIONS:
        if option.config:
            result.setdefault(option.section, {})[option.key] = default(option.name)
    return result


def flags(command: str) -> list[Option]:
    """The options that are flags of a CLI command, in declaration order."""
    return [o for o in OPTIONS if o.flag is not None and command in o.commands]


def api_options() -> list[Option]:
    """The keyword arguments of :func:`spanagree.score`: the positional ones first."""
    chosen = [o for o in OPTIONS if o.api]
    return [o for o in chosen if o.positional] + [o for o in chosen if not o.positional]


def keywords(given: Mapping[str, Any], allowed: Iterable[str], *, where: str = "", check: bool = True) -> dict[str, Any]:
    """Every option named in ``allowed``: the value in ``given``, checked, else the default.

    An unknown name in ``given`` is a usage error listing the allowed ones; ``where`` (a
    component's name) starts the messages. ``check=False``: the values were checked where they
    came in (a config file or flag), only the defaults are filled in.
    """
    allowed = tuple(allowed)
    prefix = f"{where}: " if where else ""
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise UsageError(f"{prefix}unknown option(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}")
    result = {}
    for option_name in allowed:
        option = BY_NAME[option_name]
        if option_name in given and not check:
            result[option_name] = given[option_name]
        elif option_name in given:
            result[option_name] = option.value(given[option_name], lambda o, v: prefix + as_keyword(o, v))
        else:
            result[option_name] = default(option_name)
    return result


def check(option_name: str, value: Any) -> Any:
    """One keyword argument, checked (the message names it and what it allows)."""
    return BY_NAME[option_name].value(value, as_keyword)


def table() -> str:
    """Every option as a Markdown table: config key, flag, keyword, default, allowed values, help
    (docs/options.md holds it; a test keeps it equal to the declaration)."""

    rows = ["| config key | flag | keyword of `score()` | default | allowed | what it does |", "|---|---|---|---|---|---|"]
    for o in OPTIONS:
        key = f"`[{o.section}] {o.key}`" if o.config else "-"
        flag = f"`{o.flag}`" if o.flag else "-"
        keyword = f"`{o.name}`" + (" (and the components)" if o.component else "") if o.api else "-"
        what = o.help.replace("{formats}", "the formats in docs/formats.md").replace("|", "\\|")
        rows.append(f"| {key} | {flag} | {keyword} | `{as_config(o.default)}` | {o.check.expected} | {what} |")
    return "\n".join(rows) + "\n"


def as_config(value: Any) -> str:
    """A default as a config file writes it: ``null``, ``true``, ``"text"``, ``["a", "b"]``."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(as_config(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {as_config(v)}" for k, v in value.items()) + "}"
    return repr(value)
