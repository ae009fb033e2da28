"""A competence model in the spirit of MACE: each rater either knows, or answers from a habit.

Model (Hovy, Berg-Kirkpatrick, Vaswani & Hovy 2013, "Learning Whom to Trust with MACE", NAACL):
rater ``r`` on item ``i`` of true class ``t_i`` is *competent* with probability ``θ_r`` and then
gives ``t_i``; otherwise they *spam*, answering ``j`` with probability ``ξ_r[j]`` whatever the item:

.. math::

    P(y_{ir} = j \\mid t_i = c) = θ_r [j = c] + (1 − θ_r)\\, ξ_r[j]

One number per rater says how far to trust them (``θ_r``), and ``ξ_r`` says what they answer when
they do not know (a rater who marks nothing has ``ξ_r`` on "nothing"; a spammer has a small
``θ_r``). Classes and answers are those of :mod:`.items`. Priors: ``θ_r ~ Beta(strength·share,
strength·(1 − share))`` (as :mod:`.dawid_skene`), ``ξ_r ~ Dirichlet(spam_prior)``, ``ρ ~
Dirichlet(class_prior)``. Fitted by EM for the posterior mode (MACE's EM), started from the vote;
each iteration computes the class posteriors, then for every answer the posterior chance that it
was competent, ``θ_r [j = c] / P(j | c)``, whose expected counts give ``θ_r`` and ``ξ_r``; the
updates of posteriors, ``θ`` and ``ξ`` together are extrapolated by SQUAREM as Dawid–Skene's
(:func:`.dawid_skene.iterate`).
``θ_r``'s interval is that of ``Beta(a + competent answers, b + spammed answers)``.
"""
from __future__ import annotations

import numpy as np

from .dawid_skene import (
    DEFAULTS, MIN_ITEMS, Fit, check_items, check_priors, convergence_note, initial_posterior, item_log_scores, iterate,
    log_likelihood, normalize_log, normalize_rows,
)
from .items import SpanItems


def mace(
    items: SpanItems,
    *,
    competence_prior: float = DEFAULTS["competence_prior"],
    prior_strength: float = DEFAULTS["prior_strength"],
    spam_prior: float = 1.0,
    class_prior: float = DEFAULTS["class_prior"],
    max_iter: int = 500,
    tol: float = 1e-6,
    min_items: int = MIN_ITEMS,
    accelerate: bool = True,
) -> Fit:
    """Fit the competence model to ``items`` (module docstring); the :class:`~.dawid_skene.Fit`,
    with ``extra["competence"]`` (θ per rater), ``extra["competence_beta"]`` and ``extra["spamming"]`` (ξ)."""
    check_priors(competence_prior=competence_prior, prior_strength=prior_strength, spam_prior=spam_prior, class_prior=class_prior)
    check_items(items, min_items)
    classes, n_raters = items.n_classes, len(items.raters)
    a, b = prior_strength * competence_prior, prior_strength * (1 - competence_prior)
    settings = {"competence_prior": competence_prior, "prior_strength": prior_strength, "spam_prior": spam_prior,
                "class_prior": class_prior, "max_iter": max_iter, "tol": tol}
    r, j = items.obs_rater, items.obs_response
    eye = np.eye(classes)

    def parameters(posterior, theta, xi):
        weights = posterior[items.obs_item]                                  # (obs, classes)
        answer = theta[r][:, None] * eye[j] + (1 - theta[r])[:, None] * xi[r, j][:, None]
        competent = theta[r][:, None] * eye[j] / answer                      # (obs, classes)
        comp = np.bincount(r, weights=(weights * competent).sum(1), minlength=n_raters)
        spam_weight = (weights * (1 - competent)).sum(1)
        spam = np.bincount(r * classes + j, weights=spam_weight, minlength=n_raters * classes).reshape(n_raters, classes)
        spammed = spam.sum(1)
        theta = (comp + a - 1 + 1e-9) / (comp + spammed + a + b - 2 + 2e-9) if a >= 1 and b >= 1 else (comp + a) / (comp + spammed + a + b)
        xi = spam + spam_prior
        xi = xi / xi.sum(1, keepdims=True)
        prior = posterior.sum(0) + class_prior + 1e-12
        return np.clip(theta, 1e-6, 1 - 1e-6), xi, prior / prior.sum(), comp, spammed

    def confusion_of(theta, xi):
        return theta[:, None, None] * eye[None] + (1 - theta)[:, None, None] * xi[:, None, :]

    posterior = initial_posterior(items)
    theta = np.full(n_raters, competence_prior)
    xi = np.full((n_raters, classes), 1 / classes)
    unanimous = bool(items.unanimous().all())
    iterations, change, converged = 0, 0.0, unanimous
    if unanimous:
        posterior = eye[np.argmax(posterior, 1)]
    else:
        n_post = items.n_items * classes

        def unpack(state):
            return (state[:n_post].reshape(items.n_items, classes), state[n_post:n_post + n_raters],
                    state[n_post + n_raters:].reshape(n_raters, classes))

        def update(state):
            theta, xi, prior, _, _ = parameters(*unpack(state))
            posterior = normalize_log(item_log_scores(items, np.log(confusion_of(theta, xi)), np.log(prior)))
            return np.concatenate([posterior.ravel(), theta, xi.ravel()])

        def project(state):
            posterior, theta, xi = unpack(state)
            return np.concatenate([normalize_rows(posterior).ravel(), np.clip(theta, 1e-6, 1 - 1e-6), normalize_rows(xi).ravel()])

        state, iterations, change, converged = iterate(
            update, np.concatenate([posterior.ravel(), theta, xi.ravel()]), max_iter=max_iter, tol=tol,
            accelerate=accelerate, project=project, changed=lambda new, old: float(np.abs(new[:n_post] - old[:n_post]).max()),
        )
        posterior, theta, xi = unpack(state)
    theta, xi, prior, comp, spammed = parameters(posterior, theta, xi)
    confusion = confusion_of(theta, xi)
    note = convergence_note(unanimous, converged, max_iter, change, tol)
    return Fit(
        method="mace", items=items, posterior=posterior, confusion=confusion, class_prior=prior,
        iterations=iterations, converged=converged, change=change, log_likelihood=log_likelihood(items, confusion, prior),
        settings=settings, note=note,
        extra={"competence": theta, "competence_beta": np.stack([a + comp, b + spammed], axis=1), "spamming": xi},
    )
