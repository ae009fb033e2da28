"""Errors and warnings that say where the input went wrong and what was expected.

Every input error names the file, the line, the document and the field it found wrong, quotes
the value, and says what was expected, so that a user can fix the file without reading our code.
"""
from __future__ import annotations

import difflib
import json
import re
from contextvars import ContextVar
from typing import Any, Callable, Iterable, NamedTuple


class Location(NamedTuple):
    """Where a record came from: a file and a 1-based line number (either may be unknown)."""

    file: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        if self.file is None:
            return "<input>" if self.line is None else f"<input>:{self.line}"
        return self.file if self.line is None else f"{self.file}:{self.line}"


# --- options named in messages, spelled as the interface in use spells them -------------------

#: Marks an option reference inside a message: ``\x1eNAME\x1fJSON-VALUE\x1e``. Messages keep the
#: marks (they survive pickling to and from worker processes) and are spelled when shown.
_MARK, _SEP = "\x1e", "\x1f"
_REFERENCE = re.compile(f"{_MARK}([A-Za-z_]+){_SEP}(.*?){_MARK}", re.DOTALL)


def option(name: str, value: Any) -> str:
    """An option and an allowed value, named in an error message.

    Written once, the reference is shown as the interface in use spells it: ``text_field='body'``
    (a keyword, in Python), ``--text-field body`` (a flag, on the command line) or
    ``[input] text_field = "body"`` (a key, in a config). ``name`` is the option's parameter name
    (:data:`spanagree.core.options.OPTIONS`).

    >>> str(InputError("name the text with " + option("text_field", "body")))
    "<input>: name the text with text_field='body'"
    """
    return f"{_MARK}{name}{_SEP}{json.dumps(value)}{_MARK}"


def as_keyword(name: str, value: Any) -> str:
    """The Python spelling of an option and its value: ``name='value'``."""
    return f"{name}={value!r}"


#: How the interface in use spells an option reference (``(name, value) -> text``): the keyword
#: by default; the command line and the config readers set their own while they run.
SPELLING: ContextVar[Callable[[str, Any], str]] = ContextVar("spelling", default=as_keyword)


def spelled(text: str) -> str:
    """``text`` with every :func:`option` reference spelled by :data:`SPELLING`."""
    if _MARK not in text:
        return text
    spell = SPELLING.get()
    return _REFERENCE.sub(lambda m: spell(m.group(1), json.loads(m.group(2))), text)


class SpanagreeError(Exception):
    """Base class of the errors spanagree raises on purpose. Options named in the message with
    :func:`option` are spelled as the interface in use spells them when it is shown."""

    def __str__(self) -> str:
        return spelled(super().__str__())


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


class PlanWarning(UserWarning):
    """A plan whose assumption the pilot puts in doubt (``spanagree plan`` on a crowd)."""


def describe(value: Any, limit: int = 60) -> str:
    """A short, quoted rendering of a bad value for error messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def did_you_mean(word: str, choices: Iterable[Any]) -> str:
    """``" (did you mean X?)"`` for the closest of ``choices`` to a mistyped ``word``, or ``""``
    when none is close (difflib's ratio of at least 0.6).

    >>> did_you_mean("overlpa", ["exact", "overlap"])
    ' (did you mean overlap?)'
    """
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1)
    return f" (did you mean {close[0]}?)" if close else ""
