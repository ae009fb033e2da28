"""Dawid–Skene: a confusion matrix per rater over the labels and "nothing", fitted by variational Bayes.

Model (Dawid & Skene 1979, with the Dirichlet priors of IBCC, Kim & Ghahramani 2012). Item ``i``
is truly of class ``t_i`` (a label, "other boundaries" under a rule that aligns them, or
"nothing"; :mod:`.items`) with probability ``ρ``; rater ``r`` answers ``j`` with probability
``π_r[t_i, j]``, independently of the other raters given ``t_i``:

.. math::

    P(t_i = c \\mid \\text{responses}) \\propto \\rho_c \\prod_{r} \\pi_r[c, y_{ir}]

Priors: ``ρ ~ Dirichlet(class_prior)``; each row ``π_r[c, ·] ~ Dirichlet(β_c)`` with
``β_c = strength · (share·[j = c] + (1 − share)/(J − 1)·[j ≠ c]) + pooling · π̄[c, ·]``: a belief
worth ``strength`` items that a rater gives the true class with probability ``share``
(``competence_prior``), plus ``pooling`` items of ``π̄``, the confusion of all raters pooled (an empirical-Bayes prior: a crowd worker with twelve items is pulled towards
the crowd, not towards the uniform, and an expert with thousands of items is not pulled at all).

Fitting (mean-field variational Bayes, Bishop 2006 §10; as in IBCC-VB, Simpson et al. 2013): the
posterior of every ``π_r[c, ·]`` is ``Dirichlet(β_c + n_r[c, ·])`` with ``n_r[c, j]`` the expected
count of items of class ``c`` that ``r`` answered ``j``; the item posteriors use
``E[log π] = ψ(α_{cj}) − ψ(Σ_j α_{cj})``. Started from the share of each response per item (the
vote), iterated until one update changes no item posterior by more than ``tol``. With
``accelerate`` (default) the updates are extrapolated by SQUAREM (Varadhan & Roland 2008,
*Scandinavian Journal of Statistics* 35): two updates give a step and its curvature, the posteriors
jump along them (clipped and renormalised), and one more update follows; the fixed point is the
same, reached in about a fifth of the updates on thousands of sparse raters. ``iterations``
counts updates. Deterministic: no random start. The log-likelihood reported is that of the
responses under the posterior-mean parameters.

When every item's responses are unanimous there is nothing to weigh: the posterior is the vote,
the fit stops at once and says so.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.special import digamma

from ...errors import UsageError
from .items import SpanItems

#: Fewer items than this and a model is not fitted (use the vote).
MIN_ITEMS = 10

#: Defaults, chosen on the CoNLL crowd ``val`` documents only (bench/bench_annotators.py).
DEFAULTS = {"competence_prior": 0.5, "prior_strength": 5.0, "pooling": 10.0, "class_prior": 1.0}


@dataclass
class Fit:
    """A fitted annotator model: item posteriors and each rater's confusion."""

    method: str
    items: SpanItems
    posterior: np.ndarray        # (items, classes)
    confusion: np.ndarray        # (raters, classes, classes): point estimate, rows sum to 1
    class_prior: np.ndarray      # (classes,)
    iterations: int
    converged: bool
    change: float
    log_likelihood: float
    settings: dict[str, Any]
    confusion_alpha: np.ndarray | None = None   # (raters, classes, classes) Dirichlet posterior (DS)
    note: str | None = None
    #: a sequence model's own decoding: per document ``(first token, end token, label code, probability)``
    spans: dict[int, list[tuple[int, int, int, float]]] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def convergence(self) -> dict[str, Any]:
        return {
            "iterations": self.iterations, "converged": self.converged, "change": self.change,
            "log_likelihood": self.log_likelihood, **({"note": self.note} if self.note else {}),
        }


def check_priors(**priors: Any) -> None:
    """A UsageError naming the first prior that is not a finite number >= 0 (a share in (0, 1))."""
    for name, value in priors.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value) or value < 0:
            raise UsageError(f"the annotator model's {name} must be a number >= 0, got {value!r}")
    share = priors.get("competence_prior")
    if share is not None and not 0 < share < 1:
        raise UsageError(f"competence_prior is the share of answers a rater is believed to get right: between 0 and 1 (exclusive), got {share!r}")
    if priors.get("prior_strength", 1) <= 0:
        raise UsageError(f"prior_strength must be > 0 (else an unseen answer has probability 0), got {priors['prior_strength']!r}")


