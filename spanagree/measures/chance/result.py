"""The one result type of every chance-corrected coefficient (:class:`Agreement`).

Every coefficient is ``value = (observed - expected) / (maximum - expected)``:

* agreement-based coefficients (``basis="agreement"``): ``observed`` is the observed agreement
  p_a (A_o), ``expected`` the chance agreement p_e (A_e) and ``maximum`` 1 (Shah's S uses A_max);
* disagreement-based forms (``basis="disagreement"``): ``observed`` is D_o, ``expected`` D_e and
  ``maximum`` 0, so the value is ``1 - D_o/D_e``.

κ-type values are computed as ``1 - D_o/D_e`` with D_o = 1 - p_a and D_e = 1 - p_e each summed
directly from non-negative terms where the input allows it: this keeps full precision when p_a and
p_e are both close to 1 (a 2×2 table with a huge d), where ``(p_a - p_e)/(1 - p_e)`` would not.

Undefined results (no items, a single category, chance agreement 1, nothing pairable) are ``nan``,
never a silent 0 or 1, with the reason in ``undefined`` and an :class:`UndefinedAgreementWarning`.
"""
from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

from ...errors import UndefinedAgreementWarning

__all__ = ["Agreement", "UndefinedAgreementWarning", "finish", "warn_undefined"]

#: A chance term within this distance of its maximum is treated as equal to it.
AGREEMENT_TOL = 1e-12


