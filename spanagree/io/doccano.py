"""doccano JSONL exports of sequence-labelling projects, one file per user.

``{"id": 7, "text": "...", "label": [[start, end, "LABEL"], ...]}`` (doccano up to 1.5), or
``{"id": 7, "text": "...", "entities": [{"id", "start_offset", "end_offset", "label"}, ...],
"relations": [...]}`` (the newer export, with relations).

- rater: a ``user`` or ``annotator`` field where the record has one, else the file's stem (doccano
  exports one file per user, named after the user);
- document: ``id`` (the same example has the same id in every user's file), else the text itself;
- offsets are half-open character offsets into ``text``; relations are ignored and counted.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ..errors import InputError, Location, describe
from ..model import CorpusBuilder, SpanTuple
from . import Format
from .common import json_lines, require


def read_doccano(path: Path, builder: CorpusBuilder) -> None:
    """Read one doccano JSONL export into ``builder``."""
    stem = path.stem
    for where, obj in json_lines(path, builder.tick):
        text = require(obj, "text", str, where)
        raw_id = obj.get("id")
        if raw_id is None:
            key, doc_id = ("text", text), "text:" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]
        elif type(raw_id) in (int, str) and raw_id != "":
            key = doc_id = str(raw_id)
        else:
            raise InputError(f"got {describe(raw_id)}; expected an integer or string id", where=where, field="id")
        rater = _rater(obj, stem, where, doc_id)
        if "entities" in obj:
            spans = _entities(obj["entities"], len(text), where, doc_id)
        elif "label" in obj:
            spans = _triples(obj["label"], len(text), where, doc_id)
        else:
            raise InputError(
                "missing; expected 'label' ([[start, end, label], ...]) or 'entities' "
                "([{start_offset, end_offset, label}, ...])",
                where=where, doc_id=doc_id, field="label",
            )
        relations = obj.get("relations")
        if isinstance(relations, list) and relations:
            builder.exclusions.spans["doccano relation ignored"] += len(relations)
        builder.add(key, doc_id, text, rater, spans, where)


def _rater(obj: dict, stem: str, where: Location, doc_id: str) -> str:
    for key in ("user", "annotator"):
        if key in obj:
            value = obj[key]
            if type(value) in (int, str) and value != "":
                return str(value)
            raise InputError(f"got {describe(value)}; expected a user name or id", where=where, doc_id=doc_id, field=key)
    return stem


def _triples(raw: Any, text_len: int, where: Location, doc_id: str) -> list[SpanTuple]:
    if type(raw) is not list:
        raise InputError(
            f"got {describe(raw)}; expected a list of [start, end, label] triples", where=where, doc_id=doc_id, field="label"
        )
    spans = []
    for i, item in enumerate(raw):
        if not (type(item) is list and len(item) == 3 and type(item[0]) is int and type(item[1]) is int
                and type(item[2]) is str and item[2].strip()):
            raise InputError(
                f"got {describe(item)}; expected [start, end, label] with integer offsets and a label name "
                "(document-classification labels are not spans)",
                where=where, doc_id=doc_id, field=f"label[{i}]",
            )
        spans.append(_checked(item[0], item[1], item[2], text_len, where, doc_id, f"label[{i}]"))
    return spans


def _entities(raw: Any, text_len: int, where: Location, doc_id: str) -> list[SpanTuple]:
    if type(raw) is not list:
        raise InputError(
            f"got {describe(raw)}; expected a list of entities", where=where, doc_id=doc_id, field="entities"
        )
    spans = []
    for i, item in enumerate(raw):
        at = f"entities[{i}]"
        if type(item) is not dict:
            raise InputError(
                f"got {describe(item)}; expected {{start_offset, end_offset, label}}", where=where, doc_id=doc_id, field=at
            )
        for name in ("start_offset", "end_offset"):
            if type(item.get(name)) is not int:
                raise InputError(
                    f"{'missing' if name not in item else 'got ' + describe(item.get(name))}; expected an integer "
                    "character offset",
                    where=where, doc_id=doc_id, field=f"{at}.{name}",
                )
        label = item.get("label")
        if type(label) is not str or not label.strip():
            raise InputError(
                f"{'missing' if 'label' not in item else 'got ' + describe(label)}; expected a non-empty label name",
                where=where, doc_id=doc_id, field=f"{at}.label",
            )
        spans.append(_checked(item["start_offset"], item["end_offset"], label, text_len, where, doc_id, at))
    return spans


def _checked(start: int, end: int, label: str, text_len: int, where: Location, doc_id: str, at: str) -> SpanTuple:
    if not 0 <= start < end <= text_len:
        raise InputError(
            f"offsets [{start}, {end}) out of range; expected 0 <= start < end <= {text_len} (the text's length)",
            where=where, doc_id=doc_id, field=at,
        )
    return start, end, label


def looks_like(path: Path, first: dict | None) -> bool:
    """The first record has ``label`` as a list of ``[start, end, label]`` triples, or ``entities``
    with ``start_offset``."""
    if first is None or "text" not in first:
        return False
    label, entities = first.get("label"), first.get("entities")
    if type(entities) is list:
        return not entities or type(entities[0]) is dict and "start_offset" in entities[0]
    if type(label) is list:
        return not label or type(label[0]) is list and len(label[0]) == 3
    return False


FORMAT = Format(
    name="doccano",
    read=read_doccano,
    sniff=looks_like,
    order=180,
    description="doccano JSONL: sequence-labelling exports, one file per user",
)
