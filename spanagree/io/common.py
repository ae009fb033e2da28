"""What every reader shares: JSON lines with located errors, and span validation."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Protocol

from operator import le

import numpy as np

from ..errors import InputError, Location, UsageError, describe
from ..errors import option as spell_option

from orjson import loads as loads_json  # several times faster than the standard library


def open_binary(path: Path, name: str | None = None):
    """Open a file for reading bytes, or raise an InputError that names it (as ``name``, when the
    file opened is a stand-in for the one the user gave)."""
    where = Location(str(path) if name is None else name)
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise InputError("no such file", where=where) from None
    except IsADirectoryError:
        raise InputError("is a directory; name the files in it", where=where) from None
    except OSError as err:
        raise InputError(f"cannot be read ({err.strerror})", where=where) from None


#: An iterable of ``(location, object)``, one per JSONL line, as :func:`json_lines` yields them.
LineSource = Iterable[tuple[Location, dict]]


class Blocks(Protocol):
    """Blocks of whole JSONL lines, ``(first line number, newline offsets, bytes)``, as :class:`FileBlocks` and the
    engines' byte ranges give them; a reader says which leading lines of a block it took at once
    (``taken``) and reads the rest line by line (``rest``)."""

    whole_file: bool  # True: no data line at all is an error

    def __iter__(self) -> Iterator[tuple[int, np.ndarray, bytes]]: ...

    def taken(self, number: int, data: bytes, newlines: np.ndarray, records: list) -> None: ...

    def rest(self, number: int, data: bytes, offset: int) -> Iterator[tuple[Location, dict]]: ...


def json_lines(path: Path, tick: Callable[[int], None] | None = None) -> Iterator[tuple[Location, dict]]:
    """Yield ``(location, object)`` for every non-blank line of a JSONL file.

    ``tick(n_bytes)`` is called now and then with the bytes read since the last call.
    Raises InputError naming the file and line for invalid UTF-8, invalid JSON, a line that is
    not a JSON object, a missing file, and a file with no data at all.
    """
    name = str(path)
    seen_data = False
    for number, _, data in file_blocks(path, tick):
        for item in block_lines(name, number, data):
            seen_data = True
            yield item
    if not seen_data:
        raise InputError("the file is empty; expected one JSON object per line", where=Location(name))


#: :func:`file_blocks` reads about this many bytes at a time (then on to the end of the line).
BLOCK_BYTES = 1 << 20


def file_blocks(path: Path, tick: Callable[[int], None] | None = None, size: int | None = None) -> Iterator[tuple[int, np.ndarray, bytes]]:
    """Yield ``(first line number, newline offsets, bytes)``: the file in blocks of whole lines
    (the last line may lack its newline), about ``size`` bytes each, with the offset of every
    newline in the block (:func:`newline_offsets`). ``tick(n_bytes)`` hears each block's size.
    Raises InputError for a file that cannot be opened or read, naming the line reached."""
    name = str(path)
    number = 1
    size = size or BLOCK_BYTES
    with open_binary(path) as handle:
        while True:
            try:
                data = handle.read(size)
                if data and not data.endswith(b"\n"):
                    data += handle.readline()
            except OSError as err:  # the system refuses to go on (an I/O error, a device that is not a file)
                raise InputError(f"cannot be read ({err.strerror or err})", where=Location(name, number)) from None
            if not data:
                return
            if tick is not None:
                tick(len(data))
            newlines = newline_offsets(data)
            yield number, newlines, data
            number += len(newlines)


def newline_offsets(data: bytes) -> np.ndarray:
    """The offset of every ``\n`` in ``data`` (one NumPy pass: faster than ``bytes.count``, and
    the lines' bounds come with it)."""
    return np.flatnonzero(np.frombuffer(data, np.uint8) == 10)


def split_blocks(data: bytes, size: int | None = None) -> Iterator[tuple[int, bytes]]:
    """Yield ``(byte offset, bytes)``: ``data`` (whole lines) in blocks of whole lines of about
    ``size`` bytes (:data:`BLOCK_BYTES`)."""
    size = size or BLOCK_BYTES
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + size - 1) + 1 or len(data)
        yield start, data[start:end] if start or end < len(data) else data
        start = end


