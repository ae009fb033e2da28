"""The ``spanagree`` command line: thin click wrappers over functions that return dicts.

The flags of the commands that read and score are made from the declarations in
:mod:`spanagree.core.options` (:mod:`spanagree.app.flags`). Exit codes: 0 ok, 1 a gate failed, 2 bad
input or usage (the message names file:line).
"""
from __future__ import annotations

import itertools
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Any, Optional, Sequence

import click
import orjson

from ..errors import SPELLING, SpanagreeError
from ..core.files import atomic_write, check_outputs, exists, write_bytes
from ..core.heap import keep_freed_memory
from ..io import read
from ..core.version import __version__
from . import config as settings_module
from .config import score_with_settings
from ..core import options as declared
from ..core import progress
from ..outputs import text as render
from ..errors import UsageError
from ..core.sanitize import cut, visible
from .flags import PATH, Argument, Group, paths_argument, with_declared


def _show_version(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"spanagree {__version__}")
        ctx.exit()


@click.group(
    "spanagree",
    cls=Group,
    help="How far raters agree on span markup: positive specific agreement and friends.",
    no_args_is_help=True,
    context_settings={"show_default": True, "max_content_width": 120},
)
@click.option("--version", is_flag=True, callback=_show_version, is_eager=True, expose_value=False,
              help="Print the version and exit")
@click.pass_context
def app(ctx: click.Context) -> None:
    """spanagree: inter-annotator agreement for span markup. Definitions: docs/ in the repository."""
    # options named in error messages read as flags while a command runs
    token = SPELLING.set(declared.as_flag)
    ctx.call_on_close(lambda: SPELLING.reset(token))


class Output(str, Enum):
    table = "table"
    json = "json"
    markdown = "markdown"


#: ``--output`` of the commands with their own (alt-test, compare, raters): read as an :class:`Output`.
_OUTPUT_CHOICE = click.Choice([o.value for o in Output])


#: The parameters every command that reads and scores as ``score`` does has.
_PATHS_HELP = "Annotation files or directories; then any --section.key VALUE config overrides"
_CONFIG = click.option("--config", "-c", type=PATH, default=None,
                       help="A .cfg file of settings; flags override it, --section.key VALUE overrides both")
#: A scoring command takes ``--section.key VALUE`` after its paths.
_OVERRIDES = {"allow_extra_args": True, "ignore_unknown_options": True}


def _scoring_command(name: str, group: click.Group | None = None):
    """Register a command that reads and scores as ``score`` does: it has the declared flags of
    ``name`` and takes ``--section.key VALUE`` overrides after its paths."""

    def register(command):
        with_flags = with_declared(declared.flags(name))(command)
        return (group or app).command(name, context_settings=_OVERRIDES)(with_flags)

    return register


