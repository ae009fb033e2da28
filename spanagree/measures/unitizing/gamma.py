"""Mathet, Widlöcher & Métivier's γ: agreement on unitizing and categorizing at once.

Units of ``n`` raters are grouped into *unitary alignments*: tuples holding at most one unit of
each rater (a rater without a unit in the tuple contributes the *empty unit* ∅). With the
combined dissimilarity of two units (the defaults of Mathet et al. 2015 and pygamma-agreement)

.. math::
   d(u, v) = \\alpha \\left( \\frac{|s_u - s_v| + |e_u - e_v|}{l_u + l_v} \\right)^2
             + \\beta \\, d_{cat}(c_u, c_v), \\qquad d(u, ∅) = d(∅, ∅) = Δ_∅ = 1,

(``d_cat`` 0/1, or a matrix), a tuple's disorder is the mean of ``d`` over its ``n (n - 1) / 2``
pairs of positions. The *best alignment* partitions all units into tuples of least total
disorder, and the observed disorder is that total divided by the mean number of units per rater:
``δ_o = Σ disorder / (N / n)``. The expected disorder ``δ_e`` is the mean observed disorder of
random continua, and ``γ = 1 - δ_o / δ_e`` (1 when ``δ_o = 0``).

**Best alignment, exactly.** A unit alone in its tuple costs ``Δ_∅``. Splitting a unit ``v`` out
of a tuple of ``k`` units changes its cost by ``(C(n,2) + k - 1 - Σ_w d(v, w)) / C(n,2)``, so two
units with ``d > C(n,2) + n - 1`` never share a tuple of a best alignment (for two raters:
``d > 2``, two empty alignments are cheaper). Two units that do not overlap can still be worth
aligning: adjacent units of one label have ``d = 1 < 2``. So candidate pairs are looked for in a
window around each unit wide enough for that bound, not among overlapping units only. For two
raters the best alignment is then a maximum-weight bipartite matching (weight ``2 - d``), solved
exactly per connected component by :func:`spanagree.core.align.match`; for more raters each connected
component of the candidate graph is solved exactly by a search over its set partitions.
Documents are aligned separately: no tuple spans two documents.

**Expected disorder.** ``δ_e`` is the mean observed disorder of random continua drawn from the
continuum of all documents laid end to end by one of two samplers (:mod:`.samplers`;
``docs/unitizing.md``): ``"statistical"`` (the default; pygamma-agreement's
``StatisticalContinuumSampler``, Titeux & Riad 2021, which DKPro's γ fixtures follow too) draws
units from the continuum's statistics, with positions shifted and scaled to integers (which
changes no disorder by more than about 10^-5); ``"shuffle"`` is the shuffling of Mathet et al.
(2015, §5.2) as pygamma-agreement's ``ShuffleContinuumSampler`` implements it (integer pivots).
The samples are drawn from a seeded NumPy generator; their number and the relative precision of
``δ_e`` (95%, ``1.96 · sd / (mean · √samples)``) are reported.

References: Mathet, Y., Widlöcher, A. & Métivier, J.-P. (2015), "The unified and holistic method
Gamma (γ) for inter-annotator agreement measure and alignment", Computational Linguistics 41(3):
437-479. Titeux, H. & Riad, R. (2021), "pygamma-agreement: Gamma γ measure for inter/intra-
annotator agreement in Python", JOSS 6(62):2989. Definitions in our words: ``docs/unitizing.md``.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import comb, sqrt
from typing import Any

import numpy as np

from ...core.arrays import pairs_within_blocks
from ...core.align import SpanColumns, edge_components, candidate_pairs, match
from ...errors import UsageError
from .samplers import shuffle_samples, statistical_samples

#: Components of the candidate graph (3+ raters) are searched exactly up to this many states,
#: and up to this many candidate tuples looked at in all (each state may look at up to 2^(m-1)
#: tuples when m raters' units all lie close together: 20 raters marking one span would take hours).
MAX_STATES = 200_000
MAX_TUPLES = 200_000

#: The random continua γ's expected disorder may be drawn from, and what the report says of each.
SAMPLERS = {
    "statistical": "statistical (pygamma-agreement's default StatisticalContinuumSampler; Titeux & Riad 2021)",
    "shuffle": "shuffle (Mathet et al. 2015, §5.2; pygamma-agreement's ShuffleContinuumSampler)",
}


@dataclass(frozen=True)
class Dissimilarity:
    """The combined dissimilarity ``alpha · positional + beta · categorical`` (Δ∅ = 1).

    ``categorical`` is an (n_labels, n_labels) matrix, or None for 0/1 (same label or not).
    """

    alpha: float = 1.0
    beta: float = 1.0
    categorical: np.ndarray | None = None

    def __call__(self, s1, e1, c1, s2, e2, c2) -> np.ndarray:
        ratio = (np.abs(s1 - s2) + np.abs(e1 - e2)) / ((e1 - s1) + (e2 - s2))
        if self.categorical is None:
            cat = (c1 != c2).astype(np.float64)
        else:
            cat = self.categorical[c1, c2]
        return self.alpha * ratio * ratio + self.beta * cat


@dataclass(frozen=True)
class Alignment:
    """A best alignment: ``tuples[k, r]`` is the unit of rater ``r`` in tuple ``k`` (-1: ∅)."""

    tuples: np.ndarray
    disorder: np.ndarray  # (n_tuples,) each tuple's disorder
    group: np.ndarray  # (n_tuples,) each tuple's alignment group

    @property
    def total(self) -> float:
        return float(self.disorder.sum())


def best_alignment(
    group: np.ndarray,
    rater: np.ndarray,
    label: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    *,
    n_raters: int,
    dissimilarity: Dissimilarity = Dissimilarity(),
) -> Alignment:
    """Best unitary alignment of the units within each group (e.g. each document).

    All arrays have shape (n_units,). Raises UsageError when a component of the candidate graph
    (3+ raters) is too large to search exactly.
    """
    n = len(start)
    bound = comb(n_raters, 2) + n_raters - 1
    ia, ib, d = _candidates(group, rater, label, start, end, dissimilarity, bound)
    if n_raters == 2:
        return _two_raters(group, rater, ia, ib, d, n)
    return _many_raters(group, rater, start, ia, ib, d, n, n_raters)


def _candidates(group, rater, label, start, end, dis: Dissimilarity, bound: float):
    """Pairs ``(i, j)`` of units of different raters in one group with ``d(i, j) <= bound``,
    each pair once, ``i`` the one starting first."""
    if not len(start):
        empty = np.zeros(0, np.int64)
        return empty, empty, np.zeros(0)
    lens = end - start
    longest = int(lens.max())
    if dis.alpha <= 0:
        order = np.argsort(group, kind="stable")
        i, j = pairs_within_blocks(group[order])
        ia, ib = order[i], order[j]
    else:
        # d <= bound needs a gap of at most c (l_u + l_v) <= c (l_u + longest) between them, so
        # a unit widened to the right by that much overlaps every later partner it may have
        c = max(0.0, (sqrt(bound / dis.alpha) - 1) / 2)
        pad = np.ceil(c * (lens + longest)).astype(np.int64) + 1
        zeros = np.zeros_like(label)
        wide = SpanColumns(group=group, start=start, end=end + pad, label=zeros)
        ia, ib = candidate_pairs(wide, SpanColumns(group=group, start=start, end=end, label=zeros), by_label=False)
        first = (start[ia] < start[ib]) | ((start[ia] == start[ib]) & (ia < ib))
        ia, ib = ia[first], ib[first]
    keep = rater[ia] != rater[ib]
    ia, ib = ia[keep], ib[keep]
    d = dis(start[ia], end[ia], label[ia], start[ib], end[ib], label[ib])
    keep = d <= bound
    return ia[keep], ib[keep], d[keep]


def _two_raters(group, rater, ia, ib, d, n) -> Alignment:
    """Maximum-weight matching with weight ``2 - d``; the rest aligned with ∅."""
    # orient every pair as (rater 0, rater 1) and index within each side
    a = np.where(rater[ia] == 0, ia, ib)
    b = np.where(rater[ia] == 0, ib, ia)
    side0, side1 = np.flatnonzero(rater == 0), np.flatnonzero(rater == 1)
    pos = np.empty(n, np.int64)
    pos[side0] = np.arange(len(side0))
    pos[side1] = np.arange(len(side1))
    weight = 2.0 - d
    useful = weight > 0
    pa, pb, w = pos[a[useful]], pos[b[useful]], weight[useful]
    forced, rest = _leaf_pairs(pa, pb, w, len(side0), len(side1))
    small, large = _matching_small(pa[rest], pb[rest], w[rest])
    large = rest[large]
    large = large[np.lexsort((pb[large], pa[large]))]
    found = match(pa[large], pb[large], w[large], len(side0), len(side1))
    chosen = np.concatenate([forced, rest[small]])
    m0 = side0[np.concatenate([pa[chosen], found.a_index])]
    m1 = side1[np.concatenate([pb[chosen], found.b_index])]
    credit = np.concatenate([w[chosen], found.credit])
    matched = np.zeros(n, bool)
    matched[m0] = matched[m1] = True
    alone = np.flatnonzero(~matched)
    tuples = np.full((len(m0) + len(alone), 2), -1, np.int64)
    tuples[: len(m0), 0], tuples[: len(m0), 1] = m0, m1
    tuples[len(m0) + np.arange(len(alone)), rater[alone]] = alone
    disorder = np.concatenate([2.0 - credit, np.ones(len(alone))])
    return _sorted(Alignment(tuples, disorder, group[np.where(tuples[:, 0] >= 0, tuples[:, 0], tuples[:, 1])]))


def _leaf_pairs(ia: np.ndarray, ib: np.ndarray, w: np.ndarray, n_a: int, n_b: int) -> tuple[np.ndarray, np.ndarray]:
    """Edges some maximum-weight matching contains, found by leaves; and the edges left.

    A unit with a single candidate partner, whose edge weighs at least as much as every other
    edge of that partner, can be matched to it: in any best matching, giving the partner to it
    instead loses nothing. Applied in rounds until no such leaf remains; returns (the forced
    edges, the edges between units still free), as indices into the edge arrays.
    """
    alive = np.ones(len(ia), bool)
    forced = []
    while True:
        live = np.flatnonzero(alive)
        if not len(live):
            break
        a, b, x = ia[live], ib[live], w[live]
        deg_a = np.bincount(a, minlength=n_a)
        deg_b = np.bincount(b, minlength=n_b)
        top_a = np.full(n_a, -np.inf)
        top_b = np.full(n_b, -np.inf)
        np.maximum.at(top_a, a, x)
        np.maximum.at(top_b, b, x)
        leaf = ((deg_a[a] == 1) & (x >= top_b[b])) | ((deg_b[b] == 1) & (x >= top_a[a]))
        pick = np.flatnonzero(leaf)
        if not len(pick):
            break
        # one edge per unit: first by B, then by A
        pick = pick[np.unique(b[pick], return_index=True)[1]]
        pick = pick[np.unique(a[pick], return_index=True)[1]]
        chosen = live[pick]
        forced.append(chosen)
        used_a = np.zeros(n_a, bool)
        used_b = np.zeros(n_b, bool)
        used_a[ia[chosen]] = True
        used_b[ib[chosen]] = True
        alive &= ~(used_a[ia] | used_b[ib])
    forced_edges = np.concatenate(forced) if forced else np.zeros(0, np.int64)
    return forced_edges, np.flatnonzero(alive)


#: Components whose smaller side has at most this many units are matched by the batched search.
SMALL_SIDE = 8


def _matching_small(ia: np.ndarray, ib: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-weight matching of every small component at once; ``(chosen edges, edges left)``.

    Components whose smaller side has at most :data:`SMALL_SIDE` units are solved exactly by
    dynamic programming over the rows with the set of used columns as state, all components of
    one shape in the same NumPy pass (ties: more pairs, then the first option). The edges of
    larger components are returned for :func:`spanagree.core.align.match`.
    """
    none = np.zeros(0, np.int64)
    if not len(ia):
        return none, none
    comp = edge_components(ia, ib, int(ia.max()) + 1)
    # local row/column index of each edge's ends within its component
    a_key = np.unique(comp * (ia.max() + 1) + ia, return_inverse=True)[1]
    b_key = np.unique(comp * (ib.max() + 1) + ib, return_inverse=True)[1]
    a_comp = np.zeros(a_key.max() + 1, np.int64)
    b_comp = np.zeros(b_key.max() + 1, np.int64)
    a_comp[a_key], b_comp[b_key] = comp, comp
    a_first = np.searchsorted(a_comp, a_comp)  # nodes are sorted by component
    b_first = np.searchsorted(b_comp, b_comp)
    la, lb = a_key - a_first[a_key], b_key - b_first[b_key]
    comps, comp_idx = np.unique(comp, return_inverse=True)
    n_rows = np.zeros(len(comps), np.int64)
    n_cols = np.zeros(len(comps), np.int64)
    np.maximum.at(n_rows, comp_idx, la + 1)
    np.maximum.at(n_cols, comp_idx, lb + 1)
    flip = n_cols > n_rows  # columns: the smaller side
    row = np.where(flip[comp_idx], lb, la)
    col = np.where(flip[comp_idx], la, lb)
    rows_of = np.where(flip, n_cols, n_rows)
    cols_of = np.where(flip, n_rows, n_cols)
    small_comp = cols_of <= SMALL_SIDE
    chosen = []
    shape = rows_of * (SMALL_SIDE + 1) + cols_of
    for key in np.unique(shape[small_comp]).tolist():
        r, c = divmod(key, SMALL_SIDE + 1)
        members = np.flatnonzero(small_comp & (shape == key))
        slot = np.full(len(comps), -1, np.int64)
        slot[members] = np.arange(len(members))
        edges = np.flatnonzero(slot[comp_idx] >= 0)
        k = slot[comp_idx[edges]]
        weight = np.full((len(members), r, c), -np.inf)
        edge_at = np.full((len(members), r, c), -1, np.int64)
        weight[k, row[edges], col[edges]] = w[edges]
        edge_at[k, row[edges], col[edges]] = edges
        chosen.append(_dp_batch(weight, edge_at))
    picked = np.concatenate(chosen) if chosen else none
    return picked, np.flatnonzero(~small_comp[comp_idx])


