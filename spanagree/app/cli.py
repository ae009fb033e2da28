"""The ``spanagree`` command line: thin click wrappers over functions that return dicts.

The flags of the commands that read and score are made from the declarations in
:mod:`spanagree.core.options` (:mod:`spanagree.app.flags`). Exit codes: 0 ok, 1 a gate failed, 2 bad
input or usage (the message names file:line).
"""
from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path
from typing import Any, Sequence

import click
import orjson

from ..core import options as declared
from ..core import progress
from ..core.files import atomic_write, check_outputs, exists, write_bytes
from ..core.heap import keep_freed_memory
from ..core.sanitize import cut, visible
from ..core.version import __version__
from ..errors import SPELLING, SpanagreeError, UsageError, did_you_mean
from . import config as settings_module
from .flags import Argument, Group, command, fail, paths_argument

#: ``score --output`` values that write a folder of tables (spanagree.notebook.frames).
TABLE_OUTPUTS = ("csv", "parquet")
#: ``disagreements --output``: a list of cases, or Prodigy review tasks.
DISAGREEMENT_OUTPUTS = ("jsonl", "csv", "prodigy-review")
#: The annotator models (spanagree.diagnostics.annotators.MODELS).
MODEL_NAMES = ("dawid-skene", "mace", "bsc-seq")


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


#: The output formats of the commands that print a report.
_PRINTED = ("table", "json", "markdown")
_PATHS_HELP = "Annotation files, directories or quoted glob patterns; then any --section.key VALUE config overrides"