@app.command("info")
@click.option("--statistics", is_flag=True, default=False, help="List the statistics the report gives: the names gate --min and compare --max-drop take")
@click.option("output", "--output", type=click.Choice(["table", "json"]), default="table", help="table or json")
def info_command(statistics: bool, output: str) -> None:
    """What a bug report needs: versions, the formats spanagree reads and writes, the spaCy entry
    points it installs; with --statistics, the statistics of the report."""
    from . import info  # imported when the command runs (import time)

    facts = info.statistics() if statistics else info.collect()
    if output == "json":
        sys.stdout.write(orjson.dumps(facts, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n")
    else:
        sys.stdout.write((info.statistics_as_text(facts) if statistics else info.as_text(facts)) + "\n")


@_scoring_command("score")
@paths_argument("Annotation files (JSONL, .spacy, ...), or directories of them; then any --section.key VALUE config overrides")
@_CONFIG
@click.option("out_file", "-o", "--out", type=PATH, default=None, help="Write the output to this file")
def score_command(ctx: click.Context, paths: list[str], config: Optional[Path], out_file: Optional[Path]) -> None:
    """Align every pair of raters and report positive specific agreement.

    Settings, lowest precedence first: defaults, --config FILE, flags, --section.key VALUE.
    """

    try:
        files, settings = _command_settings(ctx, paths, config)
        kind = settings["report"]["output"]
        if kind in TABLE_OUTPUTS:
            _check_table_folder(out_file, kind, files)
        else:
            check_outputs([None if _to_stdout(out_file) else out_file], files)
        result = score_with_settings(files, settings, progress=_progress())
        _warn_few_raters(result.raters)
        if kind in TABLE_OUTPUTS:
            _write_tables(result, out_file, kind)
            return
        output = Output(kind)
        if output is Output.json:
            # the per-document rows are written as they are made: memory stays bounded
            chunks = result.json_chunks()
            first = next(chunks)  # the whole report but those rows: any error is raised here
        else:
            report = result.summary(render.MAX_PAIRS, render.MAX_DOCUMENTS)
    except SpanagreeError as err:
        _fail(err)
    if output is Output.json:
        _emit_chunks(itertools.chain([first], chunks), out_file)
    else:
        _emit(report, output, out_file)


#: ``score --output`` values that write a folder of tables (spanagree.notebook.frames).
TABLE_OUTPUTS = ("csv", "parquet")


def _check_table_folder(out_file: Path | None, kind: str, files) -> None:
    """A folder of tables needs ``-o FOLDER``: one file per table is what a spreadsheet opens."""
    from ..notebook import frames  # imported when the command runs (import time)

    if _to_stdout(out_file):
        raise UsageError(f"--output {kind} writes one file per table (pairs.{kind}, labels.{kind}, ...): "
                         "name their folder with -o FOLDER")
    frames.check_writer(kind)
    if out_file.exists() and not out_file.is_dir():
        raise UsageError(f"--output {kind}: -o {str(out_file)!r} is a file; tables are written to a folder")
    if out_file.is_dir():
        check_outputs([out_file / f"{name}.{kind}" for name in frames.TABLES], files)
    else:  # made when the tables are written: its parent must exist
        check_outputs([out_file], files)


def _write_tables(result, out_file: Path, kind: str) -> None:
    from ..notebook import frames  # imported when the command runs (import time)

    written = frames.write(result, out_file, output=kind)
    for name, n in written.items():
        click.echo(f"wrote {out_file / f'{name}.{kind}'} ({n} rows)", err=True)
    if "disagreements" not in written:
        click.echo("  not written: disagreements (the engine that read this input on every core keeps counts, not "
                   "spans; --no-stream reads it into memory)", err=True)


@app.command("convert")
@with_declared(declared.flags("convert"), config=False)
@paths_argument("Annotation files or directories, in any format spanagree reads")
@click.option("out", "-o", "--out", type=PATH, required=True, show_default=False, help="The file to write")
@click.option("to", "--to", type=click.STRING, default=None, help="Output format, one with a writer (spanagree info lists them); default from OUT's suffix (.jsonl: spanagree, .spacy: docbin)")
@click.option("ents", "--ents", type=click.STRING, default=None, help=".spacy output: this rater's spans also go to doc.ents, for spacy train/evaluate/debug data (docs/spacy.md)")
@click.option("spans_key", "--spans-key", type=click.STRING, default=None, help=".spacy output, with --ents: also copy that rater's spans to this span group (e.g. sc for spancat)")
def convert_command(
    ctx: click.Context, paths: list[str], out: Path, to: Optional[str], ents: Optional[str],
    spans_key: Optional[str]
) -> None:
    """Convert annotations to spanagree JSONL, Prodigy JSONL or another format with a writer."""
    from ..outputs.convert import convert  # imported when the command runs (import time)

    given, format, answers = _read_given(ctx)
    options = {**{k: v for k, v in given.items() if v is not None}, **answers}
    try:
        result = convert(paths, out, to=to, format=format, ents=ents, spans_key=spans_key, **options)
    except SpanagreeError as err:
        _fail(err)
    written = result["written"]
    click.echo(
        f"wrote {written['annotations']} annotations ({written['spans']} spans, {written['documents']} documents, "
        f"{len(result['raters'])} raters) to {result['out']} as {result['format']}"
    )
    for kind, reasons in result["excluded"].items():
        for reason, n in reasons.items():
            click.echo(f"  on reading, {kind}: {reason}: {n}")
    for note, n in result.get("notes", {}).items():
        click.echo(f"  note: {note}: {n}")
    _echo_write_notes(written)


@app.command("consensus")
@with_declared(declared.flags("consensus"), config=False)
@paths_argument("The raters' annotation files, or directories of them")
@click.option("min_raters", "--min-raters", "-k", type=click.INT, default=None, show_default=False, help="Vote: keep a span when at least this many raters have a span aligned to it (required). Models: only documents at least this many raters submitted (default 1)")
@click.option("out", "-o", "--out", type=PATH, required=True, show_default=False, help="Where to write the consensus: a .jsonl (spanagree JSONL) or .spacy (DocBin) file")
@click.option("name", "--name", type=click.STRING, default="consensus", help="The consensus rater's name in the output")
@click.option("language", "--language", type=click.STRING, default="en", help=".spacy output: blank spaCy tokenizer for documents without tokens")
@click.option("report_file", "--report", type=PATH, default=None, help="Also write the full report (ties listed) as JSON to this file")
@click.option("ents", "--ents/--no-ents", default=True, help=".spacy output: also write the consensus as doc.ents (overlapping spans counted, left out of doc.ents)")
@click.option("spans_key", "--spans-key", type=click.STRING, default=None, help=".spacy output: also copy the consensus to this span group (e.g. sc for spancat)")
@click.option("method", "--method", type=click.STRING, default="vote", help="vote, or an annotator model that weighs each rater: dawid-skene | mace (docs/annotators.md)")
@click.option("threshold", "--threshold", type=click.FLOAT, default=0.5, help="Models: keep a span when its posterior exceeds this")
@click.option("gold", "--gold", type=click.STRING, default=None, help="Models: a rater taken as gold, left out of the model; P/R/F of the consensus and of every rater against them")
@click.option("adjudicate", "--adjudicate", type=PATH, default=None, help="Models: write the documents to adjudicate first (least certain items, by expected change) as a Prodigy review file")
@click.option("competence_prior", "--competence-prior", type=click.FLOAT, default=0.5, help="Models: the believed share of right answers of a rater")
@click.option("prior_strength", "--prior-strength", type=click.FLOAT, default=5.0, help="Models: how many items that belief is worth")
@click.option("pooling", "--pooling", type=click.FLOAT, default=10.0, help="Dawid-Skene: how many items of the crowd's pooled confusion each rater's prior holds")
@click.option("items", "--items", type=click.STRING, default="spans", help="Models: what the model sees: spans (every marked boundary) or tokens (each token's BIO tag)")
def consensus_command(
    ctx: click.Context, paths: list[str], min_raters: Optional[int], out: Path, name: str, language: str,
    report_file: Optional[Path], ents: bool, spans_key: Optional[str], method: str, threshold: float,
    gold: Optional[str], adjudicate: Optional[Path], competence_prior: float, prior_strength: float, pooling: float,
    items: str
) -> None:
    """Build a consensus gold set by vote (ties left out and listed, never broken) or by an annotator model."""
    if method != "vote":
        return _model_consensus(ctx, paths, out=out, min_raters=min_raters, name=name, language=language, report_file=report_file,
                                ents=ents, spans_key=spans_key, method=method, threshold=threshold, gold=gold,
                                adjudicate=adjudicate, view=items,
                                model_options=_model_options(method, competence_prior, prior_strength, pooling))
    if gold is not None or adjudicate is not None:
        _fail(UsageError("--gold and --adjudicate need an annotator model (--method dawid-skene or mace)"))
    if min_raters is None:
        _fail(UsageError("the vote needs --min-raters (-k): keep a span when at least this many raters marked it"))
    from ..diagnostics.consensus import run  # imported when the command runs (import time)

    given, format, read_options = _read_given(ctx)
    try:
        check_outputs([out, report_file], paths)
        report = run(
            paths, out, min_raters=min_raters, format=format, language=language, read_options=read_options,
            name=name, ents=ents, spans_key=spans_key, **given,
        )
    except SpanagreeError as err:
        _fail(err)
    clusters, documents = report["clusters"], report["documents"]
    click.echo(
        f"wrote {report['spans']['in_consensus']} consensus spans in {documents['in_consensus']} documents to {out} "
        f"(clusters: {clusters['kept']} kept, {clusters['below_min_raters']} below {min_raters} raters, "
        f"{clusters['tied']} tied and left out)",
        err=True,
    )
    for reason, n in documents["excluded"].items():
        click.echo(f"  documents left out, {reason}: {n}", err=True)
    for what, n in report.get("notes", {}).items():
        click.echo(f"  {what}: {n}", err=True)
    _echo_write_notes(report["written"], err=True)
    if report_file is not None:
        _write(report_file, orjson.dumps(report, option=orjson.OPT_INDENT_2) + b"\n")
        click.echo(f"wrote {report_file}", err=True)


def _answers(answers: Optional[str]) -> dict[str, Any]:
    """``{"answers": (...)}`` from a comma-separated ``--answers``, or nothing when not given."""
    return {"answers": tuple(a.strip() for a in answers.split(","))} if answers else {}


def _read_given(ctx: click.Context) -> tuple[dict[str, Any], str, dict[str, Any]]:
    """Every declared option of the running command, with the input format and the reader
    options (answers) taken out: ``(given, format, read_options)``."""
    given = _given(ctx, default=True)
    return given, given.pop("format"), _answers(given.pop("answers"))


def _model_options(method: str, competence_prior: float, prior_strength: float, pooling: float) -> dict[str, float]:
    """The annotator model's priors as its fitting function takes them (MACE has no pooling)."""
    options = {"competence_prior": competence_prior, "prior_strength": prior_strength, "pooling": pooling}
    if method == "mace":
        options.pop("pooling")
    return options


def _given(ctx: click.Context, *, default: bool = False) -> dict[str, Any]:
    """The declared options of the running command that were given on the command line (or,
    with ``default``, all of them), by name, as plain values."""
    values = {}
    for name in ctx.command.callback.declared:
        if name == "quiet":  # how the run looks, not a setting (read by with_declared)
            continue
        if default or getattr(ctx.get_parameter_source(name), "name", "DEFAULT") != "DEFAULT":
            values[name] = ctx.params[name]
    return values


def _command_settings(ctx: click.Context, paths: Sequence[str], config: Optional[Path]):
    """``(input files, settings)``: defaults, ``--config``, the flags given, then
    ``--section.key VALUE`` overrides."""

    files, extra = settings_module.split_arguments([str(p) for p in paths] + list(ctx.args))
    if not files:
        raise UsageError("no input files given")
    settings = settings_module.load_settings(config, flags=_given(ctx), overrides=settings_module.parse_overrides(extra))
    if config is not None:  # options named in messages: the flag, and the key of the config in use
        token = SPELLING.set(declared.as_flag_or_key)
        ctx.call_on_close(lambda: SPELLING.reset(token))
    return files, settings


def _model_consensus(ctx, paths, *, out, min_raters, name, language, report_file, ents, spans_key, method, threshold,
                     gold, adjudicate, view, model_options) -> None:
    """``consensus --method dawid-skene|mace``: fit, write the consensus (and the adjudication list)."""
    from ..diagnostics.annotators import check_method, run as run_model

    given, format, read_options = _read_given(ctx)
    try:
        check_method(method)
        check_outputs([out, report_file, adjudicate], paths)
        report = run_model(
            paths, out, method=method, min_raters=min_raters, format=format, language=language, read_options=read_options,
            name=name, ents=ents, spans_key=spans_key, threshold=threshold, gold_rater=gold, adjudication_out=adjudicate,
            model_options=model_options, view=view, **given,
        )
    except SpanagreeError as err:
        _fail(err)
    convergence = report["model"]["convergence"]
    click.echo(
        f"wrote {report['spans']['in_consensus']} consensus spans in {report['documents']['in_consensus']} documents to {out} "
        f"({method}: {convergence['iterations']} iterations, {'converged' if convergence['converged'] else 'NOT converged'})",
        err=True,
    )
    if convergence.get("note"):
        click.echo(f"  note: {convergence['note']}", err=True)
    if "gold" in report and report["gold"]["consensus"] is not None:
        scores = report["gold"]["consensus"]
        click.echo(f"  against {gold}: precision {scores['precision']:.3f}, recall {scores['recall']:.3f}, F {scores['f']:.3f}", err=True)
    if "adjudication_written" in report:
        click.echo(f"wrote {report['adjudication_written']['documents']} documents to adjudicate to {adjudicate}", err=True)
    if report_file is not None:
        _write(report_file, orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY) + b"\n")
        click.echo(f"wrote {report_file}", err=True)


@app.command("raters")
@with_declared(declared.flags("consensus"), config=False)
@paths_argument("The raters' annotation files, or directories of them")
@click.option("model", "--model", type=click.STRING, default="dawid-skene", help="The annotator model: dawid-skene | mace (docs/annotators.md)")
@click.option("gold", "--gold", type=click.STRING, default=None, help="A rater taken as gold, left out of the model; P/R/F of the consensus and of every rater against them")
@click.option("threshold", "--threshold", type=click.FLOAT, default=0.5, help="Keep a consensus span when its posterior exceeds this")
@click.option("competence_prior", "--competence-prior", type=click.FLOAT, default=0.5, help="The believed share of right answers of a rater")
@click.option("prior_strength", "--prior-strength", type=click.FLOAT, default=5.0, help="How many items that belief is worth")
@click.option("pooling", "--pooling", type=click.FLOAT, default=10.0, help="Dawid-Skene: how many items of the crowd's pooled confusion each rater's prior holds")
@click.option("ci", "--ci", type=click.FLOAT, default=0.95, help="Level of the competence intervals")
@click.option("seed", "--seed", type=click.INT, default=0, help="Seed of the draws behind the accuracy interval")
@click.option("output", "--output", type=_OUTPUT_CHOICE, default="table", help="table, json or markdown")
@click.option("out_file", "-o", "--out", type=PATH, default=None, help="Write to this file instead of stdout")
@click.option("min_accuracy", "--min-accuracy", type=click.FLOAT, default=None, help="Gate: exit 1 when a rater's accuracy is below this")
@click.option("on", "--on", type=click.STRING, default="point", help="Gate: compare the accuracy (point) or its interval's lower end (lower)")
@click.option("items", "--items", type=click.STRING, default="spans", help="What the model sees: spans (every marked boundary) or tokens (each token's BIO tag)")
def raters_command(
    ctx: click.Context, paths: list[str], model: str, gold: Optional[str], threshold: float,
    competence_prior: float, prior_strength: float, pooling: float, ci: float, seed: int, output: str,
    out_file: Optional[Path], min_accuracy: Optional[float], on: str, items: str
) -> None:
    """Whom to trust: each rater's competence per label from an annotator model, ranked.
    With --min-accuracy, a gate: exit 1 when some rater's accuracy is below the bound."""
    from ..diagnostics.annotators import MODELS, accuracy_gate, check_method, model_consensus
    from ..outputs.annotators_text import render as render_model

    output = Output(output)
    given, format, read_options = _read_given(ctx)
    model_options = _model_options(model, competence_prior, prior_strength, pooling)
    try:
        check_method(model, tuple(MODELS))
        check_outputs([out_file], paths)
        corpus = read(paths, format=format, **read_options)
        _, report, _, _ = model_consensus(corpus, method=model, gold_rater=gold, threshold=threshold, level=ci, seed=seed,
                                          model_options=model_options, view=items, **given)
        gate = None if min_accuracy is None else accuracy_gate(report["competence"], min_accuracy, on=on)
    except SpanagreeError as err:
        _fail(err)
    if gate is not None:
        report["gate"] = gate
    if output == Output.json:
        data = orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY) + b"\n"
    else:
        data = (render_model(report, output.value) + "\n").encode()
    if out_file is not None:
        _write(out_file, data)
    else:
        sys.stdout.write(data.decode())
    if gate is not None:
        click.echo(f"gate {'passed' if gate['passed'] else 'FAILED'}: {len(gate['below'])} of {len(report['competence'])} raters "
                   f"with accuracy {'' if on == 'point' else '(lower end) '}below {min_accuracy:g}"
                   + (f": {', '.join(gate['below'])}" if gate["below"] else ""), err=True)
        if not gate["passed"]:
            raise click.exceptions.Exit(1)


