"""The public entry points: :func:`score`, :func:`gate`, :func:`compare`, :func:`consensus`,
:func:`raters`, :func:`plan`, :func:`next_tasks` and :func:`alt_test`, on paths or a corpus.

Each builds one :class:`~spanagree.request.Request` from its keywords (the command line
builds the same request from flags and ``--config``) and hands it to :func:`run`, which reads the
input (in this process, or in chunks through :mod:`spanagree.engine`) and has
:func:`spanagree.report.score_corpus` build the report. The keywords are typed in the source, so a
type checker flags a misspelled one; the package ships ``py.typed``.
"""
from __future__ import annotations

import inspect
import os
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping, Sequence, TypedDict, overload

from ..core import options
from ..core.align import AlignmentRule
from ..core.model import Corpus
from ..request import PathsLike, Request, run
from ..errors import UsageError
from ..measures.alt_test.procedure import MIN_DOCUMENTS, AltTestResult, check_parameters, from_report
from ..report import AgreementReport

if TYPE_CHECKING:
    from typing_extensions import Unpack

Rule = Literal["exact", "overlap", "partial", "proportional"]


class ScoreOptions(TypedDict, total=False):
    """The keyword options of :func:`score` after ``corpus``, as the other entry points take
    them (``**options``); a test keeps them equal to :func:`score`'s signature."""

    rule: Rule | AlignmentRule
    labels: Literal["strict", "ignore"]
    unit: Literal["char", "token"]
    format: str
    min_overlap: int
    partial_credit: float
    proportional: Literal["jaccard", "dice"]
    search: Literal["sweep", "tree"]
    reference: str | None
    beta: float
    per_rater: bool
    structure: bool
    attribute_scales: Sequence[str] | None
    candidates: str | os.PathLike | None
    language: str
    strict_candidates: bool
    bootstrap: int | None
    ci: float
    seed: int
    unitizing: bool | dict[str, Any]
    jobs: int | None
    stream: bool | None
    engine: Literal["local", "dask"]
    read_options: dict[str, Any] | None


def score(
    corpus: Corpus | PathsLike,
    rule: Rule | AlignmentRule = "exact",
    labels: Literal["strict", "ignore"] = "strict",
    unit: Literal["char", "token"] = "char",
    *,
    format: str = "auto",
    min_overlap: int = 1,
    partial_credit: float = 0.5,
    proportional: Literal["jaccard", "dice"] = "jaccard",
    search: Literal["sweep", "tree"] = "sweep",
    reference: str | None = None,
    beta: float = 1.0,
    per_rater: bool = False,
    structure: bool = False,
    attribute_scales: Sequence[str] | None = None,
    candidates: str | os.PathLike | None = None,
    language: str = "en",
    strict_candidates: bool = False,
    bootstrap: int | None = None,
    ci: float = 0.95,
    seed: int = 0,
    unitizing: bool | dict[str, Any] = False,
    jobs: int | None = None,
    stream: bool | None = None,
    engine: Literal["local", "dask"] = "local",
    read_options: dict[str, Any] | None = None,
    client: Any = None,
    progress: bool | Callable[[int, int], None] | None = None,
) -> AgreementReport:
    """Align every pair of raters on every document they share and count agreement.

    Parameters
    ----------
    corpus : a :class:`~spanagree.core.model.Corpus`, or path(s) to read with :func:`spanagree.read`
        (a quoted glob pattern is expanded once, as on the command line).
    rule : ``"exact"``, ``"overlap"``, ``"partial"`` or ``"proportional"`` (docs/alignment.md), or an
        :class:`~spanagree.core.align.AlignmentRule`.
    labels : ``"strict"`` (labels must match) or ``"ignore"``.
    unit : ``"char"`` (default) or ``"token"`` (needs tokens in the input).
    min_overlap, partial_credit, proportional : options of the overlap, partial and
        proportional rules.
    reference : a rater to score every other rater against (precision, recall, F-beta).
    candidates : ``"tokens"``, ``"documents"`` or a path to a JSONL of candidate spans: makes
        ``d`` defined and adds the chance-corrected coefficients (κ, π, S, α, ...) under
        ``"chance_corrected"`` (docs/chance-corrected.md).
    language : the blank spaCy tokenizer's language for ``candidates="tokens"`` when the input
        has no tokens.
    strict_candidates : make spans that match no candidate an error instead of extra items.
    bootstrap, ci, seed : with ``bootstrap=N``, every headline statistic gets a percentile
        interval at level ``ci`` from N bootstrap replicates over documents (seeded) and a
        jackknife standard error (docs/intervals.md). ``ci`` is also the level of the
        chance-corrected family's analytic intervals (docs/chance-corrected.md).
    format, read_options : how to read ``corpus`` when it is paths (as :func:`spanagree.read`).
    progress : ``True`` draws progress bars on stderr (tqdm; a widget in Jupyter) for every phase
        that runs two seconds or more. A callable ``(bytes_done, bytes_total)`` gets the reading
        progress instead; None or False: silent.
    jobs, engine, client, stream : how to read and count paths (see :mod:`spanagree.engine`).
        ``jobs=N`` reads, aligns and counts in chunks in N processes (0: every core);
        ``stream=True`` does it in this process, one chunk at a time (bounded memory);
        ``engine="dask"`` on a Dask cluster (``client``: a ``distributed.Client``, a scheduler
        address, or None). The report is the same; its ``corpus`` then holds ids and counts but
        no spans or texts.
    unitizing : also Krippendorff's α_U and Mathet et al.'s γ on the spans themselves under
        ``"unitizing"``; a dict sets γ's options (``samples``, ``alpha``, ``beta``, ``categorical``).
        Needs the spans in memory.
    structure, attribute_scales : also agreement on relations, events and span attributes
        (docs/structure.md); ``attribute_scales`` declares attributes ordinal or interval for α
        (``["Confidence=Low<Mid<High", "Score=interval"]``). Needs the spans in memory.

    Every option is declared, with its check, in :mod:`spanagree.core.options` (docs/options.md);
    a test keeps this signature's defaults equal to the declarations.
    """
    given = {name: value for name, value in locals().items() if name in _OPTION_NAMES}
    request = Request.from_keywords(corpus, given, read_options=read_options, client=client)
    return run(request, progress=progress)


