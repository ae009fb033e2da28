"""Relation agreement on the span alignment (docs/structure.md).

For two raters on one document, a relation ``(h, c, ℓ)`` of rater A matches a relation
``(h', c', ℓ')`` of rater B when the span aligner (under the rule of the span scores) matched
``h`` to ``h'`` and ``c`` to ``c'`` (for a symmetric relation: ``{h, c}`` to ``{h', c'}`` in
either direction) and, under ``labels="strict"``, ``ℓ = ℓ'``; under ``labels="ignore"`` a
symmetric relation matches only a symmetric one (a directed one has a direction to agree on). Relations are matched one to one:
with ``n_A`` and ``n_B`` relations of the same key (mapped endpoints and label),
``a = min(n_A, n_B)`` of them match. Then, per comparison,

    a = matched relations,  b = A's relations − a,  c = B's relations − a,
    PSA = 2a / (2a + b + c)

and every figure — per rater pair, per relation label (one label at a time), per document,
pooled (a, b, c summed over pairs) and the pairwise mean (mean over pairs of each pair's PSA,
undefined pairs left out) — is a sum of these rows, exactly as for spans
(:func:`spanagree.measures.summary.point`), with the same bootstrap over documents
(:func:`spanagree.measures.intervals.bootstrap`). A relation counts 1 whatever the credit of
its spans' match (under the partial or proportional rules the spans only have to be matched).

Beside it, **both spans marked**: the same counts on the relations whose two spans the other
rater also marked (both endpoints matched), so that a relation disagreement can be told from a
span disagreement: ``b`` and ``c`` count only such relations; ``a`` is the same.

INCEpTION's relation agreement compares relations on exact positions of both endpoints
(docs/structure.md): ``rule="exact"``, ``labels="strict"`` here.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from ...core.align import AlignmentRule
from ...core.arrays import ranges
from ...core.counts import Counts
from ...core.model import Corpus
from ..psa.specific import psa, reported
from ..psa.summary import bin_rows, point
from .spans import Alignment, SpanTable


class RelationRows:
    """The corpus's relations column-wise, sorted by annotation: ``ptr`` (n_annotations + 1),
    ``head``, ``child`` (rows of the span table), ``label`` (codes into ``labels``), ``symmetric``."""

    def __init__(self, corpus: Corpus, table: SpanTable) -> None:
        relations = corpus.structure.relations if corpus.structure is not None else []
        self.labels = sorted({r.label for r in relations})
        code = {name: i for i, name in enumerate(self.labels)}
        relations = sorted(relations, key=lambda r: r.ann)
        anns = [r.ann for r in relations]
        self.head = table.index(anns, [r.head for r in relations])
        self.child = table.index(anns, [r.child for r in relations])
        if (self.head < 0).any() or (self.child < 0).any():  # resolve() checked every endpoint
            raise AssertionError("a relation endpoint is not in the span table")
        self.label = np.fromiter((code[r.label] for r in relations), np.int64, len(relations))
        self.symmetric = np.fromiter((r.symmetric for r in relations), bool, len(relations))
        ann = np.asarray(anns, dtype=np.int64)
        self.ptr = np.concatenate([[0], np.cumsum(np.bincount(ann, minlength=corpus.n_annotations))]).astype(np.int64)
        self.ann = ann

    def __len__(self) -> int:
        return len(self.label)


def _keys(comparison, head, child, label, symmetric) -> np.ndarray:
    """(n, 4) keys (comparison, first, second, label); a symmetric relation's endpoints in order."""
    first = np.where(symmetric, np.minimum(head, child), head)
    second = np.where(symmetric, np.maximum(head, child), child)
    return np.stack([comparison, first, second, label], axis=1)