@_scoring_command("gate")
@paths_argument(_PATHS_HELP)
@click.option("config", "--config", "-c", type=PATH, default=None, help="A .cfg file: the gate section (on, min_documents, and a gate.min table of bounds) and any score settings")
@click.option("minimum", "--min", multiple=True, show_default=False, help="A check NAME=BOUND, repeatable, e.g. pairwise_mean_psa=0.8, label:PER=0.75; the names: spanagree info --statistics (config: the gate.min table)")
@click.option("junit", "--junit", type=PATH, default=None, help="Write JUnit XML to this file: one test case per check")
def gate_command(
    ctx: click.Context, paths: list[str], config: Optional[Path], minimum: list[str],
    junit: Optional[Path]
) -> None:
    """Pass or fail agreement against bounds, for CI: exit 0 all checks pass, 1 a check failed or (--on lower) is inconclusive, 2 bad input.

    Prints each check; appends a Markdown summary to $GITHUB_STEP_SUMMARY when it is set.
    """
    from ..outputs import gate  # imported when the command runs (import time)
    from . import runs

    inputs = [p for p in paths if p and exists(p)]
    try:
        check_outputs([junit], inputs)
    except SpanagreeError as err:
        gate.write_error_outputs(str(err), junit=None)  # the JUnit path itself is what is wrong
        _fail(err)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:  # appended to, so checked as every output is: never an input
        try:
            check_outputs([step_summary], inputs, what="$GITHUB_STEP_SUMMARY")
        except SpanagreeError as err:
            gate.write_error_outputs(str(err), junit=junit, environ={})
            _fail(err)
    try:
        files, settings = _command_settings(ctx, paths, config)
        result = runs.gate(files, settings, minimum or (), progress=_progress())
        gate.write_outputs(result, junit=junit)
    except (SpanagreeError, OSError) as err:
        gate.write_error_outputs(str(err), junit=junit)
        _fail(err)
    sys.stdout.write(gate.as_text(result, color=sys.stdout.isatty()) + "\n")
    if not result["passed"]:
        raise click.exceptions.Exit(1)


