"""Planning a run: which files, in which format, cut into chunks at document boundaries.

A chunk is a byte range of one file that starts and ends at a line boundary. Cuts are moved to a
*document* boundary: the planner reads the few lines around each cut with the format's own
reader (so it finds the same document keys as the workers will) and moves the cut to the first
line whose document differs from the one before. Input grouped by document therefore gives chunks
that hold whole documents.

One file per rater, in the same document order, is grouped too, across files: the planner
recognises it (the files' first documents are largely the same), cuts the first file as above,
and cuts every other file at the same document, found near the same share of the file by the
order of the documents around the first file's cut. A first-pass task then reads the same
documents from every file. Whatever the input and however well the cuts line up, the driver checks
that no document was read by two tasks, and reads the documents that were again, whole (see
:mod:`spanagree.engine.driver`).
"""
from __future__ import annotations

import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Hashable

from ..core.files import is_folder
from ..errors import InputError, Location, UsageError
from ..io import detect_format, expand_paths, formats, reader_options
from ..io.common import loads_json
from .chunks import ErrorInfo, Piece, KeyedBuilder, can_read_ranges, reader_for

#: Largest chunk, in bytes: bounds a worker's memory (a chunk's documents are held while read).
#: With ``--jobs 1`` that memory sits on the results the process already holds: on 1M documents
#: 16 MB chunks peaked at 544 MB, 2 MB chunks at 482 MB, at the same speed (bench/RESULTS.md).
CHUNK_BYTES = 2 * 1024 * 1024
#: Smallest chunk, in bytes (smaller ones cost more in overhead than they gain in balance).
MIN_CHUNK_BYTES = 1024 * 1024
#: Chunks per worker at least, so that the workers finish together (the last chunk of one worker
#: is time the other waits; see bench/RESULTS.md, "Bounded memory by default, every core").
CHUNKS_PER_JOB = 8
#: How far past a cut the planner looks for a document boundary, in bytes.
PROBE_BYTES = 4 * 1024 * 1024
#: The first window read past a cut (it grows to PROBE_BYTES when no boundary is in it).
FIRST_PROBE_BYTES = 64 * 1024
#: Bytes read on each side of a cut to learn the order of the documents around it.
ALIGN_BYTES = 64 * 1024
#: Documents at the start of each file compared to recognise one file per rater.
LEADING_DOCUMENTS = 64
#: Bytes read at the start and in the middle of each file to tell whether it is grouped
#: (:func:`why_not_grouped`, for :mod:`spanagree.engine.mode`).
GROUPED_PROBE_BYTES = 256 * 1024


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
    #: chunks read together by each first-pass task (indices into ``chunks``)
    tasks: list[tuple[int, ...]] = field(default_factory=list)
    #: an error found while planning (a file whose format cannot be told), raised if nothing
    #: earlier in reading order is wrong
    pending_error: ErrorInfo | None = None
    #: why the input cannot be read in ranges (then the serial reader is used), or None
    unsupported: str | None = None
    #: files cut at the same documents as the first file (one file per rater)
    aligned: bool = False

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)


def make_plan(
    paths, format: str = "auto", options: dict | None = None, *, jobs: int = 1, chunk_bytes: int | None = None
) -> Plan:
    """Files, formats, chunks and first-pass tasks for a run (see the module docstring)."""
    options = dict(options or {})
    if format != "auto" and format not in formats():
        raise UsageError(f"unknown format {format!r}; expected 'auto' or one of: {', '.join(formats())}")
    files = expand_paths(paths)
    plan = Plan(files=[], chunks=[], options=options)
    for index, path in enumerate(files):
        if is_folder(path):
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
    _check_options(plan)
    target = chunk_size(plan.total_bytes, jobs, chunk_bytes)
    cuts = _aligned_cuts(plan.files, target, options) if len(plan.files) > 1 else None
    plan.aligned = cuts is not None
    if cuts is None:
        cuts = [_cuts(f, target, options) for f in plan.files]
    by_task: dict[int, list[int]] = {}
    for f, file_cuts in zip(plan.files, cuts):
        for k, (start, end) in enumerate(zip(file_cuts[:-1], file_cuts[1:])):
            if end <= start and f.size:
                continue
            by_task.setdefault(k if plan.aligned else len(by_task), []).append(len(plan.chunks))
            first_line = 1 if start == 0 else None
            plan.chunks.append(Piece(f.index, str(f.path), f.open_path, f.format, ((start, end, first_line),)))
    plan.tasks = [tuple(chunks) for _, chunks in sorted(by_task.items())]
    return plan


