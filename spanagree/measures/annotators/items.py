"""The items an annotator model sees: every boundary any rater marked, grouped by the aligner.

Construction, per document (unit: characters, or tokens with ``unit="token"``):

1. **Clusters.** Every pair of raters who submitted the document is aligned with the chosen rule
   (docs/alignment.md), exactly as the vote does (:mod:`spanagree.diagnostics.consensus`); the
   clusters are the connected components of the graph whose edges are those matches, joined
   also where two spans have the same boundaries (two labels at one place are one question:
   which label, if any).
2. **Items.** Every distinct ``(start, end)`` some rater marked is an item; it belongs to the
   cluster of its spans.
3. **Responses.** Every rater who submitted the document answers every item of it: the label of
   their span at exactly these boundaries (a rater with two labels at one place gives the first
   in label order, and this is counted); else ``OTHER`` when they have a span at other
   boundaries in the item's cluster (only possible under a rule that aligns different
   boundaries); else ``NOTHING``. A rater who did not submit the document gives no response:
   missing, not a vote.

**Boundaries are part of the model**, not of the decoding: each boundary is a reading of its own,
and a rater who marked other boundaries in the cluster says so (``OTHER``), which is neither a
vote for these boundaries nor the silence of a rater who saw nothing there. The decoding
(:mod:`.decode`) then only has to choose among readings the model has weighed: the most probable
non-overlapping ones. Under the exact rule no two boundaries align, so ``OTHER`` never occurs and
the model is Dawid–Skene on exact-boundary span items.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from ...core import options
from ...core.align import AlignmentRule, align
from ...core.counts import make_comparisons, side, unit_positions
from ...core.model import Corpus


@dataclass(frozen=True)
class SpanItems:
    """Items × raters responses, as flat observation arrays.

    Classes (what an item truly is) and responses (what a rater says) are coded alike:
    ``0 .. K-1`` the labels, then ``OTHER`` (= K, only when ``has_other``), then ``NOTHING``.
    """

    corpus: Corpus
    unit: str
    rule: dict
    labels: list[str]
    raters: list[str]
    has_other: bool
    item_doc: np.ndarray      # (items,) document index
    item_start: np.ndarray    # (items,) in the unit
    item_end: np.ndarray      # (items,)
    item_cluster: np.ndarray  # (items,) cluster id, numbered in document order
    obs_item: np.ndarray      # (observations,)
    obs_rater: np.ndarray     # (observations,)
    obs_response: np.ndarray  # (observations,)
    notes: Counter = field(default_factory=Counter)
    doc_offsets: dict[int, np.ndarray] | None = None  # token view: the tokens used, when not the corpus's

    def tokens_of(self, d: int) -> np.ndarray:
        """(tokens, 2) character offsets of document ``d``'s tokens, as the items use them."""
        if self.doc_offsets is not None and d in self.doc_offsets:
            return self.doc_offsets[d]
        return self.corpus.doc_tokens[d]

    def char_offsets(self, d: int, start: int, end: int) -> tuple[int, int]:
        """Offsets ``start``, ``end`` of document ``d`` in the unit, as characters."""
        if self.unit != "token":
            return int(start), int(end)
        tokens = self.tokens_of(d)
        return int(tokens[start, 0]), int(tokens[end - 1, 1])

    @property
    def n_items(self) -> int:
        return len(self.item_doc)

    @property
    def n_classes(self) -> int:
        return len(self.labels) + (2 if self.has_other else 1)

    @property
    def nothing(self) -> int:
        return self.n_classes - 1

    @property
    def other(self) -> int | None:
        return len(self.labels) if self.has_other else None

    @property
    def class_names(self) -> list[str]:
        return [*self.labels, *(["(other boundaries)"] if self.has_other else []), "(nothing)"]

    def unanimous(self) -> np.ndarray:
        """(items,) True where every response to the item is the same."""
        lo = np.full(self.n_items, np.iinfo(np.int64).max)
        hi = np.full(self.n_items, -1)
        np.minimum.at(lo, self.obs_item, self.obs_response)
        np.maximum.at(hi, self.obs_item, self.obs_response)
        return lo == hi

    def to_dict(self) -> dict[str, Any]:
        return {
            "items": self.n_items,
            "clusters": int(len(np.unique(self.item_cluster))),
            "observations": int(len(self.obs_item)),
            "raters": len(self.raters),
            "classes": self.class_names,
            **({"notes": dict(sorted(self.notes.items()))} if self.notes else {}),
        }


