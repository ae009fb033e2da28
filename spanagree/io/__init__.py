"""Readers (and writers): one module per format, discovered by name, with auto-detection.

``read(paths, format="auto")`` streams every file into one :class:`~spanagree.core.model.Corpus`.

Every module in this package that defines ``FORMAT = Format(...)`` is a format; nothing else
needs registering. Detection asks, in ``order``, first the formats that recognise a file without
parsing it as JSON lines (by suffix, a directory layout, or a peek at the content), then parses
the first record and asks the JSON-lines formats; so a broken first line of a JSONL file is
reported as exactly that. ``format=`` forces a reader.
"""
from __future__ import annotations

import gc
import importlib
import inspect
import pkgutil
import warnings
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..errors import InputError, Location, UsageError, option
from ..core.model import Corpus
from ..core.builder import CorpusBuilder
import numpy as np

from .common import empty_file, json_lines
from .streams import spool
from .labelstudio_server import ProjectPath, fetch, is_project
from ._text import peek
from ..core import options as options_module
from ..core.files import exists, is_folder
from ..core.validate import path as check_path, shown

#: The reader options of the declaration (``[input]``, but the format, which is read's own).
READER_OPTIONS = frozenset(o.name for o in options_module.OPTIONS if o.section == "input" and o.name != "format")


@dataclass(frozen=True)
class Format:
    """A file format: its reader, how to recognise it, and optionally a writer.

    ``read(path, builder, **options)`` adds a file's (or directory's) annotations to a
    :class:`~spanagree.core.builder.CorpusBuilder`; reader options are its keyword arguments. With
    ``together``, ``read(paths, ...)`` gets every path of the format at once: its files make sense
    only together (documents paired by position, judgments pooled per topic, a layer chosen once).
    ``sniff(path, first)`` says whether a path is in this format: JSON-lines formats
    (``jsonl=True``) get the file's first record as ``first``; the others get ``None`` and must
    decide from the path (suffix, directory layout, a peek at the content).
    ``write(corpus, path, **options)``, where present, writes a corpus in this format.
    """

    name: str
    read: Callable[..., None]
    sniff: Callable[[Path, dict | None], bool]
    jsonl: bool = True
    order: int = 100
    write: Callable[..., None] | None = None
    description: str = ""
    together: bool = False
    #: An empty file in this format is a rater with no annotation (a tool's export of nothing),
    #: noted, not an error.
    empty_ok: bool = False


@lru_cache(maxsize=None)
def formats() -> dict[str, Format]:
    """Every format defined in this package, by name, in detection order."""
    found = []
    for module in pkgutil.iter_modules(__path__):
        if module.name in {"common"}:
            continue
        fmt = getattr(importlib.import_module(f"{__name__}.{module.name}"), "FORMAT", None)
        if isinstance(fmt, Format):
            found.append(fmt)
    return {f.name: f for f in sorted(found, key=lambda f: (f.order, f.name))}


def detect_format(path: Path) -> str:
    """The format of a path; a path no format recognises is an InputError that says what was seen
    and how to name the format (``--format``)."""
    try:
        return _detect_format(path)
    except OSError as err:  # a name the system refuses (too long, not permitted, ...)
        raise InputError(f"cannot be read ({err.strerror or err})", where=Location(str(path))) from None


def _detect_format(path: Path) -> str:
    candidates = formats().values()
    for fmt in candidates:
        if not fmt.jsonl and fmt.sniff(path, None):
            return fmt.name
    if path.is_dir():
        raise _undetected(path, "a directory of no file a format recognises (no *.jsonl, *.ann, *.tsv, ... files, "
                                "and no folders of them)")
    try:
        first = next(islice(json_lines(path), 1))[1]
    except InputError as err:
        if not path.is_file() or path.suffix.lower() == ".jsonl":
            raise  # a missing file, or a JSONL file whose first line is broken: said as it is
        raise _undetected(path, f"not JSON lines ({err.problem})") from None
    for fmt in candidates:
        if fmt.jsonl and fmt.sniff(path, first):
            return fmt.name
    raise _undetected(path, f"a JSON object with keys {', '.join(sorted(first)) or 'none'} on line 1")