@command(app, "info", choices={"output": ("table", "json")})
def info_command(ctx: click.Context, output: str | None, statistics: bool) -> None:
    """What a bug report needs: versions, the formats spanagree reads and writes, the spaCy entry
    points it installs; with --statistics, the catalogue of statistics."""
    from . import info  # imported when the command runs (import time)

    facts = info.statistics() if statistics else info.collect()
    if output == "json":
        sys.stdout.write(orjson.dumps(facts, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n")
    else:
        sys.stdout.write((info.statistics_as_text(facts) if statistics else info.as_text(facts)) + "\n")


@command(app, "score", choices={"output": (*_PRINTED, *TABLE_OUTPUTS)}, overrides=True)
@paths_argument(_PATHS_HELP)
def score_command(ctx: click.Context, paths: list[str], **values: Any) -> None:
    """Align every pair of raters and report positive specific agreement.

    Settings, lowest precedence first: defaults, --config FILE, flags, --section.key VALUE.
    """
    from ..outputs import text as render  # imported when the command runs (import time)
    from ..request import run

    out_file = values["out"]
    try:
        files, settings = _settings(ctx, paths, values)
        kind = settings["report"]["output"] or "table"
        if kind not in (*_PRINTED, *TABLE_OUTPUTS):
            raise UsageError(f"[report] output: got {kind!r}; expected one of {', '.join((*_PRINTED, *TABLE_OUTPUTS))}"
                             + did_you_mean(kind, (*_PRINTED, *TABLE_OUTPUTS)))
        if kind in TABLE_OUTPUTS:
            _check_table_folder(out_file, kind, files)
        else:
            _check_printed(out_file, files)
        result = run(_request(files, settings), progress=_progress())
        _warn_few_raters(result.raters)
        if kind in TABLE_OUTPUTS:
            _write_tables(result, out_file, kind)
            return
        if kind == "json":
            # the per-document rows are written as they are made: memory stays bounded
            chunks = result.json_chunks()
            first = next(chunks)  # the whole report but those rows: any error is raised here
        else:
            report = result.summary(render.MAX_PAIRS, render.MAX_DOCUMENTS)
    except SpanagreeError as err:
        fail(err)
    if kind == "json":
        _emit_chunks(itertools.chain([first], chunks), out_file)
    else:
        _emit(render.as_markdown(report) if kind == "markdown" else render.as_text(report), out_file)


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


@command(app, "convert", required=("out",), overrides=True)
@paths_argument(_PATHS_HELP)
def convert_command(ctx: click.Context, paths: list[str], **values: Any) -> None:
    """Convert annotations to spanagree JSONL, Prodigy JSONL or another format with a writer
    (--output; default from OUT's suffix: .jsonl spanagree, .spacy docbin)."""
    from ..outputs.convert import convert  # imported when the command runs (import time)

    try:
        files, settings = _settings(ctx, paths, values)
        inputs = _request(files, settings).inputs
        result = convert(list(inputs.paths), values["out"], to=settings["report"]["output"], format=inputs.format,
                         ents=values["ents_from"], spans_key=values["out_spans_key"], **inputs.options)
    except SpanagreeError as err:
        fail(err)
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


@command(app, "consensus", choices={"method": ("vote", *MODEL_NAMES)}, required=("out",), overrides=True)
@paths_argument(_PATHS_HELP)
def consensus_command(ctx: click.Context, paths: list[str], **values: Any) -> None:
    """Build a consensus gold set by vote (ties left out and listed, never broken) or by an
    annotator model (--method dawid-skene, mace or bsc-seq)."""
    from ..diagnostics import annotators, consensus as vote  # imported when the command runs (import time)
    from . import runs

    method, out, report_file, adjudicate = values["method"] or "vote", values["out"], values["report_file"], values["adjudicate"]
    try:
        _refuse_unused(ctx, method)
        if Path(out).suffix.lower() not in (".jsonl", ".spacy"):
            raise UsageError(f"cannot tell the output format of {str(out)!r}; name a .jsonl or a .spacy file")
        files, settings = _settings(ctx, paths, values)
        check_outputs([out, report_file, adjudicate], files)
        request = _request(files, settings)
        project = _project_to_post(values, request)
        made = runs.consensus(
            request, method=method, min_raters=values["min_raters"],
            name=values["name"], threshold=values["threshold"], gold=values["gold"], items=values["items"],
            priors=runs.priors(method, values["competence_prior"], values["prior_strength"], values["pooling"]))
        gold, report = made.gold, made.report
        if not gold.n_documents:  # an empty file would be no gold standard, and not readable input
            raise UsageError(
                f"no document was submitted by at least {values['min_raters'] or 1} raters ({len(made.corpus.raters)} "
                f"raters in the input), so the consensus is empty and {str(out)!r} was not written; lower --min-raters")
        language = settings["candidates"]["language"]
        written = dict(language=language, ents=values["ents"], spans_key=values["out_spans_key"])
        if made.probability is None:
            report["written"] = {"path": str(out), **vote.write(gold, out, **written)}
        else:
            report["written"] = {"path": str(out), **annotators.write_with_probability(gold, made.probability, out, **written)}
        if adjudicate is not None:
            modelled = annotators.split_gold(made.corpus, values["gold"])[0]
            report["adjudication_written"] = annotators.write_adjudication(modelled, gold, report, adjudicate,
                                                                           language=language)
        if project is not None:
            from ..io import labelstudio_server

            report["posted"] = labelstudio_server.post_consensus(
                project, *labelstudio_server.consensus_results(project, gold, made.probability),
                labelstudio_server.model_version(method, values["min_raters"], request.rule.rule))
    except SpanagreeError as err:
        fail(err)
    _say_consensus(report, out, values)
    if "posted" in report:
        _say_posted(report["posted"], "predictions of model version " + repr(report["posted"]["model_version"]))
    if report_file is not None:
        _write(report_file, orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY) + b"\n")
        click.echo(f"wrote {report_file}", err=True)


def _say_consensus(report: dict[str, Any], out: Path, values: dict[str, Any]) -> None:
    """What the consensus wrote, on stderr."""
    if "clusters" in report:  # the vote
        clusters, documents = report["clusters"], report["documents"]
        click.echo(
            f"wrote {report['spans']['in_consensus']} consensus spans in {documents['in_consensus']} documents to {out} "
            f"(clusters: {clusters['kept']} kept, {clusters['below_min_raters']} below {values['min_raters']} raters, "
            f"{clusters['tied']} tied and left out)", err=True)
        for reason, n in documents["excluded"].items():
            click.echo(f"  documents left out, {reason}: {n}", err=True)
        for what, n in report.get("notes", {}).items():
            click.echo(f"  {what}: {n}", err=True)
        _echo_write_notes(report["written"], err=True)
        return
    convergence = report["model"]["convergence"]
    click.echo(
        f"wrote {report['spans']['in_consensus']} consensus spans in {report['documents']['in_consensus']} documents to {out} "
        f"({report['method']}: {convergence['iterations']} iterations, "
        f"{'converged' if convergence['converged'] else 'NOT converged'})", err=True)
    if convergence.get("note"):
        click.echo(f"  note: {convergence['note']}", err=True)
    if "gold" in report and report["gold"]["consensus"] is not None:
        scores = report["gold"]["consensus"]
        click.echo(f"  against {values['gold']}: precision {scores['precision']:.3f}, recall {scores['recall']:.3f}, "
                   f"F {scores['f']:.3f}", err=True)
    if "adjudication_written" in report:
        click.echo(f"wrote {report['adjudication_written']['documents']} documents to adjudicate to "
                   f"{values['adjudicate']}", err=True)


@command(app, "raters", choices={"method": MODEL_NAMES, "output": _PRINTED}, overrides=True)
@paths_argument(_PATHS_HELP)
def raters_command(ctx: click.Context, paths: list[str], **values: Any) -> None:
    """Whom to trust: each rater's competence per label from an annotator model, ranked.
    With --min rater_accuracy:<RATER>=BOUND or min_rater_accuracy=BOUND, a gate: exit 1 when a
    rater's accuracy is below it."""
    from ..outputs import gate as gate_checks
    from ..outputs.annotators_text import render as render_model
    from . import runs

    method, out_file = values["method"] or "dawid-skene", values["out"]
    try:
        _refuse_unused(ctx, method)
        if not values["min"] and _was_given(ctx, "on"):
            raise UsageError("--on says what --min holds against its bound; give a --min rater_accuracy:<RATER>=BOUND "
                             "or min_rater_accuracy=BOUND")
        files, settings = _settings(ctx, paths, values)
        _check_printed(out_file, files)
        checks = [gate_checks.parse_check(text) for text in values["min"]]
        others = [c.name for c in checks if gate_checks.catalogue.STATISTICS[c.statistic].needs != "the model"]
        if others:
            raise UsageError(f"raters --min takes the annotator model's statistics (rater_accuracy:<RATER>, "
                             f"min_rater_accuracy), not {', '.join(others)} (spanagree gate checks those)")
        report = runs.raters(
            _request(files, settings), method=method, gold=values["gold"], threshold=values["threshold"],
            items=values["items"], priors=runs.priors(method, values["competence_prior"], values["prior_strength"],
                                                      values["pooling"]))
        on = settings["gate"]["on"]
        gate = None if not checks else gate_checks.evaluate(
            {"annotators": report, "documents": {"scored": report["documents"]["read"]}}, checks, on=on)
    except SpanagreeError as err:
        fail(err)
    if gate is not None:
        report["gate"] = gate
    output = settings["report"]["output"] or "table"
    if output == "json":
        text = orjson.dumps(report, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY).decode("utf-8")
    else:
        text = render_model(report, output)
    _emit(text, out_file)
    if gate is not None:
        sys.stderr.write(gate_checks.as_text(gate) + "\n")
        if not gate["passed"]:
            raise click.exceptions.Exit(1)


@command(app, "gate", choices={"method": MODEL_NAMES}, overrides=True)
@paths_argument(_PATHS_HELP)
def gate_command(ctx: click.Context, paths: list[str], **values: Any) -> None:
    """Pass or fail agreement against bounds, for CI: exit 0 all checks pass, 1 a check failed or (--on lower) is inconclusive, 2 bad input.

    The bounds: --min NAME=BOUND, or a config's [gate.min] table (names: spanagree info --statistics).
    Prints each check; appends a Markdown summary to $GITHUB_STEP_SUMMARY when it is set.
    """
    from ..outputs import gate as gate_checks  # imported when the command runs (import time)
    from . import runs

    junit = values["junit"]
    inputs = [p for p in paths if p and exists(p)]
    try:
        check_outputs([junit], inputs)
    except SpanagreeError as err:
        gate_checks.write_error_outputs(str(err), junit=None)  # the JUnit path itself is what is wrong
        fail(err)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary:  # appended to, so checked as every output is: never an input
        try:
            check_outputs([step_summary], inputs, what="$GITHUB_STEP_SUMMARY")
        except SpanagreeError as err:
            gate_checks.write_error_outputs(str(err), junit=junit, environ={})
            fail(err)
    try:
        files, settings = _settings(ctx, paths, values)
        section = settings["gate"]
        checks = gate_checks.checks_from_settings(section, values["min"])
        result = runs.gate(_request(files, settings), checks, on=section["on"],
                           min_documents=section["min_documents"], progress=_progress(), method=values["method"])
        gate_checks.write_outputs(result, junit=junit)
    except (SpanagreeError, OSError) as err:
        gate_checks.write_error_outputs(str(err), junit=junit)
        fail(err)
    sys.stdout.write(gate_checks.as_text(result, color=sys.stdout.isatty()) + "\n")
    if not result["passed"]:
        raise click.exceptions.Exit(1)


@command(app, "report", choices={"method": MODEL_NAMES}, required=("out",), overrides=True)
@paths_argument(_PATHS_HELP)
def report_command(ctx: click.Context, paths: list[str], **values: Any) -> None:
    """Write one self-contained HTML page: headline numbers with intervals and bands, charts, label
    confusion, and the documents raters disagree on most. Intervals: 1000 replicates unless --bootstrap N."""
    from ..outputs import html as html_report  # imported when the command runs (import time)
    from ..request import run
    from . import runs

    out, method = values["out"], values["method"]
    try:
        files, settings = _settings(ctx, paths, values)
        check_outputs([out], files)  # first alone: the CSV's name is made from a valid file name
        check_outputs([out, html_report.documents_csv_path(out)], files)
        html_report.check_dependencies()
        if settings["intervals"]["bootstrap"] is None:
            settings["intervals"]["bootstrap"] = html_report.DEFAULT_REPLICATES
        settings["report"]["per_rater"] = True  # the page always has the per-rater view
        request = _request(files, settings, keep_spans=True)
        result = run(request, progress=_progress())
        _warn_few_raters(result.raters)
        annotators = None
        if method is not None:
            annotators = runs.raters(request.replace(bootstrap=None), method=method)
        plan = _plan_chart(ctx, result, values)
        written = html_report.write(result, out, title=values["title"], max_documents=values["documents"],
                                    sources=files, annotators=annotators, plan=plan)
    except (SpanagreeError, OSError) as err:
        fail(err)
    click.echo(f"wrote {written['out']} ({written['bytes']} bytes)", err=True)


@command(app, "disagreements", choices={"output": DISAGREEMENT_OUTPUTS}, required=("out",), overrides=True)
@paths_argument(_PATHS_HELP)
def disagreements_command(ctx: click.Context, paths: list[str], **values: Any) -> None:
    """List every missed, spurious, partial and wrong-label case (JSONL or CSV), or write each
    rater's version of every document with a disagreement for Prodigy's review recipe."""
    from ..diagnostics import disagreements  # imported when the command runs (import time)
    from ..request import run

    out = values["out"]
    try:
        files, settings = _settings(ctx, paths, values)
        kind = disagreements.resolve_format(out, settings["report"]["output"])
        check_outputs([out], files)
        settings["candidates"]["source"] = None  # cases need no candidate items
        result = run(_request(files, settings, keep_spans=True), progress=_progress())
        _warn_few_raters(result.raters)
        written = disagreements.write(result, out, output=kind, context=values["context"],
                                      language=settings["candidates"]["language"], sources=files,
                                      include_agreed=values["include_agreed"])
    except (SpanagreeError, OSError) as err:
        fail(err)
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


@command(app, "alt-test", choices={"output": _PRINTED}, required=("candidate",), overrides=True)
@paths_argument("Annotation files, directories or quoted glob patterns with the humans and the candidate(s); "
                "then any --section.key VALUE config overrides")
def alt_test_command(ctx: click.Context, paths: list[str], **values: Any) -> None:
    """Can a model replace a human annotator? The alternative annotator test (Calderon, Reichart &
    Dror 2025) on per-document PSA; see docs/alt-test.md.

    Exit 0 every candidate trusted, 1 a candidate untrusted or inconclusive (fewer than three
    humans could be tested), 2 bad input. JSON: one object, or a list ranked by ρ for several.
    """
    from ..measures.alt_test import procedure as alt  # imported when the command runs (import time)
    from ..outputs import alt_test as alt_output
    from ..request import run

    out_file = values["out"]
    try:
        files, settings = _settings(ctx, paths, values)
        _check_printed(out_file, files)
        report = run(_request(files, settings), progress=_progress())
        found = alt.from_report(report, list(values["candidate"]), epsilon=values["epsilon"], alpha=values["alpha"],
                                min_documents=values["min_documents_per_human"])
    except SpanagreeError as err:
        fail(err)
    results = [r.to_dict() for r in found]
    output = settings["report"]["output"] or "table"
    if output == "json":
        text = orjson.dumps(results[0] if len(results) == 1 else results, option=orjson.OPT_INDENT_2).decode("utf-8")
    else:
        text = alt_output.as_markdown(results) if output == "markdown" else alt_output.as_text(results)
    _emit(text, out_file)
    if not all(r.trusted for r in found):
        raise click.exceptions.Exit(1)


@command(app, "compare", choices={"output": _PRINTED}, overrides=True)
@click.argument("old", cls=Argument, help="The earlier round: a file, a directory or a quoted glob pattern")
@click.argument("new", cls=Argument, help="The later round (documents matched to OLD by id)")
def compare_command(ctx: click.Context, old: str, new: str, **values: Any) -> None:
    """Did agreement change between two rounds? NEW - OLD for every headline statistic, with a
    bootstrap interval over documents, paired on shared documents (1000 replicates unless
    --bootstrap N); see docs/deciding.md. Exit 0, 1 when a --min bound on a change failed (a
    significant drop below it), 2 bad input."""
    from ..outputs import compare, text as render  # imported when the command runs (import time)
    from . import runs

    try:
        files, settings = _settings(ctx, [old], values)
        if len(files) != 1:
            raise UsageError("compare takes exactly two paths, OLD and NEW, before any --section.key overrides")
        result = runs.compare(_request([str(old)], settings), _request([str(new)], settings),
                              values["min"], progress=_progress())
    except SpanagreeError as err:
        fail(err)
    output = settings["report"]["output"] or "table"
    if output == "json":
        text = orjson.dumps(result, option=orjson.OPT_INDENT_2).decode("utf-8")
    else:
        sections = compare.tables(result)
        text = render.tables_as_markdown(sections) if output == "markdown" else render.tables_as_text(sections)
    sys.stdout.write(text + "\n")
    if not result["passed"]:
        raise click.exceptions.Exit(1)


@command(app, "plan", choices={"output": ("table", "json")}, overrides=True)
@paths_argument(_PATHS_HELP)
def plan_command(ctx: click.Context, paths: list[str], **values: Any) -> None:
    """How many documents must raters double-annotate? From a pilot round: the documents for the
    interval of --statistic to have --half-width, and for each --min NAME=BOUND to be decided with
    --power (docs/planning.md). Exit 0, 2 bad input or a target the pilot cannot support."""
    from . import runs

    try:
        files, settings = _settings(ctx, paths, values)
        _check_printed(values["out"], files)
        result = runs.plan(_request(files, settings), values["statistic"], half_width=values["half_width"],
                           bounds=values["min"], power=values["power"], progress=_progress())
    except SpanagreeError as err:
        fail(err)
    if (settings["report"]["output"] or "table") == "json":
        text = orjson.dumps(result, option=orjson.OPT_INDENT_2).decode("utf-8")
    else:
        text = "\n".join(
            f"{q['statistic']}: {q['value']:.4f} [{q['interval']['low']:.4f}, {q['interval']['high']:.4f}] on "
            f"{result['pilot']['documents']} pilot documents; "
            + (f"half-width {q['target']['half_width']:g} needs {q['documents_needed']} documents"
               if "half_width" in q["target"] else
               f"deciding >= {q['target']['bound']:g} (likely {q['likely']}) with power {q['target']['power']:g} "
               f"needs {q['documents_needed']} documents") for q in result["questions"])
        text += f"\ndocuments needed: {result['documents_needed']}\nmethod: {result['method']}\nassumes {result['assumption']}"
    _emit(text, values["out"])


@command(app, "next", choices={"method": MODEL_NAMES, "output": ("table", "jsonl")}, required=("budget",),
         overrides=True)
@paths_argument(_PATHS_HELP)
def next_command(ctx: click.Context, paths: list[str], **values: Any) -> None:
    """Which documents should get one more rater? The --budget documents whose consensus under an
    annotator model is least certain, in priority order, each with its reason; --output jsonl
    writes one task per line (doc_id first, text included) for Prodigy, Label Studio or doccano
    (docs/planning.md)."""
    from . import runs

    method = values["method"] or "dawid-skene"
    try:
        _refuse_unused(ctx, method)
        files, settings = _settings(ctx, paths, values)
        _check_printed(values["out"], files)
        request = _request(files, settings)
        project = _project_to_post(values, request)
        result = runs.next_tasks(request, values["budget"], method=method,
                                 items=values["items"], max_per_rater=values["max_per_rater"], priors=runs.priors(
                                     method, values["competence_prior"], values["prior_strength"], values["pooling"]))
        if project is not None:
            from ..io import labelstudio_server

            title = f"spanagree next ({method}, {values['budget']} tasks)"
            result["posted"] = labelstudio_server.post_view(
                project, sorted({int(t["doc_id"].partition(":")[0]) for t in result["tasks"]}), title)
    except SpanagreeError as err:
        fail(err)
    if settings["report"]["output"] == "jsonl":
        text = "\n".join(orjson.dumps({"doc_id": t["doc_id"], "text": t["text"], "meta": {
            k: t[k] for k in ("rank", "priority", "raters", "rater", "reason")}}).decode("utf-8") for t in result["tasks"])
    else:
        text = "\n".join(f"{t['rank']:>4}  {visible(t['doc_id'])}  {t['reason']}" for t in result["tasks"])
        text += f"\npolicy: {result['policy']}"
    _emit(text, values["out"])
    if "posted" in result:
        _say_posted(result["posted"], f"a Data Manager tab {result['posted']['title']!r}")


def _project_to_post(values: dict[str, Any], request: Request):
    """With ``--post``, the Label Studio project the request reads (its only input), else None."""
    from ..io import labelstudio_server

    return labelstudio_server.project_of(request.inputs.paths, "--post") if values["post"] else None


def _say_posted(posted: dict[str, Any], what: str) -> None:
    click.echo(f"posted {what} for {posted['tasks']} tasks to {posted['project']}", err=True)


def _plan_chart(ctx: click.Context, result: Any, values: dict[str, Any]) -> dict[str, Any] | None:
    """The report's planning chart; when neither --statistic nor --half-width was given, a headline
    the documents leave undefined has none (the page goes without), else that is an error."""
    from .. import plans

    try:
        return plans.plan_curve(result, values["statistic"], values["half_width"])
    except UsageError:
        if _was_given(ctx, "statistic") or _was_given(ctx, "half_width"):
            raise
        return None


def _refuse_unused(ctx: click.Context, method: str) -> None:
    """A flag given that the chosen method would not read is an error, not a silent no-op."""
    from . import runs

    given = runs.not_read(method, [name for name in ctx.params if _was_given(ctx, name)])
    if given:
        flags = ", ".join(declared.BY_NAME[name].flag for name in given)
        needs = f"--method {runs.readers(given)}"
        needs = f"an annotator model ({needs})" if method == "vote" else needs
        raise UsageError(f"{flags} {'needs' if len(given) == 1 else 'need'} {needs}; --method {method} does not read "
                         f"{'it' if len(given) == 1 else 'them'}")


def _was_given(ctx: click.Context, name: str) -> bool:
    """The flag ``name`` was given on the command line (not left at its default)."""
    return getattr(ctx.get_parameter_source(name), "name", "DEFAULT") != "DEFAULT"


def _check_printed(out_file: Path | None, files) -> None:
    """Printed output goes to standard output or ``-o FILE``, which must not be an input."""
    check_outputs([None if _to_stdout(out_file) else out_file], files)


def _given(ctx: click.Context) -> dict[str, Any]:
    """The flags of the running command that were given on the command line and have a config
    key, by name, as plain values."""
    values = {}
    for name in ctx.command.declared:
        option = declared.BY_NAME[name]
        if option.config and _was_given(ctx, name):
            value = ctx.params[name]
            values[name] = str(value) if isinstance(value, Path) else value
    return values


def _settings(ctx: click.Context, paths: Sequence[str], values: dict[str, Any]):
    """``(input files, settings by section)``: defaults, ``--config``, the flags given, then
    ``--section.key VALUE`` overrides."""
    files, extra = settings_module.split_arguments([str(p) for p in paths] + list(ctx.args))
    if not files:
        raise UsageError("no input files given")
    config = values.get("config")
    flags = [name for param in ctx.command.params for name in getattr(param, "opts", ())]
    settings = settings_module.load_settings(config, flags=_given(ctx),
                                             overrides=settings_module.parse_overrides(extra, flags))
    if config is not None:  # options named in messages: the flag, and the key of the config in use
        token = SPELLING.set(declared.as_flag_or_key)
        ctx.call_on_close(lambda: SPELLING.reset(token))
    return files, settings


def _request(files: Sequence[str], settings: dict[str, Any], **kept: Any):
    """The run :class:`spanagree.request.Request` of the input files and settings (the request
    module, and what it reads and scores with, imported when a command runs)."""
    from ..request import Request

    return Request.from_settings(files, settings, **kept)


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


def _emit(text: str, out_file: Path | None) -> None:
    """Printed output (a table, Markdown, JSON) to standard output, or to ``-o FILE``."""
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
        fail(err)
    click.echo(f"wrote {out_file}", err=True)


def _to_stdout(out_file: Path | None) -> bool:
    """No ``-o``, or ``-o -`` (standard output, as usual)."""
    return out_file is None or str(out_file) == "-"


def _write(path: Path, data: bytes) -> None:
    """Write an output file whole; a write the system refuses (a full disk, ...) exits 2."""
    try:
        write_bytes(path, data)
    except SpanagreeError as err:
        fail(err)


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
