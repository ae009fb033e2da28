"""Running tasks on Dask: a bag of chunks, one partition each, on a distributed cluster.

Dask is an optional extra (``pip install spanagree[dask]``) and is imported here only.

The bag holds the chunk descriptions the planner made (byte ranges at document boundaries of
the JSONL shards); each partition runs :func:`spanagree.engine.chunks.run_task`, the same function
the local engine runs, and returns its compact partial counts, which the client merges. The
planner (in the client) and the workers read the files, so both must see them at the same path:
a shared or network file system. Documents that are not grouped within one chunk are brought
together the same way as on one machine: through the line index the first pass returns, into
tasks that hold whole documents.
"""
from __future__ import annotations

import os
from typing import Iterable, Iterator

from ..errors import UsageError
from .chunks import Task, TaskResult, run_task


class DaskExecutor:
    """Tasks on a Dask cluster.

    ``client`` is a ``distributed.Client``, the address of a scheduler (``"tcp://host:8786"``),
    or None for a local cluster of ``jobs`` worker processes with one thread each, started and
    stopped here.
    """

    name = "dask"

    def __init__(self, client=None, jobs: int | None = None) -> None:
        try:
            import dask.bag  # noqa: F401
            from distributed import Client, LocalCluster
        except ImportError:
            raise UsageError(
                "the Dask engine needs Dask: pip install 'spanagree[dask]' (dask[bag,distributed])"
            ) from None
        self._own_client = self._cluster = None
        if client is None:
            self._cluster = LocalCluster(
                n_workers=jobs or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                dashboard_address=None,
            )
            client = self._own_client = Client(self._cluster)
        elif isinstance(client, str):
            client = self._own_client = Client(client)
        self.client = client
        self.workers = max(1, len(client.scheduler_info().get("workers", {})))

    def run(self, tasks: Iterable[Task]) -> Iterator[TaskResult]:
        import dask.bag as db
        from distributed import as_completed

        tasks = list(tasks)
        if not tasks:
            return
        bag = db.from_sequence(tasks, partition_size=1).map(run_task)
        futures = self.client.compute(bag.to_delayed(optimize_graph=False))
        for future in as_completed(futures):
            results = future.result()
            future.release()
            yield from results

    def close(self) -> None:
        if self._own_client is not None:
            self._own_client.close()
        if self._cluster is not None:
            self._cluster.close()
