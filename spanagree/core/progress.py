"""Progress bars (tqdm, which spaCy installs) for the phases of a run that can take seconds:
reading, aligning, bootstrap replicates, γ's random samples.

Bars are off unless a caller turns them on (:func:`shown`: the command line does, ``--quiet``
does not; ``spanagree.score(..., progress=True)`` does for one call), and they go to stderr only,
never stdout. A bar appears only once its phase has run for :data:`DELAY` seconds, so a quick run
prints nothing. Where the output goes decides the look:

- a terminal: tqdm's bar, redrawn in place;
- a Jupyter kernel with ipywidgets: tqdm's notebook widget (without ipywidgets, the text bar,
  which Jupyter redraws in place too);
- anything else (a CI log, a file): a plain line at most every :data:`LOG_INTERVAL` seconds
  and one when the phase ends, no carriage returns.

A phase done in a few vectorized steps (aligning, the chance-corrected family, α_U and γ) has
no count to show: its bar says what is running and for how long, not how far through it is.
"""
from __future__ import annotations

import importlib.util
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

#: Seconds a phase runs before its bar appears.
DELAY = 2.0
#: Seconds between two lines of a bar written to a log (not a terminal).
LOG_INTERVAL = 30.0

_SHOWN: ContextVar[bool] = ContextVar("spanagree_progress", default=False)


@contextmanager
def shown(enabled: bool = True) -> Iterator[None]:
    """Within the block, phases draw bars when ``enabled`` (and do not when not)."""
    token = _SHOWN.set(bool(enabled))
    try:
        yield
    finally:
        _SHOWN.reset(token)


def enabled() -> bool:
    return _SHOWN.get()


class _Silent:
    """What a phase gets when bars are off: every call does nothing."""

    n = 0

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


class _Lines:
    """A text stream for a log: each redraw of a bar becomes one plain line."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> None:
        text = text.replace("\r", "").strip("\n")
        if text.strip():
            self._stream.write(text.rstrip() + "\n")

    def flush(self) -> None:
        self._stream.flush()


def _in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    try:
        return shell is not None and "IPKernelApp" in shell.get_ipython().config
    except Exception:  # no running IPython
        return False


def _has_widgets() -> bool:
    """ipywidgets is there (tqdm's notebook bar needs it; without it, the text bar on stderr,
    which Jupyter redraws in place)."""
    return importlib.util.find_spec("ipywidgets") is not None


@contextmanager
def phase(description: str, total: float | None, *, unit: str = "it", scale: bool = False):
    """A bar for one phase of ``total`` units (None: unknown), closed when the block ends."""
    if not _SHOWN.get():
        yield _Silent()
        return
    bar = _make(description, total, unit, scale)
    try:
        yield bar
    finally:
        bar.close()


def _make(description: str, total: float | None, unit: str, scale: bool):
    options = {"desc": description, "total": total, "unit": unit, "unit_scale": scale, "delay": DELAY, "leave": False}
    if total is None:  # nothing to count: what runs, and for how long
        options["bar_format"] = "{desc}: {elapsed}"
    if _in_notebook() and _has_widgets():
        from tqdm.notebook import tqdm as notebook_bar

        return notebook_bar(**options)
    from tqdm import tqdm

    stream = sys.stderr
    if _in_notebook() or stream.isatty():
        return tqdm(file=stream, dynamic_ncols=True, **options)
    return tqdm(file=_Lines(stream), mininterval=LOG_INTERVAL, maxinterval=LOG_INTERVAL * 2, ascii=True, ncols=100,
                **{**options, "leave": True})


def reading():
    """A ``callback(bytes_done, bytes_total)`` for the readers, drawing a bar in bytes; None when
    bars are off (the readers then skip sizing their files)."""
    if not _SHOWN.get():
        return None
    state: dict = {}

    def callback(done: int, total: int) -> None:
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = _make("reading", total or None, "B", True)
        bar.update(done - bar.n)
        if total and done >= total:
            bar.close()

    return callback
