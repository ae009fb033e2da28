"""One kernel per statistic: PSA, Cohen's κ and Krippendorff's α are each computed by one function
that takes a leading replicate axis, and the point estimate is that function on one replicate.

Properties on random inputs (hypothesis): the kernel on a stack of replicates equals the kernel on
each replicate alone, to the bit (weighted κ to 1e-12); PSA is symmetric in b and c and 1 for identical raters; κ and α
agree with statsmodels and the ``krippendorff`` package (independent implementations; the
published values are checked in test_stats.py and test_cac.py). Last, the PSA formula is written
in the kernel's module only.
"""
from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import spanagree
from spanagree import stats
from spanagree.measures.chance.krippendorff import alpha_array, coincidences
from spanagree.measures.chance.two_raters import cohen_kappa_array
from spanagree.measures.chance.weights import agreement_weights

krippendorff = pytest.importorskip("krippendorff")
inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")

PACKAGE = Path(spanagree.__file__).parent
counts = hnp.arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 6)),
                    elements=st.one_of(st.integers(0, 30).map(float), st.floats(0, 50, allow_subnormal=False)))


def same(x, y) -> bool:
    """Equal to the bit, undefined (None or NaN) on both sides counting as equal."""
    undefined = [v is None or math.isnan(float(v)) for v in (x, y)]
    return all(undefined) if any(undefined) else float(x) == float(y)


# --- PSA -------------------------------------------------------------------------------------------


@given(counts, st.data())
def test_psa_on_replicates_is_psa_on_each(a, data):
    b = data.draw(hnp.arrays(np.float64, a.shape, elements=st.integers(0, 30).map(float)))
    c = data.draw(hnp.arrays(np.float64, a.shape, elements=st.integers(0, 30).map(float)))
    values = spanagree.psa(a, b, c)
    assert values.shape == a.shape  # (replicates, cells): any shape, taken as it is
    for index in np.ndindex(a.shape):
        assert same(values[index], spanagree.psa(float(a[index]), float(b[index]), float(c[index])))
    assert np.array_equal(values, spanagree.psa(a, c, b), equal_nan=True)  # symmetric in b and c


@given(st.floats(0, 1e6, allow_subnormal=False), st.floats(0, 1e6, allow_subnormal=False),
       st.floats(0, 1e6, allow_subnormal=False))
def test_psa_symmetric_identical_raters_and_undefined(a, b, c):
    assert same(spanagree.psa(a, b, c), spanagree.psa(a, c, b))
    if a > 0:
        assert spanagree.psa(a, 0, 0) == 1.0  # identical raters: every span matched
    assert spanagree.psa(0, 0, 0) is None  # neither marked anything: undefined, not 0 or 1
    assert math.isnan(spanagree.psa(np.zeros(1), np.zeros(1), np.zeros(1))[0])


# --- Cohen's κ -------------------------------------------------------------------------------------


tables = st.integers(2, 4).flatmap(lambda k: hnp.arrays(np.int64, st.tuples(st.integers(1, 5), st.just(k), st.just(k)),
                                                        elements=st.integers(0, 9)))


@settings(deadline=None)
@given(tables)
def test_kappa_on_replicates_is_the_point_estimate(stack):
    values = cohen_kappa_array(stack)
    for table, value in zip(stack, values):
        point = stats.cohen_kappa(table.tolist()).value
        assert same(value, point)
        if not math.isnan(point):
            assert point == pytest.approx(inter_rater.cohens_kappa(table).kappa, abs=1e-12)


@settings(deadline=None)
@given(tables, st.sampled_from(["linear", "quadratic"]))
def test_weighted_kappa_is_the_same_function(stack, weights):
    k = stack.shape[-1]
    disagreement = 1.0 - agreement_weights(weights, np.arange(1, k + 1))
    for table, value in zip(stack, cohen_kappa_array(stack, disagreement)):
        point = stats.cohen_kappa(table.tolist(), weights=weights).value
        # weighted sums are not of whole numbers: numpy may add a stack in another order
        assert math.isnan(value) if math.isnan(point) else value == pytest.approx(point, abs=1e-12)


# --- Krippendorff's α ------------------------------------------------------------------------------


ratings = hnp.arrays(np.float64, st.tuples(st.integers(2, 12), st.integers(2, 5)),
                     elements=st.one_of(st.sampled_from([0.0, 1.0, 2.0]), st.just(np.nan)))


@settings(deadline=None)
@given(st.lists(ratings, min_size=1, max_size=4))
def test_alpha_on_replicates_is_the_point_estimate(replicates):
    matrices = []
    for r in replicates:
        counts = np.stack([(r == v).sum(axis=1) for v in (0.0, 1.0, 2.0)], axis=1).astype(float)
        matrices.append(coincidences(counts))
    values = alpha_array(np.stack(matrices))  # a leading replicate axis
    for r, matrix, value in zip(replicates, matrices, values):
        assert same(value, alpha_array(matrix))
        if (~np.isnan(r)).sum(axis=1).max() < 2:
            continue  # no pairable values (the krippendorff package refuses them)
        point = stats.krippendorff_alpha(r, categories=[0.0, 1.0, 2.0]).value
        assert same(value, point)
        if not math.isnan(point):
            assert point == pytest.approx(krippendorff.alpha(r.T, level_of_measurement="nominal"), abs=1e-12)


# --- the PSA formula lives in one module -----------------------------------------------------------


def _psa_formulas(tree: ast.AST) -> list[int]:
    """Lines of ``2 * x / (2 * x + ...)``: a division whose numerator is twice something that
    the denominator (or the expression a name in it was given) also adds twice of."""
    given = {t.id: node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
             for t in node.targets if isinstance(t, ast.Name)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            top = node.left
            if isinstance(top, ast.BinOp) and isinstance(top.op, ast.Mult) and any(
                isinstance(side, ast.Constant) and side.value == 2 for side in (top.left, top.right)
            ):
                twice = ast.dump(top)
                parts = [p for part in ast.walk(node.right)
                         for p in ast.walk(given[part.id] if isinstance(part, ast.Name) and part.id in given else part)]
                if any(ast.dump(part) == twice for part in parts):
                    found.append(node.lineno)
    return found


def test_psa_formula_only_in_the_kernel():
    kernel = PACKAGE / "measures" / "psa" / "specific.py"
    assert _psa_formulas(ast.parse(kernel.read_text(encoding="utf-8")))  # the check sees the kernel's
    elsewhere = {
        str(path.relative_to(PACKAGE)): lines
        for path in PACKAGE.rglob("*.py") if path != kernel
        if (lines := _psa_formulas(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert not elsewhere, f"PSA written outside measures/psa/specific.py: {elsewhere}"
