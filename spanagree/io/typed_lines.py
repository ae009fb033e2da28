"""The common spanagree JSONL line, decoded a block of lines at a time into typed records.

Most lines of a spanagree JSONL file are ``{"doc_id", "text", "annotator"?, "spans": [{"start",
"end", "label"}]}`` and nothing else. msgspec decodes a whole block of such lines in one call
(``Decoder.decode_lines``) into :class:`CommonLine` records, checking every field's type as it
goes (integers are integers, not 1.0 or true; labels are strings; no other field), without a
dict per line or per span. :meth:`~spanagree.core.builder.CorpusBuilder.add_lines` then adds the
block's leading run of clean lines at once.

Whatever is not such a line (tokens, document labels, relations, span ids or attributes, a type
or JSON error, a blank line) goes, with every line after it in the block, to the line-by-line
reader (:mod:`spanagree.io.jsonl`), which accepts or names the problem exactly as it always has:
this path only takes lines that reader would take, and takes them the same way.
"""
from __future__ import annotations

import re

import msgspec

from ..core.builder import CorpusBuilder


class CommonSpan(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """``{"start": int, "end": int, "label": str}``, nothing more."""

    start: int
    end: int
    label: str


class CommonLine(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One rater's spans for one document, nothing more (``annotator`` may be left out)."""

    doc_id: str
    text: str
    spans: list[CommonSpan]
    annotator: str | msgspec.UnsetType = msgspec.UNSET


_DECODER = msgspec.json.Decoder(CommonLine)
#: A line that is empty or only white space (``decode_lines`` passes over it; the line numbers
#: of the records after it would be off by one).
_BLANK_LINE = re.compile(rb"\n[ \t\r]*\n")
#: Where msgspec says a record went wrong: ``$[12]`` (the thirteenth record) or ``(byte 345)``.
_RECORD_AT = re.compile(r"`\$\[(\d+)\]")
_BYTE_AT = re.compile(r"\(byte (\d+)\)")


def add_common_lines(
    builder: CorpusBuilder, stem: str, name: str, number: int, newlines: int, data: bytes
) -> tuple[int, list[CommonLine]]:
    """Add the leading common lines of a block (``data``: whole lines, ``newlines`` of them ending
    in a newline, the first being line ``number`` of file ``name``; the rater is ``stem`` where a
    line names none) to ``builder``. Returns the byte offset where the block's remaining lines
    start (0: none was taken) and the records of the lines taken."""
    first_end = data.find(b"\n")
    if not data[:first_end if first_end >= 0 else len(data)].strip() or _BLANK_LINE.search(data):
        return 0, []
    n_lines = total = newlines + (not data.endswith(b"\n"))
    try:
        records = _DECODER.decode_lines(data)
    except (msgspec.DecodeError, ValueError) as error:  # ValidationError is a DecodeError
        n_lines = _first_bad_record(str(error), data)
        if not n_lines:
            return 0, []
        try:
            records = _DECODER.decode_lines(data[:_offset_of_line(data, n_lines)])
        except (msgspec.DecodeError, ValueError):
            return 0, []
    if len(records) != n_lines:  # a line that holds more than one JSON value
        return 0, []
    taken = builder.add_lines(records, name, number, stem, msgspec.UNSET)
    return len(data) if taken == total else _offset_of_line(data, taken), records[:taken]


def _first_bad_record(message: str, data: bytes) -> int:
    """The index of the record (= line: the block has no blank line) msgspec stopped at."""
    found = _RECORD_AT.search(message)
    if found:
        return int(found.group(1))
    found = _BYTE_AT.search(message)
    if found:
        return data.count(b"\n", 0, int(found.group(1)))
    return 0


def _offset_of_line(data: bytes, index: int) -> int:
    """The byte offset where line ``index`` (0-based) of ``data`` starts (``len(data)`` past the last)."""
    offset = 0
    for _ in range(index):
        offset = data.find(b"\n", offset) + 1
        if not offset:
            return len(data)
    return offset
