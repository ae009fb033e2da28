"""The engines' driver: plan, run the first pass, check grouping, read again what must be, merge.

1. **Plan** (:mod:`~spanagree.engine.plan`): files, formats, chunks cut at document boundaries,
   and the first-pass tasks (a chunk each; with one file per rater, the same documents' chunk of
   every file).
2. **First pass**: every task is read, aligned and counted by a worker
   (:func:`~spanagree.engine.chunks.run_task`), which also returns where each document's lines
   are (runs of lines of one document: key hash, byte range, first line).
3. **Grouping check**: a document whose lines were read by more than one task (input not grouped
   by document: raters' lines far apart, files in different orders) was counted in pieces. The
   tasks that hold such documents are *dirty*; their results are dropped and their documents are
   read again, each whole in one task, from the byte ranges the first pass found (the line index
   is those ranges; the tasks seek to them). A :class:`NotGroupedWarning` says so.
4. **Merge** (:mod:`~spanagree.engine.merge`): the partial arrays become the report's.

Errors are those of the serial reader, and the first in reading order is raised: the first pass
reports each task's first error (and the documents seen before it), documents split across
tasks are checked again up to that point, and a task whose line numbers were not known yet (they
depend on the chunks before it) is read again with them, so the message names the right line.
"""
from __future__ import annotations

import warnings
from dataclasses import replace
from typing import Any, Callable, NamedTuple

import numpy as np

from ..core.align import AlignmentRule
from ..core.counts import Counts
from ..core.model import Corpus
from .dask import DaskExecutor
from ..errors import UsageError, option
from .chunks import UNKNOWN_LINE_BASE, ErrorInfo, Groups, Job, Piece, Task, TaskResult, run_task
from ..core.heap import release_memory
from .merge import CorpusSummary, merge
from .plan import Plan, chunk_size, make_plan
from .local import local_executor, resolve_jobs
from ..core.counts import count
from ..io import read



class Counted(NamedTuple):
    """What an engine returns: the corpus read (a :class:`~spanagree.core.model.Corpus`, or a
    :class:`~spanagree.engine.merge.CorpusSummary` when the workers kept the spans; see
    ``has_spans``) and its counts."""

    corpus: Corpus | CorpusSummary
    counts: Counts


class NotGroupedWarning(UserWarning):
    """The input is not grouped by document; some documents were read a second time, whole."""


class EngineFallbackWarning(UserWarning):
    """The engine could not read this input in parallel and used the serial reader."""


def count_paths(
    paths,
    rule: AlignmentRule,
    *,
    unit: str = "char",
    search: str = "sweep",
    jobs: int = 1,
    engine: str = "local",
    client=None,
    format: str = "auto",
    read_options: dict | None = None,
    progress: Callable[[int, int], None] | None = None,
    chunk_bytes: int | None = None,
) -> Counted:
    """Read ``paths`` and count them with an engine: the corpus and its counts, for the report.

    The corpus is a :class:`~spanagree.engine.merge.CorpusSummary` (no spans or texts), or a
    full :class:`~spanagree.core.model.Corpus` when the input is in a format the engines do not read
    in ranges (then the serial reader is used, with an :class:`EngineFallbackWarning`).
    """

    if engine not in ("local", "dask"):
        raise UsageError(f"engine must be 'local' or 'dask'; got {engine!r}")
    if engine == "local" and client is not None:
        raise UsageError(f"client= is for {option('engine', 'dask')}")
    workers = resolve_jobs(jobs) if engine == "local" or jobs != 1 else None
    plan = make_plan(paths, format, read_options, jobs=workers or 2, chunk_bytes=chunk_bytes)
    if plan.unsupported is not None:
        return _serial(paths, plan, rule, unit, search, format, read_options, progress)
    if engine == "dask":
        executor = DaskExecutor(client, workers)
    else:
        executor = local_executor(min(workers, max(1, len(plan.tasks))))
    try:
        counted = _drive(plan, executor, rule, unit, search, progress, chunk_bytes)
    except BaseException:
        executor.abort()
        raise
    executor.close()
    return counted


def _serial(paths, plan: Plan, rule, unit, search, format, read_options, progress):
    warnings.warn(
        f"read serially: {plan.unsupported}; the engines read spanagree and Prodigy JSONL",
        EngineFallbackWarning, stacklevel=4,
    )
    corpus = read(paths, format=format, progress=progress, **(read_options or {}))
    return Counted(corpus, count(corpus, rule, unit=unit, search=search))