@_scoring_command("report")
@paths_argument(_PATHS_HELP)
@_CONFIG
@click.option("out", "-o", "--out", type=PATH, required=True, show_default=False, help="The HTML file to write")
@click.option("title", "--title", type=click.STRING, default=None, help="The page's title")
@click.option("documents", "--documents", type=click.IntRange(0, None), default=10, help="How many lowest-agreement documents to show with each rater's spans")
@click.option("model", "--model", type=click.STRING, default=None, help="Also a section of an annotator model's competence table: dawid-skene | mace (docs/annotators.md)")
def report_command(
    ctx: click.Context, paths: list[str], config: Optional[Path], out: Path, title: Optional[str],
    documents: int, model: Optional[str]
) -> None:
    """Write one self-contained HTML page: headline numbers with intervals and bands, charts, label
    confusion, and the documents raters disagree on most. Intervals: 1000 replicates unless --bootstrap N."""
    from ..outputs import html as html_report  # imported when the command runs (import time)

    try:
        files, settings = _command_settings(ctx, paths, config)

        check_outputs([out], files)  # first alone: the CSV's name is made from a valid file name
        check_outputs([out, html_report.documents_csv_path(out)], files)
        html_report.check_dependencies()
        if settings["intervals"]["bootstrap"] is None:
            settings["intervals"]["bootstrap"] = html_report.DEFAULT_REPLICATES
        settings["report"]["per_rater"] = True  # the page always has the per-rater view
        result = score_with_settings(files, settings, progress=_progress(), needs_texts=True)
        _warn_few_raters(result.raters)
        annotators = None
        if model is not None:
            from ..diagnostics.annotators import MODELS, check_method, model_consensus

            check_method(model, tuple(MODELS))
            counts = result.counts
            annotators = model_consensus(result.corpus, method=model, rule=counts.rule, unit=counts.unit_name,
                                         level=settings["intervals"]["ci"], seed=settings["intervals"]["seed"])[1]
        written = html_report.write(result, out, title=title, max_documents=documents, sources=files, annotators=annotators)
    except (SpanagreeError, OSError) as err:
        _fail(err)
    click.echo(f"wrote {written['out']} ({written['bytes']} bytes)", err=True)


