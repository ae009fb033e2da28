"""What the commands do with a request, shared by the command line and the Python entry points:
the gate's checks, the comparison of two rounds, the consensus and the raters' competence.

Each takes a :class:`~spanagree.request.Request` (its inputs, rule and settings resolved
once at the boundary) and returns plain dicts; printing and writing files is the caller's.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Sequence

from .. import catalogue
from ..core.model import Corpus
from ..request import Request, run
from ..errors import UsageError
from ..outputs import compare as comparison, gate as gate_checks


def gate(request: Request, checks: Sequence[Any], *, on: str = "point", min_documents: int | None = None,
         progress: Any = None) -> dict[str, Any]:
    """Score the request and run the gate's ``checks`` (``NAME=BOUND`` texts, or checks already
    parsed from a config's ``[gate]`` section)."""
    checks = [gate_checks.parse_check(c) if isinstance(c, str) else c for c in checks]
    request = gate_checks.prepare(request, checks, on=on, min_documents=min_documents)
    scored = run(request, progress=progress)
    # only the rater pairs a check names are built (thousands of raters make millions of pairs)
    report = scored.with_pairs(scored.pairs_written([c.argument for c in checks if c.statistic == "pair"]))
    if any(catalogue.STATISTICS[c.statistic].needs == "the model" for c in checks):
        report["annotators"] = _annotator_model(scored, request)
    return gate_checks.evaluate(report, checks, on=on, min_documents=min_documents)


def _annotator_model(scored, request: Request) -> dict[str, Any]:
    """The Dawid–Skene model fitted on the run's spans under its rule (docs/annotators.md)."""
    from ..diagnostics.annotators import fit_model  # the models (SciPy), only for their checks
    from ..measures.annotators.decode import competence

    if not scored.corpus.has_spans:
        raise UsageError(
            "rater_accuracy and min_rater_accuracy fit an annotator model on the spans, and this input was "
            "counted in parts without keeping them (--jobs, --stream or a large input): run with --no-stream, "
            "or use spanagree raters --method dawid-skene --min min_rater_accuracy=BOUND"
        )
    settings = request.settings
    fit = fit_model(scored.corpus, method="dawid-skene", rule=scored.counts.rule, unit=scored.counts.unit_name)
    return {"method": "dawid-skene", "competence": competence(fit, level=settings["ci"], seed=settings["seed"]),
            "convergence": fit.convergence()}


def compare(old: Request, new: Request, bounds: Sequence[str] = (), *, progress: Any = None) -> dict[str, Any]:
    """Score both rounds and compare them; ``bounds``: ``NAME=BOUND`` on a change NEW − OLD."""
    drops = comparison.parse_bounds(bounds)
    settings = old.settings
    replicates = {"replicates": settings["bootstrap"] or comparison.DEFAULT_REPLICATES, "level": settings["ci"],
                  "seed": settings["seed"]}
    # the rounds' own intervals are not needed
    old_report = run(old.replace(bootstrap=None), progress=progress)
    new_report = run(new.replace(bootstrap=None), progress=progress)
    return comparison.compare(old_report, new_report, max_drop=drops, **replicates)


def priors(method: str, competence_prior: float, prior_strength: float, pooling: float) -> dict[str, float]:
    """An annotator model's priors as its fitting function takes them (MACE has no pooling)."""
    chosen = {"competence_prior": competence_prior, "prior_strength": prior_strength, "pooling": pooling}
    if method == "mace":
        chosen.pop("pooling")
    return chosen


def _alignment(request: Request) -> dict[str, Any]:
    return {"rule": request.rule, "unit": request.settings["unit"]}


def _corpus(request: Request) -> Corpus:
    return request.inputs if isinstance(request.inputs, Corpus) else request.inputs.read()


class Consensus(NamedTuple):
    """A consensus: ``gold`` (one rater), its ``report``, each span's posterior ``probability``
    (annotator models; ``(doc_id, start, end, label)`` -> p) and the ``corpus`` it was built from."""

    gold: Corpus
    report: dict[str, Any]
    probability: dict | None
    corpus: Corpus


def consensus(request: Request, *, method: str = "vote", min_raters: int | None = None, name: str = "consensus",
              threshold: float = 0.5, gold: str | None = None, items: str = "spans",
              priors: dict[str, float] | None = None) -> Consensus:
    """The consensus of the request's raters (docs/annotators.md); the method and its options are
    checked before anything is read."""
    from ..diagnostics import annotators
    from ..diagnostics.consensus import check_name, consensus as vote

    check_name(name)
    if method == "vote":
        if gold is not None:
            raise UsageError("--gold needs an annotator model (--method dawid-skene or mace)")
        if min_raters is None:
            raise UsageError("the vote needs --min-raters (-k): keep a span when at least this many raters marked it")
        corpus = _corpus(request)
        return Consensus(*vote(corpus, min_raters=min_raters, name=name, **_alignment(request)), None, corpus)
    annotators.check_method(method, tuple(annotators.MODELS))
    corpus = _corpus(request)
    found, report, probability, _ = annotators.model_consensus(
        corpus, method=method, min_raters=min_raters or 1, name=name, threshold=threshold,
        gold_rater=gold, model_options=priors, view=items, level=request.settings["ci"],
        seed=request.settings["seed"], **_alignment(request))
    return Consensus(found, report, probability, corpus)


def raters(request: Request, *, method: str = "dawid-skene", gold: str | None = None, threshold: float = 0.5,
           items: str = "spans", priors: dict[str, float] | None = None) -> dict[str, Any]:
    """Each rater's competence under an annotator model, ranked (docs/annotators.md)."""
    from ..diagnostics import annotators

    annotators.check_method(method, tuple(annotators.MODELS))
    return annotators.model_consensus(
        _corpus(request), method=method, gold_rater=gold, threshold=threshold, level=request.settings["ci"],
        seed=request.settings["seed"], model_options=priors, view=items, **_alignment(request))[1]