def _dp_batch(weight: np.ndarray, edge_at: np.ndarray) -> np.ndarray:
    """Best matching of each (r, c) weight matrix in a stack (-inf: no edge); the chosen edges."""
    n, r, c = weight.shape
    states = 1 << c
    masks = np.arange(states)
    bonus = 1e-9 / (c + 1)  # among equal weights, more pairs
    best = np.full((n, states), -np.inf)
    best[:, 0] = 0.0
    choice = np.full((r, n, states), -1, np.int8)
    for i in range(r):
        new = best.copy()
        for j in range(c):
            source = masks[(masks >> j & 1) == 0]
            target = source | (1 << j)
            offer = best[:, source] + (weight[:, i, j] + bonus)[:, None]
            better = offer > new[:, target]
            new[:, target] = np.where(better, offer, new[:, target])
            choice[i][:, target] = np.where(better, j, choice[i][:, target])
        best = new
    mask = np.argmax(best, axis=1)
    out = []
    every = np.arange(n)
    for i in range(r - 1, -1, -1):
        j = choice[i][every, mask].astype(np.int64)
        hit = j >= 0
        out.append(edge_at[every[hit], i, j[hit]])
        mask = np.where(hit, mask ^ (1 << np.maximum(j, 0)), mask)
    return np.concatenate(out)