@_scoring_command("disagreements")
@paths_argument(_PATHS_HELP)
@_CONFIG
@click.option("out", "-o", "--out", type=PATH, required=True, show_default=False, help="The file to write (.jsonl or .csv, or any name with --output)")
@click.option("output", "--output", type=click.STRING, default=None, help="jsonl, csv or prodigy-review (default: from OUT's suffix)")
@click.option("context", "--context", type=click.IntRange(0, 2**63 - 1), default=40, help="Characters of context on each side of a case")
@click.option("include_agreed", "--include-agreed", is_flag=True, default=False, help="prodigy-review: also write the documents everyone agreed on (default: left out and counted), so the reviewed dataset is complete")
def disagreements_command(
    ctx: click.Context, paths: list[str], config: Optional[Path], out: Path, output: Optional[str],
    context: int, include_agreed: bool
) -> None:
    """List every missed, spurious, partial and wrong-label case (JSONL or CSV), or write each
    rater's version of every document with a disagreement for Prodigy's review recipe."""
    from ..diagnostics import disagreements  # imported when the command runs (import time)

    try:
        files, settings = _command_settings(ctx, paths, config)
        kind = disagreements.resolve_format(out, output)
        check_outputs([out], files)
        settings["candidates"]["source"] = None  # cases need no candidate items
        result = score_with_settings(files, settings, progress=_progress(), needs_texts=True)
        _warn_few_raters(result.raters)
        written = disagreements.write(result, out, output=kind, context=context,
                                      language=settings["candidates"]["language"], sources=files,
                                      include_agreed=include_agreed)
    except (SpanagreeError, OSError) as err:
        _fail(err)
    cases = ", ".join(f"{n} {kind}" for kind, n in written["cases"].items())
    what = f"{written['tasks']} tasks" if kind == "prodigy-review" else f"{sum(written['cases'].values())} cases ({cases})"
    click.echo(
        f"wrote {what} from {written['documents_with_disagreements']} documents with a disagreement to "
        f"{written['out']} as {kind}",
        err=True,
    )
    if "structure_cases" in written:
        listed = ", ".join(f"{n} {name}" for name, n in written["structure_cases"].items())
        click.echo(f"  relations and attributes: {listed}" + (
            f" ({written['structure_cases_note']})" if "structure_cases_note" in written else ""), err=True)
    for note, n in written.get("notes", {}).items():
        click.echo(f"  {note}: {n}", err=True)


