"""Relation and attribute agreement as one report section (docs/structure.md)."""
from __future__ import annotations

from typing import Any, Mapping

from ...core.align import AlignmentRule
from ...core.counts import make_comparisons
from ...core.model import Corpus
from .attributes import attribute_section
from .relations import RelationCounts, RelationRows, relation_section
from .spans import align_table, span_table

#: What the section says when the input has no relations or attributes to read.
NONE_READ = "the input has no relations, events or span attributes"


def structure_section(
    corpus: Corpus, rule: AlignmentRule, *, interval_options=None, attribute_scales: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``{"rule", "relations": {...}, "attributes": {...}, "lost"?, "note"?}``: relation agreement
    (:mod:`.relations`) and attribute agreement (:mod:`.attributes`) on one alignment of the
    spans, under the rule of the span scores. When the input format could not carry relations
    or region attributes (``lost``), the section says so, rather than that there are none."""
    structure = corpus.structure
    out: dict[str, Any] = {"rule": rule.to_dict(), "unit": "char"}
    if structure is not None and structure.lost:
        out["lost"] = list(structure.lost)
    if structure is None or (not structure.relations and not structure.attributes):
        if "lost" not in out:
            out["note"] = NONE_READ
        out["relations"] = None
        out["attributes"] = None
        if corpus.exclusions.relations or corpus.exclusions.attributes:
            out["excluded"] = {"relations": dict(corpus.exclusions.relations), "attributes": dict(corpus.exclusions.attributes)}
        return out
    table = span_table(corpus, rule)
    alignment = align_table(corpus, table, rule, make_comparisons(corpus))
    rows = RelationRows(corpus, table)
    counts = RelationCounts(corpus, rows, alignment, rule)
    out["relations"] = relation_section(corpus, counts, interval_options)
    out["attributes"] = attribute_section(corpus, table, alignment, attribute_scales)
    return out
