"""Maximum-weight bipartite matching on a sparse graph, exact for whole-number weights.

The aligner (:mod:`spanagree.core.align`) solves each connected component of its candidate graph
for a lexicographic objective (credit, then tie-break levels), folded into one whole-number weight
per edge (``spanagree.core.align._fold``). Components whose smaller side is small are solved by
dynamic programming there; the others come here.

Method: a maximum-weight matching (not every span need be matched) is turned into a minimum-cost
*full* assignment on a graph twice the size, and that is solved by LAPJVsp, the sparse
Jonker–Volgenant shortest-augmenting-path algorithm (Jonker & Volgenant 1987; Volgenant 1996), as
:func:`scipy.sparse.csgraph.min_weight_full_bipartite_matching` implements it. Its cost grows with
the number of candidate pairs times the length of the augmenting paths, which on span data are
short, instead of the cube of the component size of the dense Hungarian algorithm.

The reduction to a full assignment: rows are the ``R`` rows, columns the ``C`` columns and one
stand-in per row. A real edge ``(r, c)`` costs ``M - w``; row ``r`` with its own stand-in costs
``M`` (``r`` left unmatched). Every assignment of all rows has ``R`` edges, so its cost is
``M R - Σ w`` over the real edges it uses: a minimum-cost assignment is a maximum-weight
matching. Every cost is >= 1 (``M = max w + 1``), as LAPJVsp requires of its weights.

LAPJVsp as SciPy implements it spends time proportional to the number of columns on each row it
cannot assign cheaply, so independent components are solved in batches of about ``BATCH_EDGES``
candidate pairs, not all at once. It adds and subtracts costs in 64-bit floats, which is exact for whole
numbers while every sum stays below 2^53; :func:`fits` checks the bound the callers keep to.
"""
from __future__ import annotations

import numpy as np

#: Sums of whole-number weights up to this are exact in 64-bit floats (with a margin of 2).
EXACT_LIMIT = 2**52


def fits(n_rows: int, n_cols: int, max_weight: int) -> bool:
    """Whether whole-number weights up to ``max_weight`` keep every sum of the assignment exact
    (with a margin of 2 for the potentials)."""
    return (n_rows + n_cols) * (int(max_weight) + 1) * 2 < EXACT_LIMIT


def max_weight_matching(
    rows: np.ndarray, cols: np.ndarray, weight: np.ndarray, n_rows: int, n_cols: int, group: np.ndarray | None = None,
) -> np.ndarray:
    """Positions (into the edge arrays) of a maximum-weight matching.

    ``rows``/``cols`` are the ends of each edge (``0 <= rows < n_rows``, ``0 <= cols < n_cols``, no
    edge twice) and ``weight`` > 0 its whole-number weight. ``group`` (one id >= 0 per edge,
    sorted) names connected components: each is solved with its own ``M`` (its largest weight + 1),
    so the sums of one never involve another's weights, and the result is exact when :func:`fits`
    holds for each. Among matchings of equal weight the one returned is LAPJVsp's (fixed for a
    given input and SciPy version).
    """
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    weight = np.asarray(weight, dtype=np.float64)
    if not len(rows):
        return np.zeros(0, dtype=np.int64)
    if group is None:
        return _solve(rows, cols, weight, np.zeros(len(rows), dtype=np.int64))
    # cut the sorted groups into batches of about BATCH_EDGES edges (a larger group is a batch alone)
    starts = np.flatnonzero(np.concatenate([[True], group[1:] != group[:-1]]))
    batch = starts // BATCH_EDGES
    cuts = [0, *starts[np.flatnonzero(np.diff(batch)) + 1].tolist(), len(group)]
    picked = []
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        picked.append(lo + _solve(rows[lo:hi], cols[lo:hi], weight[lo:hi], group[lo:hi]))
    return np.concatenate(picked)


#: Candidate pairs per LAPJVsp call when many components are solved (see the module docstring).
BATCH_EDGES = 3000


def _solve(rows: np.ndarray, cols: np.ndarray, weight: np.ndarray, group: np.ndarray) -> np.ndarray:
    """One LAPJVsp call on the components of the given edges (positions into them, sorted)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    row_id, r = np.unique(rows, return_inverse=True)
    col_id, c = np.unique(cols, return_inverse=True)
    r, c = r.reshape(-1), c.reshape(-1)
    n_r, n_c = len(row_id), len(col_id)
    _, g = np.unique(group, return_inverse=True)
    g = g.reshape(-1)
    top = np.zeros(int(g.max()) + 1)
    np.maximum.at(top, g, weight)
    big = top[g] + 1.0  # M of each edge's component
    big_row = np.zeros(n_r)
    big_row[r] = big
    own = np.arange(n_r, dtype=np.int64)
    graph = csr_matrix(
        (np.concatenate([big - weight, big_row]), (np.concatenate([r, own]), np.concatenate([c, n_c + own]))),
        shape=(n_r, n_c + n_r),
    )
    row_ind, col_ind = min_weight_full_bipartite_matching(graph)
    real = col_ind < n_c
    # map the chosen real (row, col) cells back to edge positions
    key = r * n_c + c
    order = np.argsort(key, kind="stable")
    found = np.searchsorted(key[order], row_ind[real].astype(np.int64) * n_c + col_ind[real])
    return np.sort(order[found])
