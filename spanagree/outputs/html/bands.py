"""Interpretation bands: words next to a coefficient, never instead of it (docs/intervals.md).

- κ-type coefficients (Cohen's, Fleiss', Davies–Fleiss, κ_S): Landis & Koch (1977), "The
  measurement of observer agreement for categorical data", Biometrics 33(1):159-174 — below 0
  poor, up to .20 slight, .40 fair, .60 moderate, .80 substantial, above almost perfect.
- Krippendorff's α: Krippendorff (2004), *Content Analysis*, 2nd ed., §11.4 — rely on data with
  α ≥ .800; consider α ≥ .667 only for tentative conclusions; below that, do not rely on them.

PSA has no conventional bands (it is the F-measure between raters); none is given.
"""
from __future__ import annotations

#: Upper ends (inclusive) of the Landis & Koch bands above 0.
LANDIS_KOCH = ((0.20, "slight"), (0.40, "fair"), (0.60, "moderate"), (0.80, "substantial"), (1.00, "almost perfect"))


def landis_koch(value: float | None) -> str | None:
    """The Landis & Koch (1977) band of a κ value.

    >>> landis_koch(0.675), landis_koch(0.81), landis_koch(-0.1), landis_koch(None)
    ('substantial', 'almost perfect', 'poor', None)
    """
    if value is None:
        return None
    if value < 0:
        return "poor"
    for upper, name in LANDIS_KOCH:
        if value <= upper:
            return name
    return LANDIS_KOCH[-1][1]


def krippendorff(value: float | None) -> str | None:
    """Krippendorff's reading of α: reliable from .800, tentative from .667, else unreliable.

    >>> krippendorff(0.85), krippendorff(0.7), krippendorff(0.5)
    ('reliable (α ≥ .800)', 'tentative only (.667 ≤ α < .800)', 'unreliable (α < .667)')
    """
    if value is None:
        return None
    if value >= 0.800:
        return "reliable (α ≥ .800)"
    if value >= 0.667:
        return "tentative only (.667 ≤ α < .800)"
    return "unreliable (α < .667)"
