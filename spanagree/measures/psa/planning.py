"""Planning a round (docs/planning.md): how many documents to double-annotate.

**Documents for a target half-width, from a pilot.** A span statistic has no closed-form sample
size: how much it varies depends on how many spans a document holds, on the labels and on the
raters. The pilot round is the evidence. Every statistic with a ``path`` of
:meth:`~spanagree.measures.psa.intervals.DocumentCounts.statistics` is a function of sums of
per-document counts, so a round of ``n`` documents like the pilot's is a weighted sum of the pilot's
rows, the weights a multinomial draw of ``n`` documents among the pilot's ``n₀``. The half-width
``h(n)`` of the percentile interval over such replicates is the interval the round would have;
``documents_needed`` is the smallest ``n`` with ``h(n) <= target``, found by the steps
``n ← n · (h(n) / target)²`` from the pilot's own ``h(n₀)`` (h shrinks as 1/sqrt(n); three steps
settle it to the resampling noise). Assumption: the documents still to come are like the pilot's
(drawn from the same population, rated by the same kind of raters).

**Without a pilot, for items** (the published designs):

- Cohen's κ, two raters, two categories (Cantor 1996): the 2×2 table of shares is fixed by the
  raters' rates of "yes" ``r₁, r₂`` and κ; with ``Q(κ)`` the large-sample variance of κ̂ times N
  (Fleiss, Cohen & Everitt 1969, :func:`~.chance.kappa_variance.kappa_variance_terms` on the
  table of shares), the test of ``H₀: κ = κ₀`` against ``κ₁`` at level α with power 1 − β needs
  ``N = ((z_{1−α/d}·sqrt(Q(κ₀)) + z_{1−β}·sqrt(Q(κ₁))) / (κ₁ − κ₀))²`` items (d = 2 two-sided, else 1).
- Cohen's κ, k categories (Flack, Afifi, Lachenbruch & Schouten 1988): the margins and κ leave the
  k×k table open; ``Q`` is taken at its largest over the tables (a linear program, since with the
  margins and κ fixed it is linear in the cells), for the test above or for an interval of
  half-width W: ``N = (z_{1−α/2}·sqrt(Q(κ)) / W)²``.
- Krippendorff's α (Krippendorff 2004, §11.4; after Bloch & Kraemer 1989): to hold
  ``α >= α_min`` at significance p when the rarest category has probability ``p_c``,
  ``N = 2·z_{1−p}²·((1 + α_min)(3 − α_min) / (4(1 − α_min)·p_c(1 − p_c)) − α_min)``.
- Percent agreement (Gwet 2014, ch. 10): its standard error is at most ``1/(2·sqrt(n))``, so a
  95 % margin of error E (z ≈ 2) needs ``n = 1/E²`` subjects.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from numpy.typing import ArrayLike

from ...errors import UsageError
from ..chance.kappa_variance import kappa_variance_terms
from ..student_t import normal_quantile
from .deciding import documents_to_decide
from .intervals import DocumentCounts, row_quantiles

__all__ = ["agreement_items", "alpha_items", "documents_for_half_width", "documents_to_decide", "half_width_grid",
           "kappa_items", "largest_kappa_variance", "pilot_counts"]

#: Steps of ``n ← n · (h(n) / target)²``.
STEPS = 3
#: What ``plan`` does and assumes, as its output says.
METHOD = ("percentile bootstrap over documents: a round of n documents is n of the pilot's drawn with "
          "replacement; n grows until the interval's half-width meets the target. A bound: the interval's side "
          "facing it shrinks as 1/sqrt(n) until it clears the bound with the asked power")
ASSUMPTION = "the documents still to come are like the pilot's (same population, same kind of raters)"


def half_width(counts: DocumentCounts, path: tuple, documents: int, *, level: float, replicates: int,
               seed: int) -> float | None:
    """The half-width of the percentile interval (at ``level``) of the statistic at ``path`` over a
    round of ``documents`` documents drawn with replacement from the pilot's (None: undefined in
    every replicate)."""
    rng = np.random.default_rng(seed)
    n0 = counts.n_documents
    values = np.concatenate([
        counts.statistics(counts.sums(rng.multinomial(documents, np.full(n0, 1 / n0), size=block).astype(float)))[path]
        for block in np.diff(np.r_[0:replicates:250, replicates])])
    low, high, _, defined = row_quantiles(values[None, :], (1 - level) / 2)
    return float(high[0] - low[0]) / 2 if defined[0] else None


def pilot_counts(pilot: Any) -> DocumentCounts:
    """The per-document counts of the scored ``pilot`` (an AgreementReport) that a plan resamples."""
    return DocumentCounts(pilot, pairs=np.empty(0, dtype=np.int64))


def documents_for_half_width(counts: DocumentCounts, path: tuple, target: float, *, level: float = 0.95,
                             replicates: int = 1000, seed: int = 0) -> tuple[int, list[dict[str, float]]]:
    """``(documents needed, the curve)`` for a target half-width of the statistic at ``path`` by
    resampling the pilot's documents (``counts``: :func:`pilot_counts`; module docstring); the curve lists
    ``{"documents", "half_width"}`` at every ``n`` tried, the pilot's first."""
    if not 0 < target < 1:
        raise UsageError(f"the target half-width is a number in (0, 1), got {target!r}")
    n, curve = counts.n_documents, []
    for _ in range(STEPS + 1):
        h = half_width(counts, path, n, level=level, replicates=replicates, seed=seed)
        if h is None or h == 0:
            raise UsageError(f"the pilot cannot support this target: the statistic's interval over {n} documents "
                             f"is {'undefined' if h is None else 'a single point'}")
        curve.append({"documents": n, "half_width": h})
        n = max(2, math.ceil(n * (h / target) ** 2))
    return n, curve


