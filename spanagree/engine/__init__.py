"""Engines: all cores of one machine, bounded memory, and Dask (issue 7).

``spanagree.score(paths, jobs=N)`` reads, aligns and counts the input in chunks in a pool of N
processes (``jobs=1, stream=True``: in this process, one chunk at a time); ``engine="dask"`` runs
the same chunks on a Dask cluster. Counts are additive, so the report is the same as the serial
path's, intervals included. Only compact per-unit count arrays and document ids come back from the
chunks: memory holds one chunk's documents at a time (a chunk holds whole documents, at most
:data:`~spanagree.engine.plan.CHUNK_BYTES` unless a document is larger), plus the arrays.

- :mod:`~spanagree.engine.plan`: files, formats, chunks cut at document boundaries;
- :mod:`~spanagree.engine.chunks`: the worker (the package's readers on byte ranges);
- :mod:`~spanagree.engine.driver`: the passes, the grouping check and the fallback;
- :mod:`~spanagree.engine.merge`: partial arrays into the report's;
- :mod:`~spanagree.engine.local` and :mod:`~spanagree.engine.dask`: where the tasks run.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .mode import AutoEngineWarning

ENGINES = ("local", "dask")

__all__ = ["ENGINES", "AutoEngineWarning", "Counted", "CorpusSummary", "EngineFallbackWarning", "NotGroupedWarning", "count_paths"]

if TYPE_CHECKING:
    from .driver import Counted, EngineFallbackWarning, NotGroupedWarning, count_paths
    from .merge import CorpusSummary


def __getattr__(name: str):
    """The driver (and its process pools) is imported when first used, not when the planner is:
    choosing the in-memory path costs no engine start-up."""
    if name in __all__[2:]:
        from . import driver, merge

        return getattr(merge if name == "CorpusSummary" else driver, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