@_scoring_command("alt-test")
@paths_argument("Annotation files or directories with the humans and the candidate(s); then any --section.key VALUE config overrides")
@click.option("candidate", "--candidate", multiple=True, required=True, show_default=False, help="The rater to test (a model); repeatable: several are ranked by advantage probability. Every other rater is a human")
@click.option("epsilon", "--epsilon", type=click.FLOAT, default=0.2, help="Cost-benefit margin ε: 0.2 against experts, 0.15 skilled annotators, 0.1 crowd workers")
@click.option("alpha", "--alpha", type=click.FLOAT, default=0.05, help="False discovery rate of the Benjamini-Yekutieli correction")
@click.option("human_documents", "--min-documents-per-human", type=click.INT, default=30, help="Fewest documents a human must share with the candidate and another human to be tested")
@_CONFIG
@click.option("output", "--output", type=_OUTPUT_CHOICE, default="table", help="table, json or markdown")
@click.option("out_file", "-o", "--out", type=PATH, default=None, help="Write the output to this file")
def alt_test_command(
    ctx: click.Context, paths: list[str], candidate: list[str], epsilon: float, alpha: float,
    human_documents: int, config: Optional[Path], output: str, out_file: Optional[Path]
) -> None:
    """Can a model replace a human annotator? The alternative annotator test (Calderon, Reichart &
    Dror 2025) on per-document PSA; see docs/alt-test.md.

    Exit 0 every candidate trusted, 1 a candidate untrusted or inconclusive (fewer than three
    humans could be tested), 2 bad input. JSON: one object, or a list ranked by ρ for several.
    """
    from ..measures.alt_test import procedure as alt  # imported when the command runs (import time)
    from ..outputs import alt_test as alt_output

    output = Output(output)
    try:
        files, settings = _command_settings(ctx, paths, config)
        check_outputs([None if _to_stdout(out_file) else out_file], files)
        report = score_with_settings(files, settings, progress=_progress())
        found = alt.from_report(report, list(candidate), epsilon=epsilon, alpha=alpha, min_documents=human_documents)
    except SpanagreeError as err:
        _fail(err)
    results = [r.to_dict() for r in found]
    if output is Output.json:
        text = orjson.dumps(results[0] if len(results) == 1 else results, option=orjson.OPT_INDENT_2).decode("utf-8")
    else:
        text = alt_output.as_markdown(results) if output is Output.markdown else alt_output.as_text(results)
    if _to_stdout(out_file):
        sys.stdout.write(text + "\n")
    else:
        _write(out_file, (text + "\n").encode("utf-8"))
        click.echo(f"wrote {out_file}", err=True)
    if not all(r.trusted for r in found):
        raise click.exceptions.Exit(1)


