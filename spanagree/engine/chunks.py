"""The worker side of the engines: read byte ranges of JSONL files, align, count, return arrays.

A :class:`Task` names byte ranges of one or more files. The worker reads them with the package's
own readers (:mod:`spanagree.io.jsonl`, :mod:`spanagree.io.prodigy`), so every line gets exactly
the validation and the error message it gets from :func:`spanagree.read`; only the source of the
lines changes: the reader gets them through its ``lines`` argument from :meth:`_Source.lines`,
which yields the lines of the ranges with their real line numbers. A :class:`KeyedBuilder` notes the
document key of every line, so the worker also returns where each document's lines are (the
*groups*: runs of consecutive lines of one document) for the driver's checks and fallback.

The worker then builds the (small) Corpus of its documents, runs :func:`spanagree.core.counts.count`
on it, and returns a :class:`~spanagree.engine.merge.Partial`: per-comparison count arrays, document
ids and counters, without spans or texts. Input and usage errors come back as
:class:`ErrorInfo` (an exception with keyword arguments does not survive pickling), with the
position of the line, so the driver can report the first one in reading order.
"""
from __future__ import annotations

import gc
import hashlib
import inspect
import io
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter
from pathlib import Path
from typing import Any, Callable, Hashable, Iterator

import numpy as np

from ..core.align import AlignmentRule
from ..core.counts import count
from ..errors import InputError, Location, UsageError
from ..io import formats, reader_options
from ..io.common import json_type_name, loads_json, newline_offsets, parse_line_slowly, open_binary, split_blocks
from ..core.builder import CorpusBuilder
from .merge import Partial

_DOC_ID = attrgetter("doc_id")
#: Formats the engines read in ranges: their readers go through ``json_lines``.
RANGE_FORMATS = ("spanagree", "prodigy")
#: Position of an error found after reading (e.g. a usage error from counting): after every line.
AFTER_INPUT = (1 << 62, 1 << 62)


@dataclass(frozen=True)
class Piece:
    """Byte ranges of one file. ``ranges`` are ``(start, end, first_line)``; ``first_line`` is
    the line number of the range's first line, or None when not known yet (then lines are numbered
    from an offset no real file reaches, and an error is re-read with the right number)."""

    file: int
    name: str
    open_path: str
    format: str
    ranges: tuple[tuple[int, int, int | None], ...]


@dataclass(frozen=True)
class Job:
    """What every task of a run shares: the rule, the unit, the search and the reader options."""

    rule: AlignmentRule
    unit: str = "char"
    search: str = "sweep"
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class Task:
    """One unit of work: pieces read in order into one builder, then aligned and counted.
    With ``record_groups`` (the first pass), each piece has one range (a chunk)."""

    index: int
    pieces: tuple[Piece, ...]
    job: Job
    record_groups: bool = True


@dataclass
class ErrorInfo:
    """An input or usage error, in a form that pickles, with where it happened."""

    kind: str  # "input" or "usage"
    message: str
    position: tuple[int, int]  # (file index, byte offset of the line)
    where: tuple[str | None, int | None] = (None, None)
    doc_id: Any = None
    field: str | None = None
    line_known: bool = True

    def exception(self) -> Exception:
        if self.kind == "usage":
            return UsageError(self.message)
        return InputError(self.message, where=Location(*self.where), doc_id=self.doc_id, field=self.field)


@dataclass
class Groups:
    """Runs of consecutive lines of one document in one file: key hash, byte range (start and
    size), first line (as numbered in the task), one row per run, in file order."""

    file: int
    key: np.ndarray
    start: np.ndarray
    size: np.ndarray
    line: np.ndarray

    @property
    def end(self) -> np.ndarray:
        return self.start + self.size


@dataclass
class PieceResult:
    """What a task saw of one of its pieces."""

    newlines: int = 0  # b"\n" in the piece's ranges (a chunk's share of the line numbers)
    data_lines: int = 0  # lines with a record
    groups: Groups | None = None  # the first pass's runs of lines of one document


