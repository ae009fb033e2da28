"""Bayesian sequence combination: the true BIO tags form a Markov chain, and each rater's tag depends
on the true tag and on the rater's own previous tag (``bsc-seq``).

Model (Simpson & Gurevych 2019, "A Bayesian approach for sequence tagging with crowds", EMNLP,
§3, the *seq* annotator model of §3.2). Every document is a sequence of tokens ``n = 1 … N`` with
true tags ``t_n`` among ``B-x``, ``I-x`` (every label ``x``) and ``O``; the tag before a document
is ``O``. Rater ``k``, who submitted the document, gives every token the tag ``c_{nk}`` their spans
make (:func:`.items.token_items`):

.. math::

    p(t, c \\mid A, π, ρ) = \\prod_n A[t_{n-1}, t_n]\\; ρ_{t_n}[w_n]
        \\prod_k π_k[t_n, c_{nk}, c_{n-1,k}]

- ``A[i, ·] ~ Dirichlet(β_0)``: the transition matrix over true tags (the paper's eq. 2), with
  ``β_0 = transition_prior`` on every allowed transition and ``1e-10`` on the three that BIO
  forbids (``O → I-x``, ``B-y → I-x`` and ``I-y → I-x`` for ``y ≠ x``; the paper's treatment of
  invalid transitions, §3.1);
- ``π_k[j, ·, p] ~ Dirichlet(α_0)``: rater ``k``'s tag when the true tag is ``j`` and their own
  previous tag was ``p`` (the sequential confusion matrix, eq. 6). ``α_0`` holds
  ``prior_strength`` pseudo-counts per row, ``competence_prior`` of them on the true tag, the
  rest spread evenly; a tag a rater cannot give after ``p`` (``I-x`` unless ``p`` is ``B-x`` or
  ``I-x``: their tags come from spans) gets ``1e-10`` and its share moves to ``B-x`` (as the
  reference implementation does). With ``pooling > 0`` every row also holds ``pooling``
  pseudo-counts of the crowd's pooled confusion (the empirical-Bayes prior of
  :mod:`.dawid_skene`);
- ``ρ_j ~ Dirichlet(word_prior)``: with ``word_prior > 0``, the token's word (its text) is
  emitted given the true tag (the independent text-feature model of the reference
  implementation's BSC, which aggregates "crowd + text"); 0 leaves the text out.

Inference: mean-field variational Bayes (§3.3, Bishop 2006 §10) with
``q(t) q(A) q(π) q(ρ)``. Each iteration sets ``q(A)``, ``q(π)``, ``q(ρ)`` to Dirichlets of prior +
expected counts under ``q(t)`` (eq. 8–9: ``α_k[j, c, p] = α_0 + Σ_n q(t_n = j) [c_{nk} = c,
c_{n-1,k} = p]``; ``β[i, j] = β_0 + Σ_n q(t_{n-1} = i, t_n = j)``), then ``q(t)`` by the
forward–backward algorithm (eq. 10–12) with the expected log parameters ``E[ln θ] = ψ(α) −
ψ(Σα)`` as emission and transition scores. The passes run over all documents at once (one step per
token position), in probability space with scaling. Started from the share of each tag among
the raters (the vote), deterministic; stops when no token's posterior moves by more than ``tol``,
or after ``max_iter`` iterations (the convergence says which).

Decoding: the most probable tag sequence under ``q(t)`` (Viterbi over the same scores), read
conlleval-style (:func:`.items.bio_spans`). A span's probability is the posterior probability of
exactly that span under ``q(t)`` (a Markov chain): ``q(t_s = B-x) Π_{n=s+1}^{e-1} q(t_n = I-x |
t_{n-1}) · (1 − q(t_e = I-x | t_{e-1}))``, the last factor when a token follows.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from scipy.sparse import csr_matrix

from ...core.model import Corpus
from ...errors import UsageError
from .dawid_skene import (Fit, check_priors, diagonal_prior, expected_log, initial_posterior, iterate, normalize_rows,
                          pooled_alpha)
from .items import SpanItems, bio_spans, token_items

#: Defaults, chosen on the CoNLL crowd ``val`` sentences only (bench/bench_annotators.py).
DEFAULTS = {"competence_prior": 0.3, "prior_strength": 10.0, "pooling": 0.0, "transition_prior": 1.0,
            "word_prior": 1.0}
#: The pseudo-count of a transition or tag that BIO forbids.
RARE = 1e-10


def check_corpus(corpus: Corpus, tokens: dict[str, np.ndarray] | None = None) -> None:
    """A UsageError naming the reason when ``corpus`` cannot be tagged: fewer than two raters, a
    document without tokens (the corpus's, or ``tokens`` by document id when given), or a
    document whose raters gave different tokens."""
    if len(corpus.raters) < 2:
        raise UsageError(f"bsc-seq weighs raters against each other and needs two raters or more; the input has "
                         f"{len(corpus.raters)}: {', '.join(map(repr, corpus.raters)) or 'none'}")
    if tokens is not None:
        missing = [corpus.doc_ids[d] for d in np.unique(corpus.ann_doc) if corpus.doc_ids[d] not in tokens]
    elif corpus.token_conflicts:
        doc_id, (first, second) = min(corpus.token_conflicts.items())
        raise UsageError(f"bsc-seq tags tokens, and raters {first!r} and {second!r} gave different tokens for document "
                         f"{doc_id!r} ({len(corpus.token_conflicts)} such documents); give every rater the same tokens")
    else:
        missing = [corpus.doc_ids[d] for d in np.unique(corpus.ann_doc) if corpus.doc_tokens[d] is None]
    if missing:
        raise UsageError(f"bsc-seq tags tokens, and document {missing[0]!r} has none ({len(missing)} such documents); "
                         "use input that carries tokens (Prodigy or spanagree JSONL 'tokens', CoNLL, DocBin)")


def tag_codes(labels: list[str]) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``(O, B, I, label)`` for the tags of :func:`.items.token_items`: the code of ``O``, whether
    each tag is a ``B-`` or ``I-`` tag, and each tag's label (-1 for ``O``)."""
    n_tags = 2 * len(labels) + 1
    codes = np.arange(n_tags)
    outside = n_tags - 1
    label = np.where(codes < outside, codes // 2, -1)
    return outside, (codes < outside) & (codes % 2 == 0), (codes < outside) & (codes % 2 == 1), label


def allowed_after(labels: list[str]) -> np.ndarray:
    """(tags, tags) True where tag ``j`` may follow tag ``i`` in BIO: ``I-x`` only after ``B-x`` or ``I-x``."""
    outside, _, inside, label = tag_codes(labels)
    ok = np.ones((outside + 1, outside + 1), dtype=bool)
    for j in np.flatnonzero(inside):
        ok[:, j] = label == label[j]
    return ok


def transition_pseudocounts(labels: list[str], strength: float) -> np.ndarray:
    """(tags, tags) ``β_0``: ``strength`` on every allowed transition, :data:`RARE` on the others."""
    return np.where(allowed_after(labels), strength, RARE)


def worker_pseudocounts(labels: list[str], share: float, strength: float) -> np.ndarray:
    """(true tag, given tag, previous given tag) ``α_0`` (module docstring): a tag the rater
    cannot give after their previous tag gets :data:`RARE`, its pseudo-counts move to ``B-x``."""
    n_tags = 2 * len(labels) + 1
    base = np.repeat(diagonal_prior(n_tags, share, strength)[:, :, None], n_tags, axis=2)
    ok = allowed_after(labels)                      # ok[previous, given]
    for c in range(n_tags):
        for p in np.flatnonzero(~ok[:, c]):
            base[:, c - 1, p] += base[:, c, p] - RARE  # I-x -> B-x, its neighbour in the tag order
            base[:, c, p] = RARE
    return base


class _Sequences:
    """The documents' tokens as a padded (documents, positions) grid, longest document first, so
    that position ``t`` of every document longer than ``t`` is one slice ``[:active[t]]``."""

    def __init__(self, items: SpanItems):
        starts = np.flatnonzero(items.item_start == 0)
        lengths = np.diff(np.append(starts, items.n_items))
        order = np.argsort(-lengths, kind="stable")
        self.first, self.length = starts[order], lengths[order]
        self.width = int(self.length.max()) if len(self.length) else 0
        self.active = np.array([(self.length > t).sum() for t in range(self.width)], dtype=np.int64)
        grid = self.first[:, None] + np.arange(self.width)[None, :]
        self.index = np.where(np.arange(self.width)[None, :] < self.length[:, None], grid, -1)

    def forward_backward(self, emission: np.ndarray, transition: np.ndarray, start: np.ndarray, smooth: bool = True):
        """Scaled forward–backward (Rabiner 1989) with emission scores ``emission`` (tokens, tags,
        each row up to a constant), transition scores ``transition`` (tags, tags) and the start
        row ``start``; ``(posterior (tokens, tags), Σ over transitions of q(t_{n-1}, t_n),
        Σ over first tokens of q(t_1), backward (docs, width, tags))``; without ``smooth`` only the
        forward pass, and the log of the sum of the sequences' scores (each token's emission as given)."""
        n_docs, tags = len(self.first), emission.shape[1]
        forward = np.zeros((n_docs, self.width, tags))
        backward = np.ones((n_docs, self.width, tags))
        first = emission[self.first] * start[None, :]
        scale = first.sum(1)
        forward[:, 0] = first / scale[:, None]
        log_scale = float(np.log(scale).sum())
        for t in range(1, self.width):
            m = self.active[t]
            step = (forward[:m, t - 1] @ transition) * emission[self.index[:m, t]]
            scale = step.sum(1)
            log_scale += float(np.log(scale).sum())
            forward[:m, t] = step / scale[:, None]
        if not smooth:
            return log_scale
        pairs = np.zeros((tags, tags))
        for t in range(self.width - 1, 0, -1):
            m = self.active[t]
            ahead = emission[self.index[:m, t]] * backward[:m, t]          # (m, tags)
            joint = forward[:m, t - 1][:, :, None] * transition[None] * ahead[:, None, :]
            joint /= joint.sum((1, 2), keepdims=True)
            pairs += joint.sum(0)
            back = ahead @ transition.T
            backward[:m, t - 1] = back / back.sum(1, keepdims=True)
        posterior = np.zeros_like(emission)
        valid = self.index >= 0
        both = (forward * backward)[valid]
        posterior[self.index[valid]] = both / both.sum(1, keepdims=True)
        return posterior, pairs, posterior[self.first].sum(0), backward

    def viterbi(self, log_emission: np.ndarray, log_t: np.ndarray, log_start: np.ndarray) -> np.ndarray:
        """(tokens,) the most probable tag sequence of every document under the same scores, as logs."""
        n_docs, tags = len(self.first), log_emission.shape[1]
        scores = np.zeros((n_docs, self.width, tags))
        pointers = np.zeros((n_docs, self.width, tags), dtype=np.int64)
        scores[:, 0] = log_emission[self.first] + log_start[None, :]
        for t in range(1, self.width):
            m = self.active[t]
            cand = scores[:m, t - 1, :, None] + log_t[None]
            pointers[:m, t] = cand.argmax(1)
            new = cand.max(1) + log_emission[self.index[:m, t]]
            scores[:m, t] = new - new.max(1, keepdims=True)
        best = np.zeros(len(log_emission), dtype=np.int64)
        tag = np.zeros(n_docs, dtype=np.int64)
        rows = np.arange(n_docs)
        for t in range(self.width - 1, -1, -1):
            ending = self.length == t + 1
            tag[ending] = scores[ending, t].argmax(1)
            m = self.active[t]
            best[self.index[:m, t]] = tag[:m]
            if t:
                tag[:m] = pointers[rows[:m], t, tag[:m]]
        return best


def bsc_seq(
    corpus: Corpus,
    *,
    competence_prior: float = DEFAULTS["competence_prior"],
    prior_strength: float = DEFAULTS["prior_strength"],
    pooling: float = DEFAULTS["pooling"],
    transition_prior: float = DEFAULTS["transition_prior"],
    word_prior: float = DEFAULTS["word_prior"],
    max_iter: int = 500,
    tol: float = 1e-4,
    accelerate: bool = True,
    tokens: dict[str, np.ndarray] | None = None,
) -> Fit:
    """Fit Bayesian sequence combination to the tokens of ``corpus`` (module docstring); the
    :class:`~.dawid_skene.Fit` over token items (the corpus's tokens, or ``tokens`` by document id),
    its consensus in ``spans`` and in ``extra``:
    ``sequence_alpha`` (raters, true tag, given tag, previous given tag), the Dirichlet posterior
    of every rater's sequential confusion, and ``transition``, the posterior mean of ``A``.

    Examples
    --------
    >>> from spanagree.core.builder import CorpusBuilder
    >>> b = CorpusBuilder()
    >>> tokens = np.array([[0, 5], [6, 8], [9, 13]])
    >>> for d in range(12):
    ...     for rater in "abc":
    ...         spans = [(0, 5, "PER")] if rater != "c" or d < 6 else []
    ...         b.add(f"d{d}", f"d{d}", "Alice in Rome", rater, spans, None, tokens)
    >>> fit = bsc_seq(b.build())
    >>> fit.spans[0], fit.converged
    ([(0, 1, 0, 0.9...)], True)
    """
    check_priors(competence_prior=competence_prior, prior_strength=prior_strength, pooling=pooling,
                 transition_prior=transition_prior, word_prior=word_prior)
    if transition_prior <= 0:
        raise UsageError(f"transition_prior must be > 0, got {transition_prior!r}")
    check_corpus(corpus, tokens)
    items = token_items(corpus, tokens)
    labels = list(corpus.labels)
    n_tags, n_raters, n_tokens = items.n_classes, len(items.raters), items.n_items
    outside = n_tags - 1
    settings = {"competence_prior": competence_prior, "prior_strength": prior_strength, "pooling": pooling,
                "transition_prior": transition_prior, "word_prior": word_prior, "max_iter": max_iter, "tol": tol}
    token, rater, given = items.obs_item, items.obs_rater, items.obs_response
    # each answer's previous tag by the same rater: answers are written per annotation in token order
    previous = np.full(len(given), outside, dtype=np.int64)
    continues = items.item_start[token] > 0
    previous[1:][continues[1:]] = given[:-1][continues[1:]]
    size = n_raters * n_tags * n_tags
    # answers as a (cells, tokens) matrix, a cell being (rater, given tag, previous given tag)
    answers = csr_matrix((np.ones(len(given)), (((rater * n_tags + given) * n_tags + previous), token)),
                         shape=(size, n_tokens))
    answers_t = answers.T.tocsr()
    alpha0 = worker_pseudocounts(labels, competence_prior, prior_strength)    # (true, given, previous)
    beta0 = transition_pseudocounts(labels, transition_prior)
    words = _word_ids(items) if word_prior > 0 else None
    word_tokens = None if words is None else csr_matrix((np.ones(n_tokens), (words, np.arange(n_tokens))))
    sequences = _Sequences(items)

    def counts_of(posterior):
        """(rater, true, given, previous) expected answers."""
        return (answers @ posterior).reshape(n_raters, n_tags, n_tags, n_tags).transpose(0, 3, 1, 2)

    def parameters(posterior, pairs, starts):
        alpha = pooled_alpha(counts_of(posterior), alpha0, pooling)
        beta = beta0 + pairs
        beta[outside] += starts
        nu = None if words is None else word_prior + np.asarray(word_tokens @ posterior)
        return alpha, beta, nu

    def scores(alpha, beta, nu):
        log_pi = expected_log(alpha, 2).transpose(0, 2, 3, 1).reshape(size, n_tags)   # cells x true
        log_lik = np.asarray(answers_t @ log_pi)
        if nu is not None:
            log_lik += expected_log(nu, 0)[words]
        return log_lik - log_lik.max(1, keepdims=True), expected_log(beta, 1)

    posterior = initial_posterior(items)   # the share of each tag among the token's raters
    pairs = np.zeros((n_tags, n_tags))
    starts = posterior[sequences.first].sum(0)
    for t in range(1, sequences.width):   # the vote's transitions, as if tokens were independent
        m = sequences.active[t]
        pairs += posterior[sequences.index[:m, t - 1]].T @ posterior[sequences.index[:m, t]]
    n_post = n_tokens * n_tags

    def unpack(state):
        return (state[:n_post].reshape(n_tokens, n_tags), state[n_post:n_post + n_tags * n_tags].reshape(n_tags, n_tags),
                state[n_post + n_tags * n_tags:])

    def update(state):
        emission, transition = map(np.exp, scores(*parameters(*unpack(state))))
        posterior, pairs, starts, _ = sequences.forward_backward(emission, transition, transition[outside])
        return np.concatenate([posterior.ravel(), pairs.ravel(), starts])

    def project(state):
        posterior, pairs, starts = unpack(state)
        return np.concatenate([normalize_rows(posterior).ravel(), np.clip(pairs, 0, None).ravel(), np.clip(starts, 0, None)])

    state, iterations, change, converged = iterate(
        update, np.concatenate([posterior.ravel(), pairs.ravel(), starts]), max_iter=max_iter, tol=tol,
        accelerate=accelerate, project=project, changed=lambda new, old: float(np.abs(new[:n_post] - old[:n_post]).max()))
    posterior, pairs, starts = unpack(state)
    alpha, beta, nu = parameters(posterior, pairs, starts)
    log_emission, log_transition = scores(alpha, beta, nu)
    emission, transition = np.exp(log_emission), np.exp(log_transition)
    posterior, _, _, backward = sequences.forward_backward(emission, transition, transition[outside])
    best = sequences.viterbi(log_emission, log_transition, log_transition[outside])
    spans = _decoded_spans(items, sequences, best, posterior, emission, transition, backward)
    # log P(answers) under the posterior-mean parameters (one forward pass)
    mean_pi = (alpha / alpha.sum(2, keepdims=True)).transpose(0, 2, 3, 1).reshape(size, n_tags)
    log_lik = np.asarray(answers_t @ np.log(mean_pi))
    if nu is not None:
        log_lik += np.log(nu / nu.sum(0, keepdims=True))[words]
    top = log_lik.max(1, keepdims=True)
    mean_a = beta / beta.sum(1, keepdims=True)
    log_likelihood = sequences.forward_backward(np.exp(log_lik - top), mean_a, mean_a[outside], smooth=False) + float(top.sum())
    # the confusion whatever the previous tag: one prior row plus every answer (for the competence table)
    marginal = pooled_alpha(counts_of(posterior).sum(3), diagonal_prior(n_tags, competence_prior, prior_strength),
                            pooling)
    note = None if converged else (f"did not converge in {max_iter} iterations (largest change of a token posterior "
                                   f"{change:.2g} > tol {tol:g})")
    return Fit(
        method="bsc-seq", items=items, posterior=posterior, confusion=marginal / marginal.sum(2, keepdims=True),
        class_prior=posterior.sum(0) / max(n_tokens, 1), iterations=iterations, converged=converged, change=change,
        log_likelihood=log_likelihood, settings=settings, confusion_alpha=marginal, note=note, spans=spans,
        extra={"sequence_alpha": alpha, "sequence_prior": alpha0, "transition": beta / beta.sum(1, keepdims=True)},
    )


def _word_ids(items: SpanItems) -> np.ndarray:
    """(tokens,) an id per distinct token text."""
    corpus, ids, out = items.corpus, {}, np.zeros(items.n_items, dtype=np.int64)
    for i, (d, n) in enumerate(zip(items.item_doc.tolist(), items.item_start.tolist())):
        s, e = items.tokens_of(d)[n]
        out[i] = ids.setdefault(corpus.texts[d][s:e], len(ids))
    return out


def _decoded_spans(items, sequences, best, posterior, emission, transition, backward):
    """Per document the decoded spans ``(first, end, label code, p)`` with ``p`` the posterior
    probability of exactly that span (module docstring)."""
    n_tags = items.n_classes
    names = [*items.labels, "O"]
    out: dict[int, list[tuple[int, int, int, float]]] = {}
    for row, (first, length) in enumerate(zip(sequences.first.tolist(), sequences.length.tolist())):
        doc = int(items.item_doc[first])
        tags = [names[c] for c in best[first:first + length].tolist()]
        found = []
        for s, e, label in bio_spans(tags):
            k = items.labels.index(f"B-{label}") // 2
            b, i = 2 * k, 2 * k + 1
            p = float(posterior[first + s, b])
            here = np.eye(n_tags)[b]
            for n in range(s + 1, min(e + 1, length)):
                cond = transition * (emission[first + n] * backward[row, n])[None, :]
                cond = (here @ cond) / (here @ cond).sum()
                stay = cond[i]
                p *= stay if n < e else 1 - stay
                here = np.eye(n_tags)[i]
            found.append((s, e, k, float(p)))
        out[doc] = found
    return out