@_scoring_command("compare")
@click.argument("old", cls=Argument, help="The earlier round: a file or a directory of annotation files")
@click.argument("new", cls=Argument, help="The later round (documents matched to OLD by id)")
@click.option("max_drop", "--max-drop", multiple=True, show_default=False, help="NAME=DELTA, repeatable: fail when the statistic dropped significantly by more than DELTA (names: spanagree info --statistics lists those compare takes)")
@_CONFIG
@click.option("output", "--output", type=_OUTPUT_CHOICE, default="table", help="table, json or markdown")
def compare_command(
    ctx: click.Context, old: str, new: str, max_drop: list[str], config: Optional[Path], output: str
) -> None:
    """Did agreement change between two rounds? NEW - OLD for every headline statistic, with a
    bootstrap interval over documents, paired on shared documents (1000 replicates unless
    --bootstrap N); see docs/deciding.md. Exit 0, 1 when a --max-drop check found a significant drop, 2 bad input."""
    from ..outputs import compare  # imported when the command runs (import time)
    from . import runs

    output = Output(output)
    try:
        files, settings = _command_settings(ctx, [old], config)
        if len(files) != 1:
            raise SpanagreeError("compare takes exactly two paths, OLD and NEW, before any --section.key overrides")
        result = runs.compare([str(old)], [str(new)], settings, max_drop or (), progress=_progress())
    except SpanagreeError as err:
        _fail(err)
    if output is Output.json:
        text = orjson.dumps(result, option=orjson.OPT_INDENT_2).decode("utf-8")
    else:
        sections = compare.tables(result)
        text = render.tables_as_markdown(sections) if output is Output.markdown else render.tables_as_text(sections)
    sys.stdout.write(text + "\n")
    if not result["passed"]:
        raise click.exceptions.Exit(1)
def _warn_few_raters(raters) -> None:
    """Say on stderr, before any table, that agreement needs two raters when the input has fewer."""
    if len(raters) < 2:
        found = f"1 rater ({raters[0]})" if raters else "no rater"
        click.echo(
            f"spanagree: warning: the input has {found}; agreement needs at least two, so every table below is empty "
            "(how each format names its raters: spanagree info, docs/README.md)",
            err=True,
        )


