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
    import importlib.util

    return importlib.util.find_spec("ipywidgets") is not None


class _Bar:
    """A phase's bar, made only once the phase has run :data:`DELAY` seconds (so a quick run
    neither draws nor imports tqdm), by a timer thread; a phase with nothing to count then has
    its elapsed time redrawn every second (every :data:`LOG_INTERVAL` in a log)."""

    def __init__(self, description: str, total: float | None, unit: str, scale: bool) -> None:
        import threading  # here, not at import: spanagree's import stays as fast without bars
        import time

        started = time.time()  # the bar's clock starts with the phase, not when the bar appears
        self._make = lambda n: _make(description, total, unit, scale, n, started)
        self._counted = total is not None
        self.n = 0
        self._bar = None
        self._lock = threading.Lock()
        self._closed = threading.Event()
        if DELAY <= 0:  # at once (and in this thread)
            self._bar = self._make(0)
        self._timer = threading.Thread(target=self._appear, name="spanagree-progress", daemon=True)
        self._timer.start()

    def _appear(self) -> None:
        if self._bar is None:
            if self._closed.wait(DELAY):
                return
            with self._lock:
                if self._closed.is_set():
                    return
                self._bar = self._make(self.n)
        interval = 1.0 if getattr(self._bar, "fp", None) is sys.stderr else LOG_INTERVAL
        while not self._counted and not self._closed.wait(interval):
            with self._lock:
                if not self._closed.is_set():
                    self._bar.refresh()

    def update(self, n: int = 1) -> None:
        with self._lock:
            self.n += n
            if self._bar is not None:
                self._bar.update(n)

    def close(self) -> None:
        with self._lock:
            self._closed.set()
            if self._bar is not None:
                self._bar.close()


@contextmanager
def phase(description: str, total: float | None, *, unit: str = "it", scale: bool = False):
    """A bar for one phase of ``total`` units (None: nothing to count), closed when the block ends."""
    if not _SHOWN.get():
        yield _Silent()
        return
    bar = _Bar(description, total, unit, scale)
    try:
        yield bar
    finally:
        bar.close()


def _make(description: str, total: float | None, unit: str, scale: bool, initial: float = 0,
          started: float | None = None):
    options = {"desc": description, "total": total, "unit": unit, "unit_scale": scale, "initial": initial,
               "leave": False}
    if total is None:  # nothing to count: what runs, and for how long
        options["bar_format"] = "{desc}: {elapsed}"
    bar = _new_bar(options)
    if started is not None:
        bar.start_t = bar.last_print_t = started
    return bar


def _new_bar(options: dict):
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
            bar = state["bar"] = _Bar("reading", total or None, "B", True)
        bar.update(done - bar.n)
        if total and done >= total:
            bar.close()

    return callback