def _many_raters(group, rater, start, ia, ib, d, n, n_raters) -> Alignment:
    """Exact set partitioning on each connected component of the candidate graph."""
    rows: list[list[int]] = []
    costs: list[float] = []
    linked = np.zeros(n, bool)
    pairs = comb(n_raters, 2)
    if len(ia):
        linked[ia] = linked[ib] = True
        deg = np.bincount(np.concatenate([ia, ib]), minlength=n)
        # an isolated pair: together when cheaper than apart (ties: apart, as with two raters)
        lone = (deg[ia] == 1) & (deg[ib] == 1)
        together = lone & ((d + pairs - 1) / pairs < 2.0)
        rows.extend([[x, y] for x, y in zip(ia[together].tolist(), ib[together].tolist())])
        costs.extend(((d[together] + pairs - 1) / pairs).tolist())
        linked[ia[lone & ~together]] = linked[ib[lone & ~together]] = False
        rest = np.flatnonzero(~lone)
        if len(rest):
            # the aligner's bipartite components, with every unit on both sides joined to itself
            a, b = ia[rest], ib[rest]
            nodes = np.union1d(a, b)
            comp = edge_components(np.concatenate([a, b, nodes]), np.concatenate([b, a, nodes]), n)[: len(a)]
            order = np.argsort(comp, kind="stable")
            bounds = np.flatnonzero(np.diff(comp[order])) + 1
            for edges in np.split(rest[order], bounds):
                sub_rows, sub_costs = _solve(ia[edges], ib[edges], d[edges], rater, start, n_raters)
                rows.extend(sub_rows)
                costs.extend(sub_costs)
    alone = np.flatnonzero(~linked)
    tuples = np.full((len(rows) + len(alone), n_raters), -1, np.int64)
    for k, members in enumerate(rows):
        tuples[k, rater[members]] = members
    tuples[len(rows) + np.arange(len(alone)), rater[alone]] = alone
    disorder = np.concatenate([np.asarray(costs, dtype=np.float64), np.ones(len(alone))])
    first = np.max(tuples, axis=1)
    return _sorted(Alignment(tuples, disorder, group[first]))