#: The round sizes the planning chart resamples, as multiples of the pilot's documents.
GRID = (0.25, 0.5, 1, 2, 4, 8, 16)


def half_width_grid(counts: DocumentCounts, path: tuple, *, level: float = 0.95, replicates: int = 1000, seed: int = 0,
                    multiples: tuple[float, ...] = GRID) -> list[dict[str, float]]:
    """The half-width ``h(n)`` of the statistic at ``path`` for rounds of ``n`` documents like the
    pilot's, ``n`` the pilot's documents times each of ``multiples`` (at least 2): the planning
    chart's points (``{"documents", "half_width"}``; a round whose interval is undefined is left out)."""
    sizes = sorted({max(2, round(counts.n_documents * m)) for m in multiples})
    points = [(n, half_width(counts, path, n, level=level, replicates=replicates, seed=seed)) for n in sizes]
    return [{"documents": n, "half_width": h} for n, h in points if h is not None]


def largest_kappa_variance(rows: ArrayLike, cols: ArrayLike, kappa: float) -> float:
    """``Q``, N times the largest large-sample variance of κ̂ over the k×k tables of shares whose
    margins are ``rows`` (rater 1's category shares) and ``cols`` (rater 2's) and whose Cohen's κ
    is ``kappa`` (Flack, Afifi, Lachenbruch & Schouten 1988: the conservative table). With the
    margins and κ fixed the variance is linear in the cells
    (:func:`~.chance.kappa_variance.kappa_variance_terms`), so the largest is a linear program over
    the tables with those margins and the diagonal sum ``p_o = κ(1 − p_e) + p_e``. With two
    categories there is one such table: Cantor's (1996)."""
    rows, cols = np.asarray(rows, dtype=float), np.asarray(cols, dtype=float)
    k = len(rows)
    if k < 2 or len(cols) != k or (rows < 0).any() or (cols < 0).any() or not (
            math.isclose(rows.sum(), 1) and math.isclose(cols.sum(), 1)):
        raise UsageError("the raters' category shares are two lists of the same length (two or more), each summing to 1")
    expected = float(rows @ cols)
    if not expected < 1:
        raise UsageError("κ is undefined when both raters give every item one category")
    from scipy.optimize import linprog

    cells, constant = kappa_variance_terms(rows, cols, kappa)
    eye = np.eye(k)
    equalities = np.vstack([np.kron(eye, np.ones(k)), np.kron(np.ones(k), eye), eye.ravel()])
    found = linprog(-cells.ravel(), A_eq=equalities, b_eq=np.r_[rows, cols, kappa * (1 - expected) + expected],
                    bounds=(0, 1), method="highs")
    if found.status != 0:
        raise UsageError(f"no table of shares has these margins and κ = {kappa}")
    return max(-float(found.fun) - constant, 0.0)


