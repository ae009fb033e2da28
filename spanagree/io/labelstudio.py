"""Label Studio exports: the JSON export (a JSON array of tasks) and the JSON-MIN export.

JSON export: ``[{"id", "data": {"text", ...}, "annotations": [{"completed_by", "was_cancelled",
"result": [{"type": "labels", "value": {"start", "end", "text", "labels": [...]}}]}]}]``

- document: the task's ``id`` (else the text itself); text: ``data.text``, else the first string
  in ``data`` (``text_field=`` names another field);
- rater: ``completed_by`` (a user id, or ``{"email"}``/``{"id"}`` in some versions), else the
  file's stem;
- a cancelled annotation (``was_cancelled: true``, "skipped" in the interface) means the rater
  did not submit the task: excluded and counted, with its regions;
- ``labels`` results are spans, one per label of the region; every other result type
  (``choices``, ``relation``, ``textarea``, ``hypertextlabels``, ...) is ignored and counted, and so
  are model ``predictions`` (they are not a rater's) and regions without a label;
- a task without annotations is read as a document nobody submitted (counted);
- the old ``completions`` key is read like ``annotations``.

JSON-MIN export: ``[{"id", "text", "annotator", "annotation_id", ..., "label": [{"start", "end",
"text", "labels"}]}]``, one flat row per annotation; every field holding regions (a list of
``{start, end, labels}``) gives spans, whatever the name of its control.

Offsets are characters of the text. Where a region carries its ``text``, it is checked against the
task text at its offsets (``check_text=False`` skips the check). Label Studio versions before
1.x counted offsets in UTF-16 code units, so text with emoji or other characters beyond U+FFFF
came out shifted; such offsets are recognised by that check, converted, and counted.

The file is one JSON array, not lines: errors name the file, the task (its position and id) and
the field as a path, e.g. ``[3].annotations[0].result[1].value.end``.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..errors import InputError, Location, describe
from ..model import CorpusBuilder, SpanTuple
from . import Format
from ._text import peek
from .common import open_binary

try:
    from orjson import loads as _loads
except ImportError:  # pragma: no cover
    _loads = json.loads

#: JSON-MIN keys that are about the annotation, not the task's data.
MIN_META = {"id", "annotator", "annotation_id", "created_at", "updated_at", "lead_time"}


def read_labelstudio(
    path: Path, builder: CorpusBuilder, *, text_field: str | None = None, check_text: bool = True
) -> None:
    """Read one Label Studio JSON or JSON-MIN export into ``builder``."""
    tasks = _load(path)
    builder.tick(path.stat().st_size)
    reader = _Reader(path, builder, text_field, check_text)
    for index, task in enumerate(tasks):
        if type(task) is not dict:
            raise InputError(
                f"expected a task object, got {describe(task)}", where=reader.where, field=f"[{index}]"
            )
        if "data" in task or "annotations" in task or "completions" in task:
            reader.task(index, task)
        else:
            reader.min_row(index, task)


def _load(path: Path) -> list:
    with open_binary(path) as handle:
        raw = handle.read()
    where = Location(str(path))
    try:
        data = _loads(raw)
    except ValueError:
        try:
            data = json.loads(raw.decode("utf-8-sig"))
        except UnicodeDecodeError as err:
            raise InputError(f"not valid UTF-8 (at byte {err.start}); expected UTF-8 JSON", where=where) from None
        except json.JSONDecodeError as err:
            raise InputError(
                f"not valid JSON ({err.msg} at line {err.lineno}, column {err.colno}); "
                "expected a Label Studio export (a JSON array of tasks)",
                where=Location(str(path), err.lineno),
            ) from None
    if type(data) is not list:
        raise InputError(
            f"expected a JSON array of tasks (a Label Studio JSON or JSON-MIN export), got a JSON "
            f"{type(data).__name__}",
            where=where,
        )
    if not data:
        raise InputError("the export holds no tasks; expected a JSON array of tasks", where=where)
    return data


class _Reader:
    def __init__(self, path: Path, builder: CorpusBuilder, text_field: str | None, check_text: bool) -> None:
        self.path = path
        self.where = Location(str(path))
        self.builder = builder
        self.text_field = text_field
        self.check_text = check_text

    # --- the JSON export ----------------------------------------------------------------------

    def task(self, index: int, task: dict) -> None:
        at = f"[{index}]"
        data = task.get("data")
        if type(data) is not dict:
            raise InputError(
                f"{'missing' if data is None else 'got ' + describe(data)}; expected the task's data object",
                where=self.where, doc_id=task.get("id"), field=f"{at}.data",
            )
        text = self._text(data, f"{at}.data", task.get("id"), skip=())
        key, doc_id = self._document(task, text, at)
        excluded = self.builder.exclusions
        predictions = task.get("predictions")
        if isinstance(predictions, list) and predictions:
            excluded.annotations["Label Studio prediction (a model's, not a rater's)"] += len(predictions)
        field = "annotations" if "annotations" in task else "completions"
        annotations = task.get(field, [])
        if type(annotations) is not list:
            raise InputError(
                f"expected a list of annotations, got {describe(annotations)}",
                where=self.where, doc_id=doc_id, field=f"{at}.{field}",
            )
        if not annotations:
            self.builder.document(key, doc_id, text, self.where, self.path.stem)
            return
        for j, annotation in enumerate(annotations):
            here = f"{at}.{field}[{j}]"
            if type(annotation) is not dict:
                raise InputError(
                    f"expected an annotation object, got {describe(annotation)}",
                    where=self.where, doc_id=doc_id, field=here,
                )
            rater = self._rater(annotation.get("completed_by"), doc_id, f"{here}.completed_by")
            result = annotation.get("result", [])
            if type(result) is not list:
                raise InputError(
                    f"expected a list of results, got {describe(result)}",
                    where=self.where, doc_id=doc_id, field=f"{here}.result",
                )
            if annotation.get("was_cancelled") is True:
                n = sum(1 for r in result if isinstance(r, dict) and r.get("type") == "labels")
                self.builder.skip(key, doc_id, text, self.where, rater, "Label Studio annotation cancelled", n)
                continue
            spans = []
            for k, item in enumerate(result):
                spans.extend(self._result(item, text, doc_id, f"{here}.result[{k}]"))
            self.builder.add(key, doc_id, text, rater, spans, self.where)

    def _result(self, item: Any, text: str, doc_id: str, at: str) -> list[SpanTuple]:
        if type(item) is not dict:
            raise InputError(f"expected a result object, got {describe(item)}", where=self.where, doc_id=doc_id, field=at)
        kind = item.get("type")
        if kind != "labels":
            self.builder.exclusions.spans[f"Label Studio {kind!r} result (not a text span) ignored"] += 1
            return []
        value = item.get("value")
        if type(value) is not dict:
            raise InputError(
                f"{'missing' if value is None else 'got ' + describe(value)}; expected {{start, end, labels}}",
                where=self.where, doc_id=doc_id, field=f"{at}.value",
            )
        return self._region(value, text, doc_id, f"{at}.value")

    # --- the JSON-MIN export ------------------------------------------------------------------

    def min_row(self, index: int, row: dict) -> None:
        at = f"[{index}]"
        if "annotator" not in row:
            raise InputError(
                f"a task with neither 'data' and 'annotations' (Label Studio JSON) nor 'annotator' "
                f"(JSON-MIN); keys: {', '.join(sorted(row)) or 'none'}",
                where=self.where, doc_id=row.get("id"), field=at,
            )
        regions = {k: v for k, v in row.items() if k not in MIN_META and _holds_regions(v)}
        text = self._text(row, at, row.get("id"), skip=MIN_META | set(regions))
        key, doc_id = self._document(row, text, at)
        rater = self._rater(row.get("annotator"), doc_id, f"{at}.annotator")
        spans = []
        for name, value in regions.items():
            for k, region in enumerate([value] if type(value) is dict else value):
                spans.extend(self._region(region, text, doc_id, f"{at}.{name}[{k}]"))
        self.builder.add(key, doc_id, text, rater, spans, self.where)

    # --- shared -------------------------------------------------------------------------------

    def _text(self, data: dict, at: str, doc_id: Any, skip) -> str:
        if self.text_field is not None:
            value = data.get(self.text_field)
            if type(value) is not str:
                raise InputError(
                    f"{'missing' if value is None else 'got ' + describe(value)}; expected the text (text_field="
                    f"{self.text_field!r})",
                    where=self.where, doc_id=doc_id, field=f"{at}.{self.text_field}",
                )
            return value
        if type(data.get("text")) is str:
            return data["text"]
        for name, value in data.items():
            if name not in skip and type(value) is str:
                return value
        raise InputError(
            "no text: expected a 'text' field, or some string field (name it with text_field=)",
            where=self.where, doc_id=doc_id, field=f"{at}.text",
        )

    def _document(self, task: dict, text: str, at: str) -> tuple[Any, str]:
        task_id = task.get("id")
        if task_id is None:
            return ("text", text), "text:" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]
        if type(task_id) not in (int, str) or task_id == "":
            raise InputError(
                f"got {describe(task_id)}; expected an integer or string task id", where=self.where, field=f"{at}.id"
            )
        return str(task_id), str(task_id)

    def _rater(self, value: Any, doc_id: str, at: str) -> str:
        if value is None:
            return self.path.stem
        if type(value) is dict:
            value = value.get("email") or value.get("id")
        if type(value) in (int, str) and value != "":
            return str(value)
        raise InputError(
            f"got {describe(value)}; expected a user id or e-mail (or leave it out: the file's stem names the rater)",
            where=self.where, doc_id=doc_id, field=at,
        )

    def _region(self, value: Any, text: str, doc_id: str, at: str) -> list[SpanTuple]:
        if type(value) is not dict:
            raise InputError(
                f"expected a region {{start, end, labels}}, got {describe(value)}",
                where=self.where, doc_id=doc_id, field=at,
            )
        labels = value.get("labels")
        if type(labels) is not list or not all(type(x) is str and x.strip() for x in labels):
            raise InputError(
                f"{'missing' if labels is None else 'got ' + describe(labels)}; expected a list of label names",
                where=self.where, doc_id=doc_id, field=f"{at}.labels",
            )
        start, end = self._offsets(value, text, doc_id, at)
        if not labels:
            self.builder.exclusions.spans["Label Studio region without a label"] += 1
            self.builder.n_spans_read += 1
            return []
        return [(start, end, label) for label in labels]

    def _offsets(self, value: dict, text: str, doc_id: str, at: str) -> tuple[int, int]:
        start, end = value.get("start"), value.get("end")
        for name, offset in (("start", start), ("end", end)):
            if type(offset) is not int:
                raise InputError(
                    f"{'missing' if name not in value else 'got ' + describe(offset)}; expected an integer "
                    "character offset",
                    where=self.where, doc_id=doc_id, field=f"{at}.{name}",
                )
        covered = value.get("text")
        fits = 0 <= start < end <= len(text)
        if self.check_text and type(covered) is str and not (fits and text[start:end] == covered):
            converted = _from_utf16(text, start, end)
            if converted is not None and text[converted[0]:converted[1]] == covered:
                self.builder.exclusions.notes["Label Studio offsets in UTF-16 code units, converted (old versions)"] += 1
                return converted
            if fits:
                raise InputError(
                    f"the region's text {describe(covered)} is not the task's text at [{start}, {end}) "
                    f"({describe(text[start:end])}); expected character offsets into the text "
                    "(check_text=False skips this check)",
                    where=self.where, doc_id=doc_id, field=f"{at}.text",
                )
        if not fits:
            raise InputError(
                f"offsets [{start}, {end}) out of range; expected 0 <= start < end <= {len(text)} (the text's length)",
                where=self.where, doc_id=doc_id, field=f"{at}.{'start' if start < 0 else 'end'}",
            )
        return start, end


def _holds_regions(value: Any) -> bool:
    """A JSON-MIN field of regions: a list of ``{start, end, labels}`` objects (or one such object)."""
    items = [value] if type(value) is dict else value if type(value) is list and value else []
    return bool(items) and all(type(v) is dict and "labels" in v and "start" in v for v in items)


def _from_utf16(text: str, start: int, end: int) -> tuple[int, int] | None:
    """UTF-16 code-unit offsets as character offsets, or None if the text has no character beyond
    U+FFFF (then the two agree) or an offset falls inside a surrogate pair or past the end."""
    if all(ord(ch) <= 0xFFFF for ch in text):
        return None
    table = {}
    unit = 0
    for i, ch in enumerate(text):
        table[unit] = i
        unit += 2 if ord(ch) > 0xFFFF else 1
    table[unit] = len(text)
    if start in table and end in table and table[start] < table[end]:
        return table[start], table[end]
    return None


def looks_like(path: Path, first: dict | None) -> bool:
    """A ``.json`` file holding an array whose first task has annotations or an annotator."""
    if path.suffix.lower() != ".json":
        return False
    head = peek(path, 1 << 20)
    if not head or not head.lstrip().startswith("["):
        return False
    return any(f'"{key}"' in head for key in ("annotations", "completions", "annotator"))


FORMAT = Format(
    name="labelstudio",
    read=read_labelstudio,
    sniff=looks_like,
    jsonl=False,
    order=60,
    description="Label Studio JSON or JSON-MIN export (a JSON array of tasks)",
)
