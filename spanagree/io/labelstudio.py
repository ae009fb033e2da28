"""Label Studio exports: the JSON export (a JSON array of tasks) and the JSON-MIN export.

JSON export: ``[{"id", "data": {"text", ...}, "annotations": [{"id", "completed_by",
"was_cancelled", "updated_at", "result": [{"type": "labels", "to_name", "value": {"start", "end",
"text", "labels": [...]}}]}]}]``

- document: the task's ``id`` (else the text itself); text: the data field the regions'
  ``to_name`` stands for (:mod:`spanagree.io.labelstudio_targets`), else ``data.text``, else the
  only string in ``data`` (``text_field=`` names it); a task with several texts gives one document
  per text, ``ID:FIELD``. The texts of a ``valueType="url"`` project: ``labelstudio_texts=``;
- rater: ``completed_by`` (a user id, or ``{"email"}``/``{"id"}`` in some versions); a rater's
  latest annotation of a task is kept (``duplicates=``);
- ``labels`` results are spans, one per label of the region; ``choices`` results are the rater's
  document labels (in a file without any region, the annotations are read for their labels
  only); relations and per-region results (``perRegion="true"`` controls: their ``id`` is the
  region's) are read into the corpus's structure (docs/structure.md); every other result type,
  cancelled annotations, ``predictions``, ``drafts`` and regions without a label are counted;
- a task without annotations is a document nobody submitted (counted); the old ``completions`` key
  is read like ``annotations``;
- a running project, given by its address (:mod:`spanagree.io.labelstudio_server`), is read as its
  JSON export with its labeling config.

JSON-MIN export: ``[{"id", "text", "annotator", "annotation_id", ..., "label": [{"start", "end",
"text", "labels"}]}]``, one flat row per annotation; every field holding regions (a list of
``{start, end, labels}``) gives spans, whatever the name of its control. JSON-MIN drops relations
and region ids: the corpus says so (:data:`MIN_LOST`).

Offsets are code points since Label Studio 1.x (``offsets=``); a region's ``text`` is checked
against the task's text at its offsets (``check_text=``), in every unit (regions of versions before
1.x, in UTF-16 code units, are converted and counted). The options: docs/formats.md, "Label Studio".

The file is one JSON array, not lines: errors name the file, the task (its position and id) and
the field as a path, e.g. ``[3].annotations[0].result[1].value.end``.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from orjson import loads as loads_json

from ..errors import InputError, Location, describe, option
from ..core.model import SpanTuple
from ..core.builder import CorpusBuilder
from . import Format
from ._text import peek
from .common import (check_decoded, check_text_hint, choice, line_of_bad_escape, open_binary, parse_int, parse_labels,
                     same_text, text_check)
from .labelstudio_server import ProjectPath
from .labelstudio_targets import UrlTexts, config_tags, parse_config, resolve_targets
from .offsets import UNIT_NAMES, UNITS, check_unit, out_of_range, risky, to_codepoints, unverified_note

#: JSON-MIN keys that are about the annotation, not the task's data.
MIN_META = {"id", "annotator", "annotation_id", "created_at", "updated_at", "lead_time"}

#: ``duplicates=`` values.
DUPLICATES = ("latest", "error")

#: A task text that is a URL or an upload path: the text of a ``valueType="url"`` project.
_URL = re.compile(r"(?:[a-z][a-z0-9+.-]*://|/data/(?:upload|local-files)/)\S*\Z", re.IGNORECASE)


def read_labelstudio(
    path: Path,
    builder: CorpusBuilder,
    *,
    text_field: str | None = None,
    check_text: bool | str = "whitespace",
    offsets: str | None = None,
    duplicates: str = "latest",
    labelstudio_config: str | Path | None = None,
    labelstudio_texts: str | Path | None = None,
) -> None:
    """Read one Label Studio JSON or JSON-MIN export into ``builder``."""
    check = text_check(check_text)
    choice("duplicates", duplicates, DUPLICATES)
    if labelstudio_config is not None:
        tags = config_tags(labelstudio_config)
    elif isinstance(path, ProjectPath):  # a project fetched from its server: the project's own config
        tags = parse_config(path.label_config, Location(str(path)))
    else:
        tags = None
    tasks = _load(path)
    builder.tick(path.stat().st_size)
    reader = _Reader(path, builder, text_field, check, offsets, duplicates)
    reader.field_of, notes = resolve_targets(tasks, path, text_field=text_field, tags=tags)
    for note in notes.values():
        builder.exclusions.notes[note] += 1
    # the texts the regions are on; with the labeling config, also for JSON-MIN (no to_name)
    reader.targets = set(reader.field_of.values()) or {tag.field for tag in (tags or {}).values()}
    reader.url_fields = {tag.field for tag in (tags or {}).values() if tag.url}
    reader.url_texts = UrlTexts(labelstudio_texts) if labelstudio_texts is not None else None
    for index, task in enumerate(tasks):
        if type(task) is not dict:
            raise InputError(
                f"expected a task object, got {describe(task)}", where=reader.where, field=f"[{index}]"
            )
        if "data" in task or "annotations" in task or "completions" in task:
            reader.task(index, task)
        else:
            reader.min_row(index, task)
    reader.flush()


def _load(path: Path) -> list:
    with open_binary(path) as handle:
        raw = handle.read()
    where = Location(str(path))
    try:
        data = loads_json(raw)
    except ValueError:
        try:
            data = json.loads(raw.decode("utf-8-sig"), parse_int=parse_int)
        except UnicodeDecodeError as err:
            raise InputError(f"not valid UTF-8 (at byte {err.start}); expected UTF-8 JSON", where=where) from None
        except json.JSONDecodeError as err:
            raise InputError(
                f"not valid JSON ({err.msg} at line {err.lineno}, column {err.colno}); "
                "expected a Label Studio export (a JSON array of tasks)",
                where=Location(str(path), err.lineno),
            ) from None
    else:
        return _check_list(data, path)
    check_decoded(data, Location(str(path), line_of_bad_escape(raw)))
    return _check_list(data, path)


def _check_list(data, path: Path) -> list:
    where = Location(str(path))
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
    def __init__(
        self, path: Path, builder: CorpusBuilder, text_field: str | None, check: str, offsets: str | None,
        duplicates: str,
    ) -> None:
        self.path = path
        self.where = Location(str(path))
        self.builder = builder
        self.text_field = text_field
        self.check = check
        self.unit = check_unit(offsets, "codepoint")
        self.unit_given = offsets is not None
        self.duplicates = duplicates
        # (document key, rater) -> (order, doc_id, text, spans, at); the latest wins at flush
        self.kept: dict[tuple[Any, str], tuple[tuple, str, str, tuple, str]] = {}
        self.saw_regions = False  # any span region in the file (else choices alone are read)
        self.targets: set[str] = set()  # the data fields that the results' to_name stand for
        self.field_of: dict[str, str] = {}  # to_name -> data field (labelstudio_targets)
        self.url_fields: set[str] = set()  # data fields the labeling config says hold URLs
        self.url_texts: UrlTexts | None = None  # the texts of a URL project, when given
        # (document key, rater) -> [(order, relations, attributes)]: each annotation's, the kept one's added
        self.structure_of: dict[tuple[Any, str], list[tuple[tuple, list, list]]] = {}

    # --- the JSON export ----------------------------------------------------------------------

    def task(self, index: int, task: dict) -> None:
        at = f"[{index}]"
        data = task.get("data")
        if type(data) is not dict:
            raise InputError(
                f"{'missing' if data is None else 'got ' + describe(data)}; expected the task's data object",
                where=self.where, doc_id=task.get("id"), field=f"{at}.data",
            )
        texts = self._texts(data, f"{at}.data", task.get("id"), skip=())
        documents = {name: (*self._document(task, text, at, name, len(texts) > 1), text) for name, text in texts.items()}
        for key, reason in (("predictions", "prediction (a model's, not a rater's)"),
                            ("drafts", "draft (saved, not submitted)")):
            held = task.get(key)
            if isinstance(held, list) and held:
                self.builder.exclude(f"Label Studio {reason}", n_annotations=len(held))
        field = "annotations" if "annotations" in task else "completions"
        annotations = task.get(field, [])
        if type(annotations) is not list:
            raise InputError(
                f"expected a list of annotations, got {describe(annotations)}",
                where=self.where, doc_id=task.get("id"), field=f"{at}.{field}",
            )
        if not annotations:
            for key, doc_id, text in documents.values():
                self.builder.document(key, doc_id, text, self.where, self.path.stem)
            return
        for j, annotation in enumerate(annotations):
            here = f"{at}.{field}[{j}]"
            if type(annotation) is not dict:
                raise InputError(
                    f"expected an annotation object, got {describe(annotation)}",
                    where=self.where, doc_id=task.get("id"), field=here,
                )
            rater = self._rater(annotation.get("completed_by"), task.get("id"), f"{here}.completed_by")
            result = annotation.get("result", [])
            if type(result) is not list:
                raise InputError(
                    f"expected a list of results, got {describe(result)}",
                    where=self.where, doc_id=task.get("id"), field=f"{here}.result",
                )
            if annotation.get("was_cancelled") is True:
                n = sum(1 for r in result if isinstance(r, dict) and r.get("type") == "labels")
                for key, doc_id, text in documents.values():
                    self.builder.skip(key, doc_id, text, self.where, rater, "Label Studio annotation cancelled", n)
                    n = 0
                _count_cancelled_structure(result, self.builder)
                continue
            spans: dict[str, list[SpanTuple]] = {name: [] for name in documents}
            chosen: dict[str, list[str] | None] = dict.fromkeys(documents)
            region_ids = _region_ids(result)
            regions: dict[Any, tuple[str, SpanTuple]] = {}  # region id -> (text name, its span)
            linked: list[tuple[int, dict]] = []  # relations and per-region results (read_region_structure)
            for k, item in enumerate(result):
                if _linked(item, region_ids):
                    linked.append((k, item))
                    continue
                name = self._target(item, documents, task.get("id"), f"{here}.result[{k}]")
                if name is None:
                    continue
                key, doc_id, text = documents[name]
                if type(item) is dict and item.get("type") == "choices":
                    chosen[name] = (chosen[name] or []) + self._choices(item, doc_id, f"{here}.result[{k}]")
                    continue
                found = self._result(item, text, doc_id, f"{here}.result[{k}]")
                spans[name].extend(found)
                if found and item.get("id") in region_ids:
                    regions[item["id"]] = (name, found[0])
            order = _order(annotation, j)
            for name, (key, doc_id, text) in documents.items():
                self._keep(key, doc_id, text, rater, (spans[name], chosen[name]), order, here)
            if linked:
                self.read_region_structure(linked, regions, documents, rater, order, here)

    def _target(self, item: Any, documents: dict, task_id: Any, at: str) -> str | None:
        """The text (data field) a result belongs to: its ``to_name`` when the task has several."""
        if len(documents) == 1 and self.text_field is None:
            return next(iter(documents))
        to_name = item.get("to_name") if type(item) is dict else None
        field = self.field_of.get(to_name, to_name)
        if field in documents:
            return field
        if self.text_field is not None and len(documents) == 1:
            if to_name is None:
                return self.text_field
            self.builder.exclude_span(f"Label Studio region on another text than text_field={self.text_field!r}")
            return None
        raise InputError(
            f"got to_name {describe(to_name)}; the task has several texts ({', '.join(documents)}) and a region "
            f"must name one of them; name the text to read with {' or '.join(option('text_field', d) for d in documents)}",
            where=self.where, doc_id=task_id, field=f"{at}.to_name",
        )

    def _result(self, item: Any, text: str, doc_id: str, at: str) -> list[SpanTuple]:
        if type(item) is not dict:
            raise InputError(f"expected a result object, got {describe(item)}", where=self.where, doc_id=doc_id, field=at)
        kind = item.get("type")
        if kind != "labels":
            self.builder.exclude_span(f"Label Studio {kind!r} result (not a text span) ignored")
            return []
        self.saw_regions = True
        value = item.get("value")
        if type(value) is not dict:
            raise InputError(
                f"{'missing' if value is None else 'got ' + describe(value)}; expected {{start, end, labels}}",
                where=self.where, doc_id=doc_id, field=f"{at}.value",
            )
        return self._region(value, text, doc_id, f"{at}.value")

    def _choices(self, item: dict, doc_id: str, at: str) -> list[str]:
        """The labels of a ``choices`` result (text classification): the rater's choice among all."""
        value = item.get("value")
        chosen = value.get("choices") if type(value) is dict else None
        return parse_labels(chosen, self.where, doc_id, f"{at}.value.choices")

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
        texts = self._texts(row, at, row.get("id"), skip=MIN_META | set(regions))
        if len(texts) > 1:
            raise InputError(
                f"several texts ({', '.join(texts)}) and JSON-MIN does not say which a region is on; "
                f"name the text with {' or '.join(option('text_field', name) for name in texts)} (or read the JSON export)",
                where=self.where, doc_id=row.get("id"), field=at,
            )
        name, text = next(iter(texts.items()))
        key, doc_id = self._document(row, text, at, name, False)
        if row.get("annotator") is None:  # JSON-MIN's row for a task nobody annotated
            self.builder.document(key, doc_id, text, self.where, self.path.stem)
            self.builder.exclusions.notes["Label Studio JSON-MIN row with no annotator (a task nobody annotated)"] += 1
            return
        rater = self._rater(row.get("annotator"), doc_id, f"{at}.annotator")
        spans = []
        for field, value in regions.items():
            for k, region in enumerate([value] if type(value) is dict else value):
                spans.extend(self._region(region, text, doc_id, f"{at}.{field}[{k}]"))
        if spans:
            self.saw_regions = True
        self._keep(key, doc_id, text, rater, (spans, None), _order(row, index, "annotation_id"), at)
        self.builder.structure_lost(MIN_LOST)

    # --- relations and per-region results (JSON export) ---------------------------------------

    def read_region_structure(
        self, linked: list[tuple[int, dict]], regions: dict, documents: dict, rater: str, order: tuple, here: str,
    ) -> None:
        """Relations (``from_id`` -> ``to_id``; ``direction`` "left" reverses, "bi" is symmetric;
        the label is ``labels[0]``, else "relation") and per-region ``choices``, ``textarea``,
        ``rating``, ``number`` and ``taxonomy`` results (an attribute named by ``from_name``) of one
        annotation, held until the file is read (the kept annotation's are added)."""
        held: dict[str, tuple[list, list]] = {name: ([], []) for name in documents}
        excluded = self.builder.exclusions
        for k, item in linked:
            at = f"{here}.result[{k}]"
            if item.get("type") == "relation":
                ends = [regions.get(item.get(name)) for name in ("from_id", "to_id")]
                if None in ends:
                    excluded.relations["Label Studio relation to a region that is not a labelled text span"] += 1
                    continue
                (name, head), (other, child) = ends
                if name != other:
                    excluded.relations["Label Studio relation between regions of two texts"] += 1
                    continue
                labels = item.get("labels") or []
                if type(labels) is not list or not all(type(x) is str and x.strip() for x in labels):
                    raise InputError(f"got {describe(labels)}; expected a list of relation labels", where=self.where,
                                     doc_id=documents[name][1], field=f"{at}.labels")
                direction = item.get("direction", "right")
                if direction == "left":
                    head, child = child, head
                label = labels[0] if labels else "relation"
                if len(labels) > 1:
                    excluded.relations[f"Label Studio relation with several labels: the first kept, {len(labels) - 1} more"] += 1
                held[name][0].append((head, child, label, direction == "bi", "relation", self.where, at))
                continue
            found = regions.get(item.get("id"))
            if found is None:  # a per-region result on a region that is not a labelled text span
                excluded.attributes["Label Studio per-region result on a region without a labelled span"] += 1
                continue
            name, span = found
            value = _region_value(item)
            if value is None:
                excluded.attributes[f"Label Studio per-region {item.get('type')!r} result without a value"] += 1
                continue
            attribute = item.get("from_name") or item.get("type")
            held[name][1].append((span, str(attribute), value, self.where, at))
        for name, (relations, attributes) in held.items():
            key = documents[name][0]
            self.structure_of.setdefault((key, rater), []).append((order, relations, attributes))

    def flush_structure(self) -> None:
        """Add the structure of every kept annotation (a rater's latest of a text); the older
        annotations' relations and attributes are counted with them."""
        for (key, rater), held in self.structure_of.items():
            kept = self.kept.get((key, rater))
            for order, relations, attributes in held:
                if kept is None or order != kept[0]:
                    self.builder.exclusions.relations["on an excluded annotation"] += len(relations)
                    self.builder.exclusions.attributes["on an excluded annotation"] += len(attributes)
                    continue
                if relations or attributes:
                    pending = self.builder.structure(key, rater)
                    pending.relations.extend(relations)
                    pending.attributes.extend(attributes)
        self.structure_of.clear()

    # --- shared -------------------------------------------------------------------------------

    def _keep(self, key, doc_id: str, text: str, rater: str, marks: tuple, order: tuple, at: str) -> None:
        """Hold one annotation (its spans, and its chosen labels or None) until the file is read:
        a rater's latest annotation of a text wins."""
        cell = (key, rater)
        previous = self.kept.get(cell)
        entry = (order, doc_id, text, marks, at)
        if previous is None:
            self.kept[cell] = entry
            return
        if self.duplicates == "error":
            raise InputError(
                f"rater {rater!r} annotated this task twice (also at {previous[4]}); keep one annotation per "
                f"rater, or read the latest with {option('duplicates', 'latest')}",
                where=self.where, doc_id=doc_id, field=at,
            )
        older = min(previous, entry, key=lambda kept: kept[0])
        self.builder.exclude("Label Studio annotation by a rater who annotated the task again (the latest kept)",
                             len(older[3][0]))
        if older is previous:
            self.kept[cell] = entry

    def flush(self) -> None:
        """Add the kept annotations: spans (unless the file is text classification only) and
        chosen labels."""
        for (key, rater), (_, doc_id, text, (spans, chosen), _at) in self.kept.items():
            if self.saw_regions or chosen is None:
                self.builder.add(key, doc_id, text, rater, spans, self.where)
            if chosen is not None:
                self.builder.add_labels(key, doc_id, text, rater, chosen, self.where)
        self.flush_structure()
        self.kept.clear()

    def _texts(self, data: dict, at: str, doc_id: Any, skip) -> dict[str, str]:
        """The task's texts by field (the texts of a URL project looked up)."""
        return {field: self._url_text(field, text, at, doc_id) for field, text in self._text_fields(data, at, doc_id, skip).items()}

    def _text_fields(self, data: dict, at: str, doc_id: Any, skip) -> dict[str, str]:
        """The task's texts by field: ``text_field``, else the fields the regions are on, else
        ``text``, else every string field."""
        mapped = {name: data[name] for name in data if name in self.targets and type(data[name]) is str}
        if self.text_field is not None:
            value = data.get(self.text_field)
            if type(value) is not str:
                raise InputError(
                    f"{'missing' if value is None else 'got ' + describe(value)}; expected the text ("
                    f"{option('text_field', self.text_field)})",
                    where=self.where, doc_id=doc_id, field=f"{at}.{self.text_field}",
                )
            found = {self.text_field: value}
        elif mapped:
            found = mapped
        elif type(data.get("text")) is str:
            found = {"text": data["text"]}
        else:
            found = {name: value for name, value in data.items() if name not in skip and type(value) is str}
            if len(found) > 1 and self.targets & found.keys():  # the texts that regions are on
                found = {name: value for name, value in found.items() if name in self.targets}
        if not found:
            raise InputError(
                f"no text: expected a 'text' field, or some string field (name it with {option('text_field', 'body')})",
                where=self.where, doc_id=doc_id, field=f"{at}.text",
            )
        return found

    def _document(self, task: dict, text: str, at: str, field: str, several: bool) -> tuple[Any, str]:
        task_id = task.get("id")
        if task_id is None:
            doc_id = "text:" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]
            return ("text", text), doc_id
        if type(task_id) not in (int, str) or task_id == "":
            raise InputError(
                f"got {describe(task_id)}; expected an integer or string task id", where=self.where, field=f"{at}.id"
            )
        doc_id = f"{task_id}:{field}" if several else str(task_id)
        return doc_id, doc_id

    def _rater(self, value: Any, doc_id: Any, at: str) -> str:
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
            self.builder.exclude_span("Label Studio region without a label")
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
        notes = self.builder.exclusions.notes
        if self.check == "off" or type(covered) is not str:
            if self.check != "off" and self.url_texts is None and _URL.match(text.strip()):
                self._not_a_url(text, doc_id, at, "the region carries no text to check it against")
            if risky(text) and self.check != "off" and not self.unit_given:
                notes[unverified_note(self.unit, "Label Studio") + "; regions without 'text'"] += 1
            return self._converted(text, start, end, doc_id, at)
        units = (self.unit,) if self.unit_given else (self.unit, *(u for u in UNITS if u != self.unit))
        for unit in units:
            s, e, ok = to_codepoints(text, [start], [end], unit)
            s, e = int(s[0]), int(e[0])
            if not ok[0] or not same_text(covered, text[s:e], self.check):
                continue
            if text[s:e] != covered:
                notes["Label Studio region text matched with runs of white space collapsed"] += 1
            if unit != self.unit:
                notes[f"Label Studio offsets in {UNIT_NAMES[unit]} (region text matched), converted"] += 1
            return s, e
        s, e = self._converted(text, start, end, doc_id, at)
        self._not_a_url(text, doc_id, at)
        raise InputError(
            f"the region's text {describe(covered)} is not the task's text at [{start}, {end}) "
            f"({describe(text[s:e])}) in any offset unit; expected offsets into the text "
            f"({check_text_hint(self.check)})",
            where=self.where, doc_id=doc_id, field=f"{at}.text",
        )

    def _converted(self, text: str, start: int, end: int, doc_id: str, at: str) -> tuple[int, int]:
        """``[start, end)`` in the file's unit as code points; offsets that are not a span of the text are an error."""
        s, e, ok = to_codepoints(text, [start], [end], self.unit)
        if not ok[0]:
            self._not_a_url(text, doc_id, at)
            raise out_of_range(text, start, end, self.unit, self.where, doc_id, f"{at}.{'start' if start < 0 else 'end'}")
        return int(s[0]), int(e[0])

    def _not_a_url(self, text: str, doc_id: str, at: str, why: str = "the region does not fit it") -> None:
        """Raise the error for a region on a text which is a URL and that it does not fit (or
        cannot be checked against): the project's ``<Text>`` has ``valueType="url"``, and the
        export holds the address, not the text."""
        if _URL.match(text.strip()) and self.url_texts is None:
            raise InputError(
                f"the task's text is a URL ({describe(text)}) and {why}: the project's <Text> tag has "
                "valueType=\"url\", so the export holds the address, not the text its offsets index. Give the "
                f"texts with {option('labelstudio_texts', 'texts.jsonl')} (a JSONL file of {{url or id, text}}, or a "
                f"folder of files named by the URL's last part or TASKID.txt), or name the data field that holds "
                f"the text with {option('text_field', 'text')}",
                where=self.where, doc_id=doc_id, field=at,
            )

    def _url_text(self, field: str, text: str, at: str, task_id: Any) -> str:
        """The text of a field the labeling config says holds a URL (or that holds one, when the
        texts are given): looked up in ``labelstudio_texts``; refused when it was not given."""
        if field not in self.url_fields and not (self.url_texts is not None and _URL.match(text.strip())):
            return text
        if self.url_texts is None:
            raise InputError(
                f"the labeling config's <Text> for {field!r} has valueType=\"url\": the export holds the address "
                f"({describe(text)}), not the text the regions' offsets index; give the texts with "
                f"{option('labelstudio_texts', 'texts.jsonl')} (a JSONL file of {{url or id, text}}, or a folder of "
                "files named by the URL's last part or TASKID.txt)",
                where=self.where, doc_id=task_id, field=f"{at}.{field}",
            )
        found = self.url_texts.text(text, task_id)
        if found is None:
            raise InputError(
                f"no text given for {describe(text)} (task {task_id!r}) in {self.url_texts.path}; expected a line "
                "{\"url\": ..., \"text\": ...} or {\"id\": ..., \"text\": ...}, or a file named by the URL's last "
                "part or TASKID.txt",
                where=self.where, doc_id=task_id, field=f"{at}.{field}",
            )
        self.builder.exclusions.notes["Label Studio text given by URL, read from labelstudio_texts"] += 1
        return found


