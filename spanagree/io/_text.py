"""Plain-text input shared by the non-JSON readers: exact UTF-8 text, numbered lines, a peek."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ..errors import InputError, Location
from .common import open_binary


def read_text(path: Path) -> str:
    """The whole file as UTF-8, newlines untouched (``\\r\\n`` stays two characters), so that
    character offsets into it are exact. A leading byte-order mark is kept: it is a character
    the annotation tool counted too."""
    with open_binary(path) as handle:
        raw = handle.read()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise InputError(
            f"not valid UTF-8 (byte {raw[err.start:err.start + 1]!r}); expected UTF-8 text",
            where=Location(str(path), line),
        ) from None


def text_lines(path: Path) -> Iterator[tuple[Location, str]]:
    """Yield ``(location, line)`` for every line, without its line break (``\\n``, ``\\r\\n`` or a
    lone ``\\r``).

    A byte-order mark at the start of the file is dropped; invalid UTF-8 is an InputError that
    names the line.
    """
    name = str(path)
    for number, line in numbered_lines(path):
        yield Location(name, number), line


def numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    """:func:`text_lines` with bare line numbers, for readers that build a Location only when
    something is wrong."""
    name = str(path)
    number = 0
    with open_binary(path) as handle:
        for raw in handle:
            number += 1
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise InputError(
                    f"not valid UTF-8 (byte {raw[err.start:err.start + 1]!r} at byte {err.start} of the line); "
                    "expected UTF-8 text",
                    where=Location(name, number),
                ) from None
            if number == 1 and line.startswith("\ufeff"):
                line = line[1:]
            ended = line.endswith("\n")
            line = line.rstrip("\r\n")
            if not ended and "\r" in line:  # a file whose lines end in a carriage return alone (classic Mac OS)
                *earlier, line = line.split("\r")
                for piece in earlier:
                    yield number, piece
                    number += 1
            yield number, line


def peek(path: Path, size: int = 8192) -> str | None:
    """The first ``size`` bytes of a regular file as text (undecodable bytes replaced), or None
    when the path is not a readable file. Used by format detection only."""
    try:
        if not path.is_file():
            return None
        with open(path, "rb") as handle:
            head = handle.read(size)
    except OSError:
        return None
    return head.decode("utf-8", errors="replace").lstrip("\ufeff")


def head_lines(path: Path, not_suffixes: tuple[str, ...]) -> list[str]:
    """The non-blank lines among the first 50 of a file (the last one peeked left out: it may be
    cut off), for detecting the formats of a few columns per line; none for a file with one of
    ``not_suffixes`` or that is not a readable file."""
    head = None if path.suffix.lower() in not_suffixes else peek(path)
    if not head:
        return []
    return [line for line in (head.splitlines()[:-1] or head.splitlines())[:50] if line.split()]
