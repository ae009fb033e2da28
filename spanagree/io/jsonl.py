"""The spanagree JSONL format: one line per (document, rater).

``{"doc_id": str, "text": str, "annotator": str, "spans": [{"start": int, "end": int, "label": str}]}``

``annotator`` may be left out when each file holds one rater: the rater is then the file's stem.
Optional ``"tokens": [{"start": int, "end": int}, ...]`` enables the token unit. Optional
``"labels": [str, ...]`` gives the rater's document labels (text classification; the rater chose
among all labels); a line with ``labels`` and no ``spans`` carries document labels only.

Relations and attributes (docs/formats.md, "Relations, events and attributes"): a span may carry
``"id"`` (a string or integer, unique in its line) and ``"attributes": {name: value}`` (a
non-empty string, a finite number, or true for a flag); a line may carry
``"relations": [{"head": ID, "child": ID, "label": str, "symmetric": bool, "kind": str}]``
(``symmetric`` false and ``kind`` "relation" unless given),
``"events": [{"trigger": ID, "arguments": [{"role": str, "span": ID}]}]`` (read as relations
from the trigger, labelled by role) and ``"triggers": [span, ...]``, spans that relations use but
that are not scored as spans (brat event triggers), each with its ``id``.
"""
from __future__ import annotations

from itertools import chain
from pathlib import Path

import orjson

from ..errors import InputError, Location
from ..core.builder import CorpusBuilder
from . import Format
from .common import Blocks, FileBlocks, LineSource, doc_id_of, parse_labels, parse_tokens, require, span_objects
from .typed_lines import add_common_lines
from ..core.raw_spans import parse_spans
from ..core.structure import KINDS
from ..errors import describe
from ..core.files import atomic_write



def read_spanagree(
    path: Path, builder: CorpusBuilder, lines: LineSource | None = None, blocks: Blocks | None = None
) -> None:
    """Read one spanagree JSONL file into ``builder``. ``lines``: where its ``(location, object)``
    lines come from instead of the whole file; ``blocks``: where its blocks of whole lines come
    from (:class:`~spanagree.io.common.FileBlocks`; the engines pass byte ranges of it)."""
    try:
        if lines is not None:
            _read_lines(path.stem, builder, lines)
        else:
            _read_blocks(path, builder, FileBlocks(path, builder.tick) if blocks is None else blocks)
    except InputError:
        builder.check_spans()  # a bad span of an earlier line is the first error
        raise
    builder.check_spans()


def _read_blocks(path: Path, builder: CorpusBuilder, blocks: Blocks) -> None:
    """A block of lines at a time: the block's leading common lines decoded at once
    (:mod:`spanagree.io.typed_lines`), the rest line by line."""
    name, stem = str(path), path.stem
    seen_data = False
    for number, newlines, data in blocks:
        offset, records = add_common_lines(builder, stem, name, number, newlines, data)
        if records:
            seen_data = True
            blocks.taken(number, data, newlines, records)
        if offset < len(data):
            rest = blocks.rest(number + len(records), data, offset)
            for item in rest:
                seen_data = True
                _read_lines(stem, builder, chain([item], rest))
    if not seen_data and blocks.whole_file:
        raise InputError("the file is empty; expected one JSON object per line", where=Location(name))


def _read_lines(stem: str, builder: CorpusBuilder, lines: LineSource) -> None:
    add_unchecked = builder.add_unchecked
    last_tokens: tuple = (None, 0, b"", None)  # document, text length, token list as JSON, offsets
    for where, obj in lines:
        get = obj.get
        doc_id, text, rater, raw_spans = get("doc_id"), get("text"), get("annotator", stem), get("spans")
        if (
            type(raw_spans) is list and type(doc_id) is str and type(text) is str and type(rater) is str
            and doc_id and rater and len(obj) <= 3 + ("annotator" in obj)
        ):  # the common line: document, text, spans and perhaps the rater; nothing else
            add_unchecked(doc_id, doc_id, text, rater, raw_spans, where)
            continue
        if not (type(doc_id) is str and doc_id and type(text) is str and type(rater) is str and rater):
            # slow path: the precise error for whichever field is wrong
            doc_id = doc_id_of(obj, "doc_id", where)
            text = require(obj, "text", str, where, doc_id)
            rater = require(obj, "annotator", str, where, doc_id) if "annotator" in obj else stem
            if not rater:
                raise InputError("empty; expected a rater name", where=where, doc_id=doc_id, field="annotator")
        labels = get("labels")
        if labels is not None:
            builder.add_labels(doc_id, doc_id, text, rater, parse_labels(labels, where, doc_id), where)
            if raw_spans is None:
                continue  # a document-label line: no span annotation
        elif raw_spans is None:
            require(obj, "spans", list, where, doc_id)
        if type(raw_spans) is not list:
            parse_spans(raw_spans, len(text), where, doc_id)  # says what the spans are instead
        tokens = get("tokens")
        if tokens is not None:
            # each rater's line of a document repeats its tokens: the same JSON as the line
            # before is the same offsets (JSON, not ==, tells 1 from 1.0 and true)
            written = _as_json(tokens) if last_tokens[0] == doc_id and last_tokens[1] == len(text) else b""
            if written and written == last_tokens[2]:
                tokens = last_tokens[3]
            else:
                try:
                    offsets = parse_tokens(tokens, len(text), where, doc_id)
                except InputError:
                    parse_spans(raw_spans, len(text), where, doc_id)  # the line's spans are named first
                    raise
                last_tokens = (doc_id, len(text), written or _as_json(tokens), offsets)
                tokens = offsets
        add_unchecked(doc_id, doc_id, text, rater, raw_spans, where, tokens)
        if any(field in obj for field in STRUCTURE_FIELDS):
            _read_structure(obj, builder, doc_id, text, rater, where)


