"""Probabilistic benchmarking: how likely a coefficient lies in each band of a scale (Gwet 2014).

A band word next to a point estimate hides its uncertainty: κ = 0.67 with a standard error of 0.15
is "substantial" by its point but could well be "moderate". Gwet (2014, ch. 6) treats the true
coefficient as normal around the estimate κ̂ with its standard error, truncated to [-1, 1]:

    P(a ≤ κ ≤ b) = [Φ((κ̂ - a)/se) - Φ((κ̂ - b)/se)] / [Φ((κ̂ + 1)/se) - Φ((κ̂ - 1)/se)]

The bands are taken from the top; the *cumulative* probability of a band is the probability that
κ is at least its lower bound. The reported band is the highest one whose cumulative probability
reaches 0.95 (the ``irrCAC`` functions ``landis.koch.bf``, ``altman.bf``, ``fleiss.bf``).

Scales: Landis & Koch (1977), Altman (1991), Fleiss (1981). Definitions: docs/chance-corrected.md.
"""
from __future__ import annotations

import math
from typing import Any

from ..student_t import normal_cdf

__all__ = ["SCALES", "benchmark", "benchmarks"]

#: (lower, upper, band) from the top band down.
SCALES: dict[str, tuple[tuple[float, float, str], ...]] = {
    "landis_koch": (
        (0.8, 1.0, "almost perfect"), (0.6, 0.8, "substantial"), (0.4, 0.6, "moderate"),
        (0.2, 0.4, "fair"), (0.0, 0.2, "slight"), (-1.0, 0.0, "poor"),
    ),
    "altman": (
        (0.8, 1.0, "very good"), (0.6, 0.8, "good"), (0.4, 0.6, "moderate"), (0.2, 0.4, "fair"),
        (-1.0, 0.2, "poor"),
    ),
    "fleiss": ((0.75, 1.0, "excellent"), (0.4, 0.75, "intermediate to good"), (-1.0, 0.4, "poor")),
}
THRESHOLD = 0.95


def benchmark(value: float | None, standard_error: float | None, scale: str = "landis_koch",
              threshold: float = THRESHOLD) -> dict[str, Any] | None:
    """Band probabilities of one coefficient on one scale; ``None`` when the value is undefined.

    Altman's scale for κ̂ = 0.67, SE 0.15 (irrCAC's example): cumulative 0.18168, 0.67511, 0.96356,
    so the band at 95 % is "moderate", although 0.67 itself lies in "good".

    >>> out = benchmark(0.67, 0.15, "altman")
    >>> [round(b["cumulative"], 5) for b in out["bands"]][:3], out["band"], out["point_band"]
    ([0.18168, 0.67511, 0.96356], 'moderate', 'good')
    """
    if scale not in SCALES:
        raise ValueError(f"scale={scale!r} is not one of {', '.join(SCALES)}")
    if value is None or math.isnan(value):
        return None
    bands = SCALES[scale]
    point = next((name for low, high, name in bands if value >= low), bands[-1][2])
    out: dict[str, Any] = {"scale": scale, "point_band": point, "threshold": threshold}
    if standard_error is None or math.isnan(standard_error):
        out.update(bands=None, band=None)
        return out
    if standard_error == 0:
        probability = [1.0 if (low <= value <= high) else 0.0 for low, high, _ in bands]
    else:
        se = standard_error
        total = normal_cdf((value + 1) / se) - normal_cdf((value - 1) / se)
        probability = [(normal_cdf((value - low) / se) - normal_cdf((value - high) / se)) / total
                       for low, high, _ in bands]
    rows, cumulative = [], 0.0
    for (low, high, name), p in zip(bands, probability):
        cumulative += p
        rows.append({"band": name, "low": low, "high": high, "probability": p, "cumulative": min(cumulative, 1.0)})
    out["bands"] = rows
    out["band"] = next((r["band"] for r in rows if r["cumulative"] >= threshold), rows[-1]["band"])
    return out


def benchmarks(value: float | None, standard_error: float | None) -> dict[str, Any] | None:
    """:func:`benchmark` on every scale."""
    if value is None or math.isnan(value):
        return None
    return {scale: benchmark(value, standard_error, scale) for scale in SCALES}