def _solve(ia, ib, d, rater, start, n_raters) -> tuple[list[list[int]], list[float]]:
    """Least-disorder partition of one component into tuples (one unit per rater at most).

    A search over the leftmost unit still to place, memoised on the set of units left: with the
    units in order of position, that set is everything right of a frontier except a few units
    near it, so the number of states grows with how many units lie close together, not with the
    size of the component.
    """
    units = sorted(set(ia.tolist()) | set(ib.tolist()), key=lambda u: (int(start[u]), u))
    local = {u: k for k, u in enumerate(units)}
    m = len(units)
    dist = {}
    nbr = [0] * m
    for x, y, w in zip(ia.tolist(), ib.tolist(), d.tolist()):
        p, q = local[x], local[y]
        dist[p, q] = dist[q, p] = w
        nbr[p] |= 1 << q
        nbr[q] |= 1 << p
    rat = [int(rater[u]) for u in units]
    pairs = comb(n_raters, 2)
    memo: dict[int, tuple[float, tuple[int, ...]]] = {0: (0.0, ())}

    def cost(members: tuple[int, ...]) -> float:
        k = len(members)
        inside = sum(dist[members[i], members[j]] for i in range(k) for j in range(i))
        return (inside + pairs - comb(k, 2)) / pairs

    looked_at = [0]

    def too_large() -> UsageError:
        return UsageError(
            f"a group of {m} mutually close units is too large for the exact γ alignment; "
            "γ is reported as undefined"
        )

    def tuples_with(u: int, mask: int):
        """Every tuple containing u drawn from ``mask``: pairwise candidates, distinct raters."""
        out = []

        def grow(members, allowed, used):
            looked_at[0] += 1
            if looked_at[0] > MAX_TUPLES:
                raise too_large()
            out.append(tuple(members))
            rest = allowed
            while rest:
                v = (rest & -rest).bit_length() - 1
                rest &= rest - 1
                if rat[v] in used:
                    continue
                grow(members + [v], rest & nbr[v], used | {rat[v]})

        grow([u], nbr[u] & mask, {rat[u]})
        return out

    def best(mask: int) -> tuple[float, tuple[int, ...]]:
        if mask in memo:
            return memo[mask]
        if len(memo) > MAX_STATES:
            raise too_large()
        u = (mask & -mask).bit_length() - 1
        top: tuple[float, tuple[int, ...]] | None = None
        for members in tuples_with(u, mask & ~(1 << u)):
            taken = 0
            for v in members:
                taken |= 1 << v
            rest_cost, rest_choice = best(mask & ~taken)
            total = cost(members) + rest_cost
            if top is None or total < top[0] - 1e-12:
                top = (total, (taken,) + rest_choice)
        memo[mask] = top
        return top

    _, choice = best((1 << m) - 1)
    rows, costs = [], []
    for taken in choice:
        members = tuple(k for k in range(m) if taken >> k & 1)
        rows.append([units[k] for k in members])
        costs.append(cost(members))
    return rows, costs


