"""Index arithmetic shared by the column-wise code: ranges and pairs without Python loops."""
from __future__ import annotations

import numpy as np


def ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenate ``arange(s, s + n)`` for every (s, n).

    >>> ranges(np.array([5, 0]), np.array([2, 3])).tolist()
    [5, 6, 0, 1, 2]
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(np.asarray(starts, dtype=np.int64) - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return offsets + np.arange(total, dtype=np.int64)


def expand(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For row i and every p in [lo[i], hi[i]): the arrays (i, p).

    >>> [a.tolist() for a in expand(np.array([3, 0]), np.array([5, 1]))]
    [[0, 0, 1], [3, 4, 0]]
    """
    counts = np.maximum(np.asarray(hi) - np.asarray(lo), 0)
    rows = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    return rows, ranges(lo, counts)


def pairs_within_blocks(block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (i, j) with i < j in the same block, for ``block`` sorted (a block = equal values).

    >>> [a.tolist() for a in pairs_within_blocks(np.array([0, 0, 0, 1, 2, 2]))]
    [[0, 0, 1, 4], [1, 2, 2, 5]]
    """
    index = np.arange(len(block), dtype=np.int64)
    block_end = np.searchsorted(block, block, side="right")
    first, second = expand(index + 1, block_end)
    return first, second


def dense_codes(values: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` for non-negative integers below ``bound``:
    the distinct values (sorted, int64) and the code of each value (int32 when the codes fit). When the bound is small, a table
    of ``bound`` entries replaces the sort, which on millions of values costs several copies of
    them in memory and most of the time.

    >>> [a.tolist() for a in dense_codes(np.array([7, 2, 7, 4]), 10)]
    [[2, 4, 7], [2, 0, 2, 1]]
    """
    values = np.asarray(values)
    if bound > 1 << 22 or bound > 4 * len(values) + 1024:
        keys, inverse = np.unique(values, return_inverse=True)
        code_type = np.int32 if len(keys) < 2**31 else np.int64
        return keys.astype(np.int64), inverse.reshape(-1).astype(code_type)
    present = np.bincount(values, minlength=bound) > 0
    keys = np.flatnonzero(present)
    table = np.zeros(bound, dtype=np.int32 if len(keys) < 2**31 else np.int64)
    table[keys] = np.arange(len(keys))
    return keys.astype(np.int64), table[values]


def block_cuts(index: np.ndarray, block: int) -> list[int]:
    """Where to cut rows into blocks of about ``block`` rows without cutting a run of equal
    ``index`` values: ``[0, ..., len(index)]`` (a block may be empty; a value with more rows than
    ``block`` stays whole). Unsorted, or no longer than ``block``: one block. A sum per value in
    blocks then adds each value's rows in order, as one pass would (the same bits).

    >>> block_cuts(np.array([0, 0, 1, 1, 1, 2, 3]), 2)
    [0, 2, 2, 6, 7]
    """
    n = len(index)
    if n <= block or not in_order(index):
        return [0, n]
    return [0, *np.searchsorted(index, index[block::block], side="left").tolist(), n]


def in_order(*keys: np.ndarray) -> bool:
    """True when the rows are in lexicographic order of ``keys`` (the first key first; ties
    allowed), as ``np.lexsort(keys[::-1])`` would put them: a check that costs a pass, where the
    sort it saves costs many.

    >>> in_order(np.array([0, 0, 1]), np.array([2, 5, 1])), in_order(np.array([0, 0]), np.array([5, 2]))
    (True, False)
    """
    if len(keys[0]) < 2:
        return True
    tied = np.ones(len(keys[0]) - 1, dtype=bool)
    for key in keys:
        before, after = key[:-1], key[1:]
        if (tied & (after < before)).any():
            return False
        tied &= after == before
        if not tied.any():
            break
    return True