#: The keyword options of :func:`score` (declared in :mod:`spanagree.core.options`).
_OPTION_NAMES = frozenset(o.name for o in options.api_options())


def _request(corpus: Corpus | PathsLike, given: Mapping[str, Any]) -> Request:
    """The request of an entry point's ``**options`` (those of :func:`score`)."""
    given = dict(given)
    unknown = sorted(set(given) - _OPTION_NAMES - {"read_options"})
    if unknown:
        raise TypeError(f"unexpected keyword argument {unknown[0]!r}; the options are those of spanagree.score()")
    return Request.from_keywords(corpus, given, read_options=given.pop("read_options", None))


def gate(
    corpus: Corpus | PathsLike,
    min: Mapping[str, float] | Sequence[str] = (),
    *,
    on: Literal["point", "lower"] = "point",
    min_documents: int | None = None,
    method: Literal["dawid-skene", "mace", "bsc-seq"] | None = None,
    progress: bool | Callable[[int, int], None] | None = None,
    **options: Unpack[ScoreOptions],
) -> dict[str, Any]:
    """Pass or fail agreement against bounds, as ``spanagree gate`` does: each statistic named in
    ``min`` (``{"pairwise_mean_psa": 0.8, "label:PER": 0.7}``, or ``["pairwise_mean_psa=0.8"]``)
    must be at least its bound; ``on="lower"`` holds the interval's lower end against it.
    ``spanagree info --statistics`` lists the names (docs/deciding.md); ``method`` is the
    annotator model of the rater-accuracy checks (default ``dawid-skene``). Returns the gate's
    result (``passed``, ``verdict``, ``checks``)."""
    from . import runs

    texts = [f"{name}={bound!r}" for name, bound in min.items()] if isinstance(min, Mapping) else list(min)
    return runs.gate(_request(corpus, options), texts, on=on, min_documents=min_documents, progress=progress,
                     method=method)


def compare(
    old: Corpus | PathsLike,
    new: Corpus | PathsLike,
    *,
    min: Mapping[str, float] | Sequence[str] = (),
    progress: bool | Callable[[int, int], None] | None = None,
    **options: Unpack[ScoreOptions],
) -> dict[str, Any]:
    """Did agreement change between two rounds? NEW − OLD for every headline statistic with a
    paired bootstrap interval over shared documents, as ``spanagree compare`` does (1000
    replicates unless ``bootstrap``); ``min`` bounds a change (``{"pairwise_mean_psa": -0.05}``:
    fail when it dropped significantly by more than 0.05). docs/deciding.md."""
    from . import runs

    texts = [f"{name}={bound!r}" for name, bound in min.items()] if isinstance(min, Mapping) else list(min)
    return runs.compare(_request(old, options), _request(new, options), texts, progress=progress)


