"""What the commands do with a request, shared by the command line and the Python entry points:
the gate's checks, the comparison of two rounds, the consensus and the raters' competence.

Each takes a :class:`~spanagree.request.Request` (its inputs, rule and settings resolved
once at the boundary) and returns plain dicts; printing and writing files is the caller's.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple, Sequence

from .. import catalogue, plans
from ..core.model import Corpus
from ..request import Request, run
from ..errors import UsageError
from ..outputs import compare as comparison, gate as gate_checks


def gate(request: Request, checks: Sequence[Any], *, on: str = "point", min_documents: int | None = None,
         progress: Any = None, method: str | None = None) -> dict[str, Any]:
    """Score the request and run the gate's ``checks`` (``NAME=BOUND`` texts, or checks already
    parsed from a config's ``[gate]`` section); ``method``: the annotator model of the
    rater-accuracy checks (default ``dawid-skene``), refused when no check needs one."""
    checks = [gate_checks.parse_check(c) if isinstance(c, str) else c for c in checks]
    modelled = any(catalogue.STATISTICS[c.statistic].needs == "the model" for c in checks)
    if method is not None and not modelled:
        raise UsageError(f"--method {method} weighs the raters for rater_accuracy and min_rater_accuracy, and no "
                         "check here names either")
    request = gate_checks.prepare(request, checks, on=on, min_documents=min_documents)
    scored = run(request, progress=progress)
    # only the rater pairs a check names are built (thousands of raters make millions of pairs)
    report = scored.with_pairs(scored.pairs_written([c.argument for c in checks if c.statistic == "pair"]))
    if modelled:
        report["annotators"] = _annotator_model(scored, request, method or "dawid-skene")
    return gate_checks.evaluate(report, checks, on=on, min_documents=min_documents)


def _annotator_model(scored, request: Request, method: str) -> dict[str, Any]:
    """The annotator model ``method`` fitted on the run's spans under its rule, with its defaults
    (docs/annotators.md)."""
    from ..diagnostics.annotators import MODEL_NAMES, check_method, fit_model  # the models (SciPy), for their checks
    from ..measures.annotators.decode import competence

    check_method(method, MODEL_NAMES)
    if not scored.corpus.has_spans:
        raise UsageError(
            "rater_accuracy and min_rater_accuracy fit an annotator model on the spans, and this input was "
            "counted in parts without keeping them (--jobs, --stream or a large input): run with --no-stream, "
            "or use spanagree raters --method dawid-skene --min min_rater_accuracy=BOUND"
        )
    settings = request.settings
    fit = fit_model(scored.corpus, method=method, rule=scored.counts.rule, unit=scored.counts.unit_name)
    return {"method": method, "competence": competence(fit, level=settings["ci"], seed=settings["seed"]),
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


#: The options only an annotator model reads (the vote reads none of them), and the models that read
#: each: MACE has no pooling; bsc-seq always models the tokens and decodes the most probable sequence
#: (no items, no threshold).
_EVERY_MODEL = ("dawid-skene", "mace", "bsc-seq")
MODEL_ONLY = {"gold": _EVERY_MODEL, "adjudicate": _EVERY_MODEL, "threshold": ("dawid-skene", "mace"),
              "competence_prior": _EVERY_MODEL, "prior_strength": _EVERY_MODEL, "pooling": ("dawid-skene", "bsc-seq"),
              "items": ("dawid-skene", "mace")}


def not_read(method: str, given: Sequence[str]) -> list[str]:
    """The options among ``given`` that ``method`` would not read, in :data:`MODEL_ONLY`'s order."""
    return [name for name, readers in MODEL_ONLY.items() if name in given and method not in readers]


def readers(names: Sequence[str]) -> str:
    """The models that read every option of ``names``, as ``a or b``."""
    return " or ".join(m for m in _EVERY_MODEL if all(m in MODEL_ONLY[name] for name in names))


def priors(method: str, competence_prior: float | None, prior_strength: float | None,
           pooling: float | None) -> dict[str, float]:
    """An annotator model's priors as its fitting function takes them: those given (None: the
    method's default) that it reads (MACE has no pooling)."""
    chosen = {"competence_prior": competence_prior, "prior_strength": prior_strength, "pooling": pooling}
    return {name: value for name, value in chosen.items() if value is not None and method in MODEL_ONLY[name]}


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
            raise UsageError(f"--gold needs an annotator model (--method {readers(['gold'])})")
        if min_raters is None:
            raise UsageError("the vote needs --min-raters (-k): keep a span when at least this many raters marked it")
        corpus = _corpus(request)
        return Consensus(*vote(corpus, min_raters=min_raters, name=name, **_alignment(request)), None, corpus)
    annotators.check_method(method, annotators.MODEL_NAMES)
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

    annotators.check_method(method, annotators.MODEL_NAMES)
    return annotators.model_consensus(
        _corpus(request), method=method, gold_rater=gold, threshold=threshold, level=request.settings["ci"],
        seed=request.settings["seed"], model_options=priors, view=items, **_alignment(request))[1]


