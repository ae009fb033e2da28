"""What a corpus carries beyond spans: span ids and attributes, relations and events (docs/formats.md).

A :class:`Structure` is held by a :class:`~spanagree.core.model.Corpus` only when the input has
any of these (``corpus.structure is None`` otherwise, and the span-only path never builds one).
It refers to spans by value, ``(start, end, label)`` within one annotation (one document as
submitted by one rater), so it needs nothing from the span arrays and survives their sorting and
de-duplication.

- **attributes**: ``(annotation, span, name, value)`` rows. A value is a string, number or
  ``True``; an attribute whose every value in the corpus is ``True`` is *binary* (a brat flag):
  a span without it has it ``False``. A normalization (brat ``N``, an entity's database id) is one
  attribute whose value is the reference.
- **relations**: ``(annotation, head, child, label, symmetric, kind)``; ``kind`` is
  ``"relation"``, ``"event"`` (an event read as relations from its trigger: head the trigger,
  child the argument, label the role) or ``"equivalence"`` (brat ``*`` sets: a symmetric relation
  between consecutive members). A symmetric relation matches in either direction.
- **extra_spans**: spans relations use that are not scored as spans (brat event triggers), per
  annotation, so relation agreement can align them.
- **lost**: when the input format cannot carry relations or region attributes (Label Studio's
  JSON-MIN export), why; a report then says so instead of "no relations".
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Union

from ..errors import InputError, Location, describe
from .raw_spans import SpanTuple

#: A relation endpoint as a reader hands it over: the span itself, or its id in the annotation.
Endpoint = Union[SpanTuple, str]

#: The ``kind`` of a relation row.
KINDS = ("relation", "event", "equivalence")


class Relation(NamedTuple):
    ann: int
    head: SpanTuple
    child: SpanTuple
    label: str
    symmetric: bool
    kind: str


class Attribute(NamedTuple):
    ann: int
    span: SpanTuple
    name: str
    value: Any


@dataclass
class Structure:
    """Relations, events and span attributes of a corpus, by annotation index (see the module)."""

    relations: list[Relation] = field(default_factory=list)
    attributes: list[Attribute] = field(default_factory=list)
    extra_spans: dict[int, list[SpanTuple]] = field(default_factory=dict)
    lost: list[str] = field(default_factory=list)

    @property
    def binary(self) -> frozenset[str]:
        """Attributes every value of which is ``True`` (flags: absent means false)."""
        values: dict[str, set] = {}
        for row in self.attributes:
            values.setdefault(row.name, set()).add(row.value is True)
        return frozenset(name for name, seen in values.items() if seen == {True})


@dataclass
class PendingStructure:
    """One annotation's structure as readers hand it over (ids not yet resolved)."""

    ids: dict[str, tuple[SpanTuple, Location]] = field(default_factory=dict)
    extra_spans: list[SpanTuple] = field(default_factory=list)
    relations: list[tuple[Endpoint, Endpoint, str, bool, str, Location, str]] = field(default_factory=list)
    attributes: list[tuple[Endpoint, str, Any, Location, str]] = field(default_factory=list)
    #: relations/attributes already excluded by the reader (their span was left out), by reason
    excluded_relations: Counter = field(default_factory=Counter)
    excluded_attributes: Counter = field(default_factory=Counter)
    #: where a reader met references it could not resolve (for its note): (location, id, field)
    undefined_at: list = field(default_factory=list)


def check_attribute_value(value: Any, where: Location, doc_id: str, where_field: str) -> Any:
    """An attribute value must be a string, a finite number or ``True`` (a flag)."""
    if value is True or (type(value) is str and value) or (type(value) in (int, float) and value == value
                                                           and abs(value) != float("inf")):
        return value
    raise InputError(
        f"got {describe(value)}; expected an attribute value: a non-empty string, a finite number or true",
        where=where, doc_id=doc_id, field=where_field,
    )


def resolve(
    pending: dict[int, PendingStructure],
    spans_of: dict[int, set[SpanTuple]],
    doc_id_of: dict[int, str],
    relations_excluded: Counter,
    attributes_excluded: Counter,
) -> Structure:
    """Resolve ids and check every endpoint against its annotation's spans.

    ``pending`` and ``spans_of`` are keyed by the final annotation index; ``spans_of`` holds each
    annotation's scored spans. An id that the annotation does not define is an error naming the
    line and field; an endpoint span that is not among the annotation's spans (a reader left it
    out) excludes the relation or attribute, counted by reason.
    """
    structure = Structure()
    for ann in sorted(pending):
        item = pending[ann]
        known = spans_of.get(ann, set()) | set(item.extra_spans)
        relations_excluded.update(item.excluded_relations)
        attributes_excluded.update(item.excluded_attributes)
        if item.extra_spans:
            structure.extra_spans[ann] = sorted(set(item.extra_spans))

        def endpoint(ref: Endpoint, where: Location, where_field: str) -> SpanTuple:
            if isinstance(ref, str):
                found = item.ids.get(ref)
                if found is None:
                    raise InputError(
                        f"span id {ref!r} is not the id of a span of this annotation"
                        f"{' (ids: ' + ', '.join(sorted(item.ids)[:5]) + ')' if item.ids else ' (no span has an id)'}; "
                        "expected the id of one of the rater's spans of this document",
                        where=where, doc_id=doc_id_of[ann], field=where_field,
                    )
                return found[0]
            return ref

        for head, child, label, symmetric, kind, where, where_field in item.relations:
            head_span = endpoint(head, where, where_field + ".head")
            child_span = endpoint(child, where, where_field + ".child")
            if head_span not in known or child_span not in known:
                relations_excluded["endpoint span not scored (excluded when read)"] += 1
                continue
            structure.relations.append(Relation(ann, head_span, child_span, label, symmetric, kind))
        given: dict[tuple[SpanTuple, str], Any] = {}
        for target, name, value, where, where_field in item.attributes:
            span = endpoint(target, where, where_field + ".span")
            if span not in known:
                attributes_excluded["span not scored (excluded when read)"] += 1
                continue
            if (span, name) in given:
                attributes_excluded[
                    "same attribute given twice for one span (first kept)" if given[span, name] != value
                    else "same attribute and value given twice for one span (kept once)"
                ] += 1
                continue
            given[span, name] = value
            structure.attributes.append(Attribute(ann, span, name, value))
    return structure