def _clean(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


@dataclass(frozen=True)
class Agreement:
    """A coefficient with its parts, standard error, interval and p-value.

    Attributes
    ----------
    coefficient : str
        The function that computed it, e.g. ``"fleiss_kappa"``.
    value : float
        The coefficient; ``nan`` when undefined (``undefined`` says why). ``float(result)`` is it.
    observed, expected, maximum, basis
        The terms above.
    n_items : float
        Items used (for a table: the total count, which may be fractional).
    n_raters : int
        Raters (2 for a table; the group for Shah's S).
    categories : tuple
        The categories (for a table: the row positions 0..k-1).
    weights, missing : str
        The weights (``"user matrix"`` for a matrix) and the missing-ratings form used.
    skipped : dict of str to int
        Items left out, by reason.
    standard_error, low, high, p_value : float or None
        The standard error, the interval at ``confidence`` and the one-sided p-value of the
        hypothesis that the coefficient is 0; None where the coefficient has no variance here
        (positive and negative specific agreement: use the PSA intervals of ``spanagree.score``),
        ``nan`` where the variance needs more items.
    method : str or None
        How the interval was made.
    z : float or None
        The z statistic of the test that the coefficient is 0, where its standard error under
        that hypothesis is known (Cohen's κ: Fleiss, Cohen & Everitt 1969; Fleiss' κ on complete
        items: Fleiss, Nee & Landis 1979).
    n_pairable : int or None
        Items with two or more ratings (ratings input).
    """

    coefficient: str
    value: float
    observed: float
    expected: float
    maximum: float = 1.0
    basis: Literal["agreement", "disagreement"] = "agreement"
    n_items: float = 0
    n_raters: int = 2
    categories: tuple = ()
    weights: str = "identity"
    missing: str = "available"
    skipped: Mapping[str, int] = field(default_factory=dict, hash=False)
    undefined: str | None = None
    standard_error: float | None = None
    low: float | None = None
    high: float | None = None
    p_value: float | None = None
    confidence: float | None = None
    method: str | None = None
    z: float | None = None
    n_pairable: int | None = None

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    @property
    def n_skipped(self) -> int:
        """Items skipped, over all reasons."""
        return int(sum(self.skipped.values()))

    @property
    def defined(self) -> bool:
        return self.undefined is None

    @property
    def interval(self) -> tuple[float | None, float | None]:
        return (self.low, self.high)

    def __float__(self) -> float:
        return float(self.value)

    def __repr__(self) -> str:
        if not self.defined:
            return f"Agreement({self.coefficient}: undefined, {self.undefined})"
        text = f"Agreement({self.coefficient}={self.value:.4g}"
        if self.standard_error is not None and not math.isnan(self.standard_error):
            text += f", SE {self.standard_error:.3g}, {self.confidence:.0%} [{self.low:.4g}, {self.high:.4g}]"
        return text + f", n={self.n_items:g})"

    def parts(self) -> dict[str, Any]:
        """The terms, JSON-ready (``nan`` becomes None): value, observed, expected, maximum,
        basis, items, raters, categories, skipped and why."""
        return {
            "coefficient": self.coefficient,
            "value": _clean(self.value),
            "observed": _clean(self.observed),
            "expected": _clean(self.expected),
            "maximum": _clean(self.maximum),
            "basis": self.basis,
            "n_items": self.n_items,
            "n_raters": self.n_raters,
            "n_categories": self.n_categories,
            "skipped": {k: int(v) for k, v in self.skipped.items() if v},
            "n_skipped": self.n_skipped,
            "undefined": self.undefined,
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: :meth:`parts`, and the uncertainty where the coefficient has one."""
        out = self.parts()
        if self.standard_error is None:
            return out
        out.update({
            "standard_error": _clean(self.standard_error),
            "interval": {"low": _clean(self.low), "high": _clean(self.high), "confidence": self.confidence,
                         "method": self.method},
            "p_value": _clean(self.p_value),
            "n_pairable": self.n_pairable,
            "categories": [c if isinstance(c, (str, int, float, bool)) else str(c) for c in self.categories],
            "weights": self.weights,
            "missing": self.missing,
        })
        if self.z is not None:
            out["z"] = _clean(self.z)
        return out


def warn_undefined(message: str) -> None:
    """Warn with the stack level of the first caller outside this package."""
    frame = sys._getframe(0)
    here = __file__.rpartition("/")[0]
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(here):
        frame = frame.f_back
        level += 1
    warnings.warn(message, UndefinedAgreementWarning, stacklevel=level)


def finish(coefficient: str, observed: float, expected: float, *, maximum: float = 1.0,
           basis: Literal["agreement", "disagreement"] = "agreement", n_items: float, n_raters: int,
           categories: tuple, skipped: Mapping[str, int] | None = None, undefined: str | None = None,
           disagreement: tuple[float, float] | None = None, **extra: Any) -> Agreement:
    """Chance-correct ``observed`` and package the result; ``nan`` when undefined (the public
    functions of ``spanagree.stats`` warn then; the report's sections read ``undefined``).

    ``disagreement=(D_o, D_e)``, each summed directly from non-negative terms, gives the value
    as ``1 - D_o/D_e`` (see the module docstring); ``extra`` are further :class:`Agreement` fields.
    """
    if basis == "disagreement":
        disagreement = (observed, expected)
    if undefined is None and disagreement is not None and not disagreement[1] > 0:
        undefined = (
            "expected disagreement D_e = 1 - p_e is 0 (e.g. every rating is in one category), so the "
            "coefficient is 0/0" if basis == "agreement" else
            "expected disagreement D_e is 0 (the values show no variation)"
        )
    if undefined is None and disagreement is None and abs(maximum - expected) <= AGREEMENT_TOL:
        undefined = (
            f"expected agreement p_e = {expected:.6g} equals the maximum {maximum:.6g} "
            "(e.g. every rating is in one category), so the coefficient is 0/0"
        )
    if undefined is not None:
        value = math.nan
    elif disagreement is not None:
        value = float(1.0 - disagreement[0] / disagreement[1])
    else:
        value = float((observed - expected) / (maximum - expected))
    return Agreement(
        coefficient=coefficient, value=value, observed=float(observed), expected=float(expected),
        maximum=float(maximum), basis=basis, n_items=n_items, n_raters=int(n_raters), categories=tuple(categories),
        skipped={key: int(count) for key, count in (skipped or {}).items() if count}, undefined=undefined, **extra,
    )