class FileBlocks:
    """A JSONL file as blocks of whole lines, ``(first line number, newline offsets, bytes)`` (:func:`file_blocks`),
    for a reader that takes the leading lines of a block at once: it says so with :meth:`taken`
    and reads the rest of the block with :meth:`rest`, line by line (:func:`block_lines`)."""

    whole_file = True  # a file with no data at all is an error

    def __init__(self, path: Path, tick: Callable[[int], None] | None = None) -> None:
        self.name = str(path)
        self.path = path
        self.tick = tick

    def __iter__(self) -> Iterator[tuple[int, np.ndarray, bytes]]:
        return file_blocks(self.path, self.tick)

    def taken(self, number: int, data: bytes, newlines: np.ndarray, records: list) -> None:
        """The reader took the block's first ``len(records)`` lines (line ``number`` on) at once."""

    def rest(self, number: int, data: bytes, offset: int) -> Iterator[tuple[Location, dict]]:
        """The lines of ``data[offset:]``, the first being line ``number``."""
        return block_lines(self.name, number, data, offset)


def block_lines(name: str, number: int, data: bytes, offset: int = 0) -> Iterator[tuple[Location, dict]]:
    """Yield ``(location, object)`` for every non-blank line of ``data[offset:]``, whose first
    line is line ``number`` of file ``name``; errors as :func:`json_lines` gives them."""
    lines = io.BytesIO(data)
    lines.seek(offset)
    for number, raw in enumerate(lines, number):
        try:
            obj = loads_json(raw)
        except ValueError:  # orjson's JSONDecodeError (invalid JSON or UTF-8)
            if not raw.strip():
                continue
            obj = parse_line_slowly(raw, Location(name, number))
        if type(obj) is not dict:
            raise InputError(
                f"expected a JSON object per line, got a JSON {json_type_name(obj)}", where=Location(name, number)
            )
        yield Location(name, number), obj


def choice(option: str, value: Any, allowed: tuple[str, ...]) -> Any:
    """``value`` if it is one of ``allowed``, else a UsageError naming the reader option (and
    its config key)."""
    if value not in allowed:
        raise UsageError(
            f"{spell_option(option, value)}: expected one of {', '.join(allowed)}, e.g. {spell_option(option, allowed[0])}"
        )
    return value


#: ``check_text=`` values of the readers that compare a region's text with the document's;
#: ``True``/``False`` stand for ``"exact"``/``"off"``.
TEXT_CHECKS = ("whitespace", "exact", "off")


def text_check(value: bool | str) -> str:
    """The ``check_text`` option as one of :data:`TEXT_CHECKS`."""
    if isinstance(value, bool):
        return "exact" if value else "off"
    return choice("check_text", value, TEXT_CHECKS)


_SPACES = re.compile(r"\s+")


def same_text(given: str, found: str, check: str) -> bool:
    """A region's ``given`` text is the ``found`` text at its offsets: as it is, or, with
    ``check="whitespace"``, once every run of white space in both is made one space (as the
    tools' front ends show a region's text)."""
    return given == found or check == "whitespace" and _SPACES.sub(" ", given) == _SPACES.sub(" ", found)


def check_text_hint(check: str) -> str:
    """What the error for a region's text that is not the text at its offsets says of ``check_text``."""
    relax = f"{spell_option('check_text', 'whitespace')} compares with white space collapsed; " if check == "exact" else ""
    return f"{relax}{spell_option('check_text', 'off')} skips this check"


def empty_file(path: Path) -> bool:
    """True for a regular file holding nothing but white space (a tool's export of nothing:
    doccano writes one newline for a member with no confirmed example)."""
    try:
        if not path.is_file() or path.stat().st_size > 64:
            return False
        return not path.read_bytes().lstrip(b"\xef\xbb\xbf").strip()
    except OSError:
        return False


