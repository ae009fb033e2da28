"""Means over rater pairs of the attribute section's per-pair coefficients (docs/structure.md)."""
from __future__ import annotations

from typing import Any, Mapping


def mean_pair_kappa(entry: Mapping[str, Any]) -> float | None:
    """An attribute's Cohen's κ averaged over the rater pairs where it is defined (Light's κ,
    Light 1971, on the pairs' matched spans); None when no pair has one."""
    kappas = [p["cohen_kappa"]["value"] for p in entry["pairs"] if p.get("cohen_kappa") and p["cohen_kappa"]["value"] is not None]
    return sum(kappas) / len(kappas) if kappas else None
