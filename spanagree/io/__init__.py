"""Readers: one module per format, a registry by format name, and auto-detection.

``read(paths, format="auto")`` streams every file into one :class:`~spanagree.model.Corpus`.
Auto-detection looks at the first record of each file; ``format=`` forces a reader.
"""
from __future__ import annotations

import gc
import inspect
from itertools import islice
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..errors import InputError, Location, UsageError
from ..model import Corpus, CorpusBuilder
from . import jsonl, prodigy
from .common import json_lines

#: format name -> (reader, recogniser of a file's first record)
READERS: dict[str, tuple[Callable[..., None], Callable[[dict], bool]]] = {
    prodigy.FORMAT: (prodigy.read_prodigy, prodigy.looks_like),
    jsonl.FORMAT: (jsonl.read_spanagree, jsonl.looks_like),
}


def detect_format(path: Path) -> str:
    """The format of a file, from its first record (errors in that record are raised as read)."""
    first = next(islice(json_lines(path), 1))[1]
    for name, (_, looks_like) in READERS.items():
        if looks_like(first):
            return name
    raise InputError(
        f"cannot tell the format from the first record (keys: {', '.join(sorted(first)) or 'none'}); "
        f"expected one of: {', '.join(READERS)}; name it with --format",
        where=Location(str(path), 1),
    )


def expand_paths(paths: str | Path | Iterable[str | Path]) -> list[Path]:
    """Files to read: the paths given, with a directory standing for its ``*.jsonl`` files."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            inside = sorted(p.glob("*.jsonl"))
            if not inside:
                raise InputError("a directory with no *.jsonl files in it", where=Location(str(p)))
            files.extend(inside)
        else:
            files.append(p)
    if not files:
        raise UsageError("no input files given")
    return files


def read(
    paths: str | Path | Sequence[str | Path],
    format: str = "auto",
    *,
    progress: Callable[[int, int], None] | None = None,
    **options,
) -> Corpus:
    """Read annotation files into one Corpus.

    Parameters
    ----------
    paths : a path or a list of paths (a directory stands for its ``*.jsonl`` files).
    format : ``"auto"`` (default) or one of :data:`READERS`.
    progress : optional ``callback(bytes_done, bytes_total)`` for a progress display.
    **options : reader options, e.g. ``answers=("accept",)`` for Prodigy.
    """
    if format != "auto" and format not in READERS:
        raise UsageError(f"unknown format {format!r}; expected 'auto' or one of: {', '.join(READERS)}")
    # Reading allocates a dict per line and frees it at once; the cyclic collector would walk
    # every live object again and again for nothing (a third of the reading time), so it pauses.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _read(paths, format, progress, options)
    finally:
        if paused:
            gc.enable()


def _read(paths, format: str, progress, options: dict) -> Corpus:
    files = expand_paths(paths)
    total = sum(p.stat().st_size for p in files if p.is_file()) if progress else 0
    builder = CorpusBuilder(progress, total)
    used_options: set[str] = set()
    for path in files:
        name = detect_format(path) if format == "auto" else format
        reader = READERS[name][0]
        accepted = set(inspect.signature(reader).parameters) - {"path", "builder"}
        reader(path, builder, **{k: v for k, v in options.items() if k in accepted})
        used_options |= accepted
    unknown = set(options) - used_options
    if unknown:
        raise UsageError(f"unknown reader option(s) {', '.join(sorted(unknown))} for the formats read")
    return builder.build()
