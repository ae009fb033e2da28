"""Offset units: what an annotation tool counts when it says "character", converted to code points.

spanagree counts offsets in Unicode code points (Python's ``str`` indices). Tools written in
JavaScript count differently:

- ``codepoint``: one per code point (Python tools: Prodigy, brat's server, spaCy);
- ``utf16``: one per UTF-16 code unit, so a character beyond U+FFFF (most emoji) counts two. This
  is what a JavaScript string index is, and what doccano's annotator counts by default;
- ``grapheme``: one per extended grapheme cluster (Unicode Standard Annex #29), so an emoji
  sequence such as a flag or a family counts one, and so does ``\\r\\n``. doccano counts this way
  when the project's "Count grapheme clusters as one character" setting is on.

The three agree on text that has no character beyond U+FFFF, no combining sequence and no
``\\r\\n``; only such texts are converted. Conversion is done once, per document, on arrays of
offsets (see :func:`to_codepoints`); everything downstream is in code points.

Grapheme clusters are found with the ``regex`` package's ``\\X`` (UAX #29); doccano's front end
uses the ``grapheme-splitter`` library, which implements an older revision of the same annex, so
the two can differ on emoji sequences added to Unicode since; they agree on CRLF, combining marks,
flags and ZWJ sequences.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from ..errors import InputError, Location
from ..errors import option as spell_option
from .common import choice

UNITS = ("codepoint", "utf16", "grapheme")

#: How each unit is named in messages.
UNIT_NAMES = {
    "codepoint": "code points",
    "utf16": "UTF-16 code units",
    "grapheme": "grapheme clusters",
}


def check_unit(unit: str | None, default: str) -> str:
    """The unit to read with: ``unit`` when given (validated), else the tool's ``default``."""
    return default if unit is None else choice("offsets", unit, UNITS)


def plain(text: str, unit: str) -> bool:
    """True when offsets in ``unit`` are code points for this text (nothing to convert)."""
    if unit == "codepoint" or not text:
        return True
    if unit == "utf16":
        return text.isascii() or not _astral(text)
    return "\r\n" not in text and (text.isascii() or not _joins(text))


@lru_cache(maxsize=1)
def _joiners():
    """A pattern for the characters that join a grapheme cluster of several code points: marks,
    the zero-width joiner, emoji modifiers and tags, regional indicators, conjoining jamo."""
    import regex

    return regex.compile(
        r"[\p{M}\u200d\U0001F1E6-\U0001F1FF\U0001F3FB-\U0001F3FF\U000E0020-\U000E007F"
        r"\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff]"
    )


def _joins(text: str) -> bool:
    """True when the text may hold a grapheme cluster of several code points (one search)."""
    return _joiners().search(text) is not None


def _astral(text: str) -> bool:
    """True when the text has a character beyond U+FFFF (two UTF-16 code units)."""
    return len(text.encode("utf-16-le", "surrogatepass")) != 2 * len(text)


def risky(text: str) -> bool:
    """True when the units disagree on this text: a ``\\r\\n``, a character beyond U+FFFF, or a
    grapheme cluster of several code points (a letter and its combining marks, an emoji sequence)."""
    if "\r\n" in text:
        return True
    if text.isascii():
        return False
    return _astral(text) or _joins(text)


@lru_cache(maxsize=16)
def boundaries(text: str, unit: str) -> np.ndarray:
    """``b[i]`` = the code-point offset of the ``i``-th boundary in ``unit`` (``len(b) - 1`` is
    the text's length in that unit). For ``utf16``, offsets that fall inside a surrogate pair have
    no boundary (see :func:`to_codepoints`). The last few texts' arrays are cached (a text's
    regions are converted one by one where each must be checked); they must not be changed."""
    if unit == "codepoint":
        return np.arange(len(text) + 1, dtype=np.int64)
    if unit == "utf16":
        # code unit offset of each code point boundary
        cps = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
        return np.concatenate([[0], np.cumsum(1 + (cps > 0xFFFF))]).astype(np.int64)
    import regex

    ends = [m.end() for m in regex.finditer(r"\X", text)]
    return np.array([0, *ends], dtype=np.int64)


def length(text: str, unit: str) -> int:
    """The text's length in ``unit``."""
    if plain(text, unit):
        return len(text)
    if unit == "utf16":
        return len(text.encode("utf-16-le")) // 2
    return len(boundaries(text, unit)) - 1