def consensus(
    corpus: Corpus | PathsLike,
    *,
    method: Literal["vote", "dawid-skene", "mace", "bsc-seq"] = "vote",
    min_raters: int | None = None,
    name: str = "consensus",
    threshold: float = 0.5,
    gold: str | None = None,
    competence_prior: float | None = None,
    prior_strength: float | None = None,
    pooling: float | None = None,
    items: Literal["spans", "tokens"] = "spans",
    **options: Unpack[ScoreOptions],
) -> tuple[Corpus, dict[str, Any]]:
    """A consensus gold set, as ``spanagree consensus`` builds it: by vote (a span kept when at
    least ``min_raters`` raters have a span aligned to it; ties left out and listed) or by an
    annotator model (docs/annotators.md). Returns ``(gold, report)``: ``gold`` a one-rater
    :class:`~spanagree.Corpus` named ``name``."""
    from . import runs

    chosen = {"gold": gold, "threshold": threshold, "competence_prior": competence_prior,
              "prior_strength": prior_strength, "pooling": pooling, "items": items}
    unused = runs.not_read(method, [k for k, v in chosen.items() if v != _CONSENSUS_DEFAULTS[k]])
    if unused:
        raise UsageError(f"{', '.join(unused)}: not read by method={method!r} ({runs.readers(unused)} "
                         f"{'reads it' if len(unused) == 1 else 'read them'})")
    made = runs.consensus(_request(corpus, options), method=method, min_raters=min_raters, name=name,
                          threshold=threshold, gold=gold, items=items,
                          priors=runs.priors(method, competence_prior, prior_strength, pooling))
    return made.gold, made.report


#: The defaults of :func:`consensus`'s model options: a value other than these was given.
_CONSENSUS_DEFAULTS = {name: p.default for name, p in inspect.signature(consensus).parameters.items()}


def raters(
    corpus: Corpus | PathsLike,
    *,
    method: Literal["dawid-skene", "mace", "bsc-seq"] = "dawid-skene",
    gold: str | None = None,
    threshold: float = 0.5,
    competence_prior: float | None = None,
    prior_strength: float | None = None,
    pooling: float | None = None,
    items: Literal["spans", "tokens"] = "spans",
    **options: Unpack[ScoreOptions],
) -> dict[str, Any]:
    """Whom to trust, as ``spanagree raters`` says: each rater's competence per label from an
    annotator model, ranked, with intervals at level ``ci`` (docs/annotators.md)."""
    from . import runs

    return runs.raters(_request(corpus, options), method=method, gold=gold, threshold=threshold, items=items,
                       priors=runs.priors(method, competence_prior, prior_strength, pooling))


def plan(
    corpus: Corpus | PathsLike,
    statistic: str = "pairwise_mean_psa",
    *,
    half_width: float | None = None,
    min: Mapping[str, float] | Sequence[str] = (),
    power: float = 0.8,
    progress: bool | Callable[[int, int], None] | None = None,
    **options: Unpack[ScoreOptions],
) -> dict[str, Any]:
    """How many documents a round needs, from a pilot ``corpus``, as ``spanagree plan`` says
    (docs/planning.md): for the interval of ``statistic`` to have ``half_width`` (at level
    ``ci``), and for each bound of ``min`` to be decided with probability ``power``. Returns
    ``documents_needed``, the pilot, the method, its assumption and one row per question."""
    from . import runs

    texts = [f"{name}={bound!r}" for name, bound in min.items()] if isinstance(min, Mapping) else list(min)
    return runs.plan(_request(corpus, options), statistic, half_width=half_width, bounds=texts, power=power,
                     progress=progress)


def next_tasks(
    corpus: Corpus | PathsLike,
    budget: int,
    *,
    method: Literal["dawid-skene", "mace", "bsc-seq"] = "dawid-skene",
    competence_prior: float | None = None,
    prior_strength: float | None = None,
    pooling: float | None = None,
    items: Literal["spans", "tokens"] = "spans",
    max_per_rater: int | None = None,
    **options: Unpack[ScoreOptions],
) -> dict[str, Any]:
    """The ``budget`` documents that should get one more rater, in priority order, as ``spanagree
    next`` lists them (docs/planning.md): ``tasks``, each with ``doc_id``, ``rank``, ``priority``,
    ``reason``, ``text`` and who should take it (``rater``, ``rater_accuracy``; at most
    ``max_per_rater`` documents each, the budget shared evenly unless set)."""
    from . import runs

    return runs.next_tasks(_request(corpus, options), budget, method=method, items=items, max_per_rater=max_per_rater,
                           priors=runs.priors(method, competence_prior, prior_strength, pooling))


@overload
def alt_test(corpus: Any, candidate: str, *, epsilon: float = ..., alpha: float = ..., min_documents: int = ...,
             **options: Unpack[ScoreOptions]) -> AltTestResult: ...
@overload
def alt_test(corpus: Any, candidate: Sequence[str], *, epsilon: float = ..., alpha: float = ...,
             min_documents: int = ..., **options: Unpack[ScoreOptions]) -> list[AltTestResult]: ...


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
        report = run(_request(corpus, score_options))
    return from_report(report, candidate, epsilon=epsilon, alpha=alpha, min_documents=min_documents)