def parse_line_slowly(raw: bytes, where: Location) -> Any:
    """Parse a line the fast parser refused, to say exactly why (or to accept a leading BOM)."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(
            f"not valid UTF-8 (byte {raw[err.start:err.start + 1]!r} at byte {err.start} of the line); "
            "expected UTF-8 encoded JSON",
            where=where,
        ) from None
    if where.line == 1 and line.startswith("\ufeff"):
        line = line[1:]
        if not line.strip():
            return {}
    try:  # without its line break, which would put the end of a cut line at "line 2, column 1"
        obj = json.loads(line.rstrip("\r\n"), parse_int=parse_int)
    except json.JSONDecodeError as err:
        raise InputError(f"not valid JSON ({err.msg.removesuffix(' at')} at column {err.colno}); expected one "
                         "JSON object per line", where=where) from None
    except RecursionError:
        raise InputError("JSON nested too deeply; expected one JSON object per line", where=where) from None
    except ValueError as err:  # e.g. an integer too large for the fast parser
        raise InputError(f"not valid JSON ({err}); expected one JSON object per line", where=where) from None
    check_decoded(obj, where)
    return obj


#: Integers of more digits than this are refused (Python's own limit on converting them is 4,300).
MAX_DIGITS = 100


class _LongInteger(str):
    """An integer literal too long to be an offset, kept as its digits to name it in the error."""


def parse_int(digits: str) -> int | _LongInteger:
    return _LongInteger(digits) if len(digits.lstrip("-")) > MAX_DIGITS else int(digits)


_LONE_ESCAPE = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}|[0-9]{%d}" % (MAX_DIGITS + 1)
)


def line_of_bad_escape(raw: bytes) -> int | None:
    """The 1-based line of the first lone surrogate escape or over-long integer in ``raw``, if any."""
    found = _LONE_ESCAPE.search(raw)
    return None if found is None else raw.count(b"\n", 0, found.start()) + 1


_SURROGATES = re.compile("[\ud800-\udfff]")


def check_decoded(obj: Any, where: Location, field: str = "") -> None:
    """Raise an InputError naming the field of ``obj`` that holds text that cannot be encoded
    (a lone UTF-16 surrogate such as ``"\\ud800"``, valid JSON but not Unicode text) or an
    integer of more than :data:`MAX_DIGITS` digits. Only lines the fast parser refused get here.
    """
    stack = [(field, obj)]
    while stack:
        name, value = stack.pop()
        if isinstance(value, _LongInteger):
            raise InputError(f"an integer of {len(value):,} digits; expected a number of at most {MAX_DIGITS} digits",
                             where=where, field=name or None)
        if isinstance(value, str):
            found = _SURROGATES.search(value)
            if found:
                raise InputError(
                    f"a lone surrogate \\u{ord(found.group()):04x} at character {found.start()}, which is not "
                    "Unicode text; expected text that can be written as UTF-8", where=where, field=name or None)
        elif isinstance(value, dict):
            for key, item in reversed(list(value.items())):
                check_decoded(key, where, f"{name}.<key>" if name else "<key>")
                stack.append((f"{name}.{key}" if name else str(key), item))
        elif isinstance(value, list):
            stack.extend((f"{name}[{i}]", item) for i, item in reversed(list(enumerate(value))))


def json_type_name(value: Any) -> str:
    names = {list: "array", str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def require(obj: dict, key: str, kind: type | tuple[type, ...], where: Location, doc_id: Any = None) -> Any:
    """``obj[key]`` if present and of the expected type, else an InputError naming the field."""
    if key not in obj:
        raise InputError(f"missing; expected {_kind_name(kind)}", where=where, doc_id=doc_id, field=key)
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool) and bool not in _as_tuple(kind):
        raise InputError(
            f"expected {_kind_name(kind)}, got {describe(value)}", where=where, doc_id=doc_id, field=key
        )
    return value


def doc_id_of(obj: dict, key: str, where: Location) -> str:
    """A document id: a string, or an integer written as a string."""
    value = require(obj, key, (str, int), where)
    if isinstance(value, str) and not value:
        raise InputError("empty; expected a non-empty document id", where=where, field=key)
    return str(value)


def parse_labels(raw: Any, where: Location, doc_id: str, field: str = "labels") -> list[str]:
    """Validate a list of non-empty string document labels (duplicates kept once)."""
    if type(raw) is not list or not all(isinstance(x, str) and x.strip() for x in raw):
        raise InputError(
            f"expected a list of non-empty string labels, got {describe(raw)}", where=where, doc_id=doc_id, field=field
        )
    return list(dict.fromkeys(raw))


def parse_tokens(raw: Any, text_len: int, where: Location, doc_id: str, field: str = "tokens") -> np.ndarray:
    """Validate ``[{"start": int, "end": int, ...}, ...]`` and return an (n, 2) offset array."""
    if not isinstance(raw, list):
        raise InputError(f"expected a list of tokens, got {describe(raw)}", where=where, doc_id=doc_id, field=field)
    offsets = _token_offsets(raw, text_len)
    if offsets is not None:
        return offsets
    offsets = np.empty((len(raw), 2), dtype=np.int64)
    previous_end = 0
    for i, token in enumerate(raw):  # the first bad token, for the message
        start = token.get("start") if isinstance(token, dict) else None
        end = token.get("end") if isinstance(token, dict) else None
        if type(start) is not int or type(end) is not int or not previous_end <= start <= end <= text_len:
            raise InputError(
                f"got {describe(token)}; expected {{start, end}} integer offsets in text order, "
                f"within 0..{text_len}",
                where=where, doc_id=doc_id, field=f"{field}[{i}]",
            )
        offsets[i] = start, end
        previous_end = end
    return offsets


def _token_offsets(raw: list, text_len: int) -> np.ndarray | None:
    """The (n, 2) offsets of well-formed tokens in one pass of list comprehensions and array
    checks (a line can hold thousands of tokens), or None when any token is not (the caller then
    finds the first bad one and says what it is)."""
    try:
        starts = [token["start"] for token in raw]
        ends = [token["end"] for token in raw]
    except (TypeError, KeyError, IndexError):
        return None
    if not set(map(type, starts)) | set(map(type, ends)) <= {int}:
        return None
    return ordered_offsets(starts, ends, text_len)


def ordered_offsets(starts: list[int], ends: list[int], text_len: int) -> np.ndarray | None:
    """The (n, 2) array of integer offsets ``0 <= start <= end <= next start ... <= text_len``
    (checked with map over C comparisons: no array per check), or None when they are not so."""
    if starts and (starts[0] < 0 or ends[-1] > text_len or not all(map(le, starts, ends))
                   or not all(map(le, ends, starts[1:]))):
        return None
    offsets = np.empty((len(starts), 2), dtype=np.int64)  # every value is within 0..text_len: fits
    offsets[:, 0], offsets[:, 1] = starts, ends
    return offsets


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "a string", int: "an integer", list: "a list", dict: "an object", float: "a number"}
    return " or ".join(names.get(k, k.__name__) for k in _as_tuple(kind))


def span_objects(corpus, ann: int) -> list[dict]:
    """The spans of annotation ``ann`` as the JSON-lines writers write them, ``{"start", "end", "label"}``."""
    return [{"start": start, "end": end, "label": label} for start, end, label in corpus.annotation_spans(ann)]


def labels_left_out(corpus, format_name: str) -> dict[str, int]:
    """The note for a writer whose format holds no document labels beside spans: how many
    (document, rater) annotations had labels that are not written; empty when none had any."""
    n = len(set(zip(corpus.dl_doc.tolist(), corpus.dl_rater.tolist())))
    return {f"document labels not written ({format_name} output keeps spans only; write spanagree JSONL to keep them)": n} if n else {}
