"""doccano JSONL exports of sequence-labelling projects, one file per member.

``{"id": 7, "text": "...", "label": [[start, end, "LABEL"], ...]}`` (the "JSONL (text label)"
export; ``labels`` is read alike), or ``{"id": 7, "text": "...", "entities": [{"id",
"start_offset", "end_offset", "label"}, ...], "relations": [...]}`` (the export of projects with
relations). Either list may hold ``[start, end, label]`` triples or ``{start_offset, end_offset,
label}`` objects.

- rater: the file's stem (doccano writes ``USERNAME.jsonl`` per member; the other fields are data
  imported with the example, so a ``user`` column is the rater only with ``rater_field=``);
- document: ``id`` (the same example has the same id in every member's file), else the text;
- an example with no span is read as not annotated, or as marked nothing (``empty=``); an empty
  file is a member with no annotation (counted, by :func:`spanagree.io.read`);
- offsets: UTF-16 code units or grapheme clusters, the export does not say which, so the unit is
  decided per file from where the spans' ends fall (:mod:`spanagree.io.offset_evidence`) unless
  ``offsets=`` names it; offsets are converted to code points once, per document;
- relations (``{"id", "from_id", "to_id", "type"}``, between the ``entities`` by their ``id``) are
  read into the corpus's structure (:func:`read_relations`, docs/structure.md).

Document-classification projects (``"label": ["positive", ...]``, a list of label names) give
the member's document labels (a choice among every label), read with the same ``empty`` rule.
The options: docs/formats.md, "Offset units" and "Missing is not empty".

Not read: the exports whose ``annotations`` hold label ids per user (``{"label": 7,
"start_offset", "end_offset", "user"}``).
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ..errors import InputError, Location, describe, option
from ..core.builder import CorpusBuilder
from . import Format
from .common import choice, json_lines, parse_labels, require
from .offset_evidence import Evidence
from .offsets import check_unit, convert_spans, risky

#: Where the spans are, in the order looked at.
SPAN_FIELDS = ("entities", "label", "labels")

#: What an empty span list means (``empty=``).
EMPTY = ("missing", "nothing")

EMPTY_NOTE = (
    "doccano example with an empty label list, read as not annotated by this member (the all-examples export "
    "lists every example for every member; empty='nothing' reads it as marked nothing)"
)


def read_doccano(
    path: Path,
    builder: CorpusBuilder,
    *,
    offsets: str | None = None,
    empty: str = "missing",
    rater_field: str | None = None,
) -> None:
    """Read one doccano JSONL export (one member's file) into ``builder``."""
    given = None if offsets is None else check_unit(offsets, "utf16")
    choice("empty", empty, EMPTY)
    stem = path.stem
    marked = classified = 0
    evidence = Evidence()
    # what to add, in file order, once the file's unit is decided: (key, doc_id, text, rater,
    # spans as the file holds them or None for a document without a rater's spans, where, field)
    pending: list[tuple] = []
    nothing: list[tuple] = []  # examples with an empty list, read as marked nothing (empty="nothing")
    for where, obj in json_lines(path, builder.tick):
        text = require(obj, "text", str, where)
        raw_id = obj.get("id")
        if raw_id is None:
            key, doc_id = ("text", text), "text:" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]
        elif type(raw_id) in (int, str) and raw_id != "":
            key = doc_id = str(raw_id)
        else:
            raise InputError(f"got {describe(raw_id)}; expected an integer or string id", where=where, field="id")
        rater = _rater(obj, rater_field, stem, where, doc_id)
        present = [k for k in SPAN_FIELDS if k in obj]
        filled = [k for k in present if obj[k]]
        if len(filled) > 1:
            raise InputError(
                f"both {' and '.join(repr(k) for k in filled)} hold annotations; a doccano export has one "
                "of them, and which one to read cannot be told",
                where=where, doc_id=doc_id, field=filled[1],
            )
        field = (filled or present or [None])[0]
        if field is None:
            raise InputError(
                "missing; expected 'label' ([[start, end, label], ...]) or 'entities' "
                "([{start_offset, end_offset, label}, ...])",
                where=where, doc_id=doc_id, field="label",
            )
        items = obj[field]
        if type(items) is list and items and all(type(x) is str for x in items):
            # a document-classification project: the member chose these among all labels
            builder.add_labels(key, doc_id, text, rater, parse_labels(items, where, doc_id, field), where)
            classified = marked = marked + 1
            continue
        raw = _spans(items, field, where, doc_id)
        relations = obj.get("relations")
        if not raw and empty == "missing":
            pending.append((key, doc_id, text, rater, None, where, field, None))
            builder.exclusions.notes[EMPTY_NOTE] += 1
            if isinstance(relations, list) and relations:
                builder.exclusions.relations["doccano relation on an example read as not annotated"] += len(relations)
            continue
        if not raw:  # marked nothing: no span, or no label, as the file turns out to hold
            nothing.append((key, doc_id, text, rater, where))
            continue
        if risky(text):
            evidence.weigh(text, raw)
        if relations and field != "entities":  # [start, end, label] triples have no ids to point at
            builder.exclusions.relations["doccano relation beside spans without entity ids"] += (
                len(relations) if type(relations) is list else 1
            )
            relations = None
        pending.append((key, doc_id, text, rater, raw, where, field, (obj, items) if relations else None))
        marked += len(raw)
    _add_in_unit(builder, pending, evidence, given, path)
    for key, doc_id, text, rater, where in nothing:
        if classified:
            builder.add_labels(key, doc_id, text, rater, [], where)
        else:
            builder.add(key, doc_id, text, rater, [], where)
    if not marked and rater_field is None:
        builder.exclusions.notes[f"doccano member {stem!r} has no span in any example ({path.name})"] += 1


