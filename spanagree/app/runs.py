"""The commands that read and score as the settings say, then act on the report: the gate's
checks and the comparison of two rounds."""
from __future__ import annotations

from typing import Any, Sequence

from .. import catalogue
from ..errors import UsageError
from ..outputs import compare as comparison, gate as gate_checks
from .config import score_with_settings


def gate(paths, settings: dict[str, dict[str, Any]], extra: Sequence[str] = (), *, progress=None) -> dict[str, Any]:
    """Read and score ``paths`` as ``settings`` say and run the gate's checks (the ``[gate]``
    section and ``extra`` ``--min`` values)."""
    checks = gate_checks.checks_from_settings(settings["gate"], extra)
    gate_checks.prepare(settings, checks)
    scored = score_with_settings(paths, settings, progress=progress)
    # only the rater pairs a check names are built (thousands of raters make millions of pairs)
    report = scored.with_pairs(scored.pairs_written([c.argument for c in checks if c.statistic == "pair"]))
    if any(catalogue.STATISTICS[c.statistic].needs == "the model" for c in checks):
        report["annotators"] = _annotator_model(scored, settings)
    gate = settings["gate"]
    return gate_checks.evaluate(report, checks, on=gate["on"], min_documents=gate["min_documents"])


def _annotator_model(scored, settings) -> dict[str, Any]:
    """The Dawid–Skene model fitted on the run's spans under its rule (docs/annotators.md)."""
    from ..diagnostics.annotators import fit_model  # the models (SciPy), only for their checks
    from ..measures.annotators.decode import competence

    if not scored.corpus.has_spans:
        raise UsageError(
            "rater_accuracy and min_rater_accuracy fit an annotator model on the spans, and this input was "
            "counted in parts without keeping them (--jobs, --stream or a large input): run with --no-stream, "
            "or use spanagree raters --model dawid-skene --min-accuracy"
        )
    intervals = settings["intervals"]
    fit = fit_model(scored.corpus, method="dawid-skene", rule=scored.counts.rule, unit=scored.counts.unit_name)
    return {"method": "dawid-skene", "competence": competence(fit, level=intervals["ci"], seed=intervals["seed"]),
            "convergence": fit.convergence()}


def compare(old_paths, new_paths, settings, max_drop: Sequence[str] = (), *, progress=None) -> dict[str, Any]:
    """Score both rounds as ``settings`` say and compare them."""
    drops = comparison.parse_max_drop(max_drop)
    intervals = settings["intervals"]
    options = {"replicates": intervals["bootstrap"] or comparison.DEFAULT_REPLICATES, "level": intervals["ci"], "seed": intervals["seed"]}
    intervals["bootstrap"] = None  # the rounds' own intervals are not needed
    old = score_with_settings(old_paths, settings, progress=progress)
    new = score_with_settings(new_paths, settings, progress=progress)
    return comparison.compare(old, new, max_drop=drops, **options)