def rule_and_unit(rule: str | AlignmentRule, alignment: dict[str, Any]) -> tuple[AlignmentRule, str]:
    """The alignment rule and unit from ``rule`` and the keyword options (declared in
    :mod:`spanagree.core.options`); with an :class:`AlignmentRule` only ``unit`` is read."""
    if isinstance(rule, AlignmentRule):
        return rule, options.keywords(alignment, ["unit"])["unit"]
    settings = options.keywords({"rule": rule, **alignment}, options.COMPONENT_OPTIONS)
    return AlignmentRule(**{k: settings[k] for k in options.RULE_OPTIONS}), settings["unit"]


def unit_offsets(corpus: Corpus, unit: str, notes: Counter) -> tuple[np.ndarray, np.ndarray]:
    """The spans' starts and ends in the unit (:func:`spanagree.core.counts.unit_positions`), its
    notes added to ``notes``."""
    starts, ends, unit_notes = unit_positions(corpus, unit)
    notes.update(unit_notes)
    return starts, ends


def cluster_roots(corpus: Corpus, starts: np.ndarray, ends: np.ndarray, rule: AlignmentRule) -> np.ndarray:
    """(spans,) the cluster of every span: the smallest span index of its connected component in
    the graph of every pair's optimal matching (under ``rule``)."""
    return component_roots(corpus.n_spans, *matched_pairs(corpus, starts, ends, rule))


def matched_pairs(corpus: Corpus, starts: np.ndarray, ends: np.ndarray, rule: AlignmentRule):
    """Global span indices ``(i, j)``, two arrays, of every match between two raters on one document."""
    comparisons = make_comparisons(corpus)
    if not len(comparisons):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    side_a, idx_a = side(corpus, comparisons.ann_a, starts, ends)
    side_b, idx_b = side(corpus, comparisons.ann_b, starts, ends)
    found = align(side_a, side_b, rule)
    return idx_a[found.a_index], idx_b[found.b_index]


