"""The ``spanagree`` command line: thin typer wrappers over functions that return dicts.

Exit codes: 0 ok, 1 a gate failed, 2 bad input or usage (the message names file:line).
"""
from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import orjson
import typer

from .errors import SpanagreeError

app = typer.Typer(
    name="spanagree",
    help="How far raters agree on span markup: positive specific agreement and friends.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class Output(str, Enum):
    table = "table"
    json = "json"
    markdown = "markdown"


class Rule(str, Enum):
    exact = "exact"
    overlap = "overlap"
    partial = "partial"
    proportional = "proportional"


class Labels(str, Enum):
    strict = "strict"
    ignore = "ignore"


class Unit(str, Enum):
    char = "char"
    token = "token"


class Proportional(str, Enum):
    jaccard = "jaccard"
    dice = "dice"


@app.callback()
def _main() -> None:
    """spanagree: inter-annotator agreement for span markup."""


@app.command("score", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def score_command(
    ctx: typer.Context,
    paths: List[Path] = typer.Argument(..., help="Annotation files (JSONL, .spacy, ...), or directories of them; then any --section.key VALUE config overrides", show_default=False),
    config: Optional[Path] = typer.Option(None, "--config", "-c", help="A .cfg file of settings; flags override it, --section.key VALUE overrides both"),
    format: str = typer.Option("auto", "--format", "-f", help="Input format: auto, or a format name (config: input.format)"),
    rule: Rule = typer.Option(Rule.exact, "--rule", "-r", help="Which spans match (SPEC §2) (config: alignment.rule)"),
    labels: Labels = typer.Option(Labels.strict, "--labels", help="strict: labels must match; ignore: positions only (config: alignment.labels)"),
    unit: Unit = typer.Option(Unit.char, "--unit", help="Measure offsets in characters or tokens (config: alignment.unit)"),
    min_overlap: int = typer.Option(1, "--min-overlap", help="Overlap rule: units two spans must share (config: alignment.min_overlap)"),
    partial_credit: float = typer.Option(0.5, "--partial-credit", help="Partial rule: credit of an inexact match (config: alignment.partial_credit)"),
    proportional: Proportional = typer.Option(Proportional.jaccard, "--proportional", help="Proportional rule: jaccard or dice (config: alignment.proportional)"),
    reference: Optional[str] = typer.Option(None, "--reference", help="Score every rater against this rater (P, R, F) (config: report.reference)"),
    beta: float = typer.Option(1.0, "--beta", help="Beta of F-beta against the reference (config: report.beta)"),
    answers: Optional[str] = typer.Option(None, "--answers", help="Prodigy answers that count, comma-separated (default accept) (config: input.answers)"),
    span_keys: Optional[str] = typer.Option(None, "--span-keys", help="DocBin span groups that are raters, comma-separated (config: input.span_keys)"),
    spans_key: Optional[str] = typer.Option(None, "--spans-key", help="Span group of per-rater DocBins (default doc.ents) (config: input.spans_key)"),
    candidates: Optional[str] = typer.Option(None, "--candidates", help="Candidate items: tokens, documents or a file of candidate spans (config: candidates.source)"),
    language: str = typer.Option("en", "--language", help="Language of the blank spaCy tokenizer for candidate tokens (config: candidates.language)"),
    strict_candidates: bool = typer.Option(False, "--strict-candidates", help="A span matching no candidate is an error (config: candidates.strict_candidates)"),
    scheme: Optional[str] = typer.Option(None, "--scheme", help="CoNLL tag scheme: IOB1, IOB2, IOE1, IOE2, IOBES, BILOU (default auto) (config: input.scheme)"),
    repair: Optional[str] = typer.Option(None, "--repair", help="CoNLL ill-formed tag sequences: begin, drop or error (config: input.repair)"),
    columns: Optional[str] = typer.Option(None, "--columns", help="CoNLL: one file whose last N columns are these raters' tags, e.g. ann1,ann2 (config: input.columns)"),
    relevant_at: Optional[int] = typer.Option(None, "--relevant-at", help="TREC qrels: lowest grade that counts as relevant (config: input.relevant_at)"),
    offsets: Optional[str] = typer.Option(None, "--offsets", help="Offset unit of the export: codepoint, utf16 or grapheme (default per tool; docs/formats.md) (config: input.offsets)"),
    check_text: Optional[str] = typer.Option(None, "--check-text", help="Label Studio, brat: check region texts: whitespace (default), exact or off (config: input.check_text)"),
    duplicates: Optional[str] = typer.Option(None, "--duplicates", help="Label Studio, Prodigy: a rater's repeated annotation: latest (default) or error (config: input.duplicates)"),
    text_field: Optional[str] = typer.Option(None, "--text-field", help="Label Studio: the data field holding the text (config: input.text_field)"),
    empty: Optional[str] = typer.Option(None, "--empty", help="doccano: an example with no span is missing (default) or nothing (config: input.empty)"),
    rater_field: Optional[str] = typer.Option(None, "--rater-field", help="doccano: a field naming the rater (default: the file's name) (config: input.rater_field)"),
    rater: Optional[str] = typer.Option(None, "--rater", help="Prodigy: rater from annotator (default), session, prefix (session without its timestamp) or file (config: input.rater)"),
    discontinuous: Optional[str] = typer.Option(None, "--discontinuous", help="brat: a discontinuous entity as its covering span (default) or its fragments (config: input.discontinuous)"),
    assessor: Optional[str] = typer.Option(None, "--assessor", help="TREC qrels: the assessor from the file (file), column 2 (column) or auto (config: input.assessor)"),
    bootstrap: Optional[int] = typer.Option(None, "--bootstrap", help="Intervals: bootstrap replicates over documents, e.g. 1000 (config: intervals.bootstrap)"),
    ci: float = typer.Option(0.95, "--ci", help="Intervals: level (config: intervals.ci)"),
    seed: int = typer.Option(0, "--seed", help="Intervals: random seed (config: intervals.seed)"),
    jobs: int = typer.Option(1, "--jobs", "-j", help="Read, align and count in N worker processes; 0: every core (config: engine.jobs)"),
    stream: bool = typer.Option(False, "--stream", help="One chunk at a time: memory bounded by the chunk, not the corpus (config: engine.stream)"),
    engine: str = typer.Option("local", "--engine", help="local or dask (config: engine.engine)"),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address; default a local cluster of --jobs workers (config: engine.scheduler)"),
    output: Output = typer.Option(Output.table, "--output", help="table, json or markdown (config: report.output)"),
    out_file: Optional[Path] = typer.Option(None, "-o", "--out", help="Write the output to this file"),
) -> None:
    """Align every pair of raters and report positive specific agreement.

    Settings, lowest precedence first: defaults, --config FILE, flags, --section.key VALUE.
    """
    from . import config as settings_module, render
    from .errors import UsageError

    try:
        files, extra = settings_module.split_arguments([str(p) for p in paths] + list(ctx.args))
        if not files:
            raise UsageError("no input files given")
        given = {
            name: value for name, value in ctx.params.items()
            if name in settings_module.FLAGS and getattr(ctx.get_parameter_source(name), "name", "DEFAULT") != "DEFAULT"
        }
        settings = settings_module.load_settings(config, flags=given, overrides=settings_module.parse_overrides(extra))
        result = settings_module.score_with_settings(files, settings, progress=_progress())
        output = Output(settings["report"]["output"])
        report = result.to_dict() if output is Output.json else result.summary(render.MAX_PAIRS, render.MAX_DOCUMENTS)
    except SpanagreeError as err:
        _fail(err)
    _emit(report, output, out_file)


@app.command("convert")
def convert_command(
    paths: List[Path] = typer.Argument(..., help="Annotation files or directories, in any format spanagree reads", show_default=False),
    out: Path = typer.Option(..., "-o", "--out", help="The file to write", show_default=False),
    to: Optional[str] = typer.Option(None, "--to", help="Output format: spanagree, prodigy (or any with a writer); default from OUT's suffix"),
    format: str = typer.Option("auto", "--format", "-f", help="Input format (default: detected per file)"),
    answers: Optional[str] = typer.Option(None, "--answers", help="prodigy: answers that count, comma-separated (default accept)"),
    scheme: Optional[str] = typer.Option(None, "--scheme", help="conll: IOB1, IOB2, IOE1, IOE2, IOBES, BILOU (default auto)"),
    repair: Optional[str] = typer.Option(None, "--repair", help="conll: ill-formed tag sequences: begin, drop or error (default begin)"),
    columns: Optional[str] = typer.Option(None, "--columns", help="conll: one file, the last N columns are these raters' tags, e.g. ann1,ann2"),
    relevant_at: Optional[int] = typer.Option(None, "--relevant-at", help="qrels: lowest relevance grade that counts as relevant (default 1)"),
    offsets: Optional[str] = typer.Option(None, "--offsets", help="Offset unit of the export: codepoint, utf16 or grapheme (default per tool)"),
    check_text: Optional[str] = typer.Option(None, "--check-text", help="labelstudio, brat: check region texts: whitespace (default), exact or off"),
    duplicates: Optional[str] = typer.Option(None, "--duplicates", help="labelstudio, prodigy: a rater's repeated annotation: latest (default) or error"),
    text_field: Optional[str] = typer.Option(None, "--text-field", help="labelstudio: the data field holding the text"),
    empty: Optional[str] = typer.Option(None, "--empty", help="doccano: an example with no span is missing (default) or nothing"),
    rater_field: Optional[str] = typer.Option(None, "--rater-field", help="doccano: a field naming the rater (default: the file's name)"),
    rater: Optional[str] = typer.Option(None, "--rater", help="prodigy: rater from annotator (default), session, prefix or file"),
    discontinuous: Optional[str] = typer.Option(None, "--discontinuous", help="brat: covering (default) or fragments"),
    assessor: Optional[str] = typer.Option(None, "--assessor", help="qrels: the assessor from auto (default), file or column"),
) -> None:
    """Convert annotations to spanagree JSONL, Prodigy JSONL or another format with a writer."""
    from .convert import convert

    given = {"scheme": scheme, "repair": repair, "columns": columns, "relevant_at": relevant_at, "offsets": offsets,
             "check_text": check_text, "duplicates": duplicates, "text_field": text_field, "empty": empty,
             "rater_field": rater_field, "rater": rater, "discontinuous": discontinuous, "assessor": assessor}
    options = {k: v for k, v in given.items() if v is not None}
    if answers:
        options["answers"] = tuple(a.strip() for a in answers.split(","))
    try:
        result = convert(paths, out, to=to, format=format, **options)
    except SpanagreeError as err:
        _fail(err)
    written = result["written"]
    typer.echo(
        f"wrote {written['annotations']} annotations ({written['spans']} spans, {written['documents']} documents, "
        f"{len(result['raters'])} raters) to {result['out']} as {result['format']}"
    )
    for kind, reasons in result["excluded"].items():
        for reason, n in reasons.items():
            typer.echo(f"  on reading, {kind}: {reason}: {n}")
    for note, n in result.get("notes", {}).items():
        typer.echo(f"  note: {note}: {n}")


@app.command("consensus")
def consensus_command(
    paths: List[Path] = typer.Argument(..., help="The raters' annotation files, or directories of them", show_default=False),
    min_raters: int = typer.Option(..., "--min-raters", "-k", help="Keep a span when at least this many raters have a span aligned to it", show_default=False),
    out: Path = typer.Option(..., "-o", "--out", help="Where to write the consensus: a .jsonl (spanagree JSONL) or .spacy (DocBin) file", show_default=False),
    rule: Rule = typer.Option(Rule.exact, "--rule", "-r", help="Which spans align (SPEC §2)"),
    labels: Labels = typer.Option(Labels.strict, "--labels", help="strict: labels must match; ignore: positions only (label by plurality)"),
    unit: Unit = typer.Option(Unit.char, "--unit", help="Align and vote in characters or tokens"),
    min_overlap: int = typer.Option(1, "--min-overlap", help="Overlap rule: units two spans must share"),
    partial_credit: float = typer.Option(0.5, "--partial-credit", help="Partial rule: credit of an inexact match"),
    proportional: Proportional = typer.Option(Proportional.jaccard, "--proportional", help="Proportional rule: jaccard or dice"),
    name: str = typer.Option("consensus", "--name", help="The consensus rater's name in the output"),
    format: str = typer.Option("auto", "--format", "-f", help="Input format: auto, or a format name"),
    answers: Optional[str] = typer.Option(None, "--answers", help="Prodigy answers that count, comma-separated (default accept)"),
    language: str = typer.Option("en", "--language", help=".spacy output: blank spaCy tokenizer for documents without tokens"),
    report_file: Optional[Path] = typer.Option(None, "--report", help="Also write the full report (ties listed) as JSON to this file"),
) -> None:
    """Build a consensus gold set by vote; ties are left out and listed, never broken."""
    from .consensus import run

    read_options = {"answers": tuple(a.strip() for a in answers.split(","))} if answers else {}
    try:
        report = run(
            paths, out, min_raters=min_raters, format=format, language=language, read_options=read_options,
            rule=rule.value, labels=labels.value, unit=unit.value, min_overlap=min_overlap,
            partial_credit=partial_credit, proportional=proportional.value, name=name,
        )
    except SpanagreeError as err:
        _fail(err)
    clusters, documents = report["clusters"], report["documents"]
    typer.echo(
        f"wrote {report['spans']['in_consensus']} consensus spans in {documents['in_consensus']} documents to {out} "
        f"(clusters: {clusters['kept']} kept, {clusters['below_min_raters']} below {min_raters} raters, "
        f"{clusters['tied']} tied and left out)",
        err=True,
    )
    for reason, n in documents["excluded"].items():
        typer.echo(f"  documents left out, {reason}: {n}", err=True)
    for what, n in report.get("notes", {}).items():
        typer.echo(f"  {what}: {n}", err=True)
    if report_file is not None:
        report_file.write_bytes(orjson.dumps(report, option=orjson.OPT_INDENT_2) + b"\n")
        typer.echo(f"wrote {report_file}", err=True)


def _with_score_options(command):
    """Give ``command`` every reading and scoring option of ``score`` (the same flags, help and
    config keys, but not its ``--output``), after its own; it reads them with
    :func:`_command_settings`."""
    import functools
    import inspect

    from .config import FLAGS

    own = inspect.signature(command, eval_str=True).parameters
    shared = [
        p for name, p in inspect.signature(score_command, eval_str=True).parameters.items()
        if name in FLAGS and name != "output" and name not in own
    ]
    names = {p.name for p in shared}

    @functools.wraps(command)
    def wrapper(**kwargs):
        return command(**{k: v for k, v in kwargs.items() if k not in names})

    parameters = [*own.values(), *shared]
    wrapper.__signature__ = inspect.Signature(parameters)
    wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
    return wrapper


def _command_settings(ctx: typer.Context, paths: List[Path], config: Optional[Path]):
    """``(input files, settings)`` as ``score`` builds them: defaults, ``--config``, the flags
    given, then ``--section.key VALUE`` overrides."""
    from . import config as settings_module
    from .errors import UsageError

    files, extra = settings_module.split_arguments([str(p) for p in paths] + list(ctx.args))
    if not files:
        raise UsageError("no input files given")
    given = {
        name: value for name, value in ctx.params.items()
        if name in settings_module.FLAGS and name != "output"
        and getattr(ctx.get_parameter_source(name), "name", "DEFAULT") != "DEFAULT"
    }
    settings = settings_module.load_settings(config, flags=given, overrides=settings_module.parse_overrides(extra))
    return files, settings


@app.command("gate", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
@_with_score_options
def gate_command(
    ctx: typer.Context,
    paths: List[Path] = typer.Argument(..., help="Annotation files or directories; then any --section.key VALUE config overrides", show_default=False),
    config: Optional[Path] = typer.Option(None, "--config", "-c", help="A .cfg file: the gate section (on, min_documents, and a gate.min table of bounds) and any score settings"),
    minimum: Optional[List[str]] = typer.Option(None, "--min", help="A check NAME=BOUND, repeatable: pairwise_mean_psa, pooled_psa, macro_psa, macro_pooled_psa, label:<LABEL>, label_pooled:<LABEL>, pair:<A>~<B>; with candidates kappa, alpha, pair_kappa:<A>~<B>, fleiss_kappa, davies_fleiss_kappa, kappa_s, gwet_ac1 (config: the gate.min table)", show_default=False),
    on: str = typer.Option("point", "--on", help="point: bound the point estimate; lower: bound the interval's lower end (bootstraps 1000 replicates unless --bootstrap N) (config: gate.on)"),
    min_documents: Optional[int] = typer.Option(None, "--min-documents", help="Also fail when fewer documents were scored (config: gate.min_documents)"),
    junit: Optional[Path] = typer.Option(None, "--junit", help="Write JUnit XML to this file: one test case per check"),
) -> None:
    """Pass or fail agreement against bounds, for CI: exit 0 all checks pass, 1 a check failed, 2 bad input.

    Prints each check; appends a Markdown summary to $GITHUB_STEP_SUMMARY when it is set.
    """
    from . import gate

    try:
        files, settings = _command_settings(ctx, paths, config)
        result = gate.run(files, settings, minimum or (), progress=_progress())
        gate.write_outputs(result, junit=junit)
    except SpanagreeError as err:
        _fail(err)
    except OSError as err:
        _fail(err)
    sys.stdout.write(gate.as_text(result, color=sys.stdout.isatty()) + "\n")
    if not result["passed"]:
        raise typer.Exit(code=1)


@app.command("report", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
@_with_score_options
def report_command(
    ctx: typer.Context,
    paths: List[Path] = typer.Argument(..., help="Annotation files or directories; then any --section.key VALUE config overrides", show_default=False),
    config: Optional[Path] = typer.Option(None, "--config", "-c", help="A .cfg file of settings; flags override it, --section.key VALUE overrides both"),
    out: Path = typer.Option(..., "-o", "--out", help="The HTML file to write", show_default=False),
    title: Optional[str] = typer.Option(None, "--title", help="The page's title"),
    documents: int = typer.Option(10, "--documents", min=0, help="How many lowest-agreement documents to show with each rater's spans"),
) -> None:
    """Write one self-contained HTML page: headline numbers with intervals and bands, charts, label
    confusion, and the documents raters disagree on most. Intervals: 1000 replicates unless --bootstrap N."""
    from .config import score_with_settings

    try:
        files, settings = _command_settings(ctx, paths, config)
        from . import report as html_report

        html_report.check_dependencies()
        if settings["intervals"]["bootstrap"] is None:
            settings["intervals"]["bootstrap"] = html_report.DEFAULT_REPLICATES
        result = score_with_settings(files, settings, progress=_progress(), needs_texts=True)
        written = html_report.write(result, out, title=title, max_documents=documents, sources=files)
    except SpanagreeError as err:
        _fail(err)
    except OSError as err:
        _fail(err)
    typer.echo(f"wrote {written['out']} ({written['bytes']} bytes)", err=True)


@app.command("disagreements", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
@_with_score_options
def disagreements_command(
    ctx: typer.Context,
    paths: List[Path] = typer.Argument(..., help="Annotation files or directories; then any --section.key VALUE config overrides", show_default=False),
    config: Optional[Path] = typer.Option(None, "--config", "-c", help="A .cfg file of settings; flags override it, --section.key VALUE overrides both"),
    out: Path = typer.Option(..., "-o", "--out", help="The file to write (.jsonl or .csv, or any name with --output)", show_default=False),
    output: Optional[str] = typer.Option(None, "--output", help="jsonl, csv or prodigy-review (default: from OUT's suffix)"),
    context: int = typer.Option(40, "--context", min=0, help="Characters of context on each side of a case"),
) -> None:
    """List every missed, spurious, partial and wrong-label case (JSONL or CSV), or write each
    rater's version of every document with a disagreement for Prodigy's review recipe."""
    from . import disagreements
    from .config import score_with_settings

    try:
        files, settings = _command_settings(ctx, paths, config)
        kind = disagreements.resolve_format(out, output)
        settings["candidates"]["source"] = None  # cases need no candidate items
        result = score_with_settings(files, settings, progress=_progress(), needs_texts=True)
        written = disagreements.write(result, out, output=kind, context=context,
                                      language=settings["candidates"]["language"])
    except SpanagreeError as err:
        _fail(err)
    except OSError as err:
        _fail(err)
    cases = ", ".join(f"{n} {kind}" for kind, n in written["cases"].items())
    what = f"{written['tasks']} tasks" if kind == "prodigy-review" else f"{sum(written['cases'].values())} cases ({cases})"
    typer.echo(
        f"wrote {what} from {written['documents_with_disagreements']} documents with a disagreement to "
        f"{written['out']} as {kind}",
        err=True,
    )
    for note, n in written.get("notes", {}).items():
        typer.echo(f"  {note}: {n}", err=True)


def _emit(report: dict, output: Output, out_file: Path | None) -> None:
    from . import render

    if output is Output.json:
        text = orjson.dumps(report, option=orjson.OPT_INDENT_2).decode("utf-8")
    elif output is Output.markdown:
        text = render.as_markdown(report)
    else:
        text = render.as_text(report)
    if out_file is None:
        sys.stdout.write(text + "\n")
    else:
        out_file.write_text(text + "\n", encoding="utf-8")
        typer.echo(f"wrote {out_file}", err=True)


def _fail(err: Exception) -> None:
    typer.echo(f"spanagree: error: {err}", err=True)
    raise typer.Exit(code=2)


def _progress():
    """A progress callback that draws on stderr, or None when stderr is not a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int) -> None:
        share = done / total if total else 1.0
        bar = "#" * int(30 * share)
        sys.stderr.write(f"\rreading [{bar:<30}] {share:6.1%}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def main() -> None:
    """Console entry point."""
    app()


if __name__ == "__main__":
    main()
