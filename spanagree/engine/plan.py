"""Planning a run: which files, in which format, cut into chunks at document boundaries.

A chunk is a byte range of one file that starts and ends at a line boundary. Cuts are moved
forward to a *document* boundary: the planner reads the few lines around each cut with the
format's own reader (so it finds the same document keys as the workers will) and moves the cut to
the first line whose document differs from the one before. Input grouped by document therefore
gives chunks that hold whole documents; whatever the input, the driver checks that no document
ended up in two chunks, and reads the documents that did again, whole (see
:mod:`spanagree.engine.local`).
"""
from __future__ import annotations

import glob
import inspect
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..errors import InputError, Location, UsageError
from ..io import detect_format, expand_paths, formats
from ..io.common import _loads
from .chunks import ErrorInfo, Piece, _KeyedBuilder, can_read_ranges, reader_for

#: Largest chunk, in bytes: bounds a worker's memory (a chunk's documents are held while read).
CHUNK_BYTES = 16 * 1024 * 1024
#: Smallest chunk, in bytes (smaller ones cost more in overhead than they gain in balance).
MIN_CHUNK_BYTES = 1024 * 1024
#: Chunks per worker at least, so that the workers finish together.
CHUNKS_PER_JOB = 4
#: How far past a cut the planner looks for a document boundary, in bytes.
PROBE_BYTES = 4 * 1024 * 1024


@dataclass
class FilePlan:
    index: int
    path: Path
    open_path: str
    format: str
    size: int


@dataclass
class Plan:
    files: list[FilePlan]
    chunks: list[Piece]
    options: dict
    #: an error found while planning (a file whose format cannot be told), raised if nothing
    #: earlier in reading order is wrong
    pending_error: ErrorInfo | None = None
    #: why the input cannot be read in ranges (then the serial reader is used), or None
    unsupported: str | None = None

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)


def expand_inputs(paths: str | Path | Sequence[str | Path]) -> list[Path]:
    """Paths to read: glob patterns expanded (sorted), then as :func:`spanagree.io.expand_paths`."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out: list[str | Path] = []
    for p in paths:
        text = str(p)
        if any(ch in text for ch in "*?[") and not Path(text).exists():
            found = sorted(glob.glob(text, recursive=True))
            if not found:
                raise UsageError(f"no files match {text!r}")
            out.extend(found)
        else:
            out.append(p)
    return expand_paths(out)


def make_plan(
    paths, format: str = "auto", options: dict | None = None, *, jobs: int = 1, chunk_bytes: int | None = None
) -> Plan:
    """Files, formats and chunks for a run (see the module docstring)."""
    options = dict(options or {})
    if format != "auto" and format not in formats():
        raise UsageError(f"unknown format {format!r}; expected 'auto' or one of: {', '.join(formats())}")
    files = expand_inputs(paths)
    plan = Plan(files=[], chunks=[], options=options)
    for index, path in enumerate(files):
        if path.is_dir():
            plan.unsupported = f"{path} is a directory in a format read as a whole"
            return plan
        try:
            name = detect_format(path) if format == "auto" else format
        except InputError as err:
            # raised only if no earlier file has an error (the serial reader meets it here)
            plan.pending_error = ErrorInfo("input", err.problem, (index, -1), tuple(err.where), err.doc_id, err.field)
            break
        if not can_read_ranges(name):
            plan.unsupported = f"the {name} format is read by the serial reader"
            return plan
        try:
            size = path.stat().st_size
        except OSError:
            size = 0  # the worker reports the file as missing, with the serial reader's words
        plan.files.append(FilePlan(index, path, os.path.abspath(path), name, size))
    _check_options(plan, format)
    target = chunk_size(plan.total_bytes, jobs, chunk_bytes)
    for f in plan.files:
        plan.chunks.extend(_chunks(f, target, options))
    return plan


def chunk_size(total: int, jobs: int, chunk_bytes: int | None = None) -> int:
    if chunk_bytes is not None:
        return max(1, int(chunk_bytes))
    return int(min(CHUNK_BYTES, max(MIN_CHUNK_BYTES, total // max(1, jobs * CHUNKS_PER_JOB) + 1)))


def _check_options(plan: Plan, format: str) -> None:
    """Reader options no reader of these formats accepts: the serial reader's UsageError."""
    accepted: set[str] = set()
    for name in {f.format for f in plan.files}:
        accepted |= set(inspect.signature(formats()[name].read).parameters) - {"path", "paths", "builder"}
    unknown = set(plan.options) - accepted
    if unknown and plan.files:
        raise UsageError(f"unknown reader option(s) {', '.join(sorted(unknown))} for the formats read")


