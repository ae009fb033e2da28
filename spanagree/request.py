"""One run request: what to read, how to align, what to compute and how to run, resolved once.

Every way in builds a :class:`Request` at its boundary and hands it down: the command line and
``--config`` (:meth:`Request.from_settings`, from the sections of
:func:`spanagree.app.config.load_settings`), :func:`spanagree.score` and the other Python entry
points (:meth:`Request.from_keywords`), and the spaCy components. Below the boundary nothing is
checked again and no path is expanded again: glob patterns become files once, here
(:func:`spanagree.io.expand_globs`), so a quoted pattern reads the same files in memory, with
``--stream``, with ``--jobs 2`` and through :func:`spanagree.score`. The options and their checks
are declared in :mod:`spanagree.core.options` (docs/options.md).
"""
from __future__ import annotations

import os
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence, Union

import warnings

from .core import options, validate
from .core import progress as progress_bars
from .core.align import AlignmentRule
from .core.model import Corpus
from .engine.mode import asked_for_engine, choose_mode
from .errors import UsageError, option
from .io import expand_globs, read
from .io.labelstudio_server import ProjectPath
from .report import AgreementReport, score_corpus

#: Paths as the entry points take them: one, or a list.
PathsLike = Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]]

#: The keyword options of :func:`spanagree.score` that say how to run, not what to compute.
RUNNING = ("jobs", "stream", "engine")


@dataclass(frozen=True)
class Inputs:
    """What to read: the paths (patterns expanded, in order; a Label Studio project's address
    fetched, docs/labelstudio.md), the input format and the reader options that were set
    (docs/formats.md)."""

    paths: tuple[str | ProjectPath, ...]
    format: str = "auto"
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, paths: PathsLike, format: str = "auto", options: Mapping[str, Any] | None = None) -> "Inputs":
        """Check the paths, expand their patterns once, keep the format and reader options."""
        validate.path("paths", paths)
        if options is not None and not isinstance(options, Mapping):
            raise UsageError(f"read_options must be a dict of reader options or None, got {validate.shown(options)}")
        # a Label Studio project stays the copy fetched here (read again, it would be fetched again)
        expanded = expand_globs(paths)
        return cls(tuple(p if isinstance(p, ProjectPath) else str(p) for p in expanded), format, dict(options or {}))

    def read(self, progress: Any = None) -> Corpus:
        """The corpus these inputs hold (:func:`spanagree.read`)."""
        return read(list(self.paths), self.format, progress=progress, **self.options)


@dataclass(frozen=True)
class Request:
    """One run. ``inputs``: the files to read, or a corpus already read; ``rule``: the alignment;
    ``settings``: every other keyword option of :func:`spanagree.score`, checked (``unit``,
    ``reference``, ``candidates``, ``bootstrap``, ...); ``jobs``, ``stream``, ``engine``,
    ``client``: how to run (:mod:`spanagree.engine`)."""

    inputs: Inputs | Corpus
    rule: AlignmentRule = field(default_factory=AlignmentRule)
    settings: Mapping[str, Any] = field(default_factory=dict)
    jobs: int | None = None
    stream: bool | None = None
    engine: str = "local"
    client: Any = None

    def __post_init__(self) -> None:
        if asked_for_engine(self.jobs, self.stream, self.engine, self.client):
            if self.settings.get("structure"):
                raise _spans_not_kept("relation and attribute agreement (--structure) needs every span in memory")
            if self.settings.get("unitizing"):
                raise _spans_not_kept("unitizing agreement needs every span in memory")

    @classmethod
    def from_keywords(cls, corpus: "Corpus | PathsLike", given: Mapping[str, Any], *,
                      read_options: Mapping[str, Any] | None = None, client: Any = None,
                      check: bool = True) -> "Request":
        """A request from :func:`spanagree.score`'s keywords (``given``, by name; the rest take
        their declared defaults). ``rule`` may be an :class:`AlignmentRule`. ``check=False``: the
        values were checked where they came in (a config file or flag)."""
        given = dict(given)
        rule = given.pop("rule") if isinstance(given.get("rule"), AlignmentRule) else None
        settings = options.keywords(given, [o.name for o in options.api_options()], check=check)
        if rule is None:
            rule = AlignmentRule(**{name: settings[name] for name in options.RULE_OPTIONS})
        for name in options.RULE_OPTIONS:
            del settings[name]
        jobs, stream, engine = (settings.pop(name) for name in RUNNING)
        format = settings.pop("format")
        inputs = corpus if isinstance(corpus, Corpus) else Inputs.of(corpus, format, read_options)
        return cls(inputs, rule, settings, jobs=jobs, stream=stream, engine=engine, client=client)

    @classmethod
    def from_settings(cls, paths: PathsLike, sections: Mapping[str, Mapping[str, Any]], *,
                      keep_spans: bool = False) -> "Request":
        """A request from config sections (:func:`spanagree.app.config.load_settings`, which
        checked them). ``keep_spans``: the caller reads texts and spans from the report (the HTML
        report, the disagreements), which the engines do not keep."""
        given = {o.name: sections[o.section][o.key] for o in options.api_options() if o.config}
        unitizing = sections["unitizing"]
        on = unitizing["on"]
        # a table in `on` (as the keyword takes it) turns unitizing on with those options over the section's
        table = {**{k: unitizing[k] for k in ("samples", "sampler", "alpha", "beta")}, **(on if isinstance(on, dict) else {})}
        given["unitizing"] = table if (on is True or isinstance(on, dict)) else False
        engine = sections["engine"]
        uses_engine = asked_for_engine(engine["jobs"], engine["stream"], engine["engine"])
        if keep_spans and uses_engine:
            raise _spans_not_kept("this command shows document texts and spans")
        if keep_spans:  # never chosen for large input either: the pages need the spans
            given["stream"] = False
        return cls.from_keywords(paths, given, read_options=reader_options(sections), check=False,
                                 client=engine["scheduler"] if uses_engine else None)

    def replace(self, **changes: Any) -> "Request":
        """This request with some settings changed (``bootstrap=None``, ...)."""
        return dataclasses.replace(self, settings={**self.settings, **changes})


