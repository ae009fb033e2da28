"""Candidate sets: when d becomes defined (docs/chance-corrected.md).

Given an explicit set of candidate units — every token, a list of candidate spans per document,
or the documents themselves — each candidate is an *item*, and each rater puts each item in a
category: a label, or ``NONE``. Items every rater left as ``NONE`` give the ``d`` that free
markup lacks, so the chance-corrected coefficients of :mod:`spanagree.measures.stats` apply.

How a rater's spans become categories:

- **candidate spans** (a JSONL file of ``{"doc_id", "spans": [{"start", "end"}]}``): the same
  aligner and rule as :func:`spanagree.score` match each rater's spans one-to-one to the
  candidates (positions only); a matched candidate takes the span's label.
- **tokens** (the input's tokens, else a blank spaCy tokenizer for ``language``): a token takes
  the label of the rater's span that covers it. Here the match is coverage, not one-to-one: a
  span of three tokens says something about each of them, and a one-to-one match would leave two
  of them ``NONE`` (token-level agreement as in Deleger et al. 2012). When spans of one rater that
  cover a token carry different labels, the token takes the first span's label (by position) and
  this is counted; the per-label tables use every label present, so they are exact.
- **documents**: document labels (``"labels"`` in spanagree JSONL, Prodigy text classification).
  Categories are what a rater can choose. When every rater gives every document exactly one
  label the documents are the items and the labels are the categories, with no ``NONE``
  (single-label classification: nobody can leave a document unlabelled). Otherwise each
  (document, label) is a binary item with the categories "not chosen" and "chosen"
  (multi-label), the same items for every coefficient.

A rater who did not submit a document has no category for its items (missing). Spans that match
no candidate are not lost: they become extra items (one per distinct position, shared by the
raters who marked it there) and are counted; ``strict_candidates=True`` makes them an error.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...core.align import AlignmentRule, SpanColumns, align
from ...errors import InputError, Location, UsageError
from ...core.arrays import expand, in_order, ranges
from ...core.model import Corpus

NONE = "NONE"
#: Candidate spans as read from a file: document, start and end (sorted, duplicates dropped), notes.
CandidateSpans = tuple[np.ndarray, np.ndarray, np.ndarray, Counter]


@dataclass
class ItemMatrix:
    """Items and every rating of them, long-form (one row per item and rater who saw it).

    Long form keeps memory proportional to the ratings, not to items × raters: crowd corpora
    have thousands of raters, each of whom saw a few documents.

    Attributes
    ----------
    categories : what a rater can choose; codes index into it. ``[NONE, label, ...]`` for span
        and token candidates, the labels for single-label documents, ``["not chosen", "chosen"]``
        for multi-label (document, label) items.
    item_doc : document index of every item, shape (n_items,).
    extra : bool per item, True for items made from spans that matched no candidate.
    rating_item, rating_rater, rating_code : one row per (item, rater who submitted the item's
        document), sorted by item then rater; code 0 is NONE.
    rating_labels : uint64 array (n_ratings, words): bit ``l`` set when the rater marked the
        item with ``labels[l]`` (several labels can cover one token). For multi-label items it has
        no words: the item's label and the code say it (see :meth:`has_label`).
    source : "tokens", "documents" or the candidate file's path.
    notes : counts of what happened on the way (extra items, label conflicts, ...).
    scheme : "spans" (code 0 is NONE), "multiclass" (codes are labels, no NONE) or
        "multilabel" (code 0 is "not chosen", 1 "chosen"; ``item_label`` says which label).
    label_names : the labels of ``rating_labels`` (default: ``categories[1:]``).
    item_label : for multi-label items, the label of each item (else None).
    """

    categories: list[str]
    item_doc: np.ndarray
    extra: np.ndarray
    rating_item: np.ndarray
    rating_rater: np.ndarray
    rating_code: np.ndarray
    rating_labels: np.ndarray
    source: str
    notes: Counter = field(default_factory=Counter)
    scheme: str = "spans"
    label_names: list[str] | None = None
    item_label: np.ndarray | None = None

    @property
    def labels(self) -> list[str]:
        return self.categories[1:] if self.label_names is None else self.label_names

    @property
    def has_none(self) -> bool:
        """Whether category 0 means "not marked" (so a 2×2 marked/unmarked table exists)."""
        return self.scheme != "multiclass"

    @property
    def n_items(self) -> int:
        return len(self.item_doc)

    def has_label(self, label: int) -> np.ndarray:
        """Bool per rating: the rater marked the item with ``labels[label]``."""
        if self.item_label is not None:  # multi-label: chosen (code 1) on the label's own items
            return (self.item_label[self.rating_item] == label) & (self.rating_code == 1)
        word, bit = divmod(label, 64)
        return (self.rating_labels[:, word] >> np.uint64(bit)) & np.uint64(1) == 1


def set_bits(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(row, bit)`` of every set bit of a (rows, words) uint64 array, bit ``64 × word + k``."""
    row, word = np.nonzero(words)
    value = words[row, word]
    rows, bits = [], []
    for k in range(64):
        on = np.flatnonzero((value >> np.uint64(k)) & np.uint64(1))
        if len(on):
            rows.append(row[on])
            bits.append(word[on] * 64 + k)
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(rows).astype(np.int64), np.concatenate(bits).astype(np.int64)