def _drive(plan: Plan, executor, rule, unit, search, progress, chunk_bytes) -> Counted:
    job = Job(rule, unit, search, tuple(sorted(plan.options.items())))
    tasks = [Task(i, tuple(plan.chunks[c] for c in chunks), job) for i, chunks in enumerate(plan.tasks)]
    results: list[TaskResult | None] = [None] * len(tasks)
    done_bytes = 0
    for result in executor.run(tasks):
        results[result.index] = result
        done_bytes += result.n_bytes
        if progress is not None:
            progress(done_bytes, plan.total_bytes)
    seen = [None] * len(plan.chunks)  # what the first pass saw of each chunk
    for chunks, result in zip(plan.tasks, results):
        for c, piece_result in zip(chunks, result.pieces):
            seen[c] = piece_result
    first_lines = _first_lines(plan.chunks, seen)
    groups = [_absolute(x.groups, first_lines[c]) for c, x in enumerate(seen)]
    target = chunk_size(plan.total_bytes, executor.workers, chunk_bytes)

    errors = [r.error for r in results if r.error is not None]
    errors += _empty_files(plan, results, seen)
    if plan.pending_error is not None:
        errors.append(plan.pending_error)
    split_keys, dirty = _split_documents(plan.tasks, groups)

    if errors:
        first = min(errors, key=_error_order)
        if len(split_keys) and first.position[0] >= 0:
            # documents split across tasks, checked whole up to the first error found
            again = _regroup(plan, groups, range(len(groups)), job, target, keys=split_keys, before=first.position)
            errors += [r.error for r in executor.run(again) if r.error is not None]
            first = min(errors, key=_error_order)
        raise _exact(first, plan, tasks, results, first_lines).exception()

    info: dict[str, Any] = {
        "engine": executor.name,
        "workers": executor.workers,
        "tasks": len(tasks),
        "grouped": not len(split_keys),
    }
    if plan.aligned:
        info["files_aligned"] = len(plan.files)
    partials = [r.partial for i, r in enumerate(results) if i not in dirty]
    if len(split_keys):
        dirty_chunks = sorted(c for t in dirty for c in plan.tasks[t])
        again = _regroup(plan, groups, dirty_chunks, job, target)
        n_again = 0
        errors = []
        for result in executor.run(again):
            if result.error is not None:
                errors.append(result.error)
            else:
                partials.append(result.partial)
            n_again += result.n_bytes
        if errors:
            raise min(errors, key=_error_order).exception()
        info.update(documents_split=int(len(split_keys)), tasks_read_again=len(again), bytes_read_again=n_again)
        warnings.warn(
            f"the input is not grouped by document: {len(split_keys):,} documents have lines in more than "
            f"one task's chunks (e.g. raters' lines far apart); the {len(dirty):,} tasks holding them were read "
            "again, document by document, from the line ranges the first pass found",
            NotGroupedWarning, stacklevel=4,
        )
    del results, groups, seen
    release_memory()
    corpus, counts = merge(partials, rule, unit)
    del partials
    release_memory()
    corpus.engine = info
    return Counted(corpus, counts)


def _first_lines(chunks: list[Piece], seen: list) -> list[int]:
    """The line number of each chunk's first line, from the newlines of the chunks before it
    (chunks are in reading order)."""
    out, line, current = [], 1, None
    for piece, piece_result in zip(chunks, seen):
        if piece.file != current:
            current, line = piece.file, 1
        out.append(line)
        line += piece_result.newlines
    return out


def _absolute(groups: Groups | None, first_line: int) -> Groups | None:
    if groups is None or not len(groups.key):
        return groups
    if groups.line[0] >= UNKNOWN_LINE_BASE:
        groups.line = groups.line - UNKNOWN_LINE_BASE + first_line
    return groups


def _split_documents(tasks: list[tuple[int, ...]], groups: list[Groups | None]) -> tuple[np.ndarray, set[int]]:
    """Key hashes of documents seen by more than one task, and the tasks that saw them."""
    keys, owner = [], []
    for t, chunks in enumerate(tasks):
        mine = [groups[c].key for c in chunks if groups[c] is not None and len(groups[c].key)]
        if mine:
            unique = np.unique(np.concatenate(mine))
            keys.append(unique)
            owner.append(np.full(len(unique), t, dtype=np.int64))
    if not keys:
        return np.zeros(0, np.int64), set()
    keys_all, owner_all = np.concatenate(keys), np.concatenate(owner)
    keys_sorted = np.sort(keys_all)
    split = np.unique(keys_sorted[1:][keys_sorted[1:] == keys_sorted[:-1]])
    if not len(split):
        return split, set()
    dirty = set(np.unique(owner_all[np.isin(keys_all, split)]).tolist())
    return split, dirty