def _spans_not_kept(what: str) -> UsageError:
    """``what`` cannot run on an engine's counts: the message says so and how to run it."""
    return UsageError(
        f"{what}, which the engines ({option('jobs', 2)}, {option('stream', True)}, {option('engine', 'dask')}) "
        f"do not keep (they hold counts only); run it without them, e.g. with {option('jobs', 1)}")


def reader_options(sections: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The reader options of an ``[input]`` section that were set (only those that differ from
    the readers' own defaults, so that formats without the option are not handed it)."""
    section = sections["input"]
    chosen: dict[str, Any] = {}
    if list(section["answers"]) != ["accept"]:
        chosen["answers"] = tuple(section["answers"])
    for o in options.OPTIONS:
        if o.section == "input" and o.key not in ("format", "answers") and section[o.key] is not None:
            chosen[o.key] = section[o.key]
    return chosen


def run(request: Request, *, progress: Any = None) -> AgreementReport:
    """The report a :class:`~spanagree.request.Request` asks for: its inputs read (in this
    process, or counted in chunks by an engine), then scored by
    :func:`spanagree.report.score_corpus`. ``progress`` as :func:`score` takes it."""
    if progress is True:  # bars on stderr for this call's phases (and the bootstrap, when it runs)
        with progress_bars.shown():
            return run(request, progress=progress_bars.reading())
    progress = None if progress is False else progress
    if progress is not None and not callable(progress):
        raise UsageError(f"progress must be True, False, None or a callable (bytes_done, bytes_total), "
                         f"got {validate.shown(progress)}")
    settings = request.settings
    corpus, counts = request.inputs, None
    if isinstance(corpus, Inputs):
        inputs = corpus
        mode = choose_mode(
            list(inputs.paths), inputs.format, dict(inputs.options), jobs=request.jobs, stream=request.stream,
            engine=request.engine, client=request.client,
            needs_spans=bool(
                settings["unitizing"] or settings["per_rater"] or settings["candidates"] is not None or settings["structure"]
            ),
        )
        if mode.engine:
            counted = _count_with_engine(
                list(inputs.paths), request.rule, settings, mode.note, format=inputs.format,
                read_options=dict(inputs.options), jobs=mode.jobs, engine=request.engine, client=request.client,
                progress=progress,
            )
            if counted is not None:
                corpus, counts = counted
        if counts is None:
            corpus = inputs.read(progress)
    return score_corpus(corpus, request.rule, dict(settings), counts=counts)


def _count_with_engine(paths, rule: AlignmentRule, settings: dict[str, Any], note: str | None, **engine: Any):
    """The :class:`~spanagree.engine.Counted` of :func:`spanagree.engine.count_paths`, or None when the serial
    path must read the input (candidates need every span and text)."""
    # the engines load multiprocessing and concurrent.futures: imported only when one is asked for
    from .engine import AutoEngineWarning, EngineFallbackWarning, count_paths

    if settings["candidates"] is not None:
        warnings.warn(
            "read serially: candidates need every span and text in memory", EngineFallbackWarning, stacklevel=3
        )
        return None
    if note is not None:  # the engine was chosen here, for large input: say so
        warnings.warn(note, AutoEngineWarning, stacklevel=3)
    counted = count_paths(paths, rule, unit=settings["unit"], search=settings["search"], **engine)
    if note is not None and counted.corpus.has_spans is False:
        counted.corpus.engine["chosen"] = note
    return counted
