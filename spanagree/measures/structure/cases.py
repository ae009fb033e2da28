"""Relation and attribute disagreements, one record each, for adjudication (docs/structure.md).

On the alignment and matching of :mod:`.relations` and :mod:`.attributes`, for each comparison
(a document two raters submitted, the pair's first rater A):

- ``relation_missed`` / ``relation_spurious``: a relation of A / of B that no relation of the
  other rater matched (the same count as the relation ``b`` / ``c``), with its head, child and
  label and whether the other rater marked both its spans (``both_spans_marked``: false means the
  disagreement is about the spans, not the relation);
- ``attribute``: a matched span pair whose two values of an attribute differ (a binary
  attribute's absence is false), with both spans and values.
"""
from __future__ import annotations

from typing import Any, Iterator

from ...core.align import AlignmentRule
from ...core.counts import make_comparisons
from ...core.model import Corpus
from .attributes import attribute_values
from .relations import RelationCounts, RelationRows
from .spans import SpanTable, align_table, span_table

#: The kinds of records, in the order they are listed within a comparison.
KINDS = ("relation_missed", "relation_spurious", "attribute")


def structure_cases(corpus: Corpus, rule: AlignmentRule) -> Iterator[dict[str, Any]]:
    """Every relation and attribute disagreement, by document, rater pair, kind and position."""
    if corpus.structure is None or not (corpus.structure.relations or corpus.structure.attributes):
        return
    table = span_table(corpus, rule)
    comparisons = make_comparisons(corpus)
    alignment = align_table(corpus, table, rule, comparisons)
    rows = RelationRows(corpus, table)
    counts = RelationCounts(corpus, rows, alignment, rule)
    found: list[tuple[tuple, dict]] = []
    comp_a, rel_a, marked_a, comp_b, rel_b, marked_b = counts.unmatched()
    for kind, comps, rels, marked in (("relation_missed", comp_a, rel_a, marked_a),
                                      ("relation_spurious", comp_b, rel_b, marked_b)):
        for u, r, both in zip(comps.tolist(), rels.tolist(), marked.tolist()):
            record = _head(corpus, comparisons, u, kind)
            record["only_in"] = record["rater_a" if kind == "relation_missed" else "rater_b"]
            text = corpus.texts[record.pop("_doc")]
            head, child = int(rows.head[r]), int(rows.child[r])
            record.update(label=rows.labels[rows.label[r]], symmetric=bool(rows.symmetric[r]),
                          head=_span(table, head, text), child=_span(table, child, text), both_spans_marked=both)
            found.append(((record["doc_id"], record["rater_a"], record["rater_b"], KINDS.index(kind),
                           int(table.start[head]), int(table.start[child])), record))
    values, _ = attribute_values(corpus, table)
    binary = corpus.structure.binary
    for name, held in sorted(values.items()):
        missing = False if name in binary else None
        for u, row_a, row_b in zip(alignment.comparison.tolist(), alignment.row_a.tolist(), alignment.row_b.tolist()):
            value_a, value_b = held.get(row_a, missing), held.get(row_b, missing)
            if value_a is None or value_b is None or value_a == value_b:
                continue
            record = _head(corpus, comparisons, u, "attribute")
            text = corpus.texts[record.pop("_doc")]
            record.update(attribute=name, a_value=value_a, b_value=value_b,
                          a_span=_span(table, row_a, text), b_span=_span(table, row_b, text))
            found.append(((record["doc_id"], record["rater_a"], record["rater_b"], KINDS.index("attribute"),
                           int(table.start[row_a]), int(table.start[row_b])), record))
    found.sort(key=lambda item: item[0])
    for _, record in found:
        yield record


def _head(corpus: Corpus, comparisons, u: int, kind: str) -> dict[str, Any]:
    doc = int(comparisons.doc[u])
    ra, rb = comparisons.pairs[comparisons.pair[u]].tolist()
    return {"kind": kind, "doc_id": corpus.doc_ids[doc], "rater_a": corpus.raters[ra], "rater_b": corpus.raters[rb],
            "_doc": doc}


def _span(table: SpanTable, row: int, text: str) -> dict[str, Any]:
    s, e = int(table.start[row]), int(table.end[row])
    return {"start": s, "end": e, "label": None if table.by_position else table.labels[table.label[row]], "text": text[s:e]}


def count_kinds(records: list[dict[str, Any]]) -> dict[str, int]:
    """How many records of each kind."""
    return {kind: sum(1 for r in records if r["kind"] == kind) for kind in KINDS}