def _undetected(path: Path, seen: str) -> InputError:
    """No format recognises ``path``, so none reads it as it is: what was seen, and the formats."""
    head = [] if path.is_dir() else (peek(path, 200) or "").strip().splitlines()
    start = f"; it begins {head[0][:60] + ('...' if len(head[0]) > 60 else '')!r}" if head else ""
    suffix = "" if path.is_dir() else f"suffix {path.suffix or '(none)'!r}, "
    return InputError(
        f"cannot tell the format of {path.name}: no format recognises it, so none reads it as it is "
        f"(seen: {suffix}{seen}{start}). The formats are {', '.join(formats())} (spanagree info says what "
        f"each reads): convert it to one of them, or name its format with {option('format', 'NAME')} "
        "if it is one",
        where=Location(str(path)),
    )


class FilesNotReadWarning(UserWarning):
    """Files in a folder of ``*.jsonl`` files that are not read (the folder stands for those)."""


def _say_passed_over(folder: Path) -> None:
    others = sorted(
        q.name for q in folder.iterdir() if q.suffix.lower() != ".jsonl" and not q.name.startswith(".") and q.is_file()
    )
    if others:
        shown_names = ", ".join(others[:5]) + (f" and {len(others) - 5:,} more" if len(others) > 5 else "")
        warnings.warn(
            f"{folder}: {len(others):,} file(s) not read (a folder stands for its *.jsonl files; name other "
            f"files on their own): {shown_names}",
            FilesNotReadWarning, stacklevel=4,
        )


def expand_globs(paths: str | Path | Iterable[str | Path]) -> list[str | Path]:
    """The paths given, each glob pattern (``*``, ``?``, ``[``, ``**``; a quoted pattern the shell
    left alone) replaced by the files it matches, sorted; a name that exists is taken as it is. The
    one place patterns are expanded: every command, engine and :func:`spanagree.score` reads the
    same files for the same pattern. A pattern that matches nothing is a usage error. The address
    of a Label Studio project (``http://HOST:PORT/projects/ID``) is fetched here, once, into a file
    named as that address (:mod:`spanagree.io.labelstudio_server`)."""
    import glob

    if isinstance(paths, (str, Path)):
        paths = [paths]
    out: list[str | Path] = []
    for p in paths:
        text = str(p)
        if isinstance(p, ProjectPath):
            out.append(p)
        elif is_project(p):
            out.append(fetch(text.strip()))
        elif any(ch in text for ch in "*?[") and not exists(text):
            found = sorted(glob.glob(text, recursive=True))
            if not found:
                raise UsageError(f"no file matches {text!r}")
            out.extend(found)
        else:
            out.append(p)
    return out


