"""One boundary for checking what callers give: counts, numbers, seeds, spans and paths.

Every public entry point (the API functions, the CLI's options, the config file) checks its
arguments here once and raises :class:`~spanagree.errors.UsageError` saying what was expected;
the code behind the boundary trusts them. The rules and the limits are in docs/robustness.md.
"""
from __future__ import annotations

import math
import numbers
import os
import re
from typing import Any, Sequence

from ..errors import UsageError
from .sanitize import cut

#: Most bootstrap replicates (``--bootstrap``): 100,000 draws give a percentile interval's ends to
#: well under 0.001 on any statistic in [0, 1]; more only costs time.
MAX_REPLICATES = 100_000
#: Most random continua for γ's expected disorder (``unitizing.samples``).
MAX_SAMPLES = 10_000
#: Seeds are non-negative and fit in 64 bits (numpy's generators take larger ones, but a seed is
#: written in reports and configs, where a 64-bit bound is portable).
MAX_SEED = 2**64 - 1
#: Largest whole number an option may take: counts are 64-bit integers.
MAX_WHOLE = 2**63 - 1
#: Largest offset a span given to the API may have: the aligner adds offsets to 64-bit keys.
MAX_OFFSET = 2**62


def shown(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for a message."""
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__
        text = f"<{type(value).__name__}>"
    return cut(text, limit)


def count(name: str, value: Any) -> float:
    """A non-negative finite number (int or float, not bool or str), as given."""
    if _not_real(value) or value < 0:
        raise UsageError(f"{name} must be a non-negative finite number, got {shown(value)}")
    return value


def positive(name: str, value: Any) -> float:
    """A finite number > 0 (not bool or str)."""
    if _not_real(value) or value <= 0:
        raise UsageError(f"{name} must be a finite number > 0, got {shown(value)}")
    return value


def whole(name: str, value: Any, low: int, high: int | None = None) -> int:
    """An int (not bool) in ``[low, high]``; ``high`` None means the 64-bit bound :data:`MAX_WHOLE`."""
    if type(value) is not int or value < low or value > (MAX_WHOLE if high is None else high):
        span = f"from {low:,} to {high:,}" if high is not None else f"from {low:,} to 2**63 - 1"
        raise UsageError(f"{name} must be a whole number {span}, got {shown(value)}")
    return value


def seed(value: Any) -> int:
    """A seed: a whole number from 0 to 2**64 - 1."""
    if type(value) is not int or not 0 <= value <= MAX_SEED:
        raise UsageError(f"seed must be a whole number from 0 to 2**64 - 1, got {shown(value)}")
    return value


def replicates(value: Any) -> int | None:
    """Bootstrap replicates: None, or a whole number from 2 to :data:`MAX_REPLICATES`."""
    if value is None:
        return None
    if type(value) is not int or not 2 <= value <= MAX_REPLICATES:
        raise UsageError(
            f"bootstrap replicates must be a whole number from 2 to {MAX_REPLICATES:,} (docs/robustness.md), "
            f"got {shown(value)}"
        )
    return value


def spans(name: str, values: Any) -> list[tuple[int, int, str]]:
    """A list of ``(start, end, label)``: integer offsets (not bool), 0 <= start < end, string
    labels. A zero-length span (``start == end``) is refused: it covers nothing, so no rule can
    match it (the readers leave such spans out and count them; here the caller passed them)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) and not hasattr(values, "__iter__"):
        raise UsageError(f"{name} must be a list of (start, end, label) tuples, got {shown(values)}")
    checked = []
    for i, span in enumerate(values):
        if isinstance(span, (str, bytes)) or not isinstance(span, Sequence) or len(span) != 3:
            raise UsageError(f"{name}[{i}] must be a (start, end, label) tuple, got {shown(span)}")
        start, end, label = span
        for what, offset in (("start", start), ("end", end)):
            if type(offset) is not int and not _numpy_int(offset):
                raise UsageError(f"{name}[{i}]: {what} must be a whole number, got {shown(offset)}")
        if not 0 <= start <= end <= MAX_OFFSET:
            raise UsageError(
                f"{name}[{i}]: expected 0 <= start < end <= 2**62, got start {shown(start)}, end {shown(end)}"
            )
        if start == end:
            raise UsageError(
                f"{name}[{i}]: a zero-length span (start = end = {shown(start)}) covers nothing; expected "
                f"start < end (e.g. ({shown(start)}, {shown(start + 1)}, {shown(label)})), or leave the span out"
            )
        if not isinstance(label, str):
            raise UsageError(f"{name}[{i}]: the label must be a string, got {shown(label)}")
        checked.append((int(start), int(end), label))
    return checked


def path(name: str, value: Any) -> None:
    """A path: a str or an ``os.PathLike`` (or a list of them)."""
    items = value if isinstance(value, (list, tuple)) else [value]
    if not items:
        raise UsageError(f"{name}: give at least one path")
    for item in items:
        if not isinstance(item, (str, os.PathLike)) or isinstance(item, bytes):
            raise UsageError(f"{name} must be a path (str or os.PathLike) or a list of them, got {shown(item)}")
        if not os.fspath(item):  # '' would read the current folder (an unset shell variable, say)
            raise UsageError(f"{name}: a path is empty; give a file or folder name")


#: Why a config line or value with a comment after it is refused.
INLINE_COMMENT = "inline comments are not read in spaCy configs: put the comment on its own line"


def inline_comment(text: str) -> bool:
    """Whether ``text`` (a config line, or a value read from one) holds `` #`` outside its quoted
    strings: spaCy's config reader (confection) strips only comments on lines of their own, so
    ``on = "point"  # or "lower"`` reads as the value ``"point"  # or "lower"``."""
    return re.search(r"\s#", re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)) is not None


def _not_real(value: Any) -> bool:
    """Not a finite real number (bools, strings, nan, inf and ints beyond a float are not)."""
    if isinstance(value, (bool,)) or not isinstance(value, numbers.Real) or type(value).__name__ == "bool_":
        return True
    try:
        return not math.isfinite(value)
    except OverflowError:  # an int too large for a float
        return True


def _numpy_int(value: Any) -> bool:
    import numpy as np

    return isinstance(value, np.integer)