def diagonal_prior(classes: int, share: float, strength: float) -> np.ndarray:
    """(classes, classes) Dirichlet pseudo-counts: ``strength`` per row, ``share`` of it on the diagonal."""
    base = np.full((classes, classes), strength * (1 - share) / max(classes - 1, 1))
    base[np.arange(classes), np.arange(classes)] = strength * share
    return base


def pooled_alpha(counts: np.ndarray, base: np.ndarray, pooling: float) -> np.ndarray:
    """Each rater's Dirichlet posterior over confusion rows (module docstring): the expected
    ``counts`` (raters, true, given, ...), the prior ``base`` and ``pooling`` items of ``π̄``, the
    confusion of all raters pooled (with the prior), its rows along the given-answer axis 1 of ``base``."""
    pooled = counts.sum(0) + base
    pooled /= pooled.sum(1, keepdims=True)
    return counts + base[None] + pooling * pooled[None]


def expected_log(alpha: np.ndarray, axis: int) -> np.ndarray:
    """``E[ln θ]`` of Dirichlet rows ``alpha`` along ``axis``: ``ψ(α) − ψ(Σα)``."""
    return digamma(alpha) - digamma(alpha.sum(axis, keepdims=True))


def normalize_rows(posterior: np.ndarray) -> np.ndarray:
    """Rows clipped at 1e-12 and summing to 1 (an extrapolated posterior made a posterior again)."""
    posterior = np.clip(posterior, 1e-12, None)
    return posterior / posterior.sum(1, keepdims=True)


def iterate(update, state: np.ndarray, *, max_iter: int, tol: float, accelerate: bool, project,
            changed=lambda new, old: float(np.abs(new - old).max())) -> tuple[np.ndarray, int, float, bool]:
    """Iterate the fixed-point map ``update`` from ``state`` until one update changes it by less than
    ``tol`` (``changed``); ``(state, updates made, last change, converged)``.

    With ``accelerate``, SQUAREM (Varadhan & Roland 2008, scheme S3): from two updates the step
    ``r = F(x) − x`` and curvature ``v = F(F(x)) − 2F(x) + x`` give ``α = −‖r‖/‖v‖`` (at most −1),
    the state jumps to ``x − 2αr + α²v``, is made valid again (``project``), and one update
    follows. The fixed point is the same.
    """
    iterations, change = 0, np.inf
    while iterations < max_iter:
        iterations += 1
        once = update(state)
        change = changed(once, state)
        if change < tol:
            return once, iterations, change, True
        if not accelerate or iterations + 2 > max_iter:
            state = once
            continue
        twice = update(once)
        step, curve = once - state, twice - 2 * once + state
        ratio = min(-np.sqrt((step ** 2).sum() / max((curve ** 2).sum(), 1e-300)), -1.0)
        state = update(project(state - 2 * ratio * step + ratio ** 2 * curve))
        iterations += 2
    return state, iterations, change, False


def convergence_note(unanimous: bool, converged: bool, max_iter: int, change: float, tol: float) -> str | None:
    """What the report says about a fit that had nothing to weigh, or that did not converge."""
    if unanimous:
        return "every rater gave every item the same answer: nothing to weigh, the posterior is the vote (no iteration)"
    if not converged:
        return f"did not converge in {max_iter} iterations (largest change of an item posterior {change:.2g} > tol {tol:g})"
    return None


def check_items(items: SpanItems, min_items: int) -> None:
    """A UsageError when there are too few items to fit a model."""
    if items.n_items < min_items:
        raise UsageError(
            f"too few items to fit an annotator model: {items.n_items} distinct spans marked "
            f"(at least {min_items} needed); use the vote (--method vote)"
        )


def initial_posterior(items: SpanItems) -> np.ndarray:
    """(items, classes) the share of each response per item, smoothed: the vote as a start."""
    n, classes = items.n_items, items.n_classes
    shares = np.bincount(items.obs_item * classes + items.obs_response, minlength=n * classes).reshape(n, classes)
    shares = shares + 0.01
    return shares / shares.sum(1, keepdims=True)


def expected_counts(items: SpanItems, posterior: np.ndarray) -> np.ndarray:
    """(raters, classes, responses) expected count of items of each class each rater answered so."""
    classes, n_raters = items.n_classes, len(items.raters)
    weights = posterior[items.obs_item]  # (observations, classes)
    cells = (items.obs_rater[:, None] * classes + np.arange(classes)[None, :]) * classes + items.obs_response[:, None]
    return np.bincount(cells.reshape(-1), weights=weights.reshape(-1), minlength=n_raters * classes * classes).reshape(
        n_raters, classes, classes
    )