def build_items(
    corpus: Corpus,
    source: str | Path,
    rule: AlignmentRule,
    *,
    unit: str = "char",
    tokens: dict[int, np.ndarray] | None = None,
    spans: CandidateSpans | None = None,
    strict_candidates: bool = False,
) -> ItemMatrix:
    """The items × raters matrix for a candidate source (module docstring) from what the caller
    read (:mod:`spanagree.io.candidates`): ``source`` names it ("tokens", "documents" or the file),
    ``tokens`` are every annotated document's token offsets, ``spans`` the file's candidates."""
    if source == "documents":
        return _document_items(corpus)
    if source == "tokens":
        items = _token_items(corpus, tokens)
    else:
        items = _candidate_span_items(corpus, str(source), spans, rule, unit)
    n_extra = int(items.extra.sum())
    if n_extra and strict_candidates:
        first = int(np.flatnonzero(items.extra)[0])
        raise InputError(
            f"{n_extra} span(s) match no candidate (strict_candidates is on); the first is in "
            f"document {corpus.doc_ids[items.item_doc[first]]!r}",
            where=Location(str(source)),
        )
    if n_extra:
        items.notes["spans matching no candidate (added as extra items)"] += n_extra
    return items


# --- tokens ---------------------------------------------------------------------------------


def _token_items(corpus: Corpus, tokens: dict[int, np.ndarray]) -> ItemMatrix:
    docs = np.unique(corpus.ann_doc)
    n_tok = np.array([len(tokens[d]) for d in docs.tolist()], dtype=np.int64)
    tok_doc = np.repeat(docs, n_tok)
    tok = np.concatenate([tokens[d] for d in docs.tolist()]) if len(docs) else np.zeros((0, 2), np.int64)

    # the tokens each span overlaps: ends after the span's start, starts before its end
    span_doc = corpus.ann_doc[corpus.span_ann]
    width = int(max(corpus.span_end.max(initial=0), tok[:, 1].max(initial=0))) + 1
    lo = np.searchsorted(tok_doc * width + tok[:, 1], span_doc * width + corpus.span_start, side="right")
    hi = np.searchsorted(tok_doc * width + tok[:, 0], span_doc * width + corpus.span_end, side="left")
    span_idx, token = expand(lo, hi)
    # spans covering no token become extra items
    return _rated_items(corpus, tok_doc, token, span_idx, np.flatnonzero(hi <= lo), Counter(), "tokens")


# --- candidate spans ------------------------------------------------------------------------


