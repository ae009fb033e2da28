"""What a fitted annotator model gives: the consensus, each rater's competence, what to adjudicate.

**Consensus** (the most probable reading). Each item's best label ``k`` has posterior
``p_i = P(t_i = k)``. A span is kept when ``p_i > threshold``; among kept spans that overlap, the
set of non-overlapping spans with the largest total ``Σ (p_i − threshold)`` is taken (weighted
interval scheduling, exact, per document; ties: the earlier set), unless ``allow_overlap``. With
``threshold = 0.5`` every kept span is more probable than not. Each consensus span carries
``p_i`` as its probability.

**Competence** of rater ``r`` on label ``k`` (from the posterior confusion):

- ``marks_present = π_r[k, k]``: when ``k`` is there, the share they mark it (recall);
- ``marks_absent = π_r[nothing, k]``: when nothing is there, the share of such places they mark ``k``;
- ``other_label = Σ_{l ≠ k, l a label} π_r[k, l]``: when ``k`` is there, the share they give another label.

Under Dawid–Skene each row of ``π_r`` is Dirichlet, so each of these sums is Beta distributed
(aggregation property) and its interval is the Beta's central interval. ``accuracy =
Σ_c ρ_c π_r[c, c]`` (the chance that the rater's answer on an item is its true class) ranks the
raters; its interval comes from seeded draws of the Dirichlet rows (Dawid–Skene), or from the
competence's Beta interval (MACE, where ``accuracy = θ + (1 − θ) Σ_c ρ_c ξ_c`` grows with ``θ``).

**Adjudication.** An item's uncertainty is the chance that the consensus reading is wrong,
``1 − max_c P(t_i = c)``. Its *expected change* is the expected amount by which one more
judgment by an average rater (the pooled confusion) would move that posterior:
``Σ_j P(y = j) · ½‖P(t | y = j) − P(t)‖₁``. Items are listed by expected change, largest first.

**Which document needs another rater next** (``spanagree next``, docs/planning.md). A document's
priority is the number of its candidate spans, ties by their summed ``p_i(1 − p_i)`` (``p_i`` the
posterior of the most probable label): every reading, agreed or not, is one a third rater can
confirm or correct; on the CoNLL-2003 crowd this beats ranking by the summed ``p_i(1 − p_i)`` alone.
"""
from __future__ import annotations

import bisect
from collections import defaultdict
from typing import Any

import numpy as np

from ...core.model import Corpus
from ...core.builder import CorpusBuilder
from ...errors import Location
from .dawid_skene import Fit
from .items import bio_spans

#: Seeded draws for the interval of ``accuracy``.
DRAWS = 2000


def best_readings(fit: Fit) -> tuple[np.ndarray, np.ndarray]:
    """(items,) the most probable label of each item and its posterior probability."""
    n_labels = len(fit.items.labels)
    label_post = fit.posterior[:, :n_labels]
    best = label_post.argmax(1) if n_labels else np.zeros(fit.items.n_items, np.int64)
    prob = label_post[np.arange(fit.items.n_items), best] if n_labels else np.zeros(fit.items.n_items)
    return best, prob


#: How ``next`` ranks the documents, as its output says.
POLICY = ("number of candidate spans under the annotator model, largest first; ties: the larger summed p(1-p) of their "
          "most probable labels, then fewer raters; one more rater per document")


def span_terms(fit: Fit) -> np.ndarray:
    """(items,) ``p(1 − p)`` of each candidate span's most probable label (module docstring)."""
    _, best = best_readings(fit)
    return best * (1 - best)


def choose_spans(fit: Fit, *, threshold: float = 0.5, allow_overlap: bool = False) -> dict[int, list[tuple[int, int, int, float]]]:
    """Per document, the consensus spans ``(start, end, label code, probability)`` in the unit."""
    items = fit.items
    best, prob = best_readings(fit)
    chosen: dict[int, list[tuple[int, int, int, float]]] = defaultdict(list)
    candidates: dict[int, list[tuple[int, int, int, float]]] = defaultdict(list)
    for i in np.flatnonzero(prob > threshold).tolist():
        candidates[int(items.item_doc[i])].append((int(items.item_start[i]), int(items.item_end[i]), int(best[i]), float(prob[i])))
    for d, spans in candidates.items():
        chosen[d] = sorted(spans) if allow_overlap else _heaviest_disjoint(spans, threshold)
    return chosen