def normalize_log(log_post: np.ndarray) -> np.ndarray:
    """Rows of log-probabilities up to a constant → probabilities."""
    top = log_post.max(1, keepdims=True)
    weights = np.exp(log_post - top)
    return weights / weights.sum(1, keepdims=True)


def log_likelihood(items: SpanItems, confusion: np.ndarray, class_prior: np.ndarray) -> float:
    """log P(responses) under point parameters: Σ_i log Σ_c ρ_c Π_r π_r[c, y_ir]."""
    log_post = item_log_scores(items, np.log(confusion), np.log(class_prior))
    top = log_post.max(1, keepdims=True)
    return float((np.log(np.exp(log_post - top).sum(1)) + top[:, 0]).sum())


def item_log_scores(items: SpanItems, log_confusion: np.ndarray, log_prior: np.ndarray) -> np.ndarray:
    """(items, classes) log ρ_c + Σ_r log π_r[c, y_ir]."""
    per_obs = log_confusion[items.obs_rater, :, items.obs_response]  # (observations, classes)
    scores = np.zeros((items.n_items, items.n_classes))
    for c in range(items.n_classes):
        scores[:, c] = np.bincount(items.obs_item, weights=per_obs[:, c], minlength=items.n_items)
    return scores + log_prior[None, :]


def dawid_skene(
    items: SpanItems,
    *,
    competence_prior: float = DEFAULTS["competence_prior"],
    prior_strength: float = DEFAULTS["prior_strength"],
    pooling: float = DEFAULTS["pooling"],
    class_prior: float = DEFAULTS["class_prior"],
    max_iter: int = 500,
    tol: float = 1e-6,
    min_items: int = MIN_ITEMS,
    accelerate: bool = True,
) -> Fit:
    """Fit Dawid–Skene to ``items`` (module docstring); the :class:`Fit`.

    Examples
    --------
    >>> from spanagree.core.builder import CorpusBuilder
    >>> from spanagree.measures.annotators.items import span_items
    >>> b = CorpusBuilder()
    >>> for d in range(12):
    ...     for rater in "abc":
    ...         b.add(f"d{d}", f"d{d}", "Alice in Rome", rater, [(0, 5, "PER")] if rater != "c" or d < 6 else [], None)
    >>> fit = dawid_skene(span_items(b.build()))
    >>> round(float(fit.posterior[0, 0]), 3), fit.converged
    (0.973, True)
    """
    check_priors(competence_prior=competence_prior, prior_strength=prior_strength, pooling=pooling, class_prior=class_prior)
    check_items(items, min_items)
    classes = items.n_classes
    base = diagonal_prior(classes, competence_prior, prior_strength)
    settings = {"competence_prior": competence_prior, "prior_strength": prior_strength, "pooling": pooling,
                "class_prior": class_prior, "max_iter": max_iter, "tol": tol}

    def parameters(posterior):
        alpha = pooled_alpha(expected_counts(items, posterior), base, pooling)
        prior_alpha = posterior.sum(0) + class_prior + 1e-12
        return alpha, prior_alpha

    posterior = initial_posterior(items)
    unanimous = bool(items.unanimous().all())
    if unanimous:
        posterior = np.eye(classes)[posterior.argmax(1)]  # every rater gave the one answer the vote has
        iterations, change, converged = 0, 0.0, True
    else:
        def update(posterior):
            alpha, prior_alpha = parameters(posterior)
            log_confusion = expected_log(alpha, 2)
            log_prior = expected_log(prior_alpha, 0)
            return normalize_log(item_log_scores(items, log_confusion, log_prior))

        posterior, iterations, change, converged = iterate(
            update, posterior, max_iter=max_iter, tol=tol, accelerate=accelerate, project=normalize_rows,
        )
    alpha, prior_alpha = parameters(posterior)
    confusion = alpha / alpha.sum(2, keepdims=True)
    prior = prior_alpha / prior_alpha.sum()
    note = convergence_note(unanimous, converged, max_iter, change, tol)
    return Fit(
        method="dawid-skene", items=items, posterior=posterior, confusion=confusion, class_prior=prior,
        iterations=iterations, converged=converged, change=change,
        log_likelihood=log_likelihood(items, confusion, prior), settings=settings, confusion_alpha=alpha, note=note,
    )