#: Line fields that hold relations (read by :func:`_read_structure`).
STRUCTURE_FIELDS = ("relations", "events", "triggers")


def _read_structure(obj: dict, builder: CorpusBuilder, doc_id: str, text: str, rater: str, where) -> None:
    """A line's ``triggers``, ``relations`` and ``events`` into the builder (ids resolved when the
    corpus is built, against the ids of the line's spans and triggers)."""
    pending = builder.structure(doc_id, rater)

    def listed(name: str) -> list:
        value = obj.get(name, [])
        if type(value) is not list:
            raise InputError(f"got {describe(value)}; expected a list", where=where, doc_id=doc_id, field=name)
        return value

    def ref(value, place: str) -> str:
        if type(value) is int and not isinstance(value, bool):
            return str(value)
        if type(value) is not str or not value:
            raise InputError(
                f"got {describe(value)}; expected the id of a span of this line", where=where, doc_id=doc_id, field=place
            )
        return value

    def text_field(item: dict, name: str, place: str) -> str:
        value = item.get(name)
        if type(value) is not str or not value.strip():
            problem = "missing" if name not in item else f"got {describe(value)}"
            raise InputError(f"{problem}; expected a non-empty string", where=where, doc_id=doc_id, field=f"{place}.{name}")
        return value

    triggers = listed("triggers")
    for i, (span, raw) in enumerate(zip(parse_spans(triggers, len(text), where, doc_id, "triggers"), triggers)):
        if "id" not in raw:
            raise InputError("missing; expected the trigger's id", where=where, doc_id=doc_id, field=f"triggers[{i}].id")
        pending.extra_spans.append(span)
        seen = pending.ids.setdefault(ref(raw["id"], f"triggers[{i}].id"), (span, where))
        if seen[0] != span:
            raise InputError(
                f"id {raw['id']!r} is also the id of span {list(seen[0])}; expected ids unique within the line",
                where=where, doc_id=doc_id, field=f"triggers[{i}].id",
            )
    for i, item in enumerate(listed("relations")):
        place = f"relations[{i}]"
        if type(item) is not dict:
            raise InputError(f"got {describe(item)}; expected a relation object", where=where, doc_id=doc_id, field=place)
        symmetric, kind = item.get("symmetric", False), item.get("kind", "relation")
        if type(symmetric) is not bool:
            raise InputError(f"got {describe(symmetric)}; expected true or false", where=where, doc_id=doc_id, field=f"{place}.symmetric")
        if kind not in KINDS:
            raise InputError(
                f"got {describe(kind)}; expected one of {', '.join(KINDS)}", where=where, doc_id=doc_id, field=f"{place}.kind"
            )
        for end in ("head", "child"):
            if end not in item:
                raise InputError("missing; expected a span id", where=where, doc_id=doc_id, field=f"{place}.{end}")
        pending.relations.append((
            ref(item["head"], f"{place}.head"), ref(item["child"], f"{place}.child"),
            text_field(item, "label", place), symmetric, kind, where, place,
        ))
    for i, event in enumerate(listed("events")):
        place = f"events[{i}]"
        if type(event) is not dict or "trigger" not in event:
            raise InputError(
                f"got {describe(event)}; expected an event {{trigger, arguments}}", where=where, doc_id=doc_id, field=place
            )
        trigger = ref(event["trigger"], f"{place}.trigger")
        arguments = event.get("arguments", [])
        if type(arguments) is not list:
            raise InputError(f"got {describe(arguments)}; expected a list", where=where, doc_id=doc_id, field=f"{place}.arguments")
        for j, argument in enumerate(arguments):
            spot = f"{place}.arguments[{j}]"
            if type(argument) is not dict or "span" not in argument:
                raise InputError(f"got {describe(argument)}; expected {{role, span}}", where=where, doc_id=doc_id, field=spot)
            pending.relations.append(
                (trigger, ref(argument["span"], f"{spot}.span"), text_field(argument, "role", spot), False, "event", where, spot)
            )