def _sorted(al: Alignment) -> Alignment:
    """Tuples in a canonical order: by group, then by their units."""
    if not len(al.tuples):
        return al
    keys = [al.tuples[:, r] for r in range(al.tuples.shape[1] - 1, -1, -1)] + [al.group]
    order = np.lexsort(keys)
    return Alignment(al.tuples[order], al.disorder[order], al.group[order])


def observed_disorder(alignment: Alignment, n_units: int, n_raters: int) -> float | None:
    """``Σ disorder / (units per rater)``; None without units."""
    if n_units == 0:
        return None
    return alignment.total / (n_units / n_raters)


def _canonical_units(doc, rater, label, start, end, n_raters) -> tuple[np.ndarray, np.ndarray]:
    """The units in a canonical order, and each unit's rater renumbered: raters ranked by their
    annotations alone (number of units, then the units), units by (document, rater, start, end,
    label). Several alignments can tie for the least disorder while their categorical disorders
    differ (a rater's two units with different labels on the same words, say); the solver then
    keeps the first it meets, so this order makes γ-cat and γ-k the same whatever the raters'
    names and the order of the input."""
    by_unit = np.lexsort((label, end, start, doc, rater))
    per_rater = [by_unit[rater[by_unit] == r] for r in range(n_raters)]
    keys = [np.stack([doc[u], start[u], end[u], label[u]]).T.tobytes() for u in per_rater]
    ranked = sorted(range(n_raters), key=lambda r: (len(per_rater[r]), keys[r]))
    renamed = np.empty(n_raters, np.int64)
    renamed[ranked] = np.arange(n_raters)
    new_rater = renamed[rater]
    order = np.lexsort((label, end, start, new_rater, doc))
    return order, new_rater[order]


