"""Running tasks on this machine: in this process (``jobs=1``) or in a process pool.

Stopping: the workers ignore SIGINT (a Ctrl-C at a terminal reaches the whole process group; the
parent alone decides), and on Linux they ask the kernel for SIGTERM when the parent dies, so a
killed parent leaves no orphan. When the parent is interrupted, :meth:`ProcessPool.abort` ends
the workers at once instead of waiting for their tasks.
"""
from __future__ import annotations

import ctypes
import os
import signal
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Iterable, Iterator

from ..errors import UsageError
from ..core.heap import keep_freed_memory
from .chunks import Task, TaskResult, run_task


def resolve_jobs(jobs: int) -> int:
    """``jobs`` as a number of processes: 0 means every core."""
    if type(jobs) is not int or jobs < 0:
        raise UsageError(f"jobs must be a whole number >= 1 (or 0 for every core), got {jobs!r}")
    return jobs or os.cpu_count() or 1


class InProcess:
    """Tasks one after the other in this process: memory holds one task's documents at a time."""

    name = "local"
    workers = 1

    def run(self, tasks: Iterable[Task]) -> Iterator[TaskResult]:
        for task in tasks:
            yield run_task(task)

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass


class ProcessPool:
    """Tasks in a pool of ``jobs`` processes, results as they finish.

    At most ``2 × jobs`` tasks are in flight, so finished results do not pile up in the pool
    while the driver is busy, and the tasks' list is not pickled all at once.
    """

    name = "local"

    def __init__(self, jobs: int) -> None:
        self.workers = jobs
        self._pool = ProcessPoolExecutor(max_workers=jobs, initializer=_worker_setup, initargs=(os.getpid(),))

    def run(self, tasks: Iterable[Task]) -> Iterator[TaskResult]:
        pending = set()
        todo = iter(tasks)
        limit = 2 * self.workers
        while True:
            for task in todo:
                pending.add(self._pool.submit(run_task, task))
                if len(pending) >= limit:
                    break
            if not pending:
                return
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def abort(self) -> None:
        """End the workers now (the run was interrupted): no task is waited for."""
        processes = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        stop_processes(processes)


def stop_processes(processes) -> None:
    """SIGTERM each process, wait up to 2 s, then SIGKILL those still alive."""
    for process in processes:
        process.terminate()
    for process in processes:
        process.join(timeout=2)
        if process.is_alive():
            process.kill()


#: prctl(2) option: the signal a process gets when its parent dies (Linux).
_PR_SET_PDEATHSIG = 1


def _worker_setup(parent: int) -> None:
    """In each worker: leave SIGINT to the parent, die at SIGTERM (a forked worker inherits the
    parent's handlers), and die with the parent (Linux) — also when the parent died before this
    worker could ask for that."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if os.uname().sysname == "Linux":
        try:  # prctl from the C library the interpreter runs on (no search for it: no subprocess)
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(0)
    keep_freed_memory()  # a worker's tasks free and allocate arrays of the same sizes again and again


def local_executor(jobs: int):
    return InProcess() if jobs == 1 else ProcessPool(jobs)