#: Result types that Label Studio attaches to a region (``perRegion="true"`` controls).
PER_REGION = ("choices", "textarea", "rating", "number", "taxonomy")

#: What a JSON-MIN file cannot give (said in the report's relations section).
MIN_LOST = (
    "Label Studio JSON-MIN export: it drops relations and region ids (per-region choices become bare "
    "strings), so relations and region attributes cannot be read; export JSON to assess them"
)


def _count_cancelled_structure(result: list, builder: CorpusBuilder) -> None:
    """The relations and per-region results of a cancelled annotation, counted as excluded."""
    regions = _region_ids(result)
    linked = [item for item in result if _linked(item, regions)]
    relations = sum(1 for item in linked if item.get("type") == "relation")
    reason = "on an excluded annotation (Label Studio annotation cancelled)"
    if relations:
        builder.exclusions.relations[reason] += relations
    if len(linked) > relations:
        builder.exclusions.attributes[reason] += len(linked) - relations


def _region_ids(result: list) -> set:
    """The ids of the labelled text regions of one annotation's results."""
    return {
        item["id"] for item in result
        if type(item) is dict and item.get("type") == "labels" and type(item.get("id")) in (str, int)
    }


def _linked(item: Any, region_ids: set) -> bool:
    """A relation, or a per-region result (its ``id`` is a labelled region's)."""
    if type(item) is not dict:
        return False
    kind = item.get("type")
    return kind == "relation" or (kind in PER_REGION and item.get("id") in region_ids)