def gamma(
    doc: np.ndarray,
    rater: np.ndarray,
    label: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    doc_length: np.ndarray,
    *,
    n_raters: int,
    n_labels: int | None = None,
    dissimilarity: Dissimilarity = Dissimilarity(),
    samples: int = 30,
    seed: int = 0,
    sampler: str = "statistical",
    per_label: bool = True,
) -> dict[str, Any]:
    """γ of a corpus: best alignment per document, expected disorder from random continua.

    Parameters
    ----------
    doc, rater, label, start, end : int arrays of shape (n_units,), offsets within documents.
    doc_length : int array of shape (n_documents,); documents are laid end to end in this order
        for the random continua.
    n_raters : number of raters (codes ``0 .. n - 1``), at least 2; every rater is taken to have
        annotated every document.
    dissimilarity : the combined dissimilarity (``alpha``, ``beta``, categorical matrix).
    samples, seed : number of random continua (at least 2) and the seed of their generator.
    sampler : ``"statistical"`` (pygamma-agreement's default) or ``"shuffle"`` (Mathet et al.
        2015, §5.2): how the random continua are drawn (see the module's docstring).
    per_label : also report γ-cat and γ-k for each label.

    Returns
    -------
    A dict with ``value``, ``observed_disorder``, ``expected_disorder``, ``samples``, ``seed``,
    ``sampler``, ``expected_disorder_sd``, ``precision`` (95% relative half-width of
    ``expected_disorder``), ``units``, ``unitary_alignments``, and, with ``per_label``,
    ``gamma_cat`` and ``gamma_k`` (label code -> value). Values are None with a ``reason`` when
    undefined.
    """
    doc, rater, label, start, end = (np.asarray(x, dtype=np.int64) for x in (doc, rater, label, start, end))
    doc_length = np.asarray(doc_length, dtype=np.int64)
    if n_raters < 2:
        raise UsageError(f"γ needs at least 2 raters, got {n_raters}")
    if samples < 2:
        raise UsageError(f"γ needs at least 2 random samples, got {samples}")
    if sampler not in SAMPLERS:
        raise UsageError(f"γ's sampler must be one of {', '.join(map(repr, SAMPLERS))}, got {sampler!r}")
    if len(start) and ((end <= start).any() or (start < 0).any() or (end > doc_length[doc]).any()):
        raise UsageError("every unit must be non-empty and lie within its document")
    if n_labels is None:
        n_labels = int(label.max()) + 1 if len(label) else 0
    if dissimilarity.categorical is not None and np.shape(dissimilarity.categorical) != (n_labels, n_labels):
        raise UsageError(f"the categorical dissimilarity must be a {n_labels}×{n_labels} matrix")
    result: dict[str, Any] = {
        "value": None,
        "observed_disorder": None,
        "expected_disorder": None,
        "samples": samples,
        "seed": seed,
        "sampler": SAMPLERS[sampler],
        "units": int(len(start)),
    }
    if not len(start):
        result["reason"] = "no units"
        return result
    order, rater = _canonical_units(doc, rater, label, start, end, n_raters)
    doc, label, start, end = doc[order], label[order], start[order], end[order]
    offset = np.concatenate([[0], np.cumsum(doc_length)[:-1]]).astype(np.int64)
    g_start, g_end = start + offset[doc], end + offset[doc]
    rng = np.random.default_rng(seed)
    try:  # a component too large for the exact alignment, in the data or in a random continuum
        observed = best_alignment(doc, rater, label, start, end, n_raters=n_raters, dissimilarity=dissimilarity)
        if sampler == "statistical":
            drawn = statistical_samples(rng, rater, label, g_start, g_end, n_raters, n_labels, samples)
        else:
            drawn = shuffle_samples(rng, rater, label, g_start, g_end, n_raters, samples)
        sample_group, s_rater, s_label, s_start, s_end = drawn
        chance = best_alignment(
            sample_group, s_rater, s_label, s_start, s_end, n_raters=n_raters, dissimilarity=dissimilarity
        )
    except UsageError as error:
        result["reason"] = str(error)
        return result
    delta_o = observed_disorder(observed, len(start), n_raters)
    units_per_sample = np.bincount(sample_group, minlength=samples)
    totals = np.bincount(chance.group, weights=chance.disorder, minlength=samples)
    sample_disorder = totals / (units_per_sample / n_raters)
    delta_e = float(sample_disorder.mean())
    sd = float(sample_disorder.std())
    result.update(
        value=1.0 if delta_o == 0 else (1 - delta_o / delta_e if delta_e > 0 else None),
        observed_disorder=delta_o,
        expected_disorder=delta_e,
        expected_disorder_sd=sd,
        precision=1.96 * sd / (delta_e * sqrt(samples)) if delta_e > 0 else None,
        unitary_alignments=int(len(observed.tuples)),
    )
    if result["value"] is None:
        result["reason"] = "the random continua have no disorder"
    if per_label:
        obs = (observed.tuples, np.zeros(len(observed.tuples), np.int64), 1)
        exp = (chance.tuples, chance.group, samples)
        units = (label, start, end)
        s_units = (s_label, s_start, s_end)
        result["gamma_cat"] = _gamma_cat(obs, units, exp, s_units, dissimilarity, None)
        result["gamma_k"] = {
            int(k): _gamma_cat(obs, units, exp, s_units, dissimilarity, int(k)) for k in np.unique(label)
        }
    return result