def _chunks(f: FilePlan, target: int, options: dict) -> list[Piece]:
    """Cut one file into chunks of about ``target`` bytes at document boundaries."""
    cuts = [0]
    if f.size > target:
        with open(f.open_path, "rb") as handle:
            position = target
            while position < f.size:
                cut = _document_boundary(handle, f, position, options)
                if cut >= f.size:
                    break
                if cut > cuts[-1]:
                    cuts.append(cut)
                position = max(cut, position) + target
    cuts.append(f.size)
    return [
        Piece(f.index, str(f.path), f.open_path, f.format, ((start, end, 1 if start == 0 else None),))
        for start, end in zip(cuts[:-1], cuts[1:])
    ]


def _line_start(handle, position: int, size: int) -> int:
    """The first line start at or after ``position``."""
    if position <= 0:
        return 0
    handle.seek(position - 1)
    while True:
        block = handle.read(1 << 16)
        if not block:
            return size
        found = block.find(b"\n")
        if found >= 0:
            return position + found
        position += len(block)


def _previous_line_start(handle, position: int) -> int:
    """The start of the line that ends just before ``position`` (a line start > 0)."""
    end = position - 1  # the b"\n" that ends the previous line
    while end > 0:
        lo = max(0, end - (1 << 16))
        handle.seek(lo)
        block = handle.read(end - lo)
        found = block.rfind(b"\n")
        if found >= 0:
            return lo + found + 1
        end = lo
    return 0


def _document_boundary(handle, f: FilePlan, position: int, options: dict) -> int:
    """A cut at or after ``position`` where the document changes, or the end of the file when
    the document there runs to the end (or the line start after ``position`` when no change is
    found within PROBE_BYTES, or the lines cannot be read: the driver then finds the document in
    two chunks and reads it again whole)."""
    cut = _line_start(handle, position, f.size)
    if cut >= f.size:
        return f.size
    before = _previous_line_start(handle, cut)
    handle.seek(before)
    window = handle.read(cut - before + PROBE_BYTES)
    builder = _KeyedBuilder()
    probe = _Probe(f, before, window, cut, builder)
    reader = reader_for(f.format, probe)
    accepted = set(inspect.signature(formats()[f.format].read).parameters) - {"path", "paths", "builder"}
    try:
        reader(Path(str(f.path)), builder, **{k: v for k, v in options.items() if k in accepted})
    except (InputError, UsageError):
        return cut  # the worker reading this line reports it
    return probe.boundary if probe.boundary is not None else cut


class _Probe:
    """Lines from just before a cut, through the reader, until the document changes."""

    def __init__(self, f: FilePlan, start: int, window: bytes, cut: int, builder: _KeyedBuilder) -> None:
        self.f, self.start, self.window, self.cut, self.builder = f, start, window, cut, builder
        self.boundary: int | None = None

    def lines(self, path, tick=None):
        builder_key = None
        previous = None  # key of the last line that had one
        offset = self.start
        lines = io.BytesIO(self.window).readlines()
        # the last line of the window may be cut short: leave it out
        if lines and not lines[-1].endswith(b"\n") and self.start + len(self.window) < self.f.size:
            lines.pop()
        for raw in lines:
            line_start = offset
            offset += len(raw)
            if not raw.strip():
                continue
            try:
                obj = _loads(raw)
            except ValueError:
                return
            if type(obj) is not dict:
                return
            self.builder.line_key = None
            # line numbers only matter for errors, which end the probe; never 1 after a cut
            yield Location(str(path), 2), obj
            builder_key = self.builder.line_key
            if builder_key is None:
                continue
            if line_start >= self.cut and previous is not None and builder_key != previous:
                self.boundary = line_start
                return
            previous = builder_key
        if self.start + len(self.window) >= self.f.size:
            self.boundary = self.f.size  # the last document runs to the end of the file
