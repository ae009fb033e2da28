"""Which data field a Label Studio region is on, and where the texts of a URL project are.

A region names its text by ``to_name``: the *name* of the ``<Text>`` tag of the project's labeling
config, not the data key the tag shows. In ``<Text name="text" value="$body"/>`` the regions say
``to_name: "text"`` and the text is ``data.body``. The export does not hold the config, so the
reader maps each ``to_name`` to a data field, in this order:

1. the labeling config, when the user gives it (``labelstudio_config=``, the XML under Settings →
   Labeling Interface): each ``<Text name=N value="$F">`` maps N to F, and ``valueType="url"``
   says the data holds the text's address;
2. with ``text_field=`` and one ``to_name`` in the file (one ``<Text>`` tag), that tag is the field;
3. a ``to_name`` that is a data field of the tasks it appears in is that field;
4. else the one string field at which every region of that ``to_name`` that carries its ``text``
   finds it (compared as the reader compares region texts: white space collapsed, in any offset
   unit), when exactly one does;
5. else the file is refused, naming ``text_field=`` with the candidate fields as values.

The texts of a ``valueType="url"`` project (``labelstudio_texts=``) are a JSONL file of
``{"url": ADDRESS, "text": TEXT}`` or ``{"id": TASK_ID, "text": TEXT}`` objects, or a folder whose
files are named by the address's last part (``1.txt`` for ``https://example.org/texts/1.txt``) or
by the task id (``6.txt``), read as UTF-8.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import unquote, urlsplit
from xml.etree import ElementTree

from ..errors import InputError, Location, describe, option
from .common import same_text
from .offsets import UNITS, to_codepoints

#: Object tags of a labeling config that show a text and take span regions.
TEXT_TAGS = ("Text", "HyperText", "Paragraphs")


@dataclass(frozen=True)
class TextTag:
    """A text tag of the labeling config: its name (what regions' ``to_name`` says), the data
    field it shows, and whether that field holds the text's address (``valueType="url"``)."""

    name: str
    field: str
    url: bool


def config_tags(path: str | Path) -> dict[str, TextTag]:
    """The text tags of a labeling config file, by name."""
    try:
        xml = Path(path).read_bytes()
    except OSError as err:
        raise InputError(f"cannot be read ({err.strerror or err}); expected the project's labeling config",
                         where=Location(str(path))) from None
    return parse_config(xml, Location(str(path)))


def _root(xml: str | bytes, where: Location) -> ElementTree.Element:
    try:
        return ElementTree.fromstring(xml)
    except ElementTree.ParseError as err:
        raise InputError(f"not XML ({err}); expected the project's labeling config (<View>...</View>)",
                         where=where) from None


def parse_config(xml: str | bytes, where: Location) -> dict[str, TextTag]:
    """The text tags of a labeling config (its XML), by name."""
    tags = {}
    for element in _root(xml, where).iter():
        name, value = element.get("name"), element.get("value", "")
        if element.tag in TEXT_TAGS and name and value.startswith("$"):
            tags[name] = TextTag(name, value[1:], element.get("valueType", "").lower() == "url")
    if not tags:
        raise InputError(
            'no <Text name="..." value="$field"> tag; expected the labeling config of a project that labels texts',
            where=where,
        )
    return tags


def label_controls(xml: str | bytes, where: Location) -> dict[tuple[str, str], str]:
    """``(text tag name, label) -> name of the <Labels> control`` that puts that label on that text
    (what a region's ``from_name`` says)."""
    controls: dict[tuple[str, str], str] = {}
    for element in _root(xml, where).iter():
        if element.tag not in ("Labels", "HyperTextLabels", "ParagraphLabels") or not element.get("name"):
            continue
        for to_name in (element.get("toName") or "").split(","):
            for label in element.iter("Label"):
                if label.get("value") is not None:
                    controls.setdefault((to_name.strip(), label.get("value")), element.get("name"))
    return controls


def fits(text: str, start: Any, end: Any, covered: str) -> bool:
    """A region's ``text`` is ``text`` at [start, end) in some offset unit (white space collapsed)."""
    if type(start) is not int or type(end) is not int or not 0 <= start <= end:
        return False
    if same_text(covered, text[start:end], "whitespace"):  # code points, Label Studio's unit: no arrays
        return True
    readings = (to_codepoints(text, [start], [end], unit) for unit in UNITS)
    return any(ok[0] and same_text(covered, text[int(s[0]):int(e[0])], "whitespace") for s, e, ok in readings)


def _regions(tasks: Iterable[Any]):
    """(to_name, task data, value) of every result of the JSON export's annotations."""
    for task in tasks:
        if type(task) is not dict or type(task.get("data")) is not dict:
            continue
        for key in ("annotations", "completions"):
            annotations = task.get(key)
            for annotation in annotations if type(annotations) is list else ():
                result = annotation.get("result") if type(annotation) is dict else None
                for item in result if type(result) is list else ():
                    if type(item) is dict and type(item.get("to_name")) is str:
                        yield item["to_name"], task["data"], item.get("value")


def resolve_targets(
    tasks: list, path: Path, *, text_field: str | None, tags: dict[str, TextTag] | None
) -> tuple[dict[str, str], dict[str, str]]:
    """``to_name`` -> data field for every ``to_name`` of the file, and the notes that say how
    each was found (see the module docstring for the order)."""
    evidence: dict[str, list[tuple[dict, Any]]] = {}
    for to_name, data, value in _regions(tasks):
        evidence.setdefault(to_name, []).append((data, value))
    mapping: dict[str, str] = {}
    notes: dict[str, str] = {}
    for to_name, seen in evidence.items():
        if tags is not None and to_name in tags:
            mapping[to_name] = tags[to_name].field
            if tags[to_name].field != to_name:
                notes[to_name] = f"Label Studio to_name {to_name!r} read as data field {tags[to_name].field!r} (labeling config)"
        elif text_field is not None and len(evidence) == 1:
            mapping[to_name] = text_field
        elif all(type(data.get(to_name)) is str for data, _ in seen):
            mapping[to_name] = to_name
        else:
            field = _infer(to_name, seen, path, text_field)
            if field is not None:
                mapping[to_name] = field
                notes[to_name] = (f"Label Studio to_name {to_name!r} read as data field {field!r} (the only field "
                                  "its regions' texts fit)")
    return mapping, notes


def _infer(to_name: str, seen: list[tuple[dict, Any]], path: Path, text_field: str | None) -> str | None:
    """The one string field every region of ``to_name`` carrying its text fits; else None with
    ``text_field`` set (its regions are on another text), else an error naming the candidates."""
    fields = sorted({k for data, _ in seen for k, v in data.items() if type(v) is str})
    candidates = [
        field for field in fields
        if all(type(data.get(field)) is str for data, _ in seen)
        and all(fits(data[field], value.get("start"), value.get("end"), value["text"])
                for data, value in seen if type(value) is dict and type(value.get("text")) is str)
    ]
    checked = any(type(value) is dict and type(value.get("text")) is str for _, value in seen)
    if len(candidates) == 1 and (checked or len(fields) == 1):
        return candidates[0]
    if text_field is not None:
        return None
    shown = candidates or fields
    if not candidates:
        why = "no data field holds its regions' texts at their offsets"
    elif len(candidates) > 1:
        why = f"its regions' texts fit several data fields ({', '.join(candidates)})"
    else:
        why = "its regions carry no text to tell which data field they are on"
    raise InputError(
        f"regions name the text {to_name!r}, the name of a <Text> tag, which is not a data field of the task, "
        f"and {why}; name the text to read with {' or '.join(option('text_field', f) for f in shown)}, or give "
        f"the project's labeling config with {option('labelstudio_config', 'label_config.xml')}",
        where=Location(str(path)), field=f"to_name {to_name!r}",
    )


class UrlTexts:
    """The texts of a ``valueType="url"`` project, by address and by task id."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.by_url: dict[str, str] = {}
        self.by_id: dict[str, str] = {}
        if self.path.is_dir():
            return
        where = Location(str(self.path))
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as err:
            raise InputError(f"cannot be read ({err}); expected a JSONL file of {{url or id, text}} or a folder of "
                             "texts", where=where) from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise InputError(f"not JSON ({err.msg}); expected {{\"url\": ..., \"text\": ...}}",
                                 where=Location(str(self.path), number)) from None
            if type(row) is not dict or type(row.get("text")) is not str or not (
                    type(row.get("url")) is str or type(row.get("id")) in (int, str)):
                raise InputError(f"got {describe(row)}; expected {{\"url\": ADDRESS, \"text\": TEXT}} or "
                                 "{\"id\": TASK_ID, \"text\": TEXT}", where=Location(str(self.path), number))
            if type(row.get("url")) is str:
                self.by_url[row["url"]] = row["text"]
            if type(row.get("id")) in (int, str):
                self.by_id[str(row["id"])] = row["text"]

    def text(self, url: str, task_id: Any) -> str | None:
        """The text at ``url`` (or of the task), or None when none was given."""
        if self.path.is_dir():
            base = unquote(urlsplit(url).path.rsplit("/", 1)[-1])
            for name in (base, f"{task_id}.txt"):
                candidate = self.path / name
                if name and name not in (".", "..") and candidate.is_file():
                    return candidate.read_text(encoding="utf-8")
            return None
        found = self.by_url.get(url)
        return found if found is not None else self.by_id.get(str(task_id))
