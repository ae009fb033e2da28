"""Choosing how a run reads: into memory, or chunk by chunk with an engine (bounded memory).

Reading into memory holds every span and text: about four times the file's size (a 162 MB
file of 100,000 documents × 3 raters peaks at 614 MB, 1.6 GB at 5.6 GB). The engines hold one
chunk's documents per worker plus compact counts, so their memory does not grow with the corpus,
and they use every core. Nothing asked, :func:`choose_mode` sends input of at least
:data:`AUTO_ENGINE_BYTES`, grouped by document and in a format the engines read in ranges, to the
engine on every core, and says so; smaller input, input not grouped (the engines would read
its documents twice) and runs that need the spans themselves stay in memory.

This module imports the planner only when the input is large, so that a small run pays nothing
for the choice.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..io import expand_globs


#: Input at least this large, in bytes (all files together), grouped by document and in a format
#: the engines read in ranges, is counted by the engine on every core when nothing asks otherwise
#: (measured: bench/RESULTS.md, "Bounded memory by default").
AUTO_ENGINE_BYTES = 64 * 1024 * 1024


class AutoEngineWarning(UserWarning):
    """Nothing asked for an engine, and the input was large and grouped: an engine counted it."""


@dataclass(frozen=True)
class Mode:
    """How a run reads and counts its input: ``engine`` False for the in-memory path; else
    with ``jobs`` processes (0: every core; 1: this process, one chunk at a time). ``note``
    says why, when the choice was made here rather than asked for."""

    engine: bool
    jobs: int = 1
    note: str | None = None


def asked_for_engine(jobs: int | None, stream: bool | None, engine: str = "local", client=None) -> bool:
    """True when the options themselves ask for an engine (workers, streaming or Dask)."""
    return engine != "local" or client is not None or (jobs is not None and jobs != 1) or bool(stream)


def choose_mode(
    paths, format: str = "auto", options: dict | None = None, *, jobs: int | None = None,
    stream: bool | None = None, engine: str = "local", client=None, needs_spans: bool = False,
) -> Mode:
    """The in-memory path or an engine, for ``spanagree.score(paths, ...)``.

    Asked for (:func:`asked_for_engine`), an engine runs, with ``jobs`` processes. ``stream=False``
    keeps the in-memory path, as does anything that ``needs_spans`` (candidates, unitizing, the
    per-rater view, the pages that show texts). Otherwise (``stream=None``) input of at least
    :data:`AUTO_ENGINE_BYTES`, grouped by document and in a format the engines read in ranges, is
    counted on every core (with ``jobs=1``: in this process, one chunk at a time), with a note
    that says so; anything else is read in memory.
    """
    if asked_for_engine(jobs, stream, engine, client):
        return Mode(True, 1 if jobs is None else jobs)
    if stream is False or needs_spans:
        return Mode(False)
    size, why_not = _large_and_grouped(paths, format, options or {})
    if why_not is not None:
        return Mode(False)
    how = "in this process, one chunk at a time" if jobs == 1 else "on every core"
    note = (
        f"the input is large ({size / 2**20:,.0f} MB) and grouped by document: read and counted {how}, "
        "holding counts rather than spans (--no-stream reads it into memory)"
    )
    return Mode(True, 1 if jobs == 1 else 0, note)


def _regular_files(paths) -> list[Path] | None:
    """The files ``paths`` stand for (patterns expanded, a directory's ``*.jsonl``), or None when
    one is missing or not a regular file. Nothing is opened: a named pipe or ``/dev/stdin`` can
    be read only once, and that read is the reader's."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    try:
        given = list(paths)
    except TypeError:
        return None
    files: list[Path] = []
    try:
        for p in given:
            for name in map(Path, expand_globs([p])):
                inside = sorted(name.glob("*.jsonl")) if name.is_dir() else [name]
                if not inside or not all(f.is_file() for f in inside):
                    return None
                files.extend(inside)
    except (OSError, UsageError):  # a name the system refuses, a pattern matching nothing: the reader says so
        return None
    return files or None


def _large_and_grouped(paths, format: str, options: dict) -> tuple[int, str | None]:
    """The input's size, and None when it is large, grouped and read in ranges (else why not)."""
    files = _regular_files(paths)
    if files is None:
        return 0, "not regular files (a stream is read once, by the reader)"
    size = sum(f.stat().st_size for f in files)
    if size < AUTO_ENGINE_BYTES:
        return size, "small"
    from . import plan  # the planner and the readers' range machinery: only for large input

    return size, plan.why_not_grouped(files, format, options)