@dataclass
class TaskResult:
    index: int
    partial: Partial | None = None
    error: ErrorInfo | None = None
    pieces: list[PieceResult] = field(default_factory=list)
    n_bytes: int = 0


def run_task(task: Task) -> TaskResult:
    """Read, align and count one task (the function the process pool and Dask call)."""
    paused = gc.isenabled()
    gc.disable()  # as in spanagree.read: many short-lived dicts, no cycles
    try:
        return _run(task)
    finally:
        if paused:
            gc.enable()


def _run(task: Task) -> TaskResult:
    result = TaskResult(task.index, pieces=[PieceResult() for _ in task.pieces])
    builder = KeyedBuilder()
    recorders = [_GroupRecorder(piece.file) if task.record_groups else None for piece in task.pieces]
    options = dict(task.job.options)
    piece = None
    try:
        for piece, seen, recorder in zip(task.pieces, result.pieces, recorders):
            source = _Source(piece, builder, recorder, seen, result)
            reader = reader_for(piece.format, source)
            accepted = reader_options(formats()[piece.format].read)
            reader(Path(piece.name), builder, **{k: v for k, v in options.items() if k in accepted})
        piece = None
        corpus = builder.build()
        counts = count(corpus, task.job.rule, unit=task.job.unit, search=task.job.search)
        result.partial = Partial.from_counts(corpus, counts)
    except InputError as err:
        position = AFTER_INPUT
        if piece is not None:
            position = (piece.file, source.offset_of(err.where))
        result.error = ErrorInfo(
            "input", err.problem, position, tuple(err.where), err.doc_id, err.field,
            line_known=piece is None or source.line_known,
        )
    except UsageError as err:
        result.error = ErrorInfo("usage", err.args[0] if err.args else str(err), AFTER_INPUT)  # spelled where shown
    except OSError as err:  # the system refused a read (an I/O error, a file removed meanwhile)
        position = AFTER_INPUT if piece is None else (piece.file, source.line_offset)
        where = (piece.name if piece is not None else err.filename, None)
        result.error = ErrorInfo("input", f"cannot be read ({err.strerror or err})", position, where, None, None,
                                 line_known=False)
    for seen, recorder in zip(result.pieces, recorders):
        if recorder is not None:
            seen.groups = recorder.arrays()
    return result


def reader_for(format_name: str, source: "_Source") -> Callable[..., None]:
    """The format's reader, fed the lines of the source's byte ranges through its ``lines``."""
    read = formats()[format_name].read

    def read_ranges(path: Path, builder: CorpusBuilder, **options: Any) -> None:
        if hasattr(source, "blocks") and "blocks" in inspect.signature(read).parameters:
            read(path, builder, blocks=source.blocks(path), **options)
        else:
            read(path, builder, lines=source.lines(path, builder.tick), **options)

    return read_ranges


def can_read_ranges(format_name: str) -> bool:
    """True when the format's reader takes its lines through ``lines`` (so ranges can be fed)."""
    fmt = formats().get(format_name)
    return (
        fmt is not None and fmt.name in RANGE_FORMATS and not fmt.together
        and "lines" in inspect.signature(fmt.read).parameters
    )