def _heaviest_disjoint(spans: list[tuple[int, int, int, float]], threshold: float) -> list[tuple[int, int, int, float]]:
    """The non-overlapping subset with the largest Σ (p − threshold) (weighted interval scheduling)."""
    spans = sorted(spans, key=lambda s: (s[1], s[0], s[2]))
    ends = [s[1] for s in spans]
    best = [0.0] * (len(spans) + 1)
    take = [False] * (len(spans) + 1)
    previous = [0] * (len(spans) + 1)
    for n, (start, _end, _label, p) in enumerate(spans, 1):
        previous[n] = bisect.bisect_right(ends, start, 0, n - 1)
        with_it = best[previous[n]] + (p - threshold)
        if with_it > best[n - 1] + 1e-15:
            best[n], take[n] = with_it, True
        else:
            best[n] = best[n - 1]
    out = []
    n = len(spans)
    while n > 0:
        if take[n]:
            out.append(spans[n - 1])
            n = previous[n]
        else:
            n -= 1
    return sorted(out)


def consensus_corpus(
    fit: Fit, *, name: str, documents: np.ndarray, threshold: float = 0.5, allow_overlap: bool = False,
) -> tuple[Corpus, dict[tuple[str, int, int, str], float]]:
    """The consensus as a one-rater Corpus over ``documents`` (indices), and each span's probability
    keyed by ``(doc_id, start, end, label)`` in characters. In the token view the consensus is the
    most probable tag of each token (``threshold`` and ``allow_overlap`` do not apply)."""
    items, corpus = fit.items, fit.items.corpus
    if items.rule.get("view") == "token":
        chosen = token_consensus_spans(fit)
        label_names = [name[2:] for name in items.labels[::2]]
    else:
        chosen = choose_spans(fit, threshold=threshold, allow_overlap=allow_overlap)
        label_names = corpus.labels
    builder = CorpusBuilder()
    where = Location(f"<{name}>")
    probability: dict[tuple[str, int, int, str], float] = {}
    for d in documents.tolist():
        doc_id = corpus.doc_ids[d]
        spans = []
        for start, end, label, p in chosen.get(d, []):
            start, end = items.char_offsets(d, start, end)
            spans.append((start, end, label_names[label]))
            probability[doc_id, start, end, label_names[label]] = p
        builder.add(doc_id, doc_id, corpus.texts[d], name, sorted(set(spans)), where, corpus.doc_tokens[d])
    return builder.build(), probability


def token_consensus_spans(fit: Fit) -> dict[int, list[tuple[int, int, int, float]]]:
    """Token view (:func:`~.items.token_items`): per document the spans of the most probable tag
    of each token, read conlleval-style, each ``(first token, end token, label code, p)`` with
    ``p`` the model's probability of exactly that span: the product of its tokens' tag posteriors
    and, when a token follows, of that token not continuing it (tokens are independent given the
    model). A sequence model (:mod:`.bsc`) gives its own decoding and span probabilities
    (``fit.spans``), taken as they are."""
    if fit.spans is not None:
        return fit.spans
    items = fit.items
    tag_names = items.class_names
    n_tags = len(items.labels)
    best = fit.posterior.argmax(1)
    out: dict[int, list[tuple[int, int, int, float]]] = {}
    labels = {name[2:]: k for k, name in enumerate(tag_names[:n_tags:2])}
    order = np.lexsort((items.item_start, items.item_doc))
    bounds = np.flatnonzero(np.diff(items.item_doc[order])) + 1
    for block in np.split(order, bounds):
        if not len(block):
            continue
        tags = [tag_names[c] if c < n_tags else "O" for c in best[block].tolist()]
        spans = []
        for first, end, label in bio_spans(tags):
            p = float(np.prod(fit.posterior[block[first:end], best[block[first:end]]]))
            if end < len(block):
                p *= 1 - float(fit.posterior[block[end], 2 * labels[label] + 1])
            spans.append((first, end, labels[label], p))
        out[int(items.item_doc[block[0]])] = spans
    return out


