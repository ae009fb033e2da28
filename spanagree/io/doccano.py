"""doccano JSONL exports of sequence-labelling projects, one file per user.

``{"id": 7, "text": "...", "label": [[start, end, "LABEL"], ...]}`` (the "JSONL (text label)"
export; ``labels`` is read alike), or ``{"id": 7, "text": "...", "entities": [{"id",
"start_offset", "end_offset", "label"}, ...], "relations": [...]}`` (the export of projects with
relations). Either list may hold ``[start, end, label]`` triples or ``{start_offset, end_offset,
label}`` objects.

- rater: a ``user`` or ``annotator`` field where the record has one, else the file's stem (doccano
  exports one file per user, named after the user);
- document: ``id`` (the same example has the same id in every user's file), else the text itself;
- offsets are half-open character offsets into ``text``; relations are ignored and counted.

Not read: the exports whose ``annotations`` hold label ids per user (``{"label": 7,
"start_offset", "end_offset", "user"}``), and document-classification labels.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ..errors import InputError, Location, describe
from ..model import CorpusBuilder, SpanTuple
from . import Format
from .common import json_lines, require

#: Where the spans are, in the order looked at.
SPAN_FIELDS = ("entities", "label", "labels")


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
        field = next((k for k in SPAN_FIELDS if k in obj), None)
        if field is None:
            raise InputError(
                "missing; expected 'label' ([[start, end, label], ...]) or 'entities' "
                "([{start_offset, end_offset, label}, ...])",
                where=where, doc_id=doc_id, field="label",
            )
        spans = _spans(obj[field], field, len(text), where, doc_id)
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


def _spans(raw: Any, field: str, text_len: int, where: Location, doc_id: str) -> list[SpanTuple]:
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
        spans.append(_checked(start, end, label, text_len, where, doc_id, at))
    return spans


def _checked(start: int, end: int, label: str, text_len: int, where: Location, doc_id: str, at: str) -> SpanTuple:
    if not 0 <= start < end <= text_len:
        raise InputError(
            f"offsets [{start}, {end}) out of range; expected 0 <= start < end <= {text_len} (the text's length)",
            where=where, doc_id=doc_id, field=at,
        )
    return start, end, label


def looks_like(path: Path, first: dict | None) -> bool:
    """The first record has ``text`` and a span list (``label``, ``labels`` or ``entities``) whose
    first item is a ``[start, end, label]`` triple or has ``start_offset``."""
    if first is None or "text" not in first:
        return False
    for field in SPAN_FIELDS:
        items = first.get(field)
        if type(items) is list:
            head = items[0] if items else None
            return (head is None or type(head) is list and len(head) == 3
                    or type(head) is dict and "start_offset" in head)
    return False


FORMAT = Format(
    name="doccano",
    read=read_doccano,
    sniff=looks_like,
    order=180,
    description="doccano JSONL: sequence-labelling exports, one file per user",
)