def _regroup(
    plan: Plan, groups: list[Groups | None], chunks, job: Job, target: int,
    keys: np.ndarray | None = None, before: tuple[int, int] | None = None,
) -> list[Task]:
    """Tasks that each read whole documents: every run of lines of the given chunks (only of
    ``keys``, and only runs that start before ``before``, when given), documents in order of
    their first line, lines in reading order."""
    parts = [groups[c] for c in chunks if groups[c] is not None and len(groups[c].key)]
    if not parts:
        return []
    file = np.concatenate([np.full(len(g.key), g.file, dtype=np.int64) for g in parts])
    key = np.concatenate([g.key for g in parts])
    start = np.concatenate([g.start for g in parts])
    end = np.concatenate([g.end for g in parts])
    line = np.concatenate([g.line for g in parts])
    keep = np.ones(len(key), dtype=bool)
    if keys is not None:
        keep &= np.isin(key, keys)
    if before is not None:
        keep &= (file < before[0]) | ((file == before[0]) & (start < before[1]))
    file, key, start, end, line = file[keep], key[keep], start[keep], end[keep], line[keep]
    if not len(key):
        return []
    position = np.lexsort((start, file))  # reading order
    rank = np.empty(len(key), dtype=np.int64)
    rank[position] = np.arange(len(key))
    by_key = np.lexsort((rank, key))
    new_doc = np.r_[True, key[by_key][1:] != key[by_key][:-1]]
    doc_of = np.empty(len(key), dtype=np.int64)
    doc_of[by_key] = np.cumsum(new_doc) - 1
    n_docs = int(new_doc.sum())
    first_rank = np.full(n_docs, np.iinfo(np.int64).max)
    np.minimum.at(first_rank, doc_of, rank)
    doc_order = np.argsort(first_rank, kind="stable")
    doc_bytes = np.bincount(doc_of, weights=end - start, minlength=n_docs)[doc_order]
    task_of_doc = np.empty(n_docs, dtype=np.int64)
    task_of_doc[doc_order] = (np.cumsum(doc_bytes) - doc_bytes) // max(target, 1)
    task_of = task_of_doc[doc_of]
    order = np.lexsort((rank, task_of))
    names = {f.index: f for f in plan.files}
    tasks: list[Task] = []
    bounds = np.flatnonzero(np.r_[True, task_of[order][1:] != task_of[order][:-1], True])
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        rows = order[lo:hi]
        f, s, e, n = file[rows], start[rows], end[rows], line[rows]
        # one range per stretch of adjacent runs of one file
        joined = np.r_[False, (f[1:] == f[:-1]) & (s[1:] == e[:-1])]
        heads = np.flatnonzero(~joined)
        tails = np.r_[heads[1:], len(rows)] - 1
        by_file: list[tuple[int, list[tuple[int, int, int]]]] = []
        for file_index, a, b, number in zip(f[heads].tolist(), s[heads].tolist(), e[tails].tolist(), n[heads].tolist()):
            if not by_file or by_file[-1][0] != file_index:
                by_file.append((file_index, []))
            by_file[-1][1].append((a, b, number))
        pieces = tuple(
            Piece(i, str(names[i].path), names[i].open_path, names[i].format, tuple(ranges)) for i, ranges in by_file
        )
        tasks.append(Task(len(tasks), pieces, job, record_groups=False))
    return tasks


def _empty_files(plan: Plan, results: list[TaskResult], seen: list) -> list[ErrorInfo]:
    """Files with no record at all: the serial reader's error (unless a task reading it failed)."""
    lines: dict[int, int] = {f.index: 0 for f in plan.files}
    failed = set()
    for piece, piece_result in zip(plan.chunks, seen):
        lines[piece.file] += piece_result.data_lines
    for chunks, result in zip(plan.tasks, results):
        if result.error is not None:
            failed.update(plan.chunks[c].file for c in chunks)
    return [
        ErrorInfo("input", "the file is empty; expected one JSON object per line", (f.index, f.size + 1), (str(f.path), None))
        for f in plan.files
        if not lines[f.index] and f.index not in failed
    ]


def _error_order(error: ErrorInfo) -> tuple:
    return (error.kind != "input", error.position)


def _exact(error: ErrorInfo, plan: Plan, tasks: list[Task], results: list[TaskResult], first_lines: list[int]) -> ErrorInfo:
    """The error with the right line number: a task with chunks whose first line was not known
    when it ran is read again with them (only the failing task, only when it failed)."""
    if error.line_known:
        return error
    for i, result in enumerate(results):
        if result.error is error:
            pieces = []
            for c, piece in zip(plan.tasks[i], tasks[i].pieces):
                (start, end, _), = piece.ranges
                pieces.append(replace(piece, ranges=((start, end, first_lines[c]),)))
            again = replace(tasks[i], pieces=tuple(pieces), record_groups=False)
            return run_task(again).error or error
    return error