def plan(request: Request, statistic: str = "pairwise_mean_psa", *, half_width: float | None = None,
         bounds: Sequence[str] = (), power: float = 0.8, progress: Any = None) -> dict[str, Any]:
    """How many documents a round needs, from the request's pilot (docs/planning.md): for the
    interval of ``statistic`` to have ``half_width``, and for each ``NAME=BOUND`` of ``bounds`` to be
    decided (as the gate's ``--on lower`` decides it) with probability ``power``."""
    from ..measures.psa import planning

    if not 0 < power < 1:
        raise UsageError(f"--power is a probability in (0, 1), got {power!r}")
    checks = [gate_checks.parse_check(text) for text in bounds]
    if half_width is None and not checks:
        raise UsageError("plan needs a target: --half-width W (for --statistic NAME), or --min NAME=BOUND")
    if half_width is not None:
        found, argument = catalogue.find(statistic, "--statistic")
        checks = [gate_checks.Check(found.key, math.nan, argument), *checks]
    asked = checks
    plans.refuse_unplannable([c.statistic for c in asked], [c.name for c in asked])
    scored = run(gate_checks.prepare(request, asked, on="lower"), progress=progress)
    report = scored.with_pairs(scored.pairs_written([]))
    documents = report["documents"]["scored"]
    if len(scored.corpus.raters) < 2 or not documents:
        raise UsageError(f"the pilot needs documents that two raters or more annotated; it has "
                         f"{len(scored.corpus.raters)} rater(s) and {documents} such documents")
    options = scored.interval_options
    warnings_said = plans.crowd_warning(scored.corpus, [c.name for c in asked if "pairwise_mean_psa" in
                                                        catalogue.STATISTICS[c.statistic].path])
    rows = []
    for i, check in enumerate(asked):
        found = catalogue.STATISTICS[check.statistic]
        value, interval, reason = found.read(report, check.argument)
        if reason is not None or interval is None or interval.get("low") is None:
            raise UsageError(f"the pilot cannot support a plan for {check.name}: {reason or 'its interval is undefined'}")
        row = {"statistic": check.name, "value": value, "interval": {"low": interval["low"], "high": interval["high"]}}
        if i == 0 and half_width is not None:
            needed, curve = planning.documents_for_half_width(
                planning.pilot_counts(scored), found.path_of(check.argument), half_width, level=options.level,
                replicates=options.replicates, seed=options.seed)
            row |= {"target": {"half_width": half_width}, "documents_needed": needed, "curve": curve}
        else:
            needed, way = planning.documents_to_decide(value, interval["low"], interval["high"], check.bound, documents,
                                              level=options.level, power=power)
            if needed is None:
                raise UsageError(f"the pilot's {check.name} sits on the bound {check.bound:g}: no number of documents "
                                 "is likely to decide it")
            row |= {"target": {"bound": check.bound, "power": power}, "documents_needed": needed, "likely": way}
        rows.append(row)
    return {
        "documents_needed": max(row["documents_needed"] for row in rows),
        "pilot": {"documents": documents, "raters": len(scored.corpus.raters)},
        "level": options.level, "replicates": options.replicates, "seed": options.seed,
        "method": planning.METHOD, "assumption": planning.ASSUMPTION, "questions": rows, "warnings": warnings_said,
    }


