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
import signal
import threading
from contextlib import contextmanager, suppress
from typing import Iterable, Iterator

from ..errors import UsageError
from ..core.extras import need
from ..core.sanitize import cut
from .chunks import Task, TaskResult, run_task
from .local import stop_processes


#: How long to wait for a scheduler given by address before giving up.
CONNECT_SECONDS = 10


class DaskExecutor:
    """Tasks on a Dask cluster.

    ``client`` is a ``distributed.Client``, the address of a scheduler (``"tcp://host:8786"``),
    or None for a local cluster of ``jobs`` worker processes with one thread each, started and
    stopped here.
    """

    name = "dask"

    def __init__(self, client=None, jobs: int | None = None) -> None:
        need("dask", "the Dask engine needs Dask", "dask.bag", "distributed")
        from distributed import Client, LocalCluster
        self._own_client = self._cluster = None
        if client is None:
            # workers of a cluster started here log only errors: a cancelled task is no news
            with _children_ignore_sigint(), _environment(DASK_LOGGING__DISTRIBUTED="error"):
                self._cluster = LocalCluster(
                    n_workers=jobs or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                    dashboard_address=None,
                )
                client = self._own_client = Client(self._cluster)
        elif isinstance(client, str):
            try:
                client = self._own_client = Client(client, timeout=CONNECT_SECONDS)
            except (OSError, TimeoutError, ValueError) as err:  # no scheduler there, or not an address
                raise UsageError(f"cannot reach the Dask scheduler {cut(client, 200)!r}: {cut(str(err), 300)}") from None
        self.client = client
        try:
            self.workers = max(1, len(client.scheduler_info().get("workers", {})))
        except BaseException:
            self.abort()
            raise

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

    def abort(self) -> None:
        """The run was interrupted: stop the cluster started here without waiting for tasks.

        A cluster given by the caller is left running; only this run's futures are dropped with
        the client it made.
        """
        import multiprocessing

        for part in (self._own_client, self._cluster):
            if part is not None:
                with suppress(Exception):
                    part.close(timeout=1)
        if self._cluster is not None:
            # the workers of a local cluster are this process's children: end any still running
            stop_processes(multiprocessing.active_children())


@contextmanager
def _environment(**values: str):
    """Set environment variables for processes started inside the block, then restore them."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def _children_ignore_sigint():
    """Start processes that never see SIGINT: a Ctrl-C at a terminal reaches every process of the
    group, and each worker would print a traceback; the parent stops them instead.

    SIGINT is blocked (not ignored) in this thread while the cluster starts: the signal mask is
    inherited by the threads and processes started meanwhile, and a Ctrl-C that arrives during
    start-up stays pending here and is delivered when the block ends.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
