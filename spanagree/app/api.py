"""The public entry points that read: :func:`score` and :func:`alt_test` on paths or a corpus.

They read the input (in this process, or in chunks through :mod:`spanagree.engine`), then hand
the corpus and its counts to :func:`spanagree.report.score_corpus`, which builds the report.
"""
from __future__ import annotations

import inspect
import warnings
from pathlib import Path
from typing import Any, Sequence, overload

from ..core import options, validate
from ..core import progress as progress_bars
from ..core.align import AlignmentRule
from ..core.model import Corpus
from ..engine.mode import asked_for_engine, choose_mode
from ..errors import UsageError, option
from ..io import read
from ..measures.alt_test.procedure import MIN_DOCUMENTS, AltTestResult, check_parameters, from_report
from ..report import AgreementReport, score_corpus


def score(
    corpus: Corpus | str | Path | Sequence[str | Path],
    *args: Any,
    read_options: dict[str, Any] | None = None,
    client: Any = None,
    progress: Any = None,
    **kwargs: Any,
) -> AgreementReport:
    """Align every pair of raters on every document they share and count agreement.

    Parameters
    ----------
    corpus : a :class:`~spanagree.core.model.Corpus`, or path(s) to read with :func:`spanagree.read`.
    rule : ``"exact"``, ``"overlap"``, ``"partial"`` or ``"proportional"`` (docs/alignment.md), or an
        :class:`~spanagree.core.align.AlignmentRule`.
    labels : ``"strict"`` (labels must match) or ``"ignore"``.
    unit : ``"char"`` (default) or ``"token"`` (needs tokens in the input).
    min_overlap, partial_credit, proportional : options of the overlap, partial and
        proportional rules.
    reference : a rater to score every other rater against (precision, recall, F-beta).
    candidates : ``"tokens"``, ``"documents"`` or a path to a JSONL of candidate spans: makes
        ``d`` defined and adds the chance-corrected coefficients (κ, π, S, α, ...) under
        ``"chance_corrected"`` (docs/chance-corrected.md; see :mod:`spanagree.measures.chance.candidates`).
    language : the blank spaCy tokenizer's language for ``candidates="tokens"`` when the input
        has no tokens.
    strict_candidates : make spans that match no candidate an error instead of extra items.
    bootstrap, ci, seed : with ``bootstrap=N``, every headline statistic gets a percentile
        interval at level ``ci`` from N bootstrap replicates over documents (seeded) and a
        jackknife standard error (docs/intervals.md; see :mod:`spanagree.measures.psa.intervals`). ``ci`` is also the
        level of the chance-corrected family's analytic intervals (docs/chance-corrected.md).
    format, read_options : how to read ``corpus`` when it is paths (as :func:`spanagree.read`).
    progress : ``True`` draws progress bars on stderr (tqdm; a widget in Jupyter) for every phase
        that runs two seconds or more: reading, aligning, the candidates, the bootstrap (also when
        it runs later, on first use of the intervals), α_U and γ. A callable
        ``(bytes_done, bytes_total)`` gets the reading progress instead; None or False: silent.
    jobs, engine, client, stream : how to read and count paths (see :mod:`spanagree.engine`).
        ``jobs=N`` reads, aligns and counts in chunks in N processes (0: every core);
        ``stream=True`` does it in this process, one chunk at a time (bounded memory);
        ``engine="dask"`` on a Dask cluster: ``client`` is a ``distributed.Client``, a scheduler
        address, or None for a local cluster of ``jobs`` workers. The report is the same; its
        ``corpus`` then holds ids and counts but no spans or texts (so the per-rater view's
        span-level parts are then None, with the reason). With ``candidates``, or a
        format other than spanagree or Prodigy JSONL, the input is read serially (and said so).
    unitizing : also compute Krippendorff's α_U and Mathet et al.'s γ on the spans themselves
        (no candidates needed) under ``"unitizing"``; a dict sets γ's options (``samples``,
        ``alpha``, ``beta``, ``categorical``), and ``seed`` seeds γ's random continua (see
        :mod:`spanagree.measures.unitizing.section`). Needs the spans in memory (not ``jobs``,
        ``stream`` or ``engine``).
    structure, attribute_scales : also agreement on relations, events and span attributes on the
        span alignment under ``"structure"`` (:mod:`spanagree.measures.structure`,
        docs/structure.md); ``attribute_scales`` declares attributes ordinal or interval for α
        (``["Confidence=Low<Mid<High", "Score=interval"]``). Needs the spans in memory.
    """
    if not isinstance(corpus, Corpus):
        validate.path("corpus", corpus)
    if read_options is not None and not isinstance(read_options, dict):
        raise UsageError(f"read_options must be a dict of reader options or None, got {validate.shown(read_options)}")
    given = _by_name(args, kwargs)
    rule = given.pop("rule") if isinstance(given.get("rule"), AlignmentRule) else None
    settings = options.keywords(given, _option_names())
    if rule is not None:
        settings["rule"] = rule
    if progress is True:  # bars on stderr for this call's phases (and the bootstrap, when it runs)
        with progress_bars.shown():
            return score_settings(corpus, settings, read_options=read_options, client=client,
                                  progress=progress_bars.reading())
    return score_settings(corpus, settings, read_options=read_options, client=client,
                          progress=None if progress is False else progress)


def _option_names() -> list[str]:
    """The keyword arguments of :func:`score` that are options (declared in :mod:`spanagree.core.options`)."""
    return [o.name for o in options.api_options()]