def _region_value(item: dict) -> Any:
    """The value of a per-region result: one choice, or the choices joined with ``|`` in order;
    a text area's texts joined with a new line; a rating or number; a taxonomy's paths joined."""
    value = item.get("value")
    if type(value) is not dict:
        return None
    kind = item.get("type")
    if kind == "choices":
        chosen = value.get("choices")
        if type(chosen) is list and chosen and all(type(x) is str for x in chosen):
            return chosen[0] if len(chosen) == 1 else "|".join(sorted(chosen))
        return None
    if kind == "textarea":
        texts = value.get("text")
        if type(texts) is list and texts and all(type(x) is str for x in texts):
            return "\n".join(texts)
        return texts if type(texts) is str and texts else None
    if kind in ("rating", "number"):
        number = value.get(kind)
        return number if type(number) in (int, float) and number == number else None
    paths = value.get("taxonomy")
    if type(paths) is list and paths:
        return "|".join(sorted("/".join(map(str, p)) if type(p) is list else str(p) for p in paths))
    return None


def _order(annotation: dict, position: int, id_key: str = "id") -> tuple:
    """How recent an annotation is: ``updated_at``, ``created_at`` (ISO strings sort by time), its
    id, then its position in the file."""
    stamps = [annotation.get(k) for k in ("updated_at", "created_at")]
    ident = annotation.get(id_key)
    return (*(x if type(x) is str else "" for x in stamps), ident if type(ident) is int else -1, position)