def chunk_size(total: int, jobs: int, chunk_bytes: int | None = None) -> int:
    if chunk_bytes is not None:
        return max(1, int(chunk_bytes))
    return int(min(CHUNK_BYTES, max(MIN_CHUNK_BYTES, total // max(1, jobs * CHUNKS_PER_JOB) + 1)))


def _check_options(plan: Plan) -> None:
    """Reader options no reader of these formats accepts: the serial reader's UsageError."""
    accepted = set().union(*(_accepted(f.format) for f in plan.files))
    unknown = set(plan.options) - accepted
    if unknown and plan.files:
        raise UsageError(f"unknown reader option(s) {', '.join(sorted(unknown))} for the formats read")


def _accepted(format_name: str) -> set[str]:
    return reader_options(formats()[format_name].read)


# --- cutting one file ------------------------------------------------------------------------


def _cuts(f: FilePlan, target: int, options: dict) -> list[int]:
    """Cut offsets of one file, about ``target`` bytes apart, at document boundaries."""
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
    return cuts


def _line_start(handle, position: int, size: int) -> int:
    """The first line start at or after ``position``."""
    if position <= 0:
        return 0
    if position >= size:
        return size
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
    two tasks and reads it again whole)."""
    cut = _line_start(handle, position, f.size)
    if cut >= f.size:
        return f.size
    before = _previous_line_start(handle, cut)
    # windows growing from FIRST_PROBE_BYTES: a document boundary is usually a few lines away,
    # and the planner's reading is serial work in the parent
    window = min(FIRST_PROBE_BYTES, PROBE_BYTES)
    while True:
        keys, complete = _window_keys(handle, f, before, cut + window, options, stop_after=cut)
        previous = None
        for start, key in keys:
            if key is None:
                continue
            if start >= cut and previous is not None and key != previous:
                return start
            previous = key
        if complete and cut + window >= f.size:
            return f.size  # the last document runs to the end of the file
        if not complete or window >= PROBE_BYTES:
            return cut
        window = min(window * 8, PROBE_BYTES)


def _window_keys(
    handle, f: FilePlan, start: int, end: int, options: dict, stop_after: int | None = None
) -> tuple[list[tuple[int, Hashable | None]], bool]:
    """``(line start, document key)`` of the lines from ``start`` (a line start) up to ``end``,
    read with the format's reader; and whether every line was read (False when a line could not
    be read: the keys stop before it). With ``stop_after``, reading stops at the first document
    change after that offset."""
    handle.seek(start)
    window = handle.read(max(0, min(end, f.size) - start))
    lines = io.BytesIO(window).readlines()
    if lines and not lines[-1].endswith(b"\n") and start + len(window) < f.size:
        lines.pop()  # cut short by the window
    builder = KeyedBuilder()
    probe = _WindowSource(start, lines, builder, stop_after)
    reader = reader_for(f.format, probe)
    try:
        reader(Path(str(f.path)), builder, **{k: v for k, v in options.items() if k in _accepted(f.format)})
    except (InputError, UsageError):
        return probe.keys, False  # the worker reading this line reports it
    return probe.keys, probe.complete


class _WindowSource:
    """Lines of a window, through the reader, noting each line's document key."""

    def __init__(self, start: int, lines: list[bytes], builder: KeyedBuilder, stop_after: int | None) -> None:
        self.start, self.raw_lines, self.builder, self.stop_after = start, lines, builder, stop_after
        self.keys: list[tuple[int, Hashable | None]] = []
        self.complete = False

    def lines(self, path, tick=None):
        offset = self.start
        previous = None
        for raw in self.raw_lines:
            line_start = offset
            offset += len(raw)
            if not raw.strip():
                continue
            try:
                obj = loads_json(raw)
            except ValueError:
                return
            if type(obj) is not dict:
                return
            self.builder.line_key = None
            # line numbers only matter for errors, which end the probe; never 1 (the BOM rule)
            yield Location(str(path), 2), obj
            key = self.builder.line_key
            self.keys.append((line_start, key))
            if self.stop_after is not None and key is not None:
                if line_start >= self.stop_after and previous is not None and key != previous:
                    return
                previous = key
        self.complete = True


# --- one file per rater: cutting every file at the same documents ----------------------------


def _aligned_cuts(files: list[FilePlan], target: int, options: dict) -> list[list[int]] | None:
    """Cuts of every file at the documents where the first file is cut, or None when the files
    do not look like one file per rater in the same document order."""
    handles = [open(f.open_path, "rb") for f in files]
    try:
        leading = []
        for f, handle in zip(files, handles):
            keys, _ = _window_keys(handle, f, 0, min(f.size, ALIGN_BYTES), options)
            leading.append([k for _, k in keys if k is not None][:LEADING_DOCUMENTS])
        first = set(leading[0])
        if any(not keys or len(first & set(keys)) * 2 < min(len(first), len(keys)) for keys in leading):
            return None
        lead, lead_handle = files[0], handles[0]
        lead_size = max(lead.size, 1)
        base_cuts = _cuts(lead, max(1, int(target * lead.size / max(1, sum(f.size for f in files)))), options)
        orders: dict[tuple[int, int], tuple[dict[Hashable, int], int]] = {}

        def order_at(cut: int, radius: int):
            if (cut, radius) not in orders:
                orders[cut, radius] = _order_around(lead_handle, lead, cut, radius, options)
            return orders[cut, radius]

        cuts = [base_cuts]
        for f, handle in zip(files[1:], handles[1:]):
            mine = [0]
            for cut in base_cuts[1:-1]:
                guess = _aligned_cut(handle, f, int(cut * f.size / lead_size), lambda r: order_at(cut, r), options)
                mine.append(max(guess, mine[-1]))
            mine.append(f.size)
            cuts.append(mine)
        return cuts
    finally:
        for handle in handles:
            handle.close()


def _order_around(handle, f: FilePlan, cut: int, radius: int, options: dict) -> tuple[dict[Hashable, int], int]:
    """Ranks of the documents read within ``radius`` bytes of a cut of the first file (in file
    order), and the rank of the document the cut starts."""
    start = _previous_line_start(handle, _line_start(handle, max(0, cut - radius), f.size)) if cut > radius else 0
    keys, _ = _window_keys(handle, f, start, cut + radius, options)
    rank: dict[Hashable, int] = {}
    at_cut = None
    for line_start, key in keys:
        if key is None:
            continue
        r = rank.setdefault(key, len(rank))
        if at_cut is None and line_start >= cut:
            at_cut = r
    return rank, (len(rank) if at_cut is None else at_cut)


def _aligned_cut(handle, f: FilePlan, guess: int, order_at, options: dict) -> int:
    """The first line of ``f``, near ``guess``, of the first document ranked at or after the
    first file's cut (``order_at(radius)`` gives the ranks around it); a document boundary near
    ``guess`` when the order cannot tell."""
    if guess <= 0:
        return 0
    if guess >= f.size:
        return f.size
    radius = ALIGN_BYTES
    rank, target = order_at(radius)
    low = _line_start(handle, max(0, guess - radius), f.size)
    before_is_earlier = low == 0  # every known document before ``low`` ranks before the cut
    for _ in range(24):
        keys, _ = _window_keys(handle, f, low, low + 2 * radius, options)
        known = [(start, key, rank[key]) for start, key in keys if key is not None and key in rank]
        if not known:  # no document of the first file's neighbourhood here: look wider
            if radius >= ALIGN_BYTES * 16:
                break
            radius *= 2
            rank, target = order_at(radius)
            low = _line_start(handle, max(0, guess - radius), f.size)
            before_is_earlier = low == 0
            continue
        if known[0][2] >= target and not before_is_earlier:  # the cut may be before this window
            low = _line_start(handle, max(0, low - 2 * radius), f.size)
            before_is_earlier = low == 0
            continue
        after = next((i for i, item in enumerate(known) if item[2] >= target), None)
        if after is None:  # the cut is after this window
            if low + 2 * radius >= f.size:
                return f.size
            low, before_is_earlier = keys[-1][0], True
            continue
        start, key = known[after][0], known[after][1]
        # back to the first line of that document's run
        lines = [k for k in keys if k[0] <= start]
        for line_start, other in reversed(lines[:-1]):
            if other != key:
                break
            start = line_start
        return start
    return _document_boundary(handle, f, guess, options)



# --- is large input grouped? (for the choice of mode, spanagree.engine.mode) --------------------


def why_not_grouped(files: list[Path], format: str, options: dict) -> str | None:
    """None when every file is in a format read in ranges and grouped by document as far as
    :data:`GROUPED_PROBE_BYTES` at its start and middle tell; else why not."""
    if format != "auto" and format not in formats():
        return "an unknown format"
    plans = []
    for index, path in enumerate(files):
        try:
            name = detect_format(path) if format == "auto" else format
        except InputError:
            return "a format that cannot be told"
        if not can_read_ranges(name):
            return f"the {name} format is read by the serial reader"
        plans.append(FilePlan(index, path, os.path.abspath(path), name, path.stat().st_size))
    if set(options) - set().union(*(_accepted(f.format) for f in plans)):
        return "reader options the engines' formats do not take"
    if not all(_grouped(f, options) for f in plans):
        return "not grouped by document"
    return None


def _grouped(f: FilePlan, options: dict) -> bool:
    """True when the lines read at the start and in the middle of the file come in runs of one
    document each (no document's lines resume after another document's)."""
    options = {k: v for k, v in options.items() if k in _accepted(f.format)}
    with open(f.open_path, "rb") as handle:
        for position in (0, f.size // 2):
            start = _line_start(handle, position, f.size)
            keys, _ = _window_keys(handle, f, start, start + GROUPED_PROBE_BYTES, options)
            named = [k for _, k in keys if k is not None]
            runs = [k for i, k in enumerate(named) if i == 0 or named[i - 1] != k]
            if len(runs) != len(set(runs)):
                return False
    return True
