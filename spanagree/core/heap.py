"""The C heap under NumPy's arrays: keep freed blocks for reuse, or give them back (glibc only;
elsewhere nothing happens).

Reading and counting allocate arrays of megabytes and free them a step later. By default glibc
serves a block above its mmap threshold (128 KB, rising with use) straight from the system and
returns it when freed, and trims the top of the heap as it shrinks, so the next array of the same
size is paged in afresh: counting 100,000 documents spent a third of its time faulting in pages
the step before had just released. :func:`keep_freed_memory` sets the thresholds (``mallopt``:
``M_MMAP_THRESHOLD`` to its largest, 32 MB; ``M_TRIM_THRESHOLD`` to 1 GB) so that freed blocks are
reused; the peak stays what the live arrays need. Only the command line and the engines' worker
processes call it: a library does not change the allocator of the process it is imported into.
:func:`release_memory` gives the free memory back (``malloc_trim``) before a step whose peak
counts.
"""
from __future__ import annotations

import ctypes
from functools import lru_cache

#: mallopt(3) parameters.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


@lru_cache(maxsize=None)
def _libc():
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc
        return None


def keep_freed_memory() -> None:
    """Keep freed blocks in the heap for the next arrays (see the module's docstring)."""
    libc = _libc()
    if libc is not None and hasattr(libc, "mallopt"):
        libc.mallopt(_M_MMAP_THRESHOLD, 32 << 20)
        libc.mallopt(_M_TRIM_THRESHOLD, 1 << 30)


def release_memory() -> None:
    """Give freed heap memory back to the system.

    Task results are many small arrays; once copied and freed, their memory stays in the heap
    unless trimmed, and the merged arrays are allocated beside it: the peak would count both."""
    libc = _libc()
    if libc is not None and hasattr(libc, "malloc_trim"):
        libc.malloc_trim(0)
