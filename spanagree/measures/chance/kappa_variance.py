"""The large-sample variance of Cohen's κ on a k×k table (Fleiss, Cohen & Everitt 1969).

With cell shares p_ij, row shares p_i., column shares p_.j, p_o = Σ_i p_ii and
p_e = Σ_i p_i. p_.i:

    var(κ̂) = [ Σ_i p_ii (1 - (p_i. + p_.i)(1 - κ̂))²
              + (1 - κ̂)² Σ_{i≠j} p_ij (p_.i + p_j.)²
              - (κ̂ - p_e (1 - κ̂))² ] / (n (1 - p_e)²)

gives the standard error and the normal confidence interval κ̂ ± z SE. Under the hypothesis
κ = 0 the variance is

    var_0 = [ p_e + p_e² - Σ_i p_i. p_.i (p_i. + p_.i) ] / (n (1 - p_e)²)

and ``z = κ̂ / SE_0`` gives the p-values. These are the formulas statsmodels' ``cohens_kappa``
uses (checked against it in the tests).

References: Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of
kappa and weighted kappa. Psychological Bulletin 72(5), 323-327. Definitions:
docs/chance-corrected.md.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..student_t import normal_cdf

__all__ = ["cohen_kappa_uncertainty"]


@lru_cache(maxsize=16)
def _normal_quantile(p: float) -> float:
    """Inverse of the normal CDF by bisection (used for the interval's z)."""
    low, high = -40.0, 40.0
    for _ in range(200):
        mid = 0.5 * (low + high)
        if normal_cdf(mid) < p:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)


def cohen_kappa_uncertainty(table: ArrayLike, confidence: float = 0.95) -> dict[str, Any]:
    """Standard errors, interval and p-values of Cohen's κ on a k×k table (None when undefined).

    >>> out = cohen_kappa_uncertainty([[227, 31], [50, 192]])
    >>> round(out["value"], 3), round(out["standard_error"], 4)
    (0.675, 0.033)
    """
    t = np.asarray(table, dtype=float)
    n = float(t.sum())
    empty = {"value": None, "standard_error": None, "standard_error_null": None, "low": None, "high": None,
             "confidence": confidence, "z": None, "p_value": None, "p_value_two_sided": None,
             "method": "Fleiss, Cohen & Everitt (1969), normal"}
    if n <= 0:
        return empty
    p = t / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    po, pe = float(np.trace(p)), float(rows @ cols)
    if not (1.0 - pe) > 1e-12:
        return empty
    kappa = (po - pe) / (1.0 - pe)
    diag = np.diag(p)
    term_a = float((diag * (1.0 - (rows + cols) * (1.0 - kappa)) ** 2).sum())
    cross = p * (cols[:, None] + rows[None, :]) ** 2
    np.fill_diagonal(cross, 0.0)
    term_b = (1.0 - kappa) ** 2 * float(cross.sum())
    term_c = (kappa - pe * (1.0 - kappa)) ** 2
    var = (term_a + term_b - term_c) / ((1.0 - pe) ** 2 * n)
    var0 = (pe + pe**2 - float((rows * cols * (rows + cols)).sum())) / ((1.0 - pe) ** 2 * n)
    se, se0 = math.sqrt(max(var, 0.0)), math.sqrt(max(var0, 0.0))
    half = _normal_quantile(1.0 - (1.0 - confidence) / 2.0) * se
    z = kappa / se0 if se0 > 0 else math.nan
    return {
        **empty,
        "value": kappa,
        "standard_error": se,
        "standard_error_null": se0,
        "low": kappa - half,
        "high": kappa + half,
        "z": None if math.isnan(z) else z,
        "p_value": None if math.isnan(z) else 1.0 - normal_cdf(z),
        "p_value_two_sided": None if math.isnan(z) else 2.0 * (1.0 - normal_cdf(abs(z))),
    }