def score_settings(
    corpus: Corpus | str | Path | Sequence[str | Path],
    settings: dict[str, Any],
    *,
    read_options: dict[str, Any] | None = None,
    client: Any = None,
    progress: Any = None,
) -> AgreementReport:
    """:func:`score` with every option already checked, by name in ``settings`` (every keyword
    option of :func:`score`, as :func:`spanagree.core.options.keywords` gives them); ``rule`` may
    be an :class:`~spanagree.core.align.AlignmentRule`."""
    settings = dict(settings)
    rule = settings["rule"]
    if not isinstance(rule, AlignmentRule):
        rule = AlignmentRule(**{name: settings[name] for name in options.RULE_OPTIONS})
    for name in options.RULE_OPTIONS:
        del settings[name]
    jobs, engine, stream, format = (settings.pop(name) for name in ("jobs", "engine", "stream", "format"))
    if settings["structure"] and asked_for_engine(jobs, stream, engine, client):
        raise UsageError(
            "relation and attribute agreement (--structure) needs every span in memory, which --jobs, --stream "
            "and --engine do not keep (they hold counts only); run it without them"
        )
    if settings["unitizing"] and asked_for_engine(jobs, stream, engine, client):
        raise UsageError(
            f"unitizing agreement needs every span in memory, which the engines ({option('jobs', 2)}, "
            f"{option('stream', True)}, {option('engine', 'dask')}) do not keep (they hold counts only); run it "
            f"without them, e.g. with {option('jobs', 1)}"
        )
    counts = None
    if not isinstance(corpus, Corpus):
        mode = choose_mode(
            corpus, format, read_options, jobs=jobs, stream=stream, engine=engine, client=client,
            needs_spans=bool(
                settings["unitizing"] or settings["per_rater"] or settings["candidates"] is not None or settings["structure"]
            ),
        )
        if mode.engine:
            counted = _count_with_engine(
                corpus, rule, settings, mode.note, format=format, read_options=read_options, jobs=mode.jobs,
                engine=engine, client=client, progress=progress,
            )
            if counted is not None:
                corpus, counts = counted
        if counts is None:
            corpus = read(corpus, format=format, progress=progress, **(read_options or {}))
    return score_corpus(corpus, rule, settings, counts=counts)


_POSITIONAL = tuple(o.name for o in options.api_options() if o.positional)


def _by_name(args: Sequence[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The options given to :func:`score`, by name (``rule``, ``labels`` and ``unit`` may be given
    by position)."""
    if len(args) > len(_POSITIONAL):
        raise TypeError(f"score() takes at most {len(_POSITIONAL) + 1} positional arguments ({len(args) + 1} given)")
    given = dict(zip(_POSITIONAL, args))
    twice = sorted(set(given) & set(kwargs))
    if twice:
        raise TypeError(f"score() got multiple values for argument {twice[0]!r}")
    unknown = sorted(set(kwargs) - set(_option_names()))
    if unknown:
        raise TypeError(f"score() got an unexpected keyword argument {unknown[0]!r}")
    return {**given, **kwargs}


score.__signature__ = inspect.Signature([
    inspect.Parameter("corpus", inspect.Parameter.POSITIONAL_OR_KEYWORD),
    *(inspect.Parameter(o.name, inspect.Parameter.POSITIONAL_OR_KEYWORD if o.positional else inspect.Parameter.KEYWORD_ONLY,
                        default=o.default) for o in options.api_options()),
    *(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None) for name in ("read_options", "client", "progress")),
], return_annotation=AgreementReport)


@overload
def alt_test(corpus: Any, candidate: str, **kwargs) -> AltTestResult: ...
@overload
def alt_test(corpus: Any, candidate: Sequence[str], **kwargs) -> list[AltTestResult]: ...


def alt_test(
    corpus: Any,
    candidate: str | Sequence[str],
    *,
    epsilon: float = 0.2,
    alpha: float = 0.05,
    min_documents: int = MIN_DOCUMENTS,
    **score_options: Any,
):
    """Can the candidate rater (a model) replace one of the humans? The alternative annotator
    test of Calderon, Reichart & Dror (2025) on span annotations.

    Parameters
    ----------
    corpus : a :class:`~spanagree.Corpus`, path(s) to read, or an
        :class:`~spanagree.AgreementReport` already scored.
    candidate : the candidate rater's name, or several names (each is tested against the
        humans, i.e. every rater that is not a candidate; several come back as a list ranked by
        advantage probability, highest first).
    epsilon : the cost-benefit margin ε (the paper's rule of thumb: 0.2 against experts, 0.15
        skilled annotators, 0.1 crowd workers).
    alpha : the false discovery rate of the Benjamini–Yekutieli correction.
    min_documents : fewest documents a human must share with the candidate and another human to
        be tested (30).
    **score_options : any option of :func:`spanagree.score` (rule, labels, unit, candidates, ...).

    Returns
    -------
    AltTestResult, or a list of them for several candidates. ``verdict`` is ``"trusted"``,
    ``"untrusted"`` or ``"inconclusive"`` (fewer than three humans could be tested).

    See ``docs/alt-test.md`` for every definition.
    """
    check_parameters(epsilon, alpha, min_documents)
    if isinstance(corpus, AgreementReport):
        if score_options:
            raise UsageError(f"score options ({', '.join(sorted(score_options))}) do not apply to a report already scored")
        report = corpus
    else:
        report = score(corpus, **score_options)
    return from_report(report, candidate, epsilon=epsilon, alpha=alpha, min_documents=min_documents)


def _count_with_engine(paths, rule: AlignmentRule, settings: dict[str, Any], note: str | None, **engine: Any):
    """The :class:`~spanagree.engine.Counted` of :func:`spanagree.engine.count_paths`, or None when the serial
    path must read the input (candidates need every span and text)."""
    # the engines load multiprocessing and concurrent.futures: imported only when one is asked for
    from ..engine import AutoEngineWarning, EngineFallbackWarning, count_paths

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