def expand_paths(paths: str | Path | Iterable[str | Path]) -> list[Path]:
    """Paths to read: those given (patterns expanded by :func:`expand_globs`), with a directory
    of ``*.jsonl`` files standing for its files (other directories are passed on whole, for the
    formats that read directories)."""
    files: list[Path] = []
    for p in (p if isinstance(p, Path) else Path(p) for p in expand_globs(paths)):
        inside = sorted(p.glob("*.jsonl")) if is_folder(p) else []
        if inside:
            _say_passed_over(p)
        files.extend(inside or [spool(p)])
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
    format : ``"auto"`` (default) or one of :func:`formats`.
    progress : optional ``callback(bytes_done, bytes_total)`` for a progress display.
    **options : reader options, e.g. ``answers=("accept",)`` for Prodigy.
    """

    check_path("paths", paths)
    if progress is not None and not callable(progress):
        raise UsageError(f"progress must be a callable (bytes_done, bytes_total) or None, got {shown(progress)}")
    # the declared reader options are checked as every entry point checks them (core/options.py)
    options = {k: options_module.check(k, v) if k in READER_OPTIONS else v for k, v in options.items()}
    if format != "auto" and format not in formats():
        raise UsageError(f"{option('format', format)}: unknown format; expected 'auto' or one of: {', '.join(formats())}")
    # Reading allocates a dict per line and frees it at once; the cyclic collector would walk
    # every live object again and again for nothing (a third of the reading time), so it pauses.
    paused = gc.isenabled()
    gc.disable()
    try:
        return _read(paths, format, progress, options)
    except OSError as err:  # a path the system refuses: too long, not permitted, ...
        where = Location(str(err.filename)) if err.filename is not None else None
        raise InputError(f"cannot be read ({err.strerror or err})", where=where) from None
    finally:
        if paused:
            gc.enable()


def _read(paths, format: str, progress, options: dict) -> Corpus:
    files = expand_paths(paths)
    total = sum(p.stat().st_size for p in files if p.is_file()) if progress else 0
    builder = CorpusBuilder(progress, total)
    used_options: set[str] = set()
    together: dict[str, list[Path]] = {}  # formats that read all their files at once
    blank = [p for p in files if empty_file(p)]
    named = {p: format if format != "auto" else None if p in blank else detect_format(p) for p in files}
    seen = {name for name in named.values() if name is not None}
    empty = set()  # files that stand for a rater with no annotation
    for path in blank:
        name = named[path] or (next(iter(seen)) if len(seen) == 1 else None)
        if name is None and seen:
            raise _undetected(path, "an empty file, beside files of " + ", ".join(sorted(seen)))
        if name is None:
            raise InputError("the file is empty; expected annotations", where=Location(str(path)))
        named[path] = name
        if formats()[name].empty_ok:
            empty.add(path)
            builder.exclusions.notes[f"empty file (a rater with no annotation): {path.name}"] += 1
    for path in files:
        if path in empty:
            continue
        name = named[path]
        if formats()[name].together:
            together.setdefault(name, []).append(path)
            continue
        used_options |= _call(formats()[name].read, path, builder, options)
    for name, group in together.items():
        used_options |= _call(formats()[name].read, group, builder, options)
    unknown = set(options) - used_options
    if unknown:
        raise UsageError(f"unknown reader option(s) {', '.join(sorted(unknown))} for the formats read")
    corpus = builder.build()
    note_silent_raters(corpus)
    return corpus


def note_silent_raters(corpus: Corpus) -> None:
    """A note for every rater who has no span in any document (while others do): often a sign
    that empty annotations were read as "marked nothing" where the rater never looked."""
    if corpus.n_spans:
        note_raters_without_marks(corpus.exclusions.notes, corpus.raters, rater_marks(corpus))


def rater_marks(corpus: Corpus) -> np.ndarray:
    """Per rater: spans, plus one if the rater gave document labels (what the note above counts;
    the engines sum it over their tasks)."""
    per_rater = np.bincount(corpus.ann_rater, weights=np.diff(corpus.ann_ptr), minlength=len(corpus.raters)).astype(np.int64)
    per_rater[np.unique(corpus.dl_rater)] += 1
    return per_rater


def note_raters_without_marks(notes, raters: list[str], marks: np.ndarray) -> None:
    """The note for each rater whose :func:`rater_marks` are 0 (once some rater marked spans)."""
    for code in np.flatnonzero(marks == 0).tolist():
        notes[f"rater {raters[code]!r} has no span in any document"] += 1


def reader_options(reader: Callable[..., None]) -> set[str]:
    """The reader options a reader accepts (its parameters but the source and the builder)."""
    return set(inspect.signature(reader).parameters) - {"path", "paths", "builder", "lines", "blocks"}


def _call(reader: Callable[..., None], source, builder: CorpusBuilder, options: dict) -> set[str]:
    """Call a reader with the options it accepts; return the names it accepts."""
    accepted = reader_options(reader)
    reader(source, builder, **{k: v for k, v in options.items() if k in accepted})
    return accepted
