"""Errors and warnings that say where the input went wrong and what was expected.

Every input error names the file, the line, the document and the field it found wrong, quotes
the value, and says what was expected, so that a user can fix the file without reading our code.
"""
from __future__ import annotations

from typing import Any, NamedTuple


class Location(NamedTuple):
    """Where a record came from: a file and a 1-based line number (either may be unknown)."""

    file: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        if self.file is None:
            return "<input>" if self.line is None else f"<input>:{self.line}"
        return self.file if self.line is None else f"{self.file}:{self.line}"


class SpanagreeError(Exception):
    """Base class of the errors spanagree raises on purpose."""


class UsageError(SpanagreeError, ValueError):
    """An option or a combination of options that cannot work (exit code 2)."""


class InputError(SpanagreeError, ValueError):
    """Input that cannot be read as annotations (exit code 2).

    The message reads ``FILE:LINE: document 'ID', field 'FIELD': PROBLEM`` with every part that
    is known.
    """

    def __init__(
        self,
        problem: str,
        *,
        where: Location | None = None,
        doc_id: Any = None,
        field: str | None = None,
    ) -> None:
        self.problem = problem
        self.where = where or Location()
        self.doc_id = doc_id
        self.field = field
        context = []
        if doc_id is not None:
            context.append(f"document {str(doc_id)!r}")
        if field is not None:
            context.append(f"field {field!r}")
        prefix = str(self.where) + (": " + ", ".join(context) if context else "")
        super().__init__(f"{prefix}: {problem}")


class UndefinedAgreementWarning(UserWarning):
    """A coefficient is undefined for this input and was returned as ``nan``.

    Raised (as a warning) for an empty table, all-missing ratings, a single category
    (expected agreement 1, so ``(Ao - Ae)/(1 - Ae)`` is 0/0), or fewer than two pairable values.
    Use ``warnings.simplefilter("error", UndefinedAgreementWarning)`` to make it an exception.
    """


def describe(value: Any, limit: int = 60) -> str:
    """A short, quoted rendering of a bad value for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