def _candidate_span_items(corpus: Corpus, path: str, spans: CandidateSpans, rule: AlignmentRule, unit: str) -> ItemMatrix:
    if unit != "char":
        raise UsageError("candidate spans are character offsets; use unit 'char' with a candidate file")
    cand_doc, cand_start, cand_end, notes = spans
    # one alignment group per annotation: the document's candidates against the rater's spans
    bounds = np.searchsorted(cand_doc, np.arange(corpus.n_documents + 1))
    per_ann = bounds[corpus.ann_doc + 1] - bounds[corpus.ann_doc]
    cand_idx = ranges(bounds[corpus.ann_doc], per_ann)
    side_a = SpanColumns(
        group=np.repeat(np.arange(corpus.n_annotations), per_ann),
        start=cand_start[cand_idx],
        end=cand_end[cand_idx],
        label=np.zeros(len(cand_idx), dtype=np.int64),
    )
    span_ann = corpus.span_ann
    side_b = SpanColumns(group=span_ann, start=corpus.span_start, end=corpus.span_end, label=corpus.span_label)
    blind = AlignmentRule(rule.rule, "ignore", rule.min_overlap, rule.partial_credit, rule.proportional)
    found = align(side_a, side_b, blind)
    unmatched = np.setdiff1d(np.arange(corpus.n_spans), found.b_index)
    return _rated_items(corpus, cand_doc, cand_idx[found.a_index], found.b_index, unmatched, notes, path)


# --- documents ------------------------------------------------------------------------------


def _document_items(corpus: Corpus) -> ItemMatrix:
    labels = corpus.doc_label_names
    if not labels:
        raise UsageError(
            "candidates 'documents' needs document labels ('labels' in spanagree JSONL, or Prodigy "
            "text classification answers); the input has none"
        )
    n_raters, n_labels = len(corpus.raters), len(labels)
    # one row per (document, rater) that judged labels; value -1 where a label was not judged
    cell, row = np.unique(corpus.dl_doc * n_raters + corpus.dl_rater, return_inverse=True)
    value = np.full((len(cell), n_labels), -1, dtype=np.int64)
    value[row.reshape(-1), corpus.dl_label] = corpus.dl_value
    docs, raters = cell // n_raters, cell % n_raters
    notes: Counter = Counter()
    if ((value >= 0).all(axis=1) & ((value == 1).sum(axis=1) == 1)).all():
        # multi-class: every rater chose exactly one label for every document it judged
        item_doc, item = np.unique(docs, return_inverse=True)
        chosen = value.argmax(axis=1)
        notes["documents as single-label items (categories: the labels)"] += len(item_doc)
        return _label_items(labels, item_doc, item.reshape(-1), raters, chosen, chosen, notes, "multiclass", list(labels))
    # multi-label: one binary item per (document, label) that somebody judged
    judged_row, judged_label = np.nonzero(value >= 0)
    doc_label = docs[judged_row] * n_labels + judged_label
    keys, item = np.unique(doc_label, return_inverse=True)
    given = value[judged_row, judged_label] == 1
    notes["(document, label) binary items (categories: not chosen, chosen)"] += len(keys)
    return _label_items(
        labels, keys // n_labels, item.reshape(-1), raters[judged_row],
        given.astype(np.int64), None, notes, "multilabel", list(BINARY), item_label=keys % n_labels,
    )


#: The categories of a multi-label (document, label) item.
BINARY = ("not chosen", "chosen")


