"""Writing output files whole or not at all, and checking output paths before the work.

A run killed mid-write (SIGKILL, SIGTERM, Ctrl-C) must not leave half a file that later scores
without complaint. :func:`atomic_write` writes to a temporary file in the destination's folder,
flushes it to disk and renames it into place (``os.replace`` is atomic on POSIX within one file
system), so readers see the old file or the new one, never a mixture. :func:`check_output`
refuses, before any work is done, an output path that cannot be written or that would overwrite
one of the inputs.
"""
from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

import orjson

from ..errors import UsageError


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb", **open_kwargs) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success rename it to ``path``, else delete it.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with atomic_write(target, "w", encoding="utf-8") as f:
    ...     _ = f.write("whole")
    >>> target.read_text(encoding="utf-8")
    'whole'
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write opens files for writing ('w' or 'wb'), not {mode!r}")
    target = Path(path)
    if _special(target):
        # /dev/null, /dev/stdout, a named pipe: not a file to replace; written to as it is
        try:
            with open(target, mode, **open_kwargs) as handle:
                yield handle
        except OSError as err:  # /dev/full, a pipe with no reader, ...
            raise UsageError(f"cannot write {str(target)!r}: {err.strerror or err}") from None
        return
    temporary: Path | None = None
    try:
        while True:
            # the name is known before the file exists, so an interruption at any point below
            # leaves nothing behind (signal masks would not do: a signal may be delivered to
            # another thread, and Python raises it in this one anywhere)
            temporary = target.parent / f".{target.name}.{secrets.token_hex(6)}.part"
            try:
                fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                break
            except FileExistsError:
                continue
        with os.fdopen(fd, mode, **open_kwargs) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            # keep the permissions of the file being replaced
            os.chmod(temporary, target.stat().st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException as err:
        if temporary is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        if isinstance(err, OSError):  # a full disk, a folder that takes no new file, ...
            raise UsageError(f"cannot write {str(target)!r}: {err.strerror or err}") from None
        raise


def _special(target: Path) -> bool:
    """True for an existing path that is not a regular file (a device, a FIFO, a socket)."""
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def is_folder(path: str | os.PathLike) -> bool:
    """``Path(path).is_dir()``, False for a name the system refuses (too long, ...), which the
    reader then reports as it reads."""
    try:
        return Path(path).is_dir()
    except OSError:
        return False


def exists(path: str | os.PathLike) -> bool:
    """``Path(path).exists()``, False for a name the system refuses (too long, ...)."""
    try:
        return Path(path).exists()
    except OSError:
        return False


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_write(path, "wb") as handle:
        handle.write(data)


def write_jsonl(path: str | os.PathLike, records: Iterable[Any]) -> None:
    """Write ``records`` to ``path`` atomically, one JSON object per line."""
    with atomic_write(path, "wb") as handle:
        for record in records:
            handle.write(orjson.dumps(record) + b"\n")


def check_output(path: str | os.PathLike, *, inputs: Iterable[str | os.PathLike] = (), what: str = "output") -> Path:
    """Check before the work that ``path`` can be written and is none of ``inputs``.

    Raises :class:`~spanagree.errors.UsageError` naming the path and the reason: a folder where a
    file is expected, a parent that is missing or is a file, a parent that cannot be written, or
    an input that the output would overwrite.
    """
    try:
        return _check_output(Path(path), inputs, what)
    except OSError as err:  # a path the system refuses: too long, not permitted, ...
        raise UsageError(f"cannot write {what} {str(path)!r}: {err.strerror or err}") from None


def _check_output(target: Path, inputs, what: str) -> Path:
    if target.is_dir():
        raise UsageError(f"cannot write {what} {str(target)!r} is a folder; give a file name")
    parent = target.parent
    if not parent.exists():
        raise UsageError(f"cannot write {what} {str(target)!r}: the folder {str(parent)!r} does not exist")
    if not parent.is_dir():
        raise UsageError(f"cannot write {what} {str(target)!r}: {str(parent)!r} is a file, not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {what} {str(target)!r}: the folder {str(parent)!r} cannot be written")
    if target.exists():
        for source in inputs:
            source_path = Path(source)
            with contextlib.suppress(OSError):
                if source_path.exists() and os.path.samefile(source_path, target):
                    raise UsageError(f"cannot write {what} {str(target)!r} is also an input; write to another file")
    return target


def check_outputs(
    outputs: Iterable[str | os.PathLike | None], inputs: Iterable[str | os.PathLike] = (), *, what: str = "output"
) -> None:
    """:func:`check_output` for every output given (None skipped) against the inputs, and no two
    outputs the same file. An existing file inside an input folder, of a kind spanagree reads
    (:data:`READ_SUFFIXES`), counts as an input."""
    outputs = [o for o in outputs if o is not None]
    if not outputs:
        return
    files: list[Path] = []
    folders: list[Path] = []
    for source in inputs:
        if not isinstance(source, (str, os.PathLike)):
            continue  # the reader says what a path must be
        source_path = Path(source)
        (folders if is_folder(source_path) else files).append(source_path)
    seen: set[Path] = set()
    for output in outputs:
        target = check_output(output, inputs=files, what=what)
        resolved = target.resolve()
        if target.is_file() and resolved.suffix.lower() in READ_SUFFIXES:
            for folder in folders:
                if resolved.is_relative_to(folder.resolve()):
                    raise UsageError(f"cannot write {what} {str(target)!r}: it is an input (in {str(folder)!r}); "
                                     "write to another file")
        if resolved in seen:
            raise UsageError(f"output {str(target)!r} is given twice; write each output to its own file")
        seen.add(resolved)


#: Suffixes of the files the readers take from a folder.
READ_SUFFIXES = frozenset({".jsonl", ".json", ".ann", ".txt", ".conll", ".iob", ".bio", ".tsv", ".spacy", ".qrels"})