def _holds_regions(value: Any) -> bool:
    """A JSON-MIN field of regions: a list of ``{start, end, labels}`` objects (or one such object).

    One region with ``labels`` makes the field a field of regions, so that a region in it without
    them is an error naming it, not a reason to pass over the rater's other regions."""
    items = [value] if type(value) is dict else value if type(value) is list and value else []
    return (
        bool(items)
        and all(type(v) is dict and "start" in v for v in items)
        and any("labels" in v for v in items)
    )


def looks_like(path: Path, first: dict | None) -> bool:
    """A ``.json`` file holding an array of objects with Label Studio's keys (looked for past the
    first task's text, however long it is)."""
    if path.suffix.lower() != ".json":
        return False
    head = peek(path, 1 << 16)
    if not head or not head.lstrip().startswith("["):
        return False
    keys = ('"annotations"', '"completions"', '"annotator"', '"data"')
    if any(key in head for key in keys):
        return True
    try:  # a first task whose text is longer than the peek: scan on, chunk by chunk
        with open(path, "rb") as handle:
            tail = b""
            while chunk := handle.read(1 << 20):
                window = tail + chunk
                if any(key.encode() in window for key in keys):
                    return True
                tail = window[-16:]
    except OSError:
        return False
    return False


FORMAT = Format(
    name="labelstudio",
    read=read_labelstudio,
    sniff=looks_like,
    jsonl=False,
    order=60,
    description="Label Studio JSON or JSON-MIN export (a JSON array of tasks)",
)
