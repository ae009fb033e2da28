"""The random continua of γ's expected disorder: pygamma-agreement's statistical sampler and
Mathet et al.'s shuffle (what each draws: the functions below and ``docs/unitizing.md``).

Both take one continuum (every document laid end to end) as unit columns and return ``samples``
random continua as columns with a group per sample, drawn from the given seeded generator.
"""
from __future__ import annotations

from typing import Any

import numpy as np

def continuum_statistics(rater: np.ndarray, label: np.ndarray, start: np.ndarray, end: np.ndarray,
                         n_raters: int, n_labels: int) -> dict[str, Any]:
    """What the statistical sampler draws from: mean and (population) standard deviation of the
    units per rater, of the gaps and of the lengths, and each label's share.

    A *gap* is a rater's start minus their previous unit's end (units by start, then end; negative
    when two of a rater's units overlap), each rater's first start when above 0, and one gap of 0
    (which keeps a continuum of single units from having no gap at all), as pygamma-agreement's
    ``StatisticalContinuumSampler`` takes them.
    """
    order = np.lexsort((label, end, start, rater))
    r, s, e = rater[order], start[order], end[order]
    same = r[1:] == r[:-1]
    first = np.concatenate([[True], ~same])
    first_starts = s[first]
    gaps = np.concatenate([[0], (s[1:] - e[:-1])[same], first_starts[first_starts > 0]]).astype(np.float64)
    per_rater = np.bincount(rater, minlength=n_raters).astype(np.float64)
    lengths = (end - start).astype(np.float64)
    return {
        "units": (float(per_rater.mean()), float(per_rater.std())),
        "gap": (float(gaps.mean()), float(gaps.std())),
        "length": (float(lengths.mean()), float(lengths.std())),
        "label_share": np.bincount(label, minlength=n_labels) / len(label),
    }


#: Mean unit length in a statistical sample once scaled to integers (and the largest end allowed).
SCALED_LENGTH = 2**16
SCALED_END = 2**40


