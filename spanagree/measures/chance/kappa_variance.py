"""The large-sample variance of Cohen's (weighted) κ on a k×k table (Fleiss, Cohen & Everitt 1969).

With cell shares p_ij, row shares p_i., column shares p_.j, agreement weights w (the identity for
unweighted κ), w̄_i. = Σ_j p_.j w_ij, w̄_.j = Σ_i p_i. w_ij, p_e = Σ_ij w_ij p_i. p_.j and κ̂
from :func:`~.two_raters.cohen_kappa_array` (the one implementation of κ):

    var(κ̂)  = [ Σ_ij p_ij (w_ij - (w̄_i. + w̄_.j)(1 - κ̂))² - (κ̂ - p_e (1 - κ̂))² ] / (n (1 - p_e)²)
    var_0    = [ Σ_ij p_i. p_.j (w_ij - (w̄_i. + w̄_.j))² - p_e² ] / (n (1 - p_e)²)

var gives the standard error and the normal interval κ̂ ± z SE; var_0, the variance under the
hypothesis κ = 0, gives ``z = κ̂ / SE_0`` and the p-values. With w = I these are the unweighted
formulas; they are what statsmodels' ``cohens_kappa`` computes (checked against it in the tests).

References: Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of
kappa and weighted kappa. Psychological Bulletin 72(5), 323-327. Definitions:
docs/chance-corrected.md.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..student_t import normal_cdf, normal_quantile
from .two_raters import cohen_kappa_array

__all__ = ["cohen_kappa_uncertainty", "kappa_variance_terms"]


def kappa_variance_terms(rows: np.ndarray, cols: np.ndarray, kappa: float,
                         weights: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """``(C, c)`` with ``n·var(κ̂) = Σ_ij p_ij C_ij − c`` (module docstring): with the margins and κ
    fixed, the variance is linear in the cells, ``C_ij = (w_ij − (w̄_i. + w̄_.j)(1 − κ))² / (1 − p_e)²``
    and ``c = (κ − p_e(1 − κ))² / (1 − p_e)²``."""
    w = np.eye(len(rows)) if weights is None else weights
    pe = float(rows @ w @ cols)
    margins = (w @ cols)[:, None] + (rows @ w)[None, :]  # w̄_i. + w̄_.j
    return (w - margins * (1.0 - kappa)) ** 2 / (1.0 - pe) ** 2, (kappa - pe * (1.0 - kappa)) ** 2 / (1.0 - pe) ** 2


def cohen_kappa_uncertainty(table: ArrayLike, confidence: float = 0.95,
                            weights: np.ndarray | None = None) -> dict[str, Any]:
    """Standard errors, interval and p-values of Cohen's κ on a k×k table (None when undefined);
    ``weights`` is a k×k agreement-weight matrix (default: the identity, unweighted κ).

    >>> out = cohen_kappa_uncertainty([[227, 31], [50, 192]])
    >>> round(out["value"], 3), round(out["standard_error"], 3)
    (0.675, 0.033)
    """
    t = np.asarray(table, dtype=float)
    n = float(t.sum())
    empty = {"value": None, "standard_error": None, "standard_error_null": None, "low": None, "high": None,
             "confidence": confidence, "z": None, "p_value": None, "p_value_two_sided": None,
             "method": "Fleiss, Cohen & Everitt (1969), normal"}
    if n <= 0:
        return empty
    w = np.eye(t.shape[0]) if weights is None else np.asarray(weights, dtype=float)
    p = t / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    pe = float(rows @ w @ cols)
    if not (1.0 - pe) > 1e-12:
        return empty
    kappa = float(cohen_kappa_array(t, 1.0 - w))  # the point estimate's κ, from the one implementation
    cells, constant = kappa_variance_terms(rows, cols, kappa, w)
    var = (float((p * cells).sum()) - constant) / n
    null_cells, null_constant = kappa_variance_terms(rows, cols, 0.0, w)
    var0 = (float((np.outer(rows, cols) * null_cells).sum()) - null_constant) / n
    se, se0 = math.sqrt(max(var, 0.0)), math.sqrt(max(var0, 0.0))
    half = normal_quantile(1.0 - (1.0 - confidence) / 2.0) * se
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