def next_tasks(request: Request, budget: int, *, method: str = "dawid-skene", items: str = "spans",
               priors: dict[str, float] | None = None, max_per_rater: int | None = None) -> dict[str, Any]:
    """The ``budget`` documents that should get one more rater, in priority order, each with its
    reason (docs/planning.md): the number of its candidate spans under the annotator model
    ``method``, fitted on the request's spans, ties by their summed ``p(1 − p)``; and who should
    take it (:func:`_takers`, at most ``max_per_rater`` documents each)."""
    import numpy as np

    from ..diagnostics import annotators
    from ..measures.annotators import decode

    annotators.check_method(method, annotators.MODEL_NAMES)
    corpus = _corpus(request)
    raters = np.bincount(corpus.ann_doc, minlength=corpus.n_documents)
    if len(corpus.raters) < 2 or not (raters > 1).any():
        raise UsageError(f"next fits an annotator model on documents that two raters or more annotated; the input "
                         f"has {len(corpus.raters)} rater(s) and {int((raters > 1).sum())} such documents")
    open_documents = np.flatnonzero(raters < len(corpus.raters))
    if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= len(open_documents):
        raise UsageError(f"--budget is the number of extra annotations, one per document, from 1 to the "
                         f"{len(open_documents)} documents some rater has not annotated; got {budget!r}")
    fit = annotators.fit_model(corpus, method=method, model_options=priors, view=items, **_alignment(request))
    terms = decode.span_terms(fit)
    model = fit.items
    priority, summed = (np.bincount(model.item_doc, weights=w, minlength=corpus.n_documents) for w in (None, terms))
    keys = [k[open_documents] for k in (np.arange(corpus.n_documents), raters, -summed, -priority)]
    chosen = open_documents[np.lexsort(keys)][:budget]
    disputed = np.bincount(model.item_doc, weights=~model.unanimous(), minlength=corpus.n_documents)
    reading, p = decode.best_readings(fit)
    least = {int(model.item_doc[i]): i for i in np.argsort(terms, kind="stable").tolist()}  # the largest last
    takers = _takers(corpus, fit, chosen, max_per_rater)
    tasks = []
    for rank, d in enumerate(chosen.tolist(), 1):
        reason = (f"{raters[d]} rater(s); {priority[d]} candidate span(s), {int(disputed[d])} disputed; "
                  f"summed p(1-p) {summed[d]:.3f}")
        if d in least:
            i = least[d]
            start, end = model.char_offsets(d, model.item_start[i], model.item_end[i])
            reason += f"; least certain: {corpus.texts[d][start:end]!r} as {model.labels[reading[i]]} p={p[i]:.2f}"
        taker = takers[rank - 1]
        reason += (f"; take: {taker['rater']} (accuracy {taker['rater_accuracy']:.2f})" if taker["rater"] is not None
                   else "; take: no rater who has not annotated it has room (--max-per-rater)")
        tasks.append({"doc_id": corpus.doc_ids[d], "rank": rank, "priority": int(priority[d]),
                      "raters": int(raters[d]), "reason": reason, "text": corpus.texts[d]} | taker)
    return {"method": method, "policy": decode.POLICY, "budget": budget, "documents": corpus.n_documents,
            "tasks": tasks}


def _takers(corpus: Corpus, fit: Any, chosen: Any, max_per_rater: int | None) -> list[dict[str, Any]]:
    """Who should take each chosen document, in priority order: among the raters who have not
    annotated it, the one with the highest accuracy under the fitted model (``Σ_c π_c θ_r[c, c]``,
    the chance of reading an item as it is), so the best raters take the least certain documents.
    A rater takes at most ``max_per_rater`` documents (none left: the task says so); without it the
    budget is shared evenly (rounded up) where the free raters allow, else the least loaded free
    rater takes the document."""
    import numpy as np

    from ..measures.annotators import decode

    if max_per_rater is not None and (isinstance(max_per_rater, bool) or not isinstance(max_per_rater, int)
                                      or max_per_rater < 1):
        raise UsageError(f"--max-per-rater is a number of documents, at least 1; got {max_per_rater!r}")
    accuracy = {row["rater"]: row["accuracy"] for row in decode.competence(fit)}
    order = sorted(range(len(corpus.raters)), key=lambda r: (-accuracy.get(corpus.raters[r], -1.0), corpus.raters[r]))
    share = max_per_rater if max_per_rater is not None else -(-len(chosen) // len(corpus.raters))
    mine = np.isin(corpus.ann_doc, chosen)
    done: dict[int, set[int]] = {}
    for d, r in zip(corpus.ann_doc[mine].tolist(), corpus.ann_rater[mine].tolist()):
        done.setdefault(d, set()).add(r)
    load = np.zeros(len(corpus.raters), dtype=np.int64)
    takers = []
    for d in chosen.tolist():
        taken = done.get(d, ())  # a document nobody has annotated yet (a task of a live project) has none
        r = next((r for r in order if load[r] < share and r not in taken), None)
        if r is None and max_per_rater is None:  # sorted by accuracy: the best of the least loaded free raters
            r = min((r for r in order if r not in taken), key=lambda r: load[r])
        if r is None:
            takers.append({"rater": None, "rater_accuracy": None})
            continue
        load[r] += 1
        takers.append({"rater": corpus.raters[r], "rater_accuracy": accuracy.get(corpus.raters[r])})
    return takers