def _matched(keys_a: np.ndarray, keys_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Matched relations per distinct key present on both sides: ``(keys, min(n_A, n_B))``."""
    if not len(keys_a) or not len(keys_b):
        return np.zeros((0, keys_a.shape[1]), np.int64), np.zeros(0, np.int64)
    keys, inverse = np.unique(np.concatenate([keys_a, keys_b]), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    n_a = np.bincount(inverse[: len(keys_a)], minlength=len(keys))
    n_b = np.bincount(inverse[len(keys_a):], minlength=len(keys))
    both = np.minimum(n_a, n_b)
    keep = both > 0
    return keys[keep], both[keep]


class RelationCounts:
    """a, b, c of relations per comparison (``abc``, and ``both`` on the relations whose two spans
    both raters marked), and per (comparison, label) cell (strict labels), as
    :class:`~spanagree.core.counts.Counts` (``counts``) so that the span summaries and intervals apply."""

    def __init__(self, corpus: Corpus, rows: RelationRows, alignment: Alignment, rule: AlignmentRule) -> None:
        comparisons = alignment.comparisons
        n_comparisons = len(comparisons)
        n_a = rows.ptr[comparisons.ann_a + 1] - rows.ptr[comparisons.ann_a]
        n_b = rows.ptr[comparisons.ann_b + 1] - rows.ptr[comparisons.ann_b]
        rel_a = ranges(rows.ptr[comparisons.ann_a], n_a)
        rel_b = ranges(rows.ptr[comparisons.ann_b], n_b)
        comp_a = np.repeat(np.arange(n_comparisons, dtype=np.int64), n_a)
        comp_b = np.repeat(np.arange(n_comparisons, dtype=np.int64), n_b)
        # A's endpoints mapped to B's rows through the span alignment (-1: not matched)
        head_a = alignment.partner_of_a(comp_a, rows.head[rel_a])
        child_a = alignment.partner_of_a(comp_a, rows.child[rel_a])
        head_b, child_b = rows.head[rel_b], rows.child[rel_b]
        keys_a = _keys(comp_a, head_a, child_a, rows.label[rel_a], rows.symmetric[rel_a])
        keys_b = _keys(comp_b, head_b, child_b, rows.label[rel_b], rows.symmetric[rel_b])
        mappable = (head_a >= 0) & (child_a >= 0)  # only these can match
        keys_a = keys_a[mappable]
        strict_keys, strict_a = _matched(keys_a, keys_b)
        if rule.by_label:
            overall_a, overall_b = keys_a, keys_b
            a = np.bincount(strict_keys[:, 0], weights=strict_a, minlength=n_comparisons)
        else:
            # labels ignored: a symmetric relation matches symmetric ones only (its key is unordered)
            overall_a = np.concatenate([keys_a[:, :3], rows.symmetric[rel_a][mappable, None]], axis=1).astype(np.int64)
            overall_b = np.concatenate([keys_b[:, :3], rows.symmetric[rel_b][:, None]], axis=1).astype(np.int64)
            blind_keys, blind_a = _matched(overall_a, overall_b)
            a = np.bincount(blind_keys[:, 0], weights=blind_a, minlength=n_comparisons)
        # which relations the one-to-one matching leaves unmatched (for the disagreement list)
        self.sides = (comp_a, rel_a, mappable, overall_a, comp_b, rel_b, overall_b)
        total_a = n_a.astype(np.float64)
        total_b = n_b.astype(np.float64)
        self.abc = np.stack([a, total_a - a, total_b - a], axis=1)
        # both spans marked: B's endpoints matched back to A's spans
        marked_b = (alignment.partner_of_b(comp_b, head_b) >= 0) & (alignment.partner_of_b(comp_b, child_b) >= 0)
        self.marked_b = marked_b
        both_a = np.bincount(comp_a[mappable], minlength=n_comparisons)
        both_b = np.bincount(comp_b[marked_b], minlength=n_comparisons)
        self.both = np.stack([a, both_a - a, both_b - a], axis=1)
        # per (comparison, label) cells, strict labels, only where a relation is
        n_labels = max(len(rows.labels), 1)
        cell_a = comp_a * n_labels + rows.label[rel_a]
        cell_b = comp_b * n_labels + rows.label[rel_b]
        cells, where = np.unique(np.concatenate([cell_a, cell_b]), return_inverse=True)
        where = where.reshape(-1)
        count_a = np.bincount(where[: len(cell_a)], minlength=len(cells)).astype(np.float64)
        count_b = np.bincount(where[len(cell_a):], minlength=len(cells)).astype(np.float64)
        matched_cell = np.searchsorted(cells, strict_keys[:, 0] * n_labels + strict_keys[:, 3])
        cell_matched = np.bincount(matched_cell, weights=strict_a, minlength=len(cells))
        label_abc = np.stack([cell_matched, count_a - cell_matched, count_b - cell_matched], axis=1)
        self.labels = rows.labels
        self.counts = Counts(
            comparisons, rule, "char", self.abc, cells // n_labels, cells % n_labels, label_abc,
            np.zeros((n_comparisons, 5)),
        )
        self.n_relations = len(rows)
        in_comparison = np.zeros(corpus.n_annotations, dtype=bool)
        in_comparison[comparisons.ann_a] = True
        in_comparison[comparisons.ann_b] = True
        self.n_compared = int(in_comparison[rows.ann].sum())


    def unmatched(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The relations no relation of the other rater matched: ``(comparison, relation,
        both spans marked)`` for side A, then for side B (relations index :class:`RelationRows`).
        Of ``n`` relations of one key matched by ``m``, the last ``n − m`` in corpus order."""
        comp_a, rel_a, mappable, keys_a, comp_b, rel_b, keys_b = self.sides
        matched_a = np.zeros(len(rel_a), dtype=bool)
        flags_a, matched_b = _match_flags(keys_a, keys_b)
        matched_a[mappable] = flags_a
        out_a, out_b = ~matched_a, ~matched_b
        return comp_a[out_a], rel_a[out_a], mappable[out_a], comp_b[out_b], rel_b[out_b], self.marked_b[out_b]


def _match_flags(keys_a: np.ndarray, keys_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of each side, whether it is among the ``min(n_A, n_B)`` matched rows of its key
    (the first ones in input order)."""
    if not len(keys_a) or not len(keys_b):
        return np.zeros(len(keys_a), dtype=bool), np.zeros(len(keys_b), dtype=bool)
    _, inverse = np.unique(np.concatenate([keys_a, keys_b]), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    group_a, group_b = inverse[: len(keys_a)], inverse[len(keys_a):]
    n_groups = int(inverse.max()) + 1
    both = np.minimum(np.bincount(group_a, minlength=n_groups), np.bincount(group_b, minlength=n_groups))
    return _rank_in_group(group_a) < both[group_a], _rank_in_group(group_b) < both[group_b]


def _rank_in_group(group: np.ndarray) -> np.ndarray:
    """Each row's position among the rows of its group, in input order."""
    order = np.argsort(group, kind="stable")
    ordered = group[order]
    first = np.searchsorted(ordered, ordered, side="left")
    rank = np.empty(len(group), dtype=np.int64)
    rank[order] = np.arange(len(group)) - first
    return rank


def relation_section(corpus: Corpus, counts: RelationCounts, interval_options=None) -> dict[str, Any]:
    """The relations part of the report (docs/structure.md)."""
    comparisons = counts.counts.comparisons
    raters, n_pairs = corpus.raters, len(comparisons.pairs)
    layout, summary = point(counts.counts, len(counts.labels), len(raters))
    pair_abc = summary.pair_abc[0]
    pair_psa = summary.pair_psa[0]
    pair_docs = np.bincount(comparisons.pair, minlength=n_pairs)
    both_pair = bin_rows(comparisons.pair, counts.both, n_pairs)
    both_layout, both_summary = point(_with_abc(counts.counts, counts.both), len(counts.labels), len(raters))
    interval = _intervals(corpus, counts, interval_options)
    cell_psa = summary.cell_psa[0]
    pair_labels: list[dict] = [{} for _ in range(n_pairs)]
    for cell, (p, lab) in enumerate(zip(layout.cell_pair.tolist(), layout.cell_label.tolist())):
        a, b, c = summary.cell_abc[0, cell].tolist()
        pair_labels[p][counts.labels[lab]] = {"a": a, "b": b, "c": c, "psa": reported(cell_psa[cell])}
    pairs = []
    for p in range(n_pairs):
        a, b, c = pair_abc[p].tolist()
        entry = {
            "raters": [raters[r] for r in comparisons.pairs[p].tolist()], "documents": int(pair_docs[p]),
            "a": a, "b": b, "c": c, "psa": reported(pair_psa[p]),
        }
        if interval is not None and ("pairs", p, "psa") in interval:
            entry["psa_interval"] = interval["pairs", p, "psa"]
        ba, bb, bc = both_pair[p].tolist()
        entry["both_spans_marked"] = {"a": ba, "b": bb, "c": bc, "psa": psa(ba, bb, bc)}
        entry["labels"] = dict(sorted(pair_labels[p].items()))
        pairs.append(entry)
    a, b, c = summary.total[0].tolist()
    overall = {
        "pairwise_mean_psa": reported(summary.pairwise_mean[0]), "pooled_psa": reported(summary.pooled[0]),
        "a": a, "b": b, "c": c, "pairs": n_pairs, "pairs_undefined": int(np.isnan(pair_psa).sum()),
    }
    ba, bb, bc = both_summary.total[0].tolist()
    both = {
        "pairwise_mean_psa": reported(both_summary.pairwise_mean[0]), "pooled_psa": reported(both_summary.pooled[0]),
        "a": ba, "b": bb, "c": bc, "pairs_undefined": int(np.isnan(both_summary.pair_psa[0]).sum()),
    }
    labels = {}
    for k, name in enumerate(counts.labels):
        la, lb, lc = summary.label_total[0, k].tolist()
        labels[name] = {
            "pairwise_mean_psa": reported(summary.label_mean[0, k]), "pooled_psa": reported(summary.label_pooled[0, k]),
            "a": la, "b": lb, "c": lc,
        }
    if interval is not None:
        for key in ("pairwise_mean_psa", "pooled_psa"):
            overall[f"{key}_interval"] = interval.get(("overall", key))
            for name in counts.labels:
                labels[name][f"{key}_interval"] = interval.get(("labels", name, key))
    doc_abc = bin_rows(comparisons.doc, counts.abc, corpus.n_documents)
    doc_both = bin_rows(comparisons.doc, counts.both, corpus.n_documents)
    per_document = []
    for d in np.unique(comparisons.doc).tolist():
        da, db, dc = doc_abc[d].tolist()
        sa, sb, sc = doc_both[d].tolist()
        per_document.append({
            "doc_id": corpus.doc_ids[d], "a": da, "b": db, "c": dc, "pooled_psa": psa(da, db, dc),
            "both_spans_marked": {"a": sa, "b": sb, "c": sc, "pooled_psa": psa(sa, sb, sc)},
        })
    return {
        "relations": {
            "read": counts.n_relations + int(sum(corpus.exclusions.relations.values())),
            "compared": counts.n_compared,
            "excluded": {
                **dict(corpus.exclusions.relations),
                **({"on a document only one rater submitted": counts.n_relations - counts.n_compared}
                   if counts.n_relations > counts.n_compared else {}),
            },
        },
        "overall": overall,
        "both_spans_marked": both,
        "labels": labels,
        "pairs": pairs,
        "per_document": per_document,
    }


def _with_abc(counts: Counts, abc: np.ndarray) -> Counts:
    """The same comparisons with other per-comparison totals (no label cells)."""
    empty = np.zeros(0, np.int64)
    return Counts(counts.comparisons, counts.rule, counts.unit_name, abc, empty, empty, np.zeros((0, 3)), counts.outcomes)


def _intervals(corpus: Corpus, counts: RelationCounts, options) -> dict | None:
    """The span scores' bootstrap over documents, on the relation counts."""
    if options is None or not len(counts.counts.comparisons):
        return None
    from ..psa.intervals import bootstrap

    view = SimpleNamespace(
        corpus=SimpleNamespace(labels=counts.labels, raters=corpus.raters, n_documents=corpus.n_documents),
        counts=counts.counts, per_rater=False, items=None, interval_pairs=None,
    )
    return bootstrap(view, options)