def to_codepoints(
    text: str, starts: Sequence[int], ends: Sequence[int], unit: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Convert offsets counted in ``unit`` to code points, all at once.

    Returns ``(starts, ends, ok)``: converted offsets and a mask of the spans whose offsets are
    boundaries in ``unit`` within the text (an offset past the end, or inside a surrogate pair,
    is not). Spans not ``ok`` keep their offsets unconverted, for the error message.
    """
    s, e = _offsets(starts, len(text)), _offsets(ends, len(text))
    if plain(text, unit):
        n = len(text)
        return s, e, (0 <= s) & (s < e) & (e <= n)
    if unit == "utf16":
        b = boundaries(text, unit)  # code-unit offset of each code point boundary
        si = np.searchsorted(b, s)
        ei = np.searchsorted(b, e)
        last = len(b) - 1
        ok = (s >= 0) & (s < e) & (ei <= last)
        ok &= b[np.minimum(si, last)] == s
        ok &= b[np.minimum(ei, last)] == e
        return np.where(ok, si, s), np.where(ok, ei, e), ok
    b = boundaries(text, unit)  # code-point offset of each grapheme boundary
    last = len(b) - 1
    ok = (s >= 0) & (s < e) & (e <= last)
    return np.where(ok, b[np.clip(s, 0, last)], s), np.where(ok, b[np.clip(e, 0, last)], e), ok


def _offsets(values: Sequence[int], n: int) -> np.ndarray:
    """``values`` as int64; offsets beyond 64 bits (which no text can hold) are clipped to just
    outside the text, so they stay invalid rather than overflow."""
    try:
        return np.asarray(values, dtype=np.int64)
    except OverflowError:
        outside = 2 * n + 1  # no unit counts more than the text's UTF-16 code units
        return np.array([min(max(v, -1), outside) for v in values], dtype=np.int64)


#: Below this many spans in a text, UTF-16 offsets are converted one by one (no array set-up).
FEW = 16


def convert_spans(
    spans: Sequence[tuple[int, int, str]], text: str, unit: str, where: Location, doc_id: str | None, field: str
) -> list[tuple[int, int, str]]:
    """``(start, end, label)`` spans counted in ``unit``, in code points, converted in one go;
    the first span that is not a span of the text in ``unit`` is an error at ``field[i]``.

    The common cases cost next to nothing: a text on which the unit is code points is only
    range-checked; a few spans in a UTF-16 text are converted by decoding the text's prefix (an
    offset inside a surrogate pair fails to decode); otherwise :func:`to_codepoints` converts
    them all with arrays.
    """
    if not spans:
        return []
    if plain(text, unit):
        n = len(text)
        for i, (start, end, _) in enumerate(spans):
            if not 0 <= start < end <= n:
                raise out_of_range(text, start, end, unit, where, doc_id, f"{field}[{i}]")
        return list(spans)
    if unit == "utf16" and len(spans) < FEW:
        data = text.encode("utf-16-le", "surrogatepass")
        out = []
        for i, (start, end, label) in enumerate(spans):
            s, e = _utf16_point(data, start), _utf16_point(data, end)
            if s is None or e is None or not s < e:
                raise out_of_range(text, start, end, unit, where, doc_id, f"{field}[{i}]")
            out.append((s, e, label))
        return out
    starts, ends, labels = zip(*spans)
    s, e, ok = to_codepoints(text, starts, ends, unit)
    if not ok.all():
        i = int((~ok).nonzero()[0][0])
        raise out_of_range(text, starts[i], ends[i], unit, where, doc_id, f"{field}[{i}]")
    return list(zip(s.tolist(), e.tolist(), labels))


def _utf16_point(data: bytes, offset: int) -> int | None:
    """The code point offset of a UTF-16 code-unit ``offset`` into the text encoded as ``data``,
    or None when it is not a boundary (negative, past the end, inside a surrogate pair)."""
    if not 0 <= 2 * offset <= len(data):
        return None
    try:
        return len(data[: 2 * offset].decode("utf-16-le"))
    except UnicodeDecodeError:
        return None


def out_of_range(
    text: str, start: int, end: int, unit: str, where: Location, doc_id: str | None, field: str, option: str = "offsets"
) -> InputError:
    """The error for a span whose offsets are not boundaries of the text in ``unit``: the text's
    length in each unit, and the units in which the span would fit."""
    lengths = ", ".join(f"{length(text, u)} {UNIT_NAMES[u]}" for u in UNITS)
    fits = [u for u in UNITS if u != unit and bool(to_codepoints(text, [start], [end], u)[2][0])]
    if start < 0 or start >= end:
        hint = "expected 0 <= start < end"
    elif fits:
        hint = f"it fits counted in {' or '.join(UNIT_NAMES[u] for u in fits)}: set {spell_option(option, fits[0])}"
    else:
        hint = "it fits in no unit; the offsets do not index this text"
    return InputError(
        f"offsets [{start}, {end}) are not a span of the text counted in {UNIT_NAMES[unit]} "
        f"(the text is {lengths} long); {hint}",
        where=where, doc_id=doc_id, field=field,
    )


def unverified_note(unit: str, tool: str, option: str = "offsets") -> str:
    """The note for documents whose offsets were converted from ``unit`` without any evidence
    that the tool counted that way (the warning the report shows)."""
    others = " or ".join(repr(u) for u in UNITS if u != unit)
    return (
        f"{tool} offsets read as {UNIT_NAMES[unit]} where the units differ (characters beyond U+FFFF, CRLF, "
        f"combining sequences), unverifiable from the file (set {option}={others} if the tool counted otherwise)"
    )