def _as_json(value) -> bytes:
    """``value`` written as JSON, or ``b""`` when it cannot be (an integer beyond 64 bits)."""
    try:
        return orjson.dumps(value)
    except (TypeError, ValueError):
        return b""


def write_spanagree(corpus, path: Path) -> dict:
    """Write a corpus as spanagree JSONL, one line per (document, rater), in corpus order.

    Each line keeps the document id, text, rater and spans, and the token offsets where the
    corpus has them. Document labels (text classification) go in ``labels``, on the rater's span
    line or on a line of their own; a rater's ``labels`` list is read back as a choice among every
    label, so a label that was judged absent is written by leaving it out.
    Returns what was written: ``{"documents", "annotations", "spans"}`` (and ``"document_labels"``,
    the (document, rater) pairs with labels, when there are any).
    """
    given: dict[tuple[int, int], list[str]] = {}
    for doc, rater, label, value in zip(
        corpus.dl_doc.tolist(), corpus.dl_rater.tolist(), corpus.dl_label.tolist(), corpus.dl_value.tolist()
    ):
        names = given.setdefault((doc, rater), [])
        if value:
            names.append(corpus.doc_label_names[label])
    spans_at = {pair: ann for ann, pair in enumerate(zip(corpus.ann_doc.tolist(), corpus.ann_rater.tolist()))}
    structure = _structure_by_annotation(corpus)
    documents = set()
    with atomic_write(path, "wb") as out:
        for doc, rater in sorted(spans_at.keys() | given.keys()):
            record = {"doc_id": corpus.doc_ids[doc], "text": corpus.texts[doc], "annotator": corpus.raters[rater]}
            documents.add(doc)
            if (doc, rater) in given:
                record["labels"] = given[doc, rater]
            if (doc, rater) in spans_at:
                record["spans"] = span_objects(corpus, spans_at[doc, rater])
                tokens = corpus.doc_tokens[doc]
                if tokens is not None:
                    record["tokens"] = [{"start": s, "end": e} for s, e in tokens.tolist()]
                if (doc, rater) in structure:
                    _write_structure(record, structure[doc, rater])
            out.write(orjson.dumps(record) + b"\n")
    written = {"documents": len(documents), "annotations": corpus.n_annotations, "spans": corpus.n_spans}
    if corpus.structure is not None and (corpus.structure.relations or corpus.structure.attributes):
        written["relations"] = len(corpus.structure.relations)
        written["attributes"] = len(corpus.structure.attributes)
    if given:
        written["document_labels"] = len(given)
    return written


def _structure_by_annotation(corpus) -> dict:
    """(document, rater) -> (extra spans, relations, attributes) of the corpus's structure."""
    held = corpus.structure
    if held is None:
        return {}
    by_ann: dict[int, tuple[list, list, list]] = {}
    for ann, extra in held.extra_spans.items():
        by_ann.setdefault(ann, ([], [], []))[0].extend(extra)
    for row in held.relations:
        by_ann.setdefault(row.ann, ([], [], []))[1].append(row)
    for row in held.attributes:
        by_ann.setdefault(row.ann, ([], [], []))[2].append(row)
    return {(int(corpus.ann_doc[ann]), int(corpus.ann_rater[ann])): parts for ann, parts in by_ann.items()}


def _write_structure(record: dict, parts: tuple[list, list, list]) -> None:
    """Span ids, attributes, triggers and relations of one line (ids are positions: ``s3`` is the
    line's fourth span, ``t0`` its first trigger)."""
    extra, relations, attributes = parts
    objects = {}  # span -> (id, its object in the record)
    for i, span in enumerate(record["spans"]):
        objects[(span["start"], span["end"], span["label"])] = (f"s{i}", span)
    if extra:
        record["triggers"] = []
        for i, (start, end, label) in enumerate(sorted(extra)):
            if (start, end, label) not in objects:
                trigger = {"start": start, "end": end, "label": label, "id": f"t{i}"}
                objects[(start, end, label)] = (f"t{i}", trigger)
                record["triggers"].append(trigger)
    for row in attributes:
        objects[row.span][1].setdefault("attributes", {})[row.name] = row.value
    for row in relations:
        for end in (row.head, row.child):
            objects[end][1]["id"] = objects[end][0]
    if relations:
        record["relations"] = [
            {"head": objects[row.head][0], "child": objects[row.child][0], "label": row.label,
             "symmetric": row.symmetric, "kind": row.kind}
            for row in relations
        ]


def looks_like(path: Path, first: dict | None) -> bool:
    """True when the first record of a file has the spanagree keys."""
    return first is not None and (
        "doc_id" in first or ("spans" in first and "answer" not in first and "_input_hash" not in first)
    )


FORMAT = Format(
    name="spanagree",
    read=read_spanagree,
    sniff=looks_like,
    order=200,
    write=write_spanagree,
    description="spanagree JSONL: one line per (document, rater)",
)