def _echo_write_notes(written: dict, err: bool = False) -> None:
    """What a writer counted besides documents, annotations and spans (widened spans, spans
    left out of doc.ents, ...)."""
    for what, n in written.items():
        if isinstance(n, int) and what not in ("documents", "annotations", "spans"):
            click.echo(f"  written, {what}: {n}", err=err)


def _emit(report: dict, output: Output, out_file: Path | None) -> None:
    """The report as a table or Markdown (JSON is written in pieces: :func:`_emit_chunks`)."""
    if output is Output.markdown:
        text = render.as_markdown(report)
    else:
        text = render.as_text(report)
    if _to_stdout(out_file):
        sys.stdout.write(text + "\n")
    else:
        _write(out_file, (text + "\n").encode("utf-8"))
        click.echo(f"wrote {out_file}", err=True)


def _emit_chunks(chunks, out_file: Path | None) -> None:
    """Write JSON given in pieces (bytes), then a newline, to standard output or ``out_file``."""
    if _to_stdout(out_file):
        for chunk in chunks:
            sys.stdout.write(chunk.decode("utf-8"))
        sys.stdout.write("\n")
        return
    try:
        with atomic_write(out_file, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.write(b"\n")
    except SpanagreeError as err:
        _fail(err)
    click.echo(f"wrote {out_file}", err=True)


def _to_stdout(out_file: Path | None) -> bool:
    """No ``-o``, or ``-o -`` (standard output, as usual)."""
    return out_file is None or str(out_file) == "-"


def _write(path: Path, data: bytes) -> None:
    """Write an output file whole; a write the system refuses (a full disk, ...) exits 2."""
    try:
        write_bytes(path, data)
    except SpanagreeError as err:
        _fail(err)


def _fail(err: Exception) -> None:
    click.echo(f"spanagree: error: {visible(cut(str(err), 2000), keep_newlines=True)}", err=True)
    raise click.exceptions.Exit(2)


def _progress():
    """The readers' progress callback: a bar in bytes on stderr, None with --quiet."""
    return progress.reading()


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived: unwind (closing files and workers), then exit 128 + signal.

    A ``BaseException`` so that no ``except Exception`` on the way catches it, and not a
    ``KeyboardInterrupt`` so that click does not turn it into "Aborted!" with exit code 1.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_MAIN_PID: list[int] = []


def _interrupt(signum, frame) -> None:
    import signal

    if _MAIN_PID and os.getpid() != _MAIN_PID[0]:
        # a worker forked from this process inherits this handler: it dies the default way
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    raise Interrupted(signum)


def _notes_on_stderr() -> None:
    """How the input was read (an engine chosen for large input, a serial fallback, a second
    read of documents not grouped) as one ``spanagree: note:`` line on stderr, not a Python warning."""
    import warnings

    shown = warnings.showwarning
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

    def show(message, category, filename, lineno, file=None, line=None):
        # spanagree's own warning classes, or a plain UserWarning raised in its code
        if category.__module__.startswith("spanagree.") or os.path.abspath(filename).startswith(package + os.sep):
            sys.stderr.write(f"spanagree: note: {message}\n")
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show


def main() -> None:
    """Console entry point. SIGINT exits 130 and SIGTERM 143 (128 + the signal), without a
    traceback, after the engines have stopped their workers and no output is half written."""
    import signal

    _MAIN_PID[:] = [os.getpid()]
    keep_freed_memory()  # this process is ours: arrays freed are reused, not paged in again
    SPELLING.set(declared.as_flag)  # also for an error that reaches main after its command closed
    _notes_on_stderr()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _interrupt)
    try:
        app()
    except SpanagreeError as err:  # one not caught by its command: still a message, not a traceback
        sys.stderr.write(f"spanagree: error: {visible(cut(str(err), 2000), keep_newlines=True)}\n")
        sys.exit(2)
    except BrokenPipeError:  # the reader of the output went away (``| head``): nothing to say
        sys.exit(0)
    except OSError as err:  # the system refused a path no check foresaw: name it, exit 2
        where = f"{visible(cut(str(err.filename), 300))}: " if err.filename is not None else ""
        sys.stderr.write(f"spanagree: error: {where}{err.strerror or err}\n")
        sys.exit(2)
    except Interrupted as stop:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sys.stderr.write(f"\nspanagree: interrupted by {signal.Signals(stop.signum).name}\n")
        sys.exit(128 + stop.signum)


if __name__ == "__main__":
    main()