def _beta_interval(alpha_in: Any, alpha_out: Any, level: float) -> tuple[Any, Any]:
    """The central interval at ``level`` of Beta(alpha_in, alpha_out) (scipy.stats, whose import
    takes seconds, only when an interval is asked for)."""
    from scipy.stats import beta as beta_distribution

    tail = (1 - level) / 2
    return beta_distribution.ppf(tail, alpha_in, alpha_out), beta_distribution.ppf(1 - tail, alpha_in, alpha_out)


def competence(fit: Fit, *, level: float = 0.95, seed: int = 0) -> list[dict[str, Any]]:
    """Per rater: items answered, accuracy with its interval, and per label the three shares
    (module docstring) with intervals; ranked by accuracy, highest first (ties by name)."""
    items = fit.items
    n_labels, nothing = len(items.labels), items.nothing
    answered = np.bincount(items.obs_rater, minlength=len(items.raters))
    marked = np.bincount(items.obs_rater, weights=items.obs_response < n_labels, minlength=len(items.raters))
    rng = np.random.default_rng(seed)
    tail = (1 - level) / 2
    rows = []
    for r, name in enumerate(items.raters):
        confusion = fit.confusion[r]
        accuracy = float((fit.class_prior * np.diag(confusion)).sum())
        entry: dict[str, Any] = {"rater": name, "items": int(answered[r]), "marked": int(marked[r]), "accuracy": accuracy}
        alpha = fit.confusion_alpha[r] if fit.confusion_alpha is not None else None
        if alpha is not None:
            draws = np.stack([rng.dirichlet(alpha[c], size=DRAWS)[:, c] for c in range(items.n_classes)], axis=1)
            acc_draws = draws @ fit.class_prior
            entry["accuracy_interval"] = [float(np.quantile(acc_draws, tail)), float(np.quantile(acc_draws, 1 - tail))]
        elif "competence_beta" in fit.extra:
            a, b = fit.extra["competence_beta"][r]
            entry["competence"] = float(fit.extra["competence"][r])
            low, high = map(float, _beta_interval(a, b, level))
            entry["competence_interval"] = [low, high]
            # accuracy = θ + (1 − θ) Σ_c ρ_c ξ_c grows with θ: its interval is that of θ, mapped
            habit = float(fit.class_prior @ fit.extra["spamming"][r])
            entry["accuracy_interval"] = [low + (1 - low) * habit, high + (1 - high) * habit]
        labels = {}
        for k, label in enumerate(items.labels):
            other = [l for l in range(n_labels) if l != k]
            shares = {
                "marks_present": (confusion[k, k], None if alpha is None else (alpha[k, k], alpha[k].sum() - alpha[k, k])),
                "marks_absent": (confusion[nothing, k], None if alpha is None else (alpha[nothing, k], alpha[nothing].sum() - alpha[nothing, k])),
                "other_label": (confusion[k, other].sum(), None if alpha is None else (alpha[k, other].sum(), alpha[k].sum() - alpha[k, other].sum())),
            }
            out = {}
            for key, (value, ab) in shares.items():
                out[key] = float(value)
                if ab is not None and ab[0] > 0 and ab[1] > 0:
                    low, high = _beta_interval(np.float64(ab[0]), np.float64(ab[1]), level)
                    out[f"{key}_interval"] = [float(low), float(high)]
            labels[label] = out
        entry["labels"] = labels
        if "sequence_alpha" in fit.extra:
            entry["boundaries"] = boundaries(fit.extra["sequence_alpha"][r], fit.extra["sequence_prior"],
                                             [tag[2:] for tag in items.labels[::2]], level)
        rows.append(entry)
    rows.sort(key=lambda e: (-e["accuracy"], e["rater"]))
    for rank, entry in enumerate(rows, 1):
        entry["rank"] = rank
    return rows