def component_roots(n: int, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """(n,) each node's connected component in the graph of the edges ``(i, j)``, named by its
    smallest node index."""
    if n == 0:
        return np.zeros(0, np.int64)
    _, component = connected_components(coo_matrix((np.ones(len(i)), (i, j)), shape=(n, n)), directed=False)
    root = np.full(int(component.max()) + 1, n, dtype=np.int64)
    np.minimum.at(root, component, np.arange(n))
    return root[component]


def span_items(
    corpus: Corpus,
    *,
    rule: str | AlignmentRule = options.default("rule"),
    **alignment: Any,
) -> SpanItems:
    """The items and responses of ``corpus`` under an alignment rule (module docstring).

    Parameters
    ----------
    corpus : the raters' annotations.
    rule, labels, unit, min_overlap, partial_credit, proportional : how spans align and cluster
        (docs/alignment.md); ``rule`` may be an :class:`~spanagree.core.align.AlignmentRule`,
        and then only ``unit`` is read from the others.

    Examples
    --------
    >>> from spanagree.core.builder import CorpusBuilder
    >>> b = CorpusBuilder()
    >>> for rater, spans in [("a", [(0, 5, "PER")]), ("b", [(0, 5, "PER")]), ("c", [])]:
    ...     b.add("d1", "d1", "Alice in Rome", rater, spans, None)
    >>> items = span_items(b.build())
    >>> items.n_items, items.class_names, items.obs_response.tolist()
    (1, ['PER', '(nothing)'], [0, 0, 1])
    """
    rule, unit = rule_and_unit(rule, alignment)
    notes: Counter = Counter()
    starts, ends = unit_offsets(corpus, unit, notes)
    span_ann = corpus.span_ann
    span_doc = corpus.ann_doc[span_ann]
    span_rater = corpus.ann_rater[span_ann]
    has_extent = ends > starts
    if (~has_extent).any():
        notes["spans with no extent in the unit (not an item)"] += int((~has_extent).sum())
    n_labels = len(corpus.labels)
    has_other = rule.rule != "exact"
    nothing = n_labels + (1 if has_other else 0)

    matched_a, matched_b = matched_pairs(corpus, starts, ends, rule)
    keep = np.flatnonzero(has_extent)
    # items: distinct (document, start, end); the spans at one place join one cluster
    keys = np.stack([span_doc[keep], starts[keep], ends[keep]], axis=1)
    if len(keep):
        item_keys, span_item = np.unique(keys, axis=0, return_inverse=True)
        span_item = span_item.reshape(-1)
    else:
        item_keys, span_item = np.zeros((0, 3), np.int64), np.zeros(0, np.int64)
    # clusters: the matched spans joined, and the spans at one place joined to its first span
    first_of_item = np.full(len(item_keys), corpus.n_spans, dtype=np.int64)
    np.minimum.at(first_of_item, span_item, keep)
    roots = component_roots(corpus.n_spans, np.concatenate([matched_a, first_of_item[span_item]]),
                            np.concatenate([matched_b, keep]))
    span_cluster_root = roots[keep]
    item_root = np.zeros(len(item_keys), dtype=np.int64)
    item_root[span_item] = span_cluster_root
    _, item_cluster = np.unique(np.stack([item_keys[:, 0], item_root], axis=1), axis=0, return_inverse=True) \
        if len(item_keys) else (None, np.zeros(0, np.int64))
    item_cluster = np.asarray(item_cluster).reshape(-1)

    # exact responses: (item, rater) -> first label in label order
    exact: dict[tuple[int, int], int] = {}
    several = 0
    order = np.lexsort((corpus.span_label[keep], span_item))
    for pos in order.tolist():
        key = (int(span_item[pos]), int(span_rater[keep[pos]]))
        if key in exact:
            several += exact[key] != int(corpus.span_label[keep[pos]])
            continue
        exact[key] = int(corpus.span_label[keep[pos]])
    if several:
        notes["a rater's further labels at boundaries they also gave another label (first label taken)"] += several
    in_cluster = set(zip(item_cluster[span_item].tolist(), span_rater[keep].tolist()))

    submitters: list[list[int]] = [[] for _ in range(corpus.n_documents)]
    for d, r in zip(corpus.ann_doc.tolist(), corpus.ann_rater.tolist()):
        submitters[d].append(r)
    obs_item, obs_rater, obs_response = [], [], []
    for item, (d, _, _) in enumerate(item_keys.tolist()):
        cluster = int(item_cluster[item])
        for r in submitters[d]:
            response = exact.get((item, r))
            if response is None:
                response = n_labels if has_other and (cluster, r) in in_cluster else nothing
            obs_item.append(item)
            obs_rater.append(r)
            obs_response.append(response)
    as_array = lambda values: np.asarray(values, dtype=np.int64)  # noqa: E731
    return SpanItems(
        corpus=corpus, unit=unit, rule={**rule.to_dict(), "unit": unit}, labels=list(corpus.labels),
        raters=list(corpus.raters), has_other=has_other,
        item_doc=item_keys[:, 0].copy(), item_start=item_keys[:, 1].copy(), item_end=item_keys[:, 2].copy(),
        item_cluster=item_cluster.astype(np.int64), obs_item=as_array(obs_item), obs_rater=as_array(obs_rater),
        obs_response=as_array(obs_response), notes=notes,
    )


def token_items(corpus: Corpus, tokens: dict[str, np.ndarray] | None = None) -> SpanItems:
    """The token-level view: every token of a document some rater submitted is an item, answered
    by every rater who submitted it with the BIO tag their spans give it (``B-X`` on a span's first
    token, ``I-X`` on the others, else ``O``; where a rater's spans overlap, the later span's tag).

    Classes and answers are ``B-<label>``, ``I-<label>`` for every label, then ``O`` (the
    "nothing"). Tokens are the corpus's (``tokens`` maps a document id to ``(n, 2)`` character
    offsets to use instead). :func:`bio_spans` reads spans back from tags, conlleval-style.
    """
    tags = [f"{prefix}-{label}" for label in corpus.labels for prefix in ("B", "I")]
    outside = len(tags)
    obs_item, obs_rater, obs_response = [], [], []
    item_doc, item_start = [], []
    notes: Counter = Counter()
    first_item = {}
    used: dict[int, np.ndarray] = {}
    for ann in range(corpus.n_annotations):
        d, r = int(corpus.ann_doc[ann]), int(corpus.ann_rater[ann])
        doc_id = corpus.doc_ids[d]
        offsets = tokens.get(doc_id) if tokens is not None else corpus.doc_tokens[d]
        if offsets is None:
            notes["annotations of documents without tokens (no token items)"] += 1
            continue
        if d not in first_item:
            used[d] = offsets
            first_item[d] = len(item_doc)
            item_doc.extend([d] * len(offsets))
            item_start.extend(range(len(offsets)))
        answer = np.full(len(offsets), outside, dtype=np.int64)
        lo, hi = int(corpus.ann_ptr[ann]), int(corpus.ann_ptr[ann + 1])
        for s, e, k in zip(corpus.span_start[lo:hi].tolist(), corpus.span_end[lo:hi].tolist(), corpus.span_label[lo:hi].tolist()):
            first = int(np.searchsorted(offsets[:, 1], s, side="right"))
            last = int(np.searchsorted(offsets[:, 0], e, side="left"))
            if last > first:
                answer[first] = 2 * k
                answer[first + 1:last] = 2 * k + 1
        obs_item.extend(range(first_item[d], first_item[d] + len(offsets)))
        obs_rater.extend([r] * len(offsets))
        obs_response.extend(answer.tolist())
    as_array = lambda values: np.asarray(values, dtype=np.int64)  # noqa: E731
    starts = as_array(item_start)
    return SpanItems(
        corpus=corpus, unit="token", rule={"view": "token"}, labels=tags, raters=list(corpus.raters), has_other=False,
        item_doc=as_array(item_doc), item_start=starts, item_end=starts + 1, item_cluster=np.arange(len(item_doc), dtype=np.int64),
        obs_item=as_array(obs_item), obs_rater=as_array(obs_rater), obs_response=as_array(obs_response), notes=notes,
        doc_offsets=used if tokens is not None else None,
    )


def bio_spans(tags: list[str]) -> list[tuple[int, int, str]]:
    """Token spans ``(first, end, label)`` from BIO tags, conlleval-style: an ``I-X`` after ``O``
    or after another label opens a span.

    >>> bio_spans(["B-PER", "I-PER", "O", "I-LOC", "B-LOC"])
    [(0, 2, 'PER'), (3, 4, 'LOC'), (4, 5, 'LOC')]
    """
    spans, open_span = [], None
    for t, tag in enumerate([*tags, "O"]):
        kind, label = (tag[0], tag[2:]) if tag != "O" else ("O", None)
        if open_span is not None and (kind != "I" or label != open_span[1]):
            spans.append((open_span[0], t, open_span[1]))
            open_span = None
        if kind == "B" or (kind == "I" and open_span is None):
            open_span = (t, label)
    return spans
