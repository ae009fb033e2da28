"""The common spanagree JSONL line, decoded a block of lines at a time into typed records.

Most lines of a spanagree JSONL file are ``{"doc_id", "text", "annotator"?, "spans": [{"start",
"end", "label"}], "tokens"?: [{"start", "end"}]}`` and nothing else. msgspec decodes a whole block of such lines in one call
(``Decoder.decode_lines``) into :class:`CommonLine` records, checking every field's type as it
goes (integers are integers, not 1.0 or true; labels are strings; no other field), without a
dict per line or per span. :meth:`~spanagree.core.builder.CorpusBuilder.add_lines` then adds the
block's leading run of clean lines at once.

Whatever is not such a line (document labels, relations, span ids or attributes, a type
or JSON error, a blank line) goes, with every line after it in the block, to the line-by-line
reader (:mod:`spanagree.io.jsonl`), which accepts or names the problem exactly as it always has:
this path only takes lines that reader would take, and takes them the same way.
"""
from __future__ import annotations

import re

import msgspec
import numpy as np

from ..core.builder import CorpusBuilder
from .common import ordered_offsets


class CommonSpan(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """``{"start": int, "end": int, "label": str}``, nothing more."""

    start: int
    end: int
    label: str


class CommonToken(msgspec.Struct, gc=False):
    """``{"start": int, "end": int}``; other fields (a token's text, its id) pass unread."""

    start: int
    end: int


class CommonLine(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One rater's spans for one document, nothing more (``annotator`` and ``tokens`` may be
    left out)."""

    doc_id: str
    text: str
    spans: list[CommonSpan]
    annotator: str | msgspec.UnsetType = msgspec.UNSET
    tokens: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET  # decoded once per document (below)


_DECODER = msgspec.json.Decoder(CommonLine)
_TOKENS = msgspec.json.Decoder(list[CommonToken])
_OPEN_BRACE = ord("{")
#: Where msgspec says a record went wrong: ``$[12]`` (the thirteenth record) or ``(byte 345)``.
_RECORD_AT = re.compile(r"`\$\[(\d+)\]")
_BYTE_AT = re.compile(r"\(byte (\d+)\)")


def add_common_lines(
    builder: CorpusBuilder, stem: str, name: str, number: int, newlines: np.ndarray, data: bytes
) -> tuple[int, list[CommonLine]]:
    """Add the leading common lines of a block (``data``: whole lines, with a newline at each offset
    of ``newlines``, the first being line ``number`` of file ``name``; the rater is ``stem`` where
    a line names none) to ``builder``. Returns the byte offset where the block's remaining lines
    start (0: none was taken) and the records of the lines taken, one per line.

    Only lines that start with ``{`` are tried (so no blank line hides among them and shifts the
    records against the lines), up to the first that does not."""
    total = len(newlines) + (not data.endswith(b"\n"))
    starts = np.concatenate([[0], newlines[: total - 1] + 1])
    not_object = np.flatnonzero(np.frombuffer(data, np.uint8)[starts] != _OPEN_BRACE)
    n_lines = int(not_object[0]) if len(not_object) else total
    if not n_lines:
        return 0, []
    try:
        records = _DECODER.decode_lines(data if n_lines == total else data[: _offset_of_line(newlines, n_lines, data)])
    except (msgspec.DecodeError, ValueError) as error:  # ValidationError is a DecodeError
        n_lines = _first_bad_record(str(error), newlines)
        if not n_lines:
            return 0, []
        try:
            records = _DECODER.decode_lines(data[: _offset_of_line(newlines, n_lines, data)])
        except (msgspec.DecodeError, ValueError):
            return 0, []
    if len(records) != n_lines:  # a line that holds more than one JSON value
        return 0, []
    tokens = _token_offsets(records)
    if tokens is not None and len(tokens) < len(records):  # a bad token list: that line on, line by line
        records = records[:len(tokens)]
    taken = builder.add_lines(records, name, number, stem, msgspec.UNSET, tokens)
    return _offset_of_line(newlines, taken, data), records[:taken]


def _token_offsets(records: list[CommonLine]) -> list[np.ndarray | None] | None:
    """Each record's token offsets as an (n, 2) array (None: no tokens), up to the first record
    whose tokens are not a list of tokens in text order within its text (the list stops there);
    None when no record has tokens. A document's lines one after another with the same tokens
    (the same JSON) share one array, as the line-by-line reader shares it; the tokens of the
    others are decoded here, as they are needed (a document's raters repeat them)."""
    if all(record.tokens is msgspec.UNSET for record in records):
        return None
    out: list[np.ndarray | None] = []
    previous, previous_offsets = None, None  # the last record with tokens, and its offsets
    for record in records:
        tokens = record.tokens
        if tokens is msgspec.UNSET:
            out.append(None)
            continue
        if previous is not None and previous.doc_id == record.doc_id and previous.tokens == tokens:
            out.append(previous_offsets)
        else:
            try:
                tokens = _TOKENS.decode(tokens)
            except (msgspec.DecodeError, ValueError):
                break
            offsets = ordered_offsets([token.start for token in tokens], [token.end for token in tokens], len(record.text))
            if offsets is None:
                break
            out.append(offsets)
        previous, previous_offsets = record, out[-1]
    return out


def _first_bad_record(message: str, newlines: np.ndarray) -> int:
    """The index of the record (= line: every line holds an object) msgspec stopped at."""
    found = _RECORD_AT.search(message)
    if found:
        return int(found.group(1))
    found = _BYTE_AT.search(message)
    if found:
        return int(np.searchsorted(newlines, int(found.group(1))))
    return 0


def _offset_of_line(newlines: np.ndarray, index: int, data: bytes) -> int:
    """The byte offset where line ``index`` (0-based) starts (``len(data)`` past the last)."""
    return int(newlines[index - 1]) + 1 if 0 < index <= len(newlines) else 0 if index <= 0 else len(data)