def _add_in_unit(builder: CorpusBuilder, pending: list[tuple], evidence: Evidence, given: str | None, path: Path) -> None:
    """Decide the file's unit from its evidence (or take the one given), say it, and add the
    file's spans converted to code points, in file order, with their relations."""
    unit, note = evidence.decide(given, ("utf16", "grapheme"), "doccano", Location(str(path)))
    if note is not None:
        builder.exclusions.notes[note] += evidence.telling
    for key, doc_id, text, rater, raw, where, field, related in pending:
        if raw is None:
            builder.document(key, doc_id, text, where, rater)
            continue
        spans = convert_spans(raw, text, unit, where, doc_id, field)
        builder.add(key, doc_id, text, rater, spans, where)
        if related is not None:  # the relations, their ends found among the converted spans
            read_relations(*related, spans, builder, key, rater, where, doc_id)


def read_relations(
    obj: dict, entities: list, spans: list, builder: CorpusBuilder, key, rater: str, where: Location, doc_id: str
) -> None:
    """The example's ``relations`` into the builder's structure, their ends found by entity id
    (``entities[i]["id"]`` is the span ``spans[i]``)."""
    relations = obj["relations"]
    if type(relations) is not list:
        raise InputError(f"got {describe(relations)}; expected a list of relations", where=where, doc_id=doc_id,
                         field="relations")
    by_id = {}
    for entity, span in zip(entities, spans):
        if type(entity) is dict and "id" in entity:
            by_id[entity["id"]] = span
    pending = builder.structure(key, rater)
    for i, relation in enumerate(relations):
        at = f"relations[{i}]"
        if type(relation) is not dict:
            raise InputError(f"got {describe(relation)}; expected {{id, from_id, to_id, type}}", where=where,
                             doc_id=doc_id, field=at)
        ends = []
        for name in ("from_id", "to_id"):
            ref = relation.get(name)
            if ref not in by_id or isinstance(ref, bool):
                raise InputError(
                    f"{'missing' if name not in relation else 'got ' + describe(ref)}; expected the id of one of "
                    f"this example's entities ({', '.join(map(str, list(by_id)[:5])) or 'none has an id'})",
                    where=where, doc_id=doc_id, field=f"{at}.{name}",
                )
            ends.append(by_id[ref])
        label = relation.get("type")
        if type(label) is not str or not label.strip():
            raise InputError(
                f"{'missing' if 'type' not in relation else 'got ' + describe(label)}; expected the relation type",
                where=where, doc_id=doc_id, field=f"{at}.type",
            )
        pending.relations.append((ends[0], ends[1], label, False, "relation", where, at))


def _rater(obj: dict, rater_field: str | None, stem: str, where: Location, doc_id: str) -> str:
    if rater_field is None:
        return stem
    value = obj.get(rater_field)
    if type(value) in (int, str) and value != "":
        return str(value)
    raise InputError(
        f"{'missing' if rater_field not in obj else 'got ' + describe(value)}; expected a user name or id "
        f"({option('rater_field', rater_field)}; leave it out to name the rater after the file)",
        where=where, doc_id=doc_id, field=rater_field,
    )


def _spans(raw: Any, field: str, where: Location, doc_id: str) -> list[tuple[int, int, str]]:
    """Validate a list of ``[start, end, label]`` triples or ``{start_offset, end_offset, label}``."""
    if type(raw) is not list:
        raise InputError(
            f"got {describe(raw)}; expected a list of [start, end, label] or {{start_offset, end_offset, label}}",
            where=where, doc_id=doc_id, field=field,
        )
    spans = []
    for i, item in enumerate(raw):
        at = f"{field}[{i}]"
        if type(item) is dict:
            for name in ("start_offset", "end_offset"):
                if type(item.get(name)) is not int:
                    raise InputError(
                        f"{'missing' if name not in item else 'got ' + describe(item.get(name))}; expected an "
                        "integer character offset",
                        where=where, doc_id=doc_id, field=f"{at}.{name}",
                    )
            start, end, label = item["start_offset"], item["end_offset"], item.get("label")
            if type(label) is not str or not label.strip():
                raise InputError(
                    f"{'missing' if 'label' not in item else 'got ' + describe(label)}; expected a non-empty "
                    "label name",
                    where=where, doc_id=doc_id, field=f"{at}.label",
                )
        elif (type(item) is list and len(item) == 3 and type(item[0]) is int and type(item[1]) is int
              and type(item[2]) is str and item[2].strip()):
            start, end, label = item
        else:
            raise InputError(
                f"got {describe(item)}; expected [start, end, label] with integer offsets and a label name, "
                "or {start_offset, end_offset, label} (document-classification labels are not spans)",
                where=where, doc_id=doc_id, field=at,
            )
        spans.append((start, end, label))
    return spans


def looks_like(path: Path, first: dict | None) -> bool:
    """The first record has ``text`` and a list (``label``, ``labels`` or ``entities``) whose
    first item is a ``[start, end, label]`` triple, has ``start_offset``, or is a label name."""
    if first is None or "text" not in first or "doc_id" in first:  # doc_id: spanagree JSONL
        return False
    for field in SPAN_FIELDS:
        items = first.get(field)
        if type(items) is list:
            head = items[0] if items else None
            return (head is None or type(head) is list and len(head) == 3 or type(head) is str
                    or type(head) is dict and "start_offset" in head)
    return False


FORMAT = Format(
    name="doccano",
    read=read_doccano,
    sniff=looks_like,
    order=180,
    description="doccano JSONL: sequence-labelling exports, one file per member",
    empty_ok=True,
)