def _shares(rate: float | Sequence[float]) -> np.ndarray:
    """A rater's category shares: a rate of "yes" is two categories, ``(rate, 1 − rate)``."""
    return np.array([rate, 1 - rate]) if np.ndim(rate) == 0 else np.asarray(rate, dtype=float)


def kappa_items(rate1: float | Sequence[float], rate2: float | Sequence[float], kappa: float,
                kappa_null: float | None = None, *, half_width: float | None = None, alpha: float = 0.05,
                power: float = 0.8, two_sided: bool = False) -> int:
    """Items two raters must rate for Cohen's κ (module docstring): to tell ``kappa`` from
    ``kappa_null`` at level ``alpha`` with ``power`` (Cantor 1996), or for the ``1 − alpha``
    interval of κ to have ``half_width``, ``N = (z_{1−α/2}·√Q(κ) / half_width)²`` (Flack et al.
    1988). A rate is a rater's share of "yes" (two categories) or the list of the rater's shares
    of k categories; ``Q`` is then the largest over the tables with those margins
    (:func:`largest_kappa_variance`), so the number is enough whatever the table.

    >>> kappa_items(0.5, 0.5, 0.7, 0.85)
    96
    """
    rows, cols = _shares(rate1), _shares(rate2)
    if (kappa_null is None) == (half_width is None):
        raise UsageError("give one of kappa_null (a test) and half_width (an interval)")
    if half_width is not None:
        if not 0 < half_width < 1:
            raise UsageError(f"the half-width is a number in (0, 1), got {half_width!r}")
        return math.ceil(normal_quantile(1 - alpha / 2) ** 2 * largest_kappa_variance(rows, cols, kappa)
                         / half_width**2 - 1e-9)
    if kappa == kappa_null:
        raise UsageError("κ and the null κ must differ")
    z = normal_quantile(1 - alpha / (2 if two_sided else 1))
    spread = math.sqrt(largest_kappa_variance(rows, cols, kappa_null)), math.sqrt(largest_kappa_variance(rows, cols, kappa))
    return math.ceil(((z * spread[0] + normal_quantile(power) * spread[1]) / (kappa - kappa_null)) ** 2 - 1e-9)


def alpha_items(alpha_min: float, rarest: float, *, p: float = 0.05) -> int:
    """Units needed to hold Krippendorff's α >= ``alpha_min`` at significance ``p`` when the rarest
    category has probability ``rarest`` (Krippendorff 2004; module docstring).

    >>> alpha_items(0.8, 0.25), alpha_items(0.667, 0.25)
    (139, 81)
    """
    if not (0 < alpha_min < 1 and 0 < rarest <= 0.5 and 0 < p < 1):
        raise UsageError("alpha_min and p are in (0, 1), the rarest category's probability in (0, 0.5]")
    inner = (1 + alpha_min) * (3 - alpha_min) / (4 * (1 - alpha_min) * rarest * (1 - rarest)) - alpha_min
    return math.ceil(2 * normal_quantile(1 - p) ** 2 * inner)


def agreement_items(margin: float) -> int:
    """Subjects for a 95 % margin of error ``margin`` of percent agreement: ``1/E²`` (Gwet 2014).

    >>> agreement_items(0.1), agreement_items(0.05)
    (100, 400)
    """
    if not 0 < margin < 1:
        raise UsageError(f"the margin of error is a number in (0, 1), got {margin!r}")
    return math.ceil(1 / margin**2 - 1e-9)