def _label_items(labels, item_doc, item, rater, code, label, notes, scheme, categories, item_label=None) -> ItemMatrix:
    """An ItemMatrix from one rating per (item, rater): its code and the label present (-1 none;
    ``label`` None for multi-label items, whose ``item_label`` says it)."""
    order = np.lexsort((rater, item))
    if label is None:
        bits = np.zeros((len(item), 0), dtype=np.uint64)
    else:
        label = label[order]
        bits = np.zeros((len(item), max(1, (len(labels) + 63) // 64)), dtype=np.uint64)
        has = label >= 0
        word, bit = np.divmod(label[has], 64)
        bits[np.flatnonzero(has), word] = np.left_shift(np.uint64(1), bit.astype(np.uint64))
    return ItemMatrix(
        categories, item_doc, np.zeros(len(item_doc), dtype=bool),
        item[order], rater[order], code[order], bits, source="documents", notes=notes,
        scheme=scheme, label_names=list(labels), item_label=item_label,
    )


# --- shared ---------------------------------------------------------------------------------


def _rated_items(corpus: Corpus, item_doc: np.ndarray, item_of: np.ndarray, span_of: np.ndarray, left: np.ndarray,
                 notes: Counter, source: str) -> ItemMatrix:
    """The items of ``item_doc`` with the spans ``left`` (incident on none) added as extra items,
    one per (document, start, end), all rated by :func:`_ratings` from the incidences."""
    n = len(item_doc)
    extra_doc, extra_of_span = _group_positions(corpus, left)
    item_doc = np.concatenate([item_doc, extra_doc])
    ratings = _ratings(corpus, item_doc, np.concatenate([item_of, n + extra_of_span]), np.concatenate([span_of, left]),
                       notes)
    return ItemMatrix([NONE, *corpus.labels], item_doc, np.arange(len(item_doc)) >= n, *ratings, source=source,
                      notes=notes)

def _ratings(
    corpus: Corpus, item_doc: np.ndarray, item_of: np.ndarray, span_of: np.ndarray, notes: Counter
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Ratings (item, rater, code, label bits) from (item, span) incidences.

    Every rater who submitted an item's document rates it: NONE unless one of the rater's spans
    is incident on the item; then the first such span's label (incidences come in span order,
    that is by position), with every incident label in the bits.
    """
    n_raters, n_labels = len(corpus.raters), len(corpus.labels)
    # the annotations of each document, sorted by document: ratings = items × raters of its doc
    order = np.argsort(item_doc, kind="stable")
    doc_first_ann = np.searchsorted(corpus.ann_doc, np.arange(corpus.n_documents + 1))
    per_item = doc_first_ann[item_doc + 1] - doc_first_ann[item_doc]
    ann = ranges(doc_first_ann[item_doc[order]], per_item[order])
    item = np.repeat(order, per_item[order])
    rater = corpus.ann_rater[ann]
    if not in_order(item, rater):  # tokens come in document order: most often they are
        sort = np.lexsort((rater, item))
        item, rater = item[sort], rater[sort]
    key = item * n_raters + rater
    code = np.zeros(len(key), dtype=np.int64)
    bits = np.zeros((len(key), max(1, (n_labels + 63) // 64)), dtype=np.uint64)
    inc_rater = corpus.ann_rater[corpus.span_ann[span_of]]
    inc_label = corpus.span_label[span_of]
    row = np.searchsorted(key, item_of * n_raters + inc_rater)
    word, bit = np.divmod(inc_label, 64)
    np.bitwise_or.at(bits, (row, word), np.left_shift(np.uint64(1), bit.astype(np.uint64)))
    first_row, first = np.unique(row, return_index=True)
    code[first_row] = inc_label[first] + 1
    several = np.bincount(row, minlength=len(key)) > 1
    if several.any():
        distinct = np.unique(np.stack([row, inc_label], axis=1), axis=0)[:, 0]
        conflicts = int((np.bincount(distinct, minlength=len(key)) > 1).sum())
        if conflicts:
            notes["items a rater marked with several labels (the first span's label is its category)"] += conflicts
    return item, rater, code, bits


def _group_positions(corpus: Corpus, spans: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Group spans by (document, start, end): the document of each distinct position, and the
    position index of every span."""
    rows = np.stack([corpus.ann_doc[corpus.span_ann[spans]], corpus.span_start[spans], corpus.span_end[spans]], axis=1)
    if not len(rows):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    keys, inverse = np.unique(rows, axis=0, return_inverse=True)
    return keys[:, 0], inverse.reshape(-1)
