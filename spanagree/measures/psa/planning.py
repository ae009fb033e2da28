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
  (Fleiss, Cohen & Everitt 1969, :func:`~.chance.kappa_variance.cohen_kappa_uncertainty` on the
  table of shares), the test of ``H₀: κ = κ₀`` against ``κ₁`` at level α with power 1 − β needs
  ``N = ((z_{1−α/d}·sqrt(Q(κ₀)) + z_{1−β}·sqrt(Q(κ₁))) / (κ₁ − κ₀))²`` items (d = 2 two-sided, else 1).
- Krippendorff's α (Krippendorff 2004, §11.4; after Bloch & Kraemer 1989): to hold
  ``α >= α_min`` at significance p when the rarest category has probability ``p_c``,
  ``N = 2·z_{1−p}²·((1 + α_min)(3 − α_min) / (4(1 − α_min)·p_c(1 − p_c)) − α_min)``.
- Percent agreement (Gwet 2014, ch. 10): its standard error is at most ``1/(2·sqrt(n))``, so a
  95 % margin of error E (z ≈ 2) needs ``n = 1/E²`` subjects.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...errors import UsageError
from ..chance.kappa_variance import cohen_kappa_uncertainty
from ..student_t import normal_quantile
from .deciding import documents_to_decide
from .intervals import DocumentCounts, row_quantiles

__all__ = ["agreement_items", "alpha_items", "documents_for_half_width", "documents_to_decide", "half_width_grid",
           "kappa_items"]

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


def documents_for_half_width(pilot: Any, path: tuple, target: float, *, level: float = 0.95,
                             replicates: int = 1000, seed: int = 0) -> tuple[int, list[dict[str, float]]]:
    """``(documents needed, the curve)`` for a target half-width of the statistic at ``path`` by
    resampling the documents of the scored ``pilot`` (module docstring); the curve lists
    ``{"documents", "half_width"}`` at every ``n`` tried, the pilot's first."""
    if not 0 < target < 1:
        raise UsageError(f"the target half-width is a number in (0, 1), got {target!r}")
    counts = DocumentCounts(pilot, pairs=np.empty(0, dtype=np.int64))
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


def half_width_grid(pilot: Any, path: tuple, *, level: float = 0.95, replicates: int = 1000, seed: int = 0,
                    multiples: tuple[float, ...] = GRID) -> list[dict[str, float]]:
    """The half-width ``h(n)`` of the statistic at ``path`` for rounds of ``n`` documents like the
    pilot's, ``n`` the pilot's documents times each of ``multiples`` (at least 2): the planning
    chart's points (``{"documents", "half_width"}``; a round whose interval is undefined is left out)."""
    counts = DocumentCounts(pilot, pairs=np.empty(0, dtype=np.int64))
    sizes = sorted({max(2, round(counts.n_documents * m)) for m in multiples})
    points = [(n, half_width(counts, path, n, level=level, replicates=replicates, seed=seed)) for n in sizes]
    return [{"documents": n, "half_width": h} for n, h in points if h is not None]


def kappa_items(rate1: float, rate2: float, kappa: float, kappa_null: float, *, alpha: float = 0.05,
                power: float = 0.8, two_sided: bool = False) -> int:
    """Items needed to tell Cohen's κ = ``kappa`` from ``kappa_null`` (Cantor 1996; module docstring).

    >>> kappa_items(0.5, 0.5, 0.7, 0.85)
    96
    """
    def variance(k: float) -> float:
        agree = k * (1 - (chance := rate1 * rate2 + (1 - rate1) * (1 - rate2))) + chance
        both = (agree - 1 + rate1 + rate2) / 2
        table = [[both, rate1 - both], [rate2 - both, agree - both]]
        if min(min(row) for row in table) < 0:
            raise UsageError(f"no 2×2 table has rates {rate1}, {rate2} and κ = {k}")
        return cohen_kappa_uncertainty(table)["standard_error"] ** 2

    if kappa == kappa_null:
        raise UsageError("κ and the null κ must differ")
    z = normal_quantile(1 - alpha / (2 if two_sided else 1))
    return math.ceil(((z * math.sqrt(variance(kappa_null)) + normal_quantile(power) * math.sqrt(variance(kappa)))
                      / (kappa - kappa_null)) ** 2 - 1e-9)


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