def _cat_disorders(tuples, group, n_groups, units, dis: Dissimilarity, category: int | None) -> np.ndarray:
    """γ-cat (``category`` None) or γ-k disorder of each group's alignment, shape (n_groups,).

    Within each tuple of ``v`` units, every pair of units is weighted by ``1 / (v - 1)`` times
    its positional confidence ``max(0, 1 - alpha · positional)`` and contributes its categorical
    dissimilarity; each pair of a unit and ∅ contributes 1 with weight 1 (Mathet 2017, §4.2.5, as
    pygamma-agreement computes it). γ-k keeps the pairs where a unit has label ``category``.
    The disorder is the weighted mean; 1 when no pair was kept, 0 when only unit/∅ pairs were.
    """
    label, start, end = units
    n_r = tuples.shape[1]
    present = tuples >= 0
    v = present.sum(axis=1)
    base = np.where(v >= 2, 1.0 / np.maximum(v - 1, 1), 0.0)
    total = np.zeros(n_groups)
    weight = np.zeros(n_groups)
    kept_any = np.zeros(n_groups, bool)
    looped = np.zeros(n_groups, bool)
    for i in range(n_r):
        for j in range(i + 1, n_r):
            u, w = tuples[:, i], tuples[:, j]
            both = present[:, i] & present[:, j]
            one = present[:, i] ^ present[:, j]
            lu, lw = np.where(u >= 0, label[u], -1), np.where(w >= 0, label[w], -1)
            if category is None:
                relevant = np.ones(len(u), bool)
            else:
                relevant = (lu == category) | (lw == category)
            kept_any |= np.bincount(group, weights=relevant, minlength=n_groups) > 0
            sel = relevant & one
            total += np.bincount(group[sel], minlength=n_groups)
            weight += np.bincount(group[sel], minlength=n_groups)
            sel = relevant & both
            uu, ww = u[sel], w[sel]
            pos = dis.alpha * ((np.abs(start[uu] - start[ww]) + np.abs(end[uu] - end[ww])) / ((end[uu] - start[uu]) + (end[ww] - start[ww]))) ** 2
            confidence = np.maximum(0.0, 1.0 - pos)
            cat = (label[uu] != label[ww]).astype(np.float64) if dis.categorical is None else dis.categorical[label[uu], label[ww]]
            wgt = base[sel] * confidence
            total += np.bincount(group[sel], weights=cat * wgt, minlength=n_groups)
            weight += np.bincount(group[sel], weights=wgt, minlength=n_groups)
            looped |= np.bincount(group[sel], minlength=n_groups) > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(total == 0, 0.0, total / weight)
    return np.where(looped, out, np.where(kept_any, 0.0, 1.0))


def _gamma_cat(obs, units, exp, s_units, dis, category) -> float | None:
    """γ-cat or γ-k: ``1 - observed / mean expected`` of the categorical disorders."""
    o = float(_cat_disorders(obs[0], obs[1], obs[2], units, dis, category)[0])
    if o == 0:
        return 1.0
    e = float(_cat_disorders(exp[0], exp[1], exp[2], s_units, dis, category).mean())
    if e == 0:
        return 0.0 if category is None else None
    return 1 - o / e
