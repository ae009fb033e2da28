"""Span lists as readers find them, ``[{"start": int, "end": int, "label": str}, ...]``: checked
line by line (:func:`parse_spans`, which names the first bad span) or a block of lines at a time
(:func:`span_columns`, the fast check of :meth:`~spanagree.core.builder.CorpusBuilder.add_unchecked`)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InputError, Location, describe

#: A span as readers hand it over: ``(start, end, label)``, validated.
SpanTuple = tuple[int, int, str]


def parse_spans(raw: Any, text_len: int, where: Location, doc_id: str, field: str = "spans") -> list[SpanTuple]:
    """Validate a list of ``{"start": int, "end": int, "label": str}`` against the text length."""
    if type(raw) is not list:
        raise InputError(f"expected a list of spans, got {describe(raw)}", where=where, doc_id=doc_id, field=field)
    spans = []
    append = spans.append
    for span in raw:
        # fast path for well-formed spans; anything else gets a precise error below
        if type(span) is dict:
            start, end, label = span.get("start"), span.get("end"), span.get("label")
            if (
                type(start) is int
                and type(end) is int
                and type(label) is str
                and 0 <= start < end <= text_len
                and label
                and not label.isspace()
            ):
                append((start, end, label))
                continue
        _span_error(span, len(spans), text_len, where, doc_id, field)
    return spans


def _span_error(span: Any, i: int, text_len: int, where: Location, doc_id: str, field: str) -> None:
    """Raise the InputError that says what is wrong with one span."""
    if not isinstance(span, dict):
        raise InputError(
            f"expected a span object {{start, end, label}}, got {describe(span)}",
            where=where, doc_id=doc_id, field=f"{field}[{i}]",
        )
    start, end, label = span.get("start"), span.get("end"), span.get("label")
    for name, value in (("start", start), ("end", end)):
        if type(value) is not int:
            problem = "missing" if name not in span else f"got {describe(value)}"
            raise InputError(
                f"{problem}; expected an integer character offset",
                where=where, doc_id=doc_id, field=f"{field}[{i}].{name}",
            )
    if not isinstance(label, str) or not label.strip():
        problem = "missing" if "label" not in span else f"got {describe(label)}"
        raise InputError(
            f"{problem}; expected a non-empty string label", where=where, doc_id=doc_id, field=f"{field}[{i}].label"
        )
    raise InputError(
        f"offsets [{start}, {end}) out of range; expected 0 <= start < end <= {text_len} (the text's length)",
        where=where, doc_id=doc_id, field=f"{field}[{i}].{'start' if start < 0 else 'end'}",
    )


def span_columns(spans: list) -> tuple[np.ndarray, np.ndarray, list[str]] | None:
    """Starts, ends and labels of ``[{"start": int, "end": int, "label": str}, ...]``, or None
    when any span is not such an object (offsets that are not integers of 64 bits included)."""
    try:
        starts = [span["start"] for span in spans]
        ends = [span["end"] for span in spans]
        labels = [span["label"] for span in spans]
    except (TypeError, KeyError, IndexError):
        return None
    if not spans:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), labels
    if set(map(type, starts)) != {int} or set(map(type, ends)) != {int} or set(map(type, labels)) != {str}:
        return None
    try:
        return np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64), labels
    except OverflowError:
        return None