#: The sequence model's boundary shares (:mod:`.bsc`): (name, true tag, given tag, previous given
#: tag), each tag ``"B"``, ``"I"`` (of the label) or ``"O"``; ``"open"`` is the rater's previous tag
#: inside a span of the label (``B`` or ``I``, the two rows pooled).
BOUNDARIES = (
    ("starts", "B", "B", "O"),         # marks a span's first token as its first
    ("starts_early", "B", "I", "open"),  # is already inside their own span where the span starts
    ("continues", "I", "I", "open"),   # goes on where the span goes on
    ("stops_early", "I", "O", "open"),  # stops inside the span
    ("ends_late", "O", "I", "open"),   # goes on past the span's end
    ("marks_outside", "O", "B", "O"),  # opens a span where there is none
)


def boundaries(alpha: np.ndarray, prior: np.ndarray, labels: list[str], level: float) -> dict[str, dict[str, Any]]:
    """Per label, a rater's shares of :data:`BOUNDARIES` from their sequential confusion
    ``alpha`` (true, given, previous given tag; a Dirichlet per true and previous tag), each with
    the central interval of its Beta marginal. Pooling the two "open" rows adds their answers
    and keeps one prior (``prior``, the same layout)."""
    outside = 2 * len(labels)
    out = {}
    for k, label in enumerate(labels):
        code = {"B": 2 * k, "I": 2 * k + 1, "O": outside}
        shares: dict[str, Any] = {}
        for name, true, given, previous in BOUNDARIES:
            t = code[true]
            if previous == "open":
                row = alpha[t, :, code["B"]] + alpha[t, :, code["I"]] - prior[t, :, code["I"]]
            else:
                row = alpha[t, :, code[previous]]
            hit, total = row[code[given]], row.sum()
            low, high = _beta_interval(hit, total - hit, level)
            shares[name] = float(hit / total)
            shares[f"{name}_interval"] = [float(low), float(high)]
        out[label] = shares
    return out


def adjudication(fit: Fit, *, limit: int | None = None) -> list[dict[str, Any]]:
    """The items whose reading one more judgment would change most (module docstring), largest first."""
    items, corpus = fit.items, fit.items.corpus
    post = fit.posterior                                  # (items, classes)
    pooled = fit.confusion.mean(0)                        # (classes, responses): an average rater
    predictive = post @ pooled                            # (items, responses) P(y = j)
    change = np.zeros(items.n_items)
    for j in range(items.n_classes):
        updated = post * pooled[None, :, j]
        updated /= np.maximum(updated.sum(1, keepdims=True), 1e-300)
        change += predictive[:, j] * 0.5 * np.abs(updated - post).sum(1)
    uncertainty = 1 - post.max(1)
    order = np.lexsort((np.arange(items.n_items), -uncertainty, -change))
    if limit is not None:
        order = order[:limit]
    names = items.class_names
    responses: dict[int, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for i, r, j in zip(items.obs_item.tolist(), items.obs_rater.tolist(), items.obs_response.tolist()):
        responses[i][names[j]].append(items.raters[r])
    out = []
    for i in order.tolist():
        d = int(items.item_doc[i])
        start, end = items.char_offsets(d, items.item_start[i], items.item_end[i])
        reading = int(post[i].argmax())
        out.append({
            "doc_id": corpus.doc_ids[d], "start": start, "end": end, "text": corpus.texts[d][start:end],
            "reading": names[reading], "probability": float(post[i, reading]),
            "uncertainty": float(uncertainty[i]), "expected_change": float(change[i]),
            "posterior": {names[c]: float(post[i, c]) for c in range(items.n_classes)},
            "responses": {k: sorted(v) for k, v in sorted(responses[i].items())},
        })
    return out