def key_hash(key: Hashable) -> int:
    """A 64-bit hash of a document key that is the same in every process (unlike ``hash``)."""
    digest = hashlib.blake2b(repr(key).encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1  # fits int64


class KeyedBuilder(CorpusBuilder):
    """A CorpusBuilder that notes the document key of the line being read (``line_key``)."""

    def __init__(self) -> None:
        super().__init__()
        self.line_key: Hashable | None = None

    def about(self, key) -> None:
        if self.line_key is None:
            self.line_key = key

    def document(self, key, *args, **kwargs):
        self.about(key)
        return super().document(key, *args, **kwargs)

    def skip(self, key, *args, **kwargs):
        self.about(key)
        return super().skip(key, *args, **kwargs)

    def add(self, key, *args, **kwargs):
        self.about(key)
        return super().add(key, *args, **kwargs)

    def add_labels(self, key, *args, **kwargs):
        self.about(key)
        return super().add_labels(key, *args, **kwargs)

    def add_unchecked(self, key, doc_id, text, rater, raw_spans, where, tokens=None):  # once per line: no *args
        if self.line_key is None:
            self.line_key = key
        return super().add_unchecked(key, doc_id, text, rater, raw_spans, where, tokens)


class _GroupRecorder:
    """Collects runs of consecutive lines that belong to one document (the first pass's index).

    A line that registers no document (it is only counted, e.g. a Prodigy choice answered
    ``reject``) is a run of its own, under a key no document has.
    """

    def __init__(self, file: int) -> None:
        self.file = file
        self.rows: list[tuple[int, int, int, int]] = []  # key hash, start, end, first line
        self._key: Hashable | None = None
        self._run: list[int] | None = None  # [hash, start, end, line] of the open run

    def line(self, key: Hashable | None, start: int, end: int, number: int) -> None:
        run = self._run
        if run is not None and key is not None and key == self._key:
            run[2] = end
            return
        if run is not None:
            self.rows.append(tuple(run))
        self._key = key
        h = key_hash(key) if key is not None else key_hash(("line", self.file, start))
        self._run = [h, start, end, number]

    def arrays(self) -> Groups:
        if self._run is not None:
            self.rows.append(tuple(self._run))
            self._run = None
        table = np.array(self.rows, dtype=np.int64).reshape(-1, 4)
        size = table[:, 2] - table[:, 1]
        return Groups(
            self.file, table[:, 0].copy(), table[:, 1].copy(),
            size.astype(np.uint32 if not len(size) or size.max() < 2**32 else np.int64), table[:, 3].copy(),
        )


#: Line numbers of a chunk whose first line number is not known yet start here (never 1, so
#: the byte-order-mark rule of line 1 does not apply; far beyond any real line number).
UNKNOWN_LINE_BASE = 1 << 50


class _Source:
    """The lines of one piece, as ``json_lines`` yields them, with real line numbers."""

    def __init__(
        self, piece: Piece, builder: KeyedBuilder, recorder: _GroupRecorder | None, seen: PieceResult,
        result: TaskResult,
    ):
        self.piece = piece
        self.builder = builder
        self.recorder = recorder
        self.seen = seen
        self.result = result
        self.line_offset = 0
        self.line_known = True
        # where the recent lines start, by line number: a reader may report a bad line a few
        # hundred lines after reading it (it checks spans a block of lines at a time)
        self._recent_offsets: dict[int, int] = {}
        self._older_offsets: dict[int, int] = {}

    def offset_of(self, where: Location | None) -> int:
        """The byte offset of the line ``where`` names, when it was read recently; else the
        offset of the line read last."""
        line = None if where is None else where.line
        found = self._recent_offsets.get(line)
        if found is None:
            found = self._older_offsets.get(line, self.line_offset)
        return found

    def lines(self, path, tick=None) -> Iterator[tuple[Location, dict]]:
        """Mirror of :func:`spanagree.io.common.json_lines` over the piece's ranges (the reader
        passes its path; the empty-file check is the driver's, over all of a file's ranges)."""
        self.name = str(path)
        for start, data, number in self._ranges():
            self.seen.newlines += data.count(b"\n")
            yield from self.rest(number, data, 0, start)

    def blocks(self, path) -> "_Blocks":
        """The piece's ranges as blocks of whole lines, for a reader that takes them
        (:func:`spanagree.io.jsonl.read_spanagree`): the same lines as :meth:`lines`."""
        self.name = str(path)
        return _Blocks(self)

    def _ranges(self) -> Iterator[tuple[int, bytes, int]]:
        """``(byte offset, bytes, first line number)`` of each range, read whole."""
        piece = self.piece
        with open_binary(piece.open_path, self.name) as handle:
            for start, end, first_line in piece.ranges:
                handle.seek(start)
                data = handle.read(end - start)
                self.result.n_bytes += len(data)
                self.line_known = first_line is not None
                self.line_offset = start
                yield start, data, first_line if first_line is not None else UNKNOWN_LINE_BASE

    def rest(self, number: int, data: bytes, offset: int, base: int) -> Iterator[tuple[Location, dict]]:
        """The lines of ``data[offset:]`` (``data`` starts at byte ``base`` of the file, with line
        ``number``; ``offset`` is the start of a line), each noted where it starts and, for the
        first pass, under the document the reader said it is about."""
        builder, recorder, seen, name = self.builder, self.recorder, self.seen, self.name
        number -= 1
        position = base + offset
        recent = self._recent_offsets
        lines = io.BytesIO(data)
        lines.seek(offset)
        for raw in lines:
            number += 1
            line_start = position
            position += len(raw)
            self.line_offset = recent[number] = line_start
            if len(recent) >= 4096:
                self._older_offsets, recent = recent, {}
                self._recent_offsets = recent
            try:
                obj = loads_json(raw)
            except ValueError:
                if not raw.strip():
                    continue
                obj = parse_line_slowly(raw, Location(name, number))
            if type(obj) is not dict:
                raise InputError(
                    f"expected a JSON object per line, got a JSON {json_type_name(obj)}",
                    where=Location(name, number),
                )
            seen.data_lines += 1
            builder.line_key = None
            yield Location(name, number), obj
            if recorder is not None:
                recorder.line(builder.line_key, line_start, position, number)

    def taken(self, number: int, data: bytes, newlines: np.ndarray, base: int, records: list) -> None:
        """Note the block's first ``len(records)`` lines, which a reader took at once, line ``i``
        about the document of ``records[i]`` (its ``doc_id``; every one a document's line: none
        blank). ``newlines``: the offsets of the block's newlines; it starts at byte ``base``."""
        n = len(records)
        line_ends = newlines[:n] + 1
        if len(line_ends) < n:  # the last line has no newline
            line_ends = np.append(line_ends, len(data))
        self.seen.data_lines += n
        self.line_offset = base + int(line_ends[-1]) if n else base
        if self.recorder is None or not records:
            return
        doc_ids = list(map(_DOC_ID, records))
        bounds = (base + np.concatenate([[0], line_ends])).tolist()
        i = 0
        line = self.recorder.line
        for key, run in groupby(doc_ids):
            n = len(list(run))
            line(key, bounds[i], bounds[i + n], number + i)  # a run of lines as one
            i += n


class _Blocks:
    """A piece as blocks of whole lines of about :data:`~spanagree.io.common.BLOCK_BYTES`
    (``(first line number, newline offsets, bytes)``), with :meth:`_Source.taken` and :meth:`_Source.rest` for
    the reader to say what it took at once and to read the rest of a block line by line."""

    whole_file = False  # the empty-file check is the driver's

    def __init__(self, source: _Source) -> None:
        self.source = source
        self.base = 0  # the byte offset of the block last yielded

    def __iter__(self) -> Iterator[tuple[int, np.ndarray, bytes]]:
        seen = self.source.seen
        for start, data, number in self.source._ranges():
            for offset, block in split_blocks(data):
                self.base = start + offset
                newlines = newline_offsets(block)
                seen.newlines += len(newlines)
                yield number, newlines, block
                number += len(newlines)

    def taken(self, number: int, data: bytes, newlines: np.ndarray, records: list) -> None:
        self.source.taken(number, data, newlines, self.base, records)

    def rest(self, number: int, data: bytes, offset: int) -> Iterator[tuple[Location, dict]]:
        return self.source.rest(number, data, offset, self.base)