def statistical_samples(
    rng: np.random.Generator,
    rater: np.ndarray,
    label: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    n_raters: int,
    n_labels: int,
    samples: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Random continua drawn from the continuum's statistics (:func:`continuum_statistics`).

    Sample ``k``'s rater ``r`` gets ``|trunc(N(μ_units, σ_units))|`` units (rater 0 at least one);
    each unit starts a gap ``~ N(μ_gap, σ_gap)`` after the rater's previous end (after 0 for the
    first), lasts ``|N(μ_len, σ_len)|`` (drawn again while it would be empty once scaled) and has
    a label drawn by the labels' shares. All draws are made at once; positions are then shifted
    to start at 0 within each sample and scaled to integers (γ's dissimilarity is invariant to
    both). Returns ``(sample, rater, label, start, end)`` like :func:`shuffle_samples`.
    """
    stats = continuum_statistics(rater, label, start, end, n_raters, n_labels)
    mu_n, sd_n = stats["units"]
    counts = np.abs(np.trunc(rng.normal(mu_n, sd_n, size=(samples, n_raters)))).astype(np.int64)
    counts[:, 0] = np.maximum(counts[:, 0], 1)
    flat = counts.ravel()  # (samples * n_raters,), sample-major
    total = int(flat.sum())
    slot = np.repeat(np.arange(len(flat)), flat)
    gaps = rng.normal(*stats["gap"], size=total)
    mu_len, sd_len = stats["length"]
    scale_guess = SCALED_LENGTH / mu_len
    lengths = np.abs(rng.normal(mu_len, sd_len, size=total))
    while True:  # a unit must keep at least one unit of length once scaled
        short = np.flatnonzero(lengths * scale_guess < 1)
        if not len(short):
            break
        lengths[short] = np.abs(rng.normal(mu_len, sd_len, size=len(short)))
    labels = rng.choice(n_labels, size=total, p=stats["label_share"])
    # start_i = Σ_{j <= i} gap_j + Σ_{j < i} length_j within each (sample, rater) run
    steps = np.cumsum(gaps + lengths)
    run_start = np.concatenate([[0], np.cumsum(flat)[:-1]])
    before = np.concatenate([[0.0], steps])[run_start]  # the cumulative sum up to each run's start
    s = steps - lengths - np.repeat(before, flat)
    e = s + lengths
    sample = slot // n_raters
    low = np.full(samples, np.inf)
    np.minimum.at(low, sample, s)
    s, e = s - low[sample], e - low[sample]
    scale = min(scale_guess, SCALED_END / max(float(e.max()), 1.0))
    s_int = np.floor(s * scale + 0.5).astype(np.int64)
    e_int = np.maximum(np.floor(e * scale + 0.5).astype(np.int64), s_int + 1)
    return sample, slot % n_raters, labels.astype(np.int64), s_int, e_int


def shuffle_samples(
    rng: np.random.Generator,
    rater: np.ndarray,
    label: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    n_raters: int,
    samples: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Random continua by Mathet et al.'s shuffling (pygamma-agreement's integer pivots).

    On ``[0, max end)`` each of ``n`` sampled raters copies the whole annotation of a rater drawn
    at random (with replacement; raters ordered by their annotations, so that names and input
    order do not change the draws), shifted by a pivot drawn among the positions not within half
    the mean unit length of an earlier pivot, units that would start past the end wrapping round
    to the start. The pivots and the copied raters are drawn sample by sample (a sample with no
    unit is drawn again); the units are then shifted for all samples at once. Returns ``(sample,
    rater, label, start, end)``, ``rater`` being the position of the sampled rater.
    """
    sup = int(max(int(end.max()), 0))
    half = float((end - start).mean()) / 2
    per_rater = _canonical_raters(rater, label, start, end, n_raters)
    sizes = np.array([len(u) for u in per_rater])
    shifts, chosen = [], []
    for _ in range(samples):
        while True:
            segments = [(0.0, float(sup))]
            pivots, picks = [], []
            for _ in range(n_raters):
                if segments:
                    pivot = _pivot(rng, segments)
                    segments = _remove(pivot, segments, half)
                else:  # every position taken: a free pivot (truncated to an integer here)
                    pivot = float(int(rng.uniform(0.0, sup)))
                pivots.append(int(pivot))
                picks.append(int(rng.integers(n_raters)))
            if sizes[picks].any():
                break
        shifts.append(pivots)
        chosen.append(picks)
    picks = np.array(chosen).ravel()  # (samples * n_raters,), sample-major
    counts = sizes[picks]
    units = np.concatenate([per_rater[k] for k in picks.tolist()])
    shift = np.repeat(np.array(shifts).ravel(), counts)
    s, e = start[units] + shift, end[units] + shift
    wrap = s > sup
    s, e = np.where(wrap, s - sup, s), np.where(wrap, e - sup, e)
    slot = np.repeat(np.arange(len(picks)), counts)
    return slot // n_raters, slot % n_raters, label[units], s, e


def _canonical_raters(rater, label, start, end, n_raters) -> list[np.ndarray]:
    """Each rater's units, sorted, with the raters in an order set by their annotations alone,
    so that the samples do not depend on the raters' names or on the order of the input."""
    order = np.lexsort((label, end, start, rater))
    units = [order[rater[order] == r] for r in range(n_raters)]
    keys = [np.stack([start[u], end[u], label[u]]).T.tobytes() for u in units]
    ranked = sorted(range(n_raters), key=lambda r: (len(units[r]), keys[r]))
    return [units[r] for r in ranked]


def _pivot(rng: np.random.Generator, segments: list[tuple[float, float]]) -> float:
    """A segment by length, then an integer position uniformly within it (1 when weights fail)."""
    weights = [e - s for s, e in segments]
    total = sum(weights)
    if total <= 0 or min(weights) < 0:
        return 1.0
    u = rng.random() * total
    k = 0
    while k < len(weights) - 1 and u >= weights[k]:
        u -= weights[k]
        k += 1
    s, e = segments[k]
    return float(int(s + rng.random() * (e - s)))


def _remove(pivot: float, segments: list[tuple[float, float]], dist: float) -> list[tuple[float, float]]:
    """The segments minus ``[pivot - dist, pivot + dist]``, as the reference sampler computes it.

    (Each segment is cut at the window: a piece left of it is kept up to ``pivot - dist`` and a
    piece right of it from ``pivot + dist``.)
    """
    out = []
    for s, e in reversed(segments):
        if s >= pivot - dist:
            if e > pivot + dist:
                out.append((pivot + dist, e))
        else:
            out.append((s, pivot - dist))
            if e > pivot + dist:
                out.append((pivot + dist, e))
    return out
