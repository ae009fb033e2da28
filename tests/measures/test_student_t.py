"""Student's t distribution (spanagree.measures.student_t) against SciPy and closed forms."""
from __future__ import annotations

import math

import numpy as np
import pytest

from spanagree.measures.student_t import regularized_beta, t_cdf, t_quantile

scipy_stats = pytest.importorskip("scipy.stats")
scipy_special = pytest.importorskip("scipy.special")


@pytest.mark.parametrize("df", [1, 2, 3, 7, 29, 30, 49, 99, 500, 5000])
def test_t_cdf_matches_scipy(df):
    for t in [-40.0, -12.5, -4.0, -2.0, -1.0, -0.3, -1e-9, 0.0, 1e-9, 0.5, 1.7, 3.0, 9.0, 60.0]:
        ours, theirs = t_cdf(t, df), float(scipy_stats.t.cdf(t, df))
        # relative agreement in the lower tail (the p-values that matter), absolute elsewhere
        assert ours == pytest.approx(theirs, rel=1e-10, abs=1e-15 if theirs < 0.01 else 1e-9), (t, df)


@pytest.mark.parametrize("t", [-1e6, -30.0, -2.0, -1e-9, 0.0, 1e-9, 0.7, 25.0])
def test_t_cdf_closed_forms(t):
    """ν = 1 (Cauchy): 1/2 + atan(t)/π (as atan(-1/t)/π for t < 0, without cancellation);
    ν = 2: 1/2 + t/(2·sqrt(2 + t²)) (as 1/(r(r - t)), r = sqrt(2 + t²), for t < 0)."""
    cauchy = math.atan(-1 / t) / math.pi if t < 0 else 0.5 + math.atan(t) / math.pi
    assert t_cdf(t, 1) == pytest.approx(cauchy, rel=1e-12, abs=1e-300)
    root = math.sqrt(2 + t * t)
    two = 1 / (root * (root - t)) if t < 0 else 0.5 + t / (2 * root)
    assert t_cdf(t, 2) == pytest.approx(two, rel=1e-12, abs=1e-300)


def test_regularized_beta_matches_scipy():
    rng = np.random.default_rng(3)
    for _ in range(300):
        a, b = rng.uniform(0.05, 60, size=2)
        x = float(rng.uniform())
        assert regularized_beta(x, a, b) == pytest.approx(float(scipy_special.betainc(a, b, x)), rel=1e-9, abs=1e-14)


def test_t_cdf_edges():
    assert t_cdf(math.inf, 4) == 1.0 and t_cdf(-math.inf, 4) == 0.0
    assert math.isnan(t_cdf(math.nan, 4))
    assert math.isnan(t_cdf(1.0, 0))  # no distribution without degrees of freedom


@pytest.mark.parametrize("df", [1, 3, 29, 500])
def test_t_quantile_inverts_the_cdf(df):
    for p in [0.001, 0.025, 0.3, 0.5, 0.9, 0.975, 0.999]:
        assert t_quantile(p, df) == pytest.approx(float(scipy_stats.t.ppf(p, df)), rel=1e-8, abs=1e-10)
