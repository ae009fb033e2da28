"""Named pipes and standard input read once, to the end.

Format detection looks at the first lines of a file and the reader then opens it again; a FIFO,
``/dev/stdin`` or a process substitution (``<(...)``) cannot be read twice, so the second reader
would miss what detection consumed. :func:`spool` copies such a stream once, in chunks, into a
temporary file and hands back a path that opens the copy but is named, in every message, as the
path the user gave. The copies are removed when the process exits.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

from ..errors import InputError, Location

_COPIES: list[str] = []


class SpooledPath(type(Path())):  # type: ignore[misc]
    """A path named as the stream the user gave, opening its copy on disk."""

    _copy: str = ""

    def __fspath__(self) -> str:
        return self._copy or str(self)  # paths made from this one (parent, with_suffix) are plain

    def with_copy(self, copy: str) -> "SpooledPath":
        self._copy = copy
        return self


def is_stream(path: Path) -> bool:
    """True for an existing path that is neither a regular file nor a directory (a FIFO, a
    character device such as ``/dev/stdin``, a socket)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def spool(path: Path) -> Path:
    """``path`` itself when it is a regular file or a directory, else a copy of the stream, read
    once to its end (see the module docstring)."""
    if isinstance(path, SpooledPath) or not is_stream(path):
        return path
    fd, copy = temporary_copy("spanagree-stream-", path.suffix)
    try:
        with open(path, "rb") as source, os.fdopen(fd, "wb") as target:
            shutil.copyfileobj(source, target, 1 << 20)
    except OSError as err:
        raise InputError(f"cannot be read ({err.strerror or err})", where=Location(str(path))) from None
    return SpooledPath(path).with_copy(copy)


def temporary_copy(prefix: str, suffix: str) -> tuple[int, str]:
    """A new temporary file, removed when the process exits: its open descriptor and its path."""
    fd, copy = tempfile.mkstemp(prefix=prefix, suffix=suffix)
    _COPIES.append(copy)
    return fd, copy


@atexit.register
def _remove_copies() -> None:
    for copy in _COPIES:
        with contextlib.suppress(OSError):
            os.unlink(copy)
    _COPIES.clear()
