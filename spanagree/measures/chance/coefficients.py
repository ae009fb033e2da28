"""Chance-corrected agreement coefficients on contingency tables and rating matrices.

Its definitions are in docs/chance-corrected.md. Two input shapes are used:

``table``
    A k×k contingency table of counts for **two** raters: ``table[i, j]`` is the number of items
    that rater 1 (rows) put in category i and rater 2 (columns) put in category j. Counts may be
    fractional (partial credit) but must be finite and non-negative.

``ratings``
    An items × raters matrix (**items are rows**; note that the ``krippendorff`` package uses the
    transpose, raters × units). Values are category labels of any hashable type (numbers, strings,
    ...). ``None`` and ``nan`` mean *missing*. Values that compare equal (``1 == 1.0 == True``) are
    one category. In a NumPy string array, ``"nan"`` is an ordinary label, not a missing value
    (``np.array(["a", np.nan])`` silently turns NaN into ``"nan"``: pass a list or an object array
    to keep NaN missing).

A k×k table or an items × categories count matrix passed where ratings belong is refused with a
message naming :func:`table_to_ratings` or :func:`counts_to_ratings` (see :func:`check_ratings`).
The rating-matrix coefficients here use the items every rater rated where the formula needs it
(Fleiss, Davies–Fleiss, κ_S); ``spanagree.measures.cac`` has the whole family on every rating
(Gwet's missing-ratings forms), with weights and standard errors (docs/chance-corrected.md).

Every coefficient ``f`` comes in two forms: ``f(...)`` returns the value as a float and
``f_parts(...)`` returns an :class:`AgreementParts` with the observed and chance terms, the
number of items used and the number skipped (by reason). The plain form is
``f_parts(...).value``.

Undefined results (no items, a single category, expected agreement 1, nothing pairable) are
``nan`` -- never a silent 0 or 1 -- and emit an :class:`UndefinedAgreementWarning`. Bad input
(wrong shape, negative counts, unknown option names) raises :class:`ValueError` naming the bad
value and what is allowed.

All computations are vectorized: ratings are coded once to integer category codes and every count
is an ``np.unique`` or ``np.bincount`` over codes. Memory grows with the number of ratings, never
with items × categories².
"""

from __future__ import annotations

import math
import numbers
import reprlib
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Mapping, NamedTuple, Union

import numpy as np

from ...errors import UndefinedAgreementWarning
from . import weights as _weight_names
from numpy.typing import ArrayLike

__all__ = [
    "AgreementParts",
    "RatingsTable",
    "UndefinedAgreementWarning",
    "bennett_s",
    "bennett_s_parts",
    "check_ratings",
    "code_ratings",
    "counts_to_ratings",
    "cohen_kappa",
    "cohen_kappa_parts",
    "davies_fleiss_kappa",
    "davies_fleiss_kappa_parts",
    "fleiss_kappa",
    "fleiss_kappa_parts",
    "gwet_ac1",
    "gwet_ac1_parts",
    "kappa_s",
    "kappa_s_parts",
    "krippendorff_alpha",
    "krippendorff_alpha_parts",
    "negative_agreement",
    "negative_agreement_parts",
    "percent_agreement",
    "percent_agreement_parts",
    "positive_agreement",
    "positive_agreement_parts",
    "ratings_to_table",
    "s_against_group",
    "s_against_group_parts",
    "scott_pi",
    "scott_pi_parts",
    "table_to_ratings",
    "weighted_kappa",
    "weighted_kappa_parts",
]

#: Names accepted by ``krippendorff_alpha(distance=...)``.
DISTANCES = ("nominal", "ordinal", "interval", "ratio")
#: Names accepted by ``weighted_kappa(weights=...)``.
#: Every name of :data:`spanagree.measures.weights.NAMES` (Gwet's weight families), on the table's
#: category positions 1..k; "linear" and "quadratic" are Cohen's (1968).
WEIGHTS = _weight_names.NAMES

# Reason keys used in ``AgreementParts.skipped``.
SKIP_MISSING = "missing ratings"
SKIP_UNPAIRABLE = "fewer than two values"
SKIP_UNRATED = "no ratings"
SKIP_SINGLE = "one rating (chance term only)"

# An agreement-scale chance term within this distance of its maximum is treated as equal to it.
_AGREEMENT_TOL = 1e-12
_EMPTY_TABLE = "the table is empty (no items)"

Distance = Union[Literal["nominal", "ordinal", "interval", "ratio"], ArrayLike]
Weights = Union[str, ArrayLike]


@dataclass(frozen=True)
class AgreementParts:
    """A coefficient with the terms it was computed from.

    Every coefficient is ``value = (observed - expected) / (maximum - expected)``:

    * agreement-based coefficients (``basis="agreement"``): ``observed`` is Ao, ``expected`` is
      Ae and ``maximum`` is 1 (Shah's S uses Amax);
    * disagreement-based coefficients (``basis="disagreement"``: Krippendorff's α, weighted κ):
      ``observed`` is Do, ``expected`` is De and ``maximum`` is 0, so the formula is
      ``1 - Do/De``.

    κ-type values are computed, up to rounding, as ``1 - Do/De`` with Do = 1 - Ao and
    De = 1 - Ae summed directly from the counts: this keeps full precision when Ao and Ae are
    both close to 1 (a 2×2 table with a huge d), where ``(Ao - Ae)/(1 - Ae)`` would not.

    Attributes
    ----------
    coefficient : str
        Name of the function that computed it, e.g. ``"cohen_kappa"``.
    value : float
        The coefficient; ``nan`` when undefined (see ``undefined``).
    observed, expected, maximum : float
        The terms above (``nan`` when they could not be computed).
    basis : {"agreement", "disagreement"}
        Whether the terms are agreements or disagreements.
    n_items : float
        Items used (for a table: the total count, which may be fractional).
    n_raters : int
        Raters (columns of ``ratings``; 2 for a table; the group size for Shah's S).
    n_categories : int
        Categories k (rows of the table, or the categories of the ratings).
    skipped : dict of str to int
        Items left out, by reason (empty when nothing was skipped).
    undefined : str or None
        Why ``value`` is undefined, or None when it is defined.
    """

    coefficient: str
    value: float
    observed: float
    expected: float
    maximum: float = 1.0
    basis: Literal["agreement", "disagreement"] = "agreement"
    n_items: float = 0
    n_raters: int = 2
    n_categories: int = 0
    skipped: Mapping[str, int] = field(default_factory=dict, hash=False)
    undefined: str | None = None

    @property
    def n_skipped(self) -> int:
        """Total number of items skipped, over all reasons."""
        return int(sum(self.skipped.values()))

    @property
    def defined(self) -> bool:
        """Whether ``value`` is defined (not ``nan``)."""
        return self.undefined is None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: ``nan`` becomes ``None`` (null), as docs/agreement.md asks."""

        def clean(x: float) -> float | None:
            return None if isinstance(x, float) and math.isnan(x) else x

        return {
            "coefficient": self.coefficient,
            "value": clean(self.value),
            "observed": clean(self.observed),
            "expected": clean(self.expected),
            "maximum": clean(self.maximum),
            "basis": self.basis,
            "n_items": self.n_items,
            "n_raters": self.n_raters,
            "n_categories": self.n_categories,
            "skipped": dict(self.skipped),
            "n_skipped": self.n_skipped,
            "undefined": self.undefined,
        }


class RatingsTable(NamedTuple):
    """Result of :func:`ratings_to_table`."""

    table: np.ndarray
    """(k, k) int array: rows rater 1 (column 0 of ratings), columns rater 2."""
    categories: np.ndarray
    """(k,) the category of each row/column."""
    n_skipped: int
    """Items left out because either rater's value is missing."""


# ----------------------------------------------------------------------------------------------
# Shared machinery
# ----------------------------------------------------------------------------------------------


def _warn_undefined(message: str) -> None:
    """Warn with the stack level of the first caller outside this module."""
    frame = sys._getframe(0)
    level = 1
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
        level += 1
    warnings.warn(message, UndefinedAgreementWarning, stacklevel=level)


def _finish(
    coefficient: str,
    observed: float,
    expected: float,
    *,
    maximum: float = 1.0,
    basis: Literal["agreement", "disagreement"] = "agreement",
    n_items: float,
    n_raters: int,
    n_categories: int,
    skipped: Mapping[str, int] | None = None,
    undefined: str | None = None,
    disagreement: tuple[float, float] | None = None,
) -> AgreementParts:
    """Chance-correct ``observed`` and package the result; nan + warning when undefined.

    ``disagreement=(Do, De)``, with Do = 1 - Ao and De = 1 - Ae each computed directly as a sum
    of non-negative terms, gives the value as ``1 - Do/De``. That is algebraically
    ``(Ao - Ae)/(1 - Ae)`` but free of the cancellation in ``Ao - Ae`` and ``1 - Ae`` when both
    are close to 1 (e.g. a 2×2 table with d in the millions), and De is exactly 0 in the
    degenerate cases.
    """
    if basis == "disagreement":
        disagreement = (observed, expected)
    if undefined is None and disagreement is not None and disagreement[1] <= 0:
        undefined = (
            "expected disagreement De = 1 - Ae is 0 (e.g. every rating is in one category), "
            "so the coefficient is 0/0"
            if basis == "agreement"
            else "expected disagreement De is 0 (the values show no variation)"
        )
    if undefined is None and disagreement is None and abs(maximum - expected) <= _AGREEMENT_TOL:
        undefined = (
            f"expected agreement Ae = {expected:.6g} equals the maximum {maximum:.6g} "
            "(e.g. every rating is in one category), so the coefficient is 0/0"
        )
    if undefined is not None:
        value = math.nan
        _warn_undefined(f"{coefficient} is undefined: {undefined}; returning nan")
    elif disagreement is not None:
        value = float(1.0 - disagreement[0] / disagreement[1])
    else:
        value = float((observed - expected) / (maximum - expected))
    return AgreementParts(
        coefficient=coefficient,
        value=value,
        observed=float(observed),
        expected=float(expected),
        maximum=float(maximum),
        basis=basis,
        n_items=n_items,
        n_raters=int(n_raters),
        n_categories=int(n_categories),
        skipped={key: int(count) for key, count in (skipped or {}).items() if count},
        undefined=undefined,
    )


def _as_table(table: ArrayLike) -> np.ndarray:
    """Validate a k×k table of non-negative counts; return it as float."""
    try:
        t = np.asarray(table, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"table must be a k×k array of non-negative counts; cannot read {reprlib.repr(table)} "
            "as numbers"
        ) from exc
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise ValueError(
            f"table must be square (k×k: rows rater 1, columns rater 2); got shape {t.shape}"
        )
    if not np.isfinite(t).all():
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(t))[0])
        raise ValueError(f"table counts must be finite; got {t[where]} at index {where}")
    if (t < 0).any():
        where = tuple(int(i) for i in np.argwhere(t < 0)[0])
        raise ValueError(f"table counts must be non-negative; got {t[where]:g} at index {where}")
    return t


def _table_coefficient(name: str, table: ArrayLike, chance) -> AgreementParts:
    """Ao from the diagonal; ``chance(t, n)`` gives (Ae, De = 1 - Ae); or Ao alone if None."""
    t = _as_table(table)
    n = float(t.sum())
    k = t.shape[0]
    common = dict(n_items=n, n_raters=2, n_categories=k)
    if n == 0:
        return _finish(name, math.nan, math.nan, undefined=_EMPTY_TABLE, **common)
    observed = float(np.trace(t)) / n
    if chance is None:
        return _finish(name, observed, 0.0, **common)
    expected, expected_disagreement = chance(t, n)
    observed_disagreement = float(t[~np.eye(k, dtype=bool)].sum()) / n
    return _finish(
        name,
        observed,
        float(expected),
        disagreement=(observed_disagreement, float(expected_disagreement)),
        **common,
    )


# --- coding ratings ---------------------------------------------------------------------------


def _as_array(values: ArrayLike) -> np.ndarray:
    """An ndarray as is; anything else through an object array (so NaN and None survive)."""
    if isinstance(values, np.ndarray):
        return values
    try:
        return np.array(values, dtype=object)
    except ValueError as exc:  # inhomogeneous nesting
        raise ValueError(
            f"ratings must be a rectangular array; got {reprlib.repr(values)}"
        ) from exc


def _as_ratings(ratings: ArrayLike, name: str = "ratings") -> np.ndarray:
    arr = _as_array(ratings)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D items × raters array (one row per item, one column per rater); "
            f"got {arr.ndim}-D array of shape {arr.shape}"
        )
    if arr.dtype.kind == "O":
        odd = next((v for v in arr.ravel().tolist() if isinstance(v, (set, frozenset, dict, list, bytearray))), None)
        if odd is not None:  # unordered or unhashable: categories could not be told apart reliably
            raise ValueError(f"{name} must hold labels (strings, numbers), not {type(odd).__name__} values: {reprlib.repr(odd)}")
    return arr


def _missing_mask(arr: np.ndarray) -> np.ndarray:
    """True where a value is missing: None or NaN (NaT for datetimes)."""
    kind = arr.dtype.kind
    if kind in "fc":
        return np.isnan(arr)
    if kind in "mM":
        return np.isnat(arr)
    if kind in "iubUS":
        return np.zeros(arr.shape, dtype=bool)
    obj = arr.astype(object, copy=False)
    # ``x != x`` is True exactly for NaN (float or numpy float) among ordinary labels.
    return np.asarray(np.equal(obj, None) | (obj != obj), dtype=bool)


def _object_array(items: list) -> np.ndarray:
    """A 1-D object array holding ``items`` as they are (tuples are not unpacked)."""
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):  # one per category, not per rating
        out[i] = item
    return out


def _typed(values: list) -> np.ndarray:
    """Labels as a numeric or string array when they are all of one kind, else an object array."""
    kinds = set(map(type, values))
    if all(issubclass(t, str) for t in kinds):
        return np.array(values, dtype=str) if values else np.array([], dtype=str)
    if all(issubclass(t, (numbers.Real, np.bool_)) for t in kinds):
        arr = np.array(values)
        if arr.dtype.kind in "iufb":
            return arr
    return _object_array(values)


def _unique(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted unique labels and the code of each value (first-seen order if unsortable)."""
    if values.dtype == object:
        values = _typed(values.tolist())
    try:
        uniq, inverse = np.unique(values, return_inverse=True)
        return uniq, inverse.reshape(-1)
    except TypeError:  # labels of mixed, mutually unorderable types
        labels = values.tolist()
        index = {label: i for i, label in enumerate(dict.fromkeys(labels))}
        inverse = np.fromiter(map(index.__getitem__, labels), dtype=np.intp, count=len(labels))
        return _object_array(list(index)), inverse


def _as_categories(categories: ArrayLike) -> np.ndarray:
    """Validate user-given categories: 1-D, no missing values, no duplicates."""
    if isinstance(categories, (str, bytes)):
        raise ValueError(f"categories must be a sequence of labels; got the string {categories!r}")
    arr = categories if isinstance(categories, np.ndarray) else _object_array(list(categories))
    if arr.ndim != 1:
        raise ValueError(f"categories must be 1-D; got shape {arr.shape}")
    labels = arr.tolist()
    if _missing_mask(arr.astype(object)).any():
        raise ValueError(f"categories must not contain None or nan; got {reprlib.repr(labels)}")
    index: dict[Any, int] = {}
    for label in labels:  # one per category
        if label in index:
            raise ValueError(f"categories must be distinct; {label!r} appears more than once")
        index[label] = len(index)
    return _typed(labels)


def _code_values(arr: np.ndarray, categories: ArrayLike | None) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes (-1 = missing) with the same shape as ``arr``, and the categories."""
    missing = _missing_mask(arr)
    uniq, inverse = _unique(arr[~missing])
    if categories is None:
        cats, position = uniq, np.arange(len(uniq), dtype=np.intp)
    else:
        cats = _as_categories(categories)
        lookup = {label: i for i, label in enumerate(cats.tolist())}
        position = np.fromiter(
            (lookup.get(label, -1) for label in uniq.tolist()), dtype=np.intp, count=len(uniq)
        )
        if (position < 0).any():
            unknown = uniq[position < 0].tolist()
            raise ValueError(
                f"ratings contain values not in categories: {reprlib.repr(unknown)}; "
                f"allowed: {reprlib.repr(cats.tolist())}"
            )
    codes = np.full(arr.shape, -1, dtype=np.intp)
    codes[~missing] = position[inverse]
    return codes, cats


def _cells(codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The non-empty (item, category) cells of an items × raters code matrix.

    Returns ``item``, ``code`` and ``count`` (how many raters put that item in that category),
    each of shape (n_cells,), sorted by item and then code; ``n_cells <= n_ratings``.
    """
    present = codes >= 0
    rows = np.nonzero(present)[0].astype(np.int64)
    keys, count = np.unique(rows * max(k, 1) + codes[present], return_counts=True)
    item, code = np.divmod(keys, max(k, 1))
    return item, code, count.astype(float)


def _complete_items(
    ratings: ArrayLike, categories: ArrayLike | None
) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Codes of the items rated by every rater, the categories, and the skipped count."""
    codes, cats = code_ratings(ratings, categories)
    complete = (codes >= 0).all(axis=1)
    return codes[complete], cats, {SKIP_MISSING: int(codes.shape[0] - complete.sum())}


def _complete_undefined(n: int, m: int) -> str | None:
    if m < 2:
        return f"it needs at least two raters; got {m}"
    if n == 0:
        return "no item was rated by every rater"
    return None


def _fleiss_observed(codes: np.ndarray, k: int) -> tuple[float, float]:
    """On complete items: Ao = Σ_i Σ_c n_ic (n_ic - 1) / (n m (m - 1)) and Do = 1 - Ao."""
    n, m = codes.shape
    _, _, count = _cells(codes, k)
    pairs = n * m * (m - 1)
    return float((count * (count - 1)).sum() / pairs), float((count * (m - count)).sum() / pairs)


def _rater_marginals(codes: np.ndarray, k: int) -> np.ndarray:
    """(m, k) array: n_rc, the number of items rater r put in category c."""
    m = codes.shape[1]
    rater = np.broadcast_to(np.arange(m), codes.shape)
    present = codes >= 0
    return np.bincount(rater[present] * k + codes[present], minlength=m * k).reshape(m, k)


def _pairwise_chance(marginals: np.ndarray, n: int) -> np.ndarray:
    """(k,) per-category chance agreement averaged over ordered rater pairs p ≠ p'.

    ``(1 / (m (m - 1))) Σ_{p≠p'} (n_pc / n) (n_p'c / n)``, computed as
    ``((Σ_p n_pc)² - Σ_p n_pc²) / (m (m - 1) n²)`` with no loop over pairs.
    """
    m = marginals.shape[0]
    p = marginals / n
    return (p.sum(axis=0) ** 2 - (p**2).sum(axis=0)) / (m * (m - 1))


def _pairwise_disagreement(marginals: np.ndarray, n: int) -> float:
    """1 - Σ_c of :func:`_pairwise_chance`, as a sum of non-negative terms.

    ``(1 / (m (m - 1))) Σ_{p≠p'} Σ_c (n_pc / n)(1 - n_p'c / n)``; it equals 1 - A_e because
    every rater's shares sum to 1 on complete items.
    """
    m = marginals.shape[0]
    p, not_p = marginals / n, (n - marginals) / n  # n - n_pc is exact for integer counts
    ordered_pairs = p.sum(axis=0) * not_p.sum(axis=0) - (p * not_p).sum(axis=0)
    return float(ordered_pairs.sum() / (m * (m - 1)))


# ----------------------------------------------------------------------------------------------
# Coding helpers (public)
# ----------------------------------------------------------------------------------------------


class CodedRatings(NamedTuple):
    """An items × raters matrix already coded: ``codes[i, r]`` indexes ``categories``, -1 missing.

    Every ``ratings`` argument accepts one, and it is used as is (no re-coding): compute it once
    with :func:`code_ratings`, or build it from integer codes, to run several coefficients on
    a large matrix.
    """

    codes: np.ndarray
    categories: np.ndarray


def code_ratings(ratings: ArrayLike, categories: ArrayLike | None = None) -> CodedRatings:
    """Code an items × raters matrix of labels as integer category codes.

    Parameters
    ----------
    ratings : array-like of shape (n_items, n_raters)
        Category labels of any hashable type; ``None`` or ``nan`` = missing.
    categories : array-like of shape (k,), optional
        The categories, in order. Default: the distinct values in ``ratings``, sorted (in order
        of first appearance when the labels are of mutually unorderable types).

    Returns
    -------
    codes : ndarray of shape (n_items, n_raters), dtype intp
        ``codes[i, r]`` is the index in ``categories`` of rater r's label for item i, or -1 when
        it is missing.
    categories : ndarray of shape (k,)

    Raises
    ------
    ValueError
        If ``ratings`` is not 2-D, or holds a value not in the given ``categories``.

    Examples
    --------
    >>> codes, cats = code_ratings([["b", "a"], ["a", None], ["c", "b"]])
    >>> codes
    array([[ 1,  0],
           [ 0, -1],
           [ 2,  1]])
    >>> cats.tolist()
    ['a', 'b', 'c']
    >>> code_ratings([[1, 2]], categories=[3, 2, 1])[0]
    array([[2, 1]])
    """
    if isinstance(ratings, CodedRatings):
        return ratings
    arr = _as_ratings(ratings)
    if categories is None:
        check_ratings(arr)
    elif isinstance(categories, (str, bytes)) or not isinstance(categories, Iterable):
        raise ValueError(f"categories must be a list of the category labels, got {reprlib.repr(categories)}")
    return CodedRatings(*_code_values(arr, categories))


#: Most ratings a table or count matrix may expand into (one row or cell each).
MAX_EXPANDED = 100_000_000


def _check_expansion(size: float, what: str) -> None:
    if size > MAX_EXPANDED:
        raise ValueError(
            f"{what}: the counts expand into {size:.3g} ratings, more than the {MAX_EXPANDED:,} this builds; "
            "use the table functions (table_family) on counts this large"
        )


def table_to_ratings(table: ArrayLike) -> np.ndarray:
    """Expand a k×k contingency table of two raters into items × 2 ratings (category indices).

    ``table[i, j]`` items become rows ``[i, j]`` (rows: rater 1, columns: rater 2); counts must be
    whole numbers. The inverse of :func:`ratings_to_table`.

    >>> table_to_ratings([[1, 0], [2, 1]]).tolist()
    [[0, 0], [1, 0], [1, 0], [1, 1]]
    """
    t = _as_table(table)
    if (t != np.round(t)).any():
        raise ValueError("table_to_ratings needs whole-number counts (one item per unit of count)")
    _check_expansion(float(t.sum()), "table_to_ratings")
    k = t.shape[0]
    cell = np.repeat(np.arange(k * k), t.astype(np.int64).ravel())
    return np.stack([cell // k, cell % k], axis=1)


def counts_to_ratings(counts: ArrayLike) -> np.ndarray:
    """Expand an items × categories matrix of rater counts into items × raters ratings.

    ``counts[i, c]`` is how many raters put item i in category c (statsmodels' ``aggregate_raters``
    layout, irrCAC's distribution data). Items with fewer ratings than the most-rated item get
    missing values (nan) in the last columns. Ratings are category indices.

    >>> counts_to_ratings([[2, 1], [0, 2]]).tolist()
    [[0.0, 0.0, 1.0], [1.0, 1.0, nan]]
    """
    try:
        c = np.asarray(counts, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"counts must be an items × categories array of whole numbers; got {reprlib.repr(counts)}") from exc
    if c.ndim != 2 or not np.isfinite(c).all() or (c < 0).any() or (c != np.round(c)).any():
        raise ValueError("counts must be a 2-D items × categories array of non-negative whole numbers")
    _check_expansion(float(c.sum()) + float(c.sum(axis=1).max(initial=0)) * c.shape[0], "counts_to_ratings")
    per_item = c.sum(axis=1).astype(np.int64)
    width = int(per_item.max(initial=0))
    out = np.full((c.shape[0], width), np.nan)
    item = np.repeat(np.arange(c.shape[0]), per_item)
    codes = np.concatenate([np.repeat(np.arange(c.shape[1]), row.astype(np.int64)) for row in c]) if len(c) else []
    starts = np.concatenate([[0], np.cumsum(per_item)[:-1]])
    out[item, np.arange(len(item)) - starts[item]] = codes
    return out


def _looks_aggregated(arr: np.ndarray) -> str | None:
    """Which helper to name when a numeric matrix looks like a table or counts, not ratings.

    Counts (items × categories): at least 5 rows and 3 columns, whole non-negative numbers, the same row sum
    S >= 3 in every row (the number of raters), zeros present and rows not all equal. A k×k
    table: square, whole non-negative numbers, a zero, and a largest value above 2k (more than a
    k-category labelling would use). Both are refusals of likely mistakes; passing
    ``categories=`` (or ``CodedRatings``) says the values are labels and skips the check.
    """
    if arr.ndim != 2 or arr.size == 0 or arr.dtype.kind not in "iufO":
        return None
    try:
        values = arr.astype(float)
    except (TypeError, ValueError):  # labels that are not numbers
        return None
    if not np.isfinite(values).all() or (values < 0).any() or (values != np.round(values)).any():
        return None
    n, m = values.shape
    sums = values.sum(axis=1)
    zero = (values == 0).any()
    # two columns are far more often two raters' codes than two categories' counts: never refused
    if n >= 5 and m >= 3 and sums[0] >= 3 and (sums == sums[0]).all() and zero and not (values == values[0]).all():
        return "counts_to_ratings"
    if n == m and n >= 2 and zero and values.max() > 2 * n:
        return "table_to_ratings"
    return None


def check_ratings(ratings: ArrayLike) -> ArrayLike:
    """Refuse a contingency table or a counts matrix passed where items × raters ratings belong.

    Returns ``ratings`` unchanged when they can be ratings; raises ``ValueError`` naming the helper
    (:func:`table_to_ratings` or :func:`counts_to_ratings`) otherwise. See ``_looks_aggregated``.

    >>> check_ratings([[1, 2], [2, 2]])
    [[1, 2], [2, 2]]
    """
    if isinstance(ratings, CodedRatings):
        return ratings
    arr = ratings if isinstance(ratings, np.ndarray) else None
    if arr is None:
        try:
            arr = np.asarray(ratings)
        except (TypeError, ValueError):
            return ratings
    helper = _looks_aggregated(arr)
    if helper == "counts_to_ratings":
        raise ValueError(
            f"these {arr.shape[0]}×{arr.shape[1]} values look like counts per category (every row sums to "
            f"{arr.sum(axis=1)[0]:g}), not items × raters ratings; convert them with "
            "spanagree.measures.stats.counts_to_ratings(counts), or pass categories= if they really are labels"
        )
    if helper == "table_to_ratings":
        raise ValueError(
            f"this {arr.shape[0]}×{arr.shape[1]} matrix looks like a contingency table of counts, not items × "
            "raters ratings; use the table functions (cohen_kappa(table), ...) or convert it with "
            "spanagree.measures.stats.table_to_ratings(table), or pass categories= if the values really are labels"
        )
    return ratings


def ratings_to_table(ratings: ArrayLike, categories: ArrayLike | None = None) -> RatingsTable:
    """Cross-tabulate two raters' labels into a k×k contingency table.

    Items on which either rater's value is missing are left out and counted in ``n_skipped``.

    Parameters
    ----------
    ratings : array-like of shape (n_items, 2)
        Column 0 is rater 1 (table rows), column 1 is rater 2 (table columns).
    categories : array-like of shape (k,), optional
        The categories, in order; default: every distinct value in ``ratings`` (including those
        only seen on skipped items), sorted. Give them to include categories nobody used (this
        matters for Bennett's S, whose chance term is 1/k).

    Returns
    -------
    RatingsTable
        ``(table, categories, n_skipped)``; ``table`` is an int array of shape (k, k).

    Examples
    --------
    >>> table, cats, skipped = ratings_to_table([["y", "y"], ["y", "n"], ["n", "n"], [None, "n"]])
    >>> table
    array([[1, 0],
           [1, 1]])
    >>> cats.tolist(), skipped
    (['n', 'y'], 1)
    """
    codes, cats = code_ratings(ratings, categories)
    if codes.shape[1] != 2:
        raise ValueError(
            f"ratings_to_table needs exactly two raters (columns); got {codes.shape[1]}"
        )
    k = len(cats)
    both = (codes >= 0).all(axis=1)
    pairs = codes[both]
    table = np.bincount(pairs[:, 0] * k + pairs[:, 1], minlength=k * k).reshape(k, k)
    return RatingsTable(table, cats, int(codes.shape[0] - both.sum()))


# ----------------------------------------------------------------------------------------------
# Two raters: coefficients on a k×k table
# ----------------------------------------------------------------------------------------------


def percent_agreement_parts(table: ArrayLike) -> AgreementParts:
    """Percent agreement with its terms; see :func:`percent_agreement`.

    >>> percent_agreement_parts([[2, 2], [1, 5]]).observed
    0.7
    """
    return _table_coefficient("percent_agreement", table, None)


def percent_agreement(table: ArrayLike) -> float:
    """Percent (observed) agreement Ao of two raters: the share of items on the diagonal.

    .. math:: A_o = \\frac{1}{n} \\sum_c t_{cc}, \\qquad n = \\sum_{c,d} t_{cd}

    Parameters
    ----------
    table : array-like of shape (k, k)
        Counts; rows rater 1, columns rater 2.

    Returns
    -------
    float
        Ao in [0, 1]; ``nan`` with :class:`UndefinedAgreementWarning` for an empty table.

    References
    ----------
    Artstein, R. & Poesio, M. (2008). Inter-coder agreement for computational linguistics.
    Computational Linguistics 34(4), 555-596.

    Examples
    --------
    Artstein & Poesio's example (rows rater 2, columns rater 1):

    >>> percent_agreement([[2, 2], [1, 5]])
    0.7
    """
    return percent_agreement_parts(table).value


def bennett_s_parts(table: ArrayLike) -> AgreementParts:
    """Bennett's S with its terms; see :func:`bennett_s`.

    >>> bennett_s_parts([[2, 2], [1, 5]]).expected
    0.5
    """
    return _table_coefficient(
        "bennett_s", table, lambda t, n: (1.0 / t.shape[0], (t.shape[0] - 1) / t.shape[0])
    )


def bennett_s(table: ArrayLike) -> float:
    """Bennett, Alpert & Goldstein's S: chance agreement from k equally likely categories.

    .. math:: S = \\frac{A_o - 1/k}{1 - 1/k}

    k is the size of the table, so categories that neither rater used still count: build the
    table with the full category list (``ratings_to_table(..., categories=...)``). Also known as
    Brennan & Prediger's coefficient or Randolph's free-marginal κ.

    Parameters
    ----------
    table : array-like of shape (k, k)
        Counts; rows rater 1, columns rater 2.

    Returns
    -------
    float
        S in [-1/(k-1), 1]; ``nan`` (with :class:`UndefinedAgreementWarning`) for an empty table
        or k = 1.

    References
    ----------
    Bennett, E. M., Alpert, R. & Goldstein, A. C. (1954). Communications through limited
    response questioning. Public Opinion Quarterly 18(3), 303-308.

    Examples
    --------
    >>> round(bennett_s([[2, 2], [1, 5]]), 3)
    0.4
    >>> round(bennett_s([[13, 0, 0], [0, 20, 7], [0, 4, 56]]), 3)  # Gwet (2014), irrCAC
    0.835
    """
    return bennett_s_parts(table).value


def scott_pi_parts(table: ArrayLike) -> AgreementParts:
    """Scott's π with its terms; see :func:`scott_pi`.

    >>> round(scott_pi_parts([[2, 2], [1, 5]]).expected, 3)
    0.545
    """

    def chance(t: np.ndarray, n: float) -> tuple[float, float]:
        pooled = t.sum(axis=0) + t.sum(axis=1)  # n_1c + n_2c
        return (pooled**2).sum() / (2 * n) ** 2, (pooled * (2 * n - pooled)).sum() / (2 * n) ** 2

    return _table_coefficient("scott_pi", table, chance)


def scott_pi(table: ArrayLike) -> float:
    """Scott's π: chance agreement from the two raters' pooled category distribution.

    .. math:: \\pi = \\frac{A_o - A_e}{1 - A_e}, \\qquad
              A_e = \\sum_c \\left(\\frac{n_{1c} + n_{2c}}{2n}\\right)^2

    where n_{1c} and n_{2c} are the row and column totals.

    Parameters
    ----------
    table : array-like of shape (k, k)
        Counts; rows rater 1, columns rater 2.

    Returns
    -------
    float
        π; ``nan`` (with :class:`UndefinedAgreementWarning`) for an empty table or when
        A_e = 1 (both raters used a single category).

    References
    ----------
    Scott, W. A. (1955). Reliability of content analysis: the case of nominal scale coding.
    Public Opinion Quarterly 19(3), 321-325.

    Examples
    --------
    Artstein & Poesio's example (rows rater 2, columns rater 1):

    >>> round(scott_pi([[2, 2], [1, 5]]), 3)
    0.341
    >>> round(scott_pi([[13, 0, 0], [0, 20, 7], [0, 4, 56]]), 7)  # Gwet (2014), irrCAC
    0.7962397
    """
    return scott_pi_parts(table).value


def cohen_kappa_parts(table: ArrayLike) -> AgreementParts:
    """Cohen's κ with its terms; see :func:`cohen_kappa`.

    >>> parts = cohen_kappa_parts([[2, 2], [1, 5]])
    >>> parts.observed, round(parts.expected, 3), parts.n_items
    (0.7, 0.54, 10.0)
    """
    def chance(t: np.ndarray, n: float) -> tuple[float, float]:
        rows, columns = t.sum(axis=1), t.sum(axis=0)
        return rows @ columns / n**2, float(kappa_disagreements(t)[1])

    return _table_coefficient("cohen_kappa", table, chance)


def kappa_disagreements(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cohen's observed and expected disagreement of every (…, k, k) table (rows rater 1):
    ``Do = 1 − Σ_c t_cc / n`` and ``De = Σ_c n_c·(n − m_c) / n²`` with ``n_c``, ``m_c`` the row
    and column sums; NaN for an empty table. κ = 1 − Do/De (:func:`disagreement_ratio`); the
    point estimate (:func:`cohen_kappa_parts`) and every bootstrap replicate use these terms."""
    t = np.asarray(tables, dtype=float)
    n = t.sum(axis=(-1, -2))
    rows, columns = t.sum(axis=-1), t.sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (n - np.trace(t, axis1=-2, axis2=-1)) / n
        expected = (rows * (n[..., None] - columns)).sum(axis=-1) / n**2
    return observed, expected


def disagreement_ratio(observed: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """``1 − Do/De`` element-wise, NaN where ``De`` is not positive (the coefficient is 0/0)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected > 0, 1 - observed / np.where(expected > 0, expected, 1), np.nan)


def cohen_kappa_array(tables: np.ndarray) -> np.ndarray:
    """Cohen's κ of every (…, k, k) table (any leading axes, e.g. replicates × pairs), NaN where
    undefined; the same terms as :func:`cohen_kappa`.

    >>> cohen_kappa_array(np.array([[[2, 2], [1, 5]], [[3, 0], [0, 0]]])).round(4).tolist()
    [0.3478, nan]
    """
    return disagreement_ratio(*kappa_disagreements(tables))


def cohen_kappa(table: ArrayLike) -> float:
    """Cohen's κ: chance agreement from each rater's own category distribution.

    .. math:: \\kappa = \\frac{A_o - A_e}{1 - A_e}, \\qquad A_e = \\sum_c \\frac{n_{1c} n_{2c}}{n^2}

    On a 2×2 table ``[[a, b], [c, d]]`` this is
    ``2(ad - bc) / ((a + c)(c + d) + (b + d)(a + b))``.

    Parameters
    ----------
    table : array-like of shape (k, k)
        Counts; rows rater 1, columns rater 2.

    Returns
    -------
    float
        κ; ``nan`` (with :class:`UndefinedAgreementWarning`) for an empty table or when
        A_e = 1 (both raters used one and the same single category).

    See Also
    --------
    weighted_kappa : Cohen's weighted κ for ordered categories.
    davies_fleiss_kappa : the generalization to m raters.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
    Psychological Measurement 20(1), 37-46.

    Examples
    --------
    Artstein & Poesio's example (rows rater 2, columns rater 1), and docs/chance-corrected.md:

    >>> round(cohen_kappa([[2, 2], [1, 5]]), 3)
    0.348
    >>> round(cohen_kappa([[227, 31], [50, 192]]), 3)
    0.675
    >>> round(cohen_kappa([[13, 0, 0], [0, 20, 7], [0, 4, 56]]), 7)  # Gwet (2014), irrCAC
    0.7964094
    """
    return cohen_kappa_parts(table).value


def _disagreement_weights(weights: Weights, k: int) -> np.ndarray:
    """The (k, k) disagreement-weight matrix for ``weighted_kappa``."""
    if isinstance(weights, str):
        if weights not in WEIGHTS:
            raise ValueError(
                f"weights={weights!r} is not one of {', '.join(map(repr, WEIGHTS))} "
                "or a k×k matrix of disagreement weights"
            )
        if weights in ("linear", "quadratic"):
            index = np.arange(k)
            distance = np.abs(index[:, None] - index[None, :]) / max(k - 1, 1)
            return distance if weights == "linear" else distance**2
        return _weight_names.disagreement(weights, np.arange(1, k + 1))
    try:
        w = np.asarray(weights, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"weights={reprlib.repr(weights)} is not one of {', '.join(map(repr, WEIGHTS))} "
            "or a k×k matrix of disagreement weights"
        ) from exc
    if w.shape != (k, k):
        raise ValueError(
            f"weights must be one of {', '.join(WEIGHTS)} or a {k}×{k} matrix for this {k}×{k} table; "
            f"got shape {w.shape}"
        )
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(f"disagreement weights must be finite and non-negative; got {w.tolist()}")
    if (np.diag(w) != 0).any():
        raise ValueError(
            "weights are disagreement weights and must be 0 on the diagonal; got diagonal "
            f"{np.diag(w).tolist()}. For agreement weights w (1 on the diagonal) pass 1 - w"
        )
    return w


def weighted_kappa_parts(table: ArrayLike, *, weights: Weights = "linear") -> AgreementParts:
    """Weighted κ with its terms (disagreements); see :func:`weighted_kappa`.

    >>> parts = weighted_kappa_parts([[2, 2], [1, 5]], weights="quadratic")
    >>> parts.basis, round(parts.observed, 3), round(parts.expected, 3)
    ('disagreement', 0.3, 0.46)
    """
    t = _as_table(table)
    k = t.shape[0]
    w = _disagreement_weights(weights, k)
    n = float(t.sum())
    common = dict(maximum=0.0, basis="disagreement", n_items=n, n_raters=2, n_categories=k)
    if n == 0:
        return _finish(
            "weighted_kappa", math.nan, math.nan, undefined=_EMPTY_TABLE, **common
        )
    p = t / n
    observed = float((w * p).sum())
    expected = float(p.sum(axis=1) @ w @ p.sum(axis=0))
    return _finish("weighted_kappa", observed, expected, **common)


def weighted_kappa(table: ArrayLike, *, weights: Weights = "linear") -> float:
    """Cohen's weighted κ: partial credit for near-misses between ordered categories.

    With disagreement weights v (0 on the diagonal), p = table / n, and row and column shares
    p_{i.} and p_{.j}:

    .. math:: \\kappa_w = 1 - \\frac{\\sum_{ij} v_{ij} p_{ij}}{\\sum_{ij} v_{ij} p_{i.} p_{.j}}

    ``"linear"``: v_ij = |i - j| / (k - 1); ``"quadratic"``: v_ij = (i - j)² / (k - 1)², over the
    category indices in table order. Every other name of Gwet's weight families ("identity",
    "ordinal", "radical", "ratio", "circular", "bipolar"; :mod:`spanagree.measures.weights`) gives
    ``v = 1 - w`` on the positions 1..k, the vocabulary of the whole chance-corrected family
    (``spanagree.measures.cac``). A matrix is taken as **disagreement** weights, the
    convention of statsmodels' ``cohens_kappa(table, weights=matrix)``; for agreement weights w
    (1 on the diagonal, as in Cohen 1968's alternative form and SAS) pass ``1 - w``. Since κ_w is
    invariant to rescaling v, ``"linear"`` and ``"quadratic"`` match statsmodels'
    ``cohens_kappa(table, wt="linear")`` and ``wt="quadratic"``. On a 2×2 table every weighting
    gives Cohen's κ; with v = 1 - I it is Cohen's κ on any table.

    Parameters
    ----------
    table : array-like of shape (k, k)
        Counts; rows rater 1, columns rater 2, categories in their natural order.
    weights : a name in ``WEIGHTS`` or array-like of shape (k, k), default="linear"
        Disagreement weights: non-negative, 0 on the diagonal.

    Returns
    -------
    float
        κ_w; ``nan`` (with :class:`UndefinedAgreementWarning`) for an empty table or when the
        expected disagreement is 0.

    References
    ----------
    Cohen, J. (1968). Weighted kappa: nominal scale agreement provision for scaled disagreement
    or partial credit. Psychological Bulletin 70(4), 213-220.

    Examples
    --------
    >>> round(weighted_kappa([[2, 2], [1, 5]]), 3)  # 2×2: equals Cohen's κ
    0.348

    Gwet (2014)'s 3×3 ``cont3x3abstractors`` table (irrCAC), where the only disagreements are
    between adjacent categories (value checked against statsmodels):

    >>> round(weighted_kappa([[13, 0, 0], [0, 20, 7], [0, 4, 56]], weights="quadratic"), 4)
    0.8922
    """
    return weighted_kappa_parts(table, weights=weights).value


def _specific_agreement(
    name: str, table: ArrayLike, positive: int, *, negative: bool
) -> AgreementParts:
    t = _as_table(table)
    if t.shape != (2, 2):
        raise ValueError(f"{name} needs a 2×2 table; got shape {t.shape}")
    if positive not in (0, 1) or isinstance(positive, bool):
        raise ValueError(
            f"positive={positive!r} must be 0 or 1 (the index of the present category)"
        )
    if positive == 1:
        t = t[::-1, ::-1]
    (a, b), (c, d) = t.tolist()
    both = d if negative else a
    denominator = 2 * both + b + c
    common = dict(n_items=float(t.sum()), n_raters=2, n_categories=2)
    if denominator == 0:
        cell = "2d + b + c" if negative else "2a + b + c"
        return _finish(name, math.nan, 0.0, undefined=f"{cell} = 0", **common)
    return _finish(name, 2 * both / denominator, 0.0, **common)


def positive_agreement_parts(table: ArrayLike, *, positive: int = 0) -> AgreementParts:
    """Positive specific agreement with its terms; see :func:`positive_agreement`.

    Undefined when neither rater marked anything: nan, a reason, and a warning.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     parts = positive_agreement_parts([[0, 0], [0, 7]])
    >>> parts.value, parts.undefined, caught[0].category.__name__
    (nan, '2a + b + c = 0', 'UndefinedAgreementWarning')
    """
    return _specific_agreement("positive_agreement", table, positive, negative=False)


def positive_agreement(table: ArrayLike, *, positive: int = 0) -> float:
    """Positive specific agreement (PSA) on a 2×2 table; the F1 of either rater against the other.

    With ``table = [[a, b], [c, d]]`` (a: both raters said present, d: both said absent):

    .. math:: PSA = \\frac{2a}{2a + b + c}

    It does not use d, so it is defined for span markup where d is not (docs/agreement.md).

    Parameters
    ----------
    table : array-like of shape (2, 2)
        Counts; rows rater 1, columns rater 2.
    positive : {0, 1}, default=0
        Index of the *present* category. The default follows the published ``[[a, b], [c, d]]``
        layout (present first). A table from ``ratings_to_table`` on 0/1 or False/True labels has
        present at index 1: pass ``positive=1``.

    Returns
    -------
    float
        PSA in [0, 1]; ``nan`` (with :class:`UndefinedAgreementWarning`) when 2a + b + c = 0
        (neither rater marked anything): undefined, neither 0 nor 1.

    See Also
    --------
    negative_agreement

    References
    ----------
    Hripcsak, G. & Rothschild, A. S. (2005). Agreement, the F-measure, and reliability in
    information retrieval. JAMIA 12(3), 296-298.

    Examples
    --------
    docs/chance-corrected.md (a = 227, b = 31, c = 50):

    >>> round(positive_agreement([[227, 31], [50, 192]]), 3)
    0.849
    >>> round(positive_agreement([[192, 50], [31, 227]], positive=1), 3)
    0.849
    """
    return positive_agreement_parts(table, positive=positive).value


def negative_agreement_parts(table: ArrayLike, *, positive: int = 0) -> AgreementParts:
    """Negative specific agreement with its terms; see :func:`negative_agreement`.

    >>> round(negative_agreement_parts([[227, 31], [50, 192]]).observed, 3)
    0.826
    """
    return _specific_agreement("negative_agreement", table, positive, negative=True)


def negative_agreement(table: ArrayLike, *, positive: int = 0) -> float:
    """Negative specific agreement (NSA) on a 2×2 table: PSA of the *absent* category.

    With ``table = [[a, b], [c, d]]`` (a: both present, d: both absent):

    .. math:: NSA = \\frac{2d}{2d + b + c}

    Parameters
    ----------
    table : array-like of shape (2, 2)
        Counts; rows rater 1, columns rater 2.
    positive : {0, 1}, default=0
        Index of the *present* category (see :func:`positive_agreement`).

    Returns
    -------
    float
        NSA in [0, 1]; ``nan`` (with :class:`UndefinedAgreementWarning`) when 2d + b + c = 0.

    References
    ----------
    Hripcsak, G. & Rothschild, A. S. (2005). Agreement, the F-measure, and reliability in
    information retrieval. JAMIA 12(3), 296-298.

    Examples
    --------
    >>> round(negative_agreement([[227, 31], [50, 192]]), 3)
    0.826
    """
    return negative_agreement_parts(table, positive=positive).value


# ----------------------------------------------------------------------------------------------
# m raters: coefficients on an items × raters matrix
# ----------------------------------------------------------------------------------------------


def fleiss_kappa_parts(
    ratings: ArrayLike, *, categories: ArrayLike | None = None
) -> AgreementParts:
    """Fleiss' κ with its terms; see :func:`fleiss_kappa`.

    >>> parts = fleiss_kappa_parts([[1, 1, 1], [1, 2, None], [2, 2, 1]])
    >>> parts.n_items, parts.skipped
    (2, {'missing ratings': 1})
    """
    codes, cats, skipped = _complete_items(ratings, categories)
    (n, m), k = codes.shape, len(cats)
    common = dict(n_items=n, n_raters=m, n_categories=k, skipped=skipped)
    undefined = _complete_undefined(n, m)
    if undefined:
        return _finish("fleiss_kappa", math.nan, math.nan, undefined=undefined, **common)
    observed, observed_disagreement = _fleiss_observed(codes, k)
    totals = np.bincount(codes.ravel(), minlength=k)  # n_c
    ratings_count = n * m
    return _finish(
        "fleiss_kappa",
        observed,
        float((totals**2).sum() / ratings_count**2),
        disagreement=(
            observed_disagreement,
            float((totals * (ratings_count - totals)).sum() / ratings_count**2),
        ),
        **common,
    )


def fleiss_kappa(ratings: ArrayLike, *, categories: ArrayLike | None = None) -> float:
    """Fleiss' κ (multi-π) for m raters: Scott's π generalized to any number of raters.

    With n_ic the number of raters who put item i in category c:

    .. math:: A_o = \\frac{\\sum_i \\sum_c n_{ic}(n_{ic} - 1)}{n m (m - 1)}, \\qquad
              A_e = \\sum_c \\left(\\frac{n_c}{n m}\\right)^2, \\qquad
              \\kappa_F = \\frac{A_o - A_e}{1 - A_e}

    Every item must be rated by all m raters: items with a missing value are skipped and
    counted (``fleiss_kappa_parts(...).skipped["missing ratings"]``). For two raters it equals
    Scott's π.

    Parameters
    ----------
    ratings : array-like of shape (n_items, n_raters)
        Category labels; ``None`` or ``nan`` = missing.
    categories : array-like of shape (k,), optional
        The allowed categories (values outside them raise ValueError).

    Returns
    -------
    float
        κ_F; ``nan`` (with :class:`UndefinedAgreementWarning`) when no item is complete, there
        are fewer than two raters, or A_e = 1.

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
    Bulletin 76(5), 378-382.

    Examples
    --------
    Gwet (2014)'s ``distrib.6raters`` (irrCAC): 15 patients, 6 psychiatrists, 5 diagnoses,
    given as the number of raters per category; κ = 0.4139265.

    >>> import numpy as np
    >>> counts = [[0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6],
    ...           [0, 3, 0, 3, 0], [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0],
    ...           [2, 0, 0, 4, 0], [0, 0, 0, 0, 6], [1, 0, 0, 5, 0], [1, 1, 0, 4, 0],
    ...           [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1]]
    >>> ratings = np.array([np.repeat(np.arange(5), row) for row in counts])
    >>> round(fleiss_kappa(ratings), 7)
    0.4139265
    """
    return fleiss_kappa_parts(ratings, categories=categories).value


def _fixed_rater_kappa(
    name: str, ratings: ArrayLike, categories: ArrayLike | None
) -> AgreementParts:
    """Fleiss' Ao with the chance term averaged over pairs of (fixed) raters."""
    codes, cats, skipped = _complete_items(ratings, categories)
    (n, m), k = codes.shape, len(cats)
    common = dict(n_items=n, n_raters=m, n_categories=k, skipped=skipped)
    undefined = _complete_undefined(n, m)
    if undefined:
        return _finish(name, math.nan, math.nan, undefined=undefined, **common)
    marginals = _rater_marginals(codes, k)
    observed, observed_disagreement = _fleiss_observed(codes, k)
    return _finish(
        name,
        observed,
        float(_pairwise_chance(marginals, n).sum()),
        disagreement=(observed_disagreement, _pairwise_disagreement(marginals, n)),
        **common,
    )


def davies_fleiss_kappa_parts(
    ratings: ArrayLike, *, categories: ArrayLike | None = None
) -> AgreementParts:
    """Davies & Fleiss' κ with its terms; see :func:`davies_fleiss_kappa`.

    >>> round(davies_fleiss_kappa_parts([["a", "a"], ["a", "b"], ["b", "b"]]).expected, 3)
    0.444
    """
    return _fixed_rater_kappa("davies_fleiss_kappa", ratings, categories)


def davies_fleiss_kappa(ratings: ArrayLike, *, categories: ArrayLike | None = None) -> float:
    """Davies & Fleiss' multi-rater κ (Conger's κ): Cohen's κ generalized to m raters.

    Observed agreement as in Fleiss' κ; the chance term keeps each rater's own distribution
    (n_rc: items rater r put in c) and averages over rater pairs:

    .. math:: A_e = \\sum_c \\frac{1}{\\binom{m}{2}} \\sum_{r < s} \\frac{n_{rc} n_{sc}}{n^2},
              \\qquad \\kappa_{DF} = \\frac{A_o - A_e}{1 - A_e}

    Every item must be rated by all m raters: items with a missing value are skipped and
    counted. For two raters it equals Cohen's κ. NLTK's ``AnnotationTask.multi_kappa`` computes
    the same coefficient.

    Parameters
    ----------
    ratings : array-like of shape (n_items, n_raters)
        Category labels; ``None`` or ``nan`` = missing.
    categories : array-like of shape (k,), optional
        The allowed categories.

    Returns
    -------
    float
        κ_DF; ``nan`` (with :class:`UndefinedAgreementWarning`) when no item is complete, there
        are fewer than two raters, or A_e = 1.

    References
    ----------
    Davies, M. & Fleiss, J. L. (1982). Measuring agreement for multinomial data. Biometrics
    38(4), 1047-1051.

    Examples
    --------
    Two raters: Artstein & Poesio's example, equal to Cohen's κ = 0.348.

    >>> ratings = [["high", "high"]] * 2 + [["low", "high"]] * 2 + [["high", "low"]] + [
    ...     ["low", "low"]] * 5
    >>> round(davies_fleiss_kappa(ratings), 3)
    0.348
    """
    return davies_fleiss_kappa_parts(ratings, categories=categories).value


def kappa_s_parts(ratings: ArrayLike, *, categories: ArrayLike | None = None) -> AgreementParts:
    """Shah's fixed-expert κ_S with its terms; see :func:`kappa_s`.

    >>> kappa_s_parts([[1, 1, 2], [2, 2, 2]]).coefficient
    'kappa_s'
    """
    return _fixed_rater_kappa("kappa_s", ratings, categories)


def kappa_s(ratings: ArrayLike, *, categories: ArrayLike | None = None) -> float:
    """Shah's fixed-expert κ_S for a fixed group of m raters, as defined in docs/chance-corrected.md.

    With n_pc the number of items rater p put in category c:

    .. math:: A_e = \\sum_c \\frac{1}{m(m-1)} \\sum_{p \\neq p'}
                    \\frac{n_{pc}}{n} \\frac{n_{p'c}}{n}, \\qquad
              \\kappa_S = \\frac{A_o - A_e}{1 - A_e}

    and A_o as in Fleiss' κ. Every item must be rated by all m raters: items with a missing
    value are skipped and counted.

    **Erratum.** Averaged over the m(m - 1) ordered pairs, this A_e is algebraically the
    Davies-Fleiss (Conger) chance term, so κ_S as written *equals*
    :func:`davies_fleiss_kappa`, and for two raters it equals Cohen's κ. The paper's own numeric
    example does not follow from its formula: it matches a 1/m² normalization instead of
    1/(m(m - 1)), which would break the reduction to Cohen's κ. This function implements the
    formula as written (with the reduction), not the paper's example.

    Parameters
    ----------
    ratings : array-like of shape (n_items, n_raters)
        Category labels; ``None`` or ``nan`` = missing.
    categories : array-like of shape (k,), optional
        The allowed categories.

    Returns
    -------
    float
        κ_S; ``nan`` (with :class:`UndefinedAgreementWarning`) when no item is complete, there
        are fewer than two raters, or A_e = 1.

    References
    ----------
    Shah, M. (2011). Generalized agreement statistics over fixed group of experts. In Machine
    Learning and Knowledge Discovery in Databases (ECML PKDD 2011), LNCS 6913, 191-206
    ("the fixed-expert κ_S").

    Examples
    --------
    Two raters: equal to Cohen's κ on Artstein & Poesio's example.

    >>> ratings = [["high", "high"]] * 2 + [["low", "high"]] * 2 + [["high", "low"]] + [
    ...     ["low", "low"]] * 5
    >>> round(kappa_s(ratings), 3)
    0.348
    """
    return kappa_s_parts(ratings, categories=categories).value


def s_against_group_parts(
    outsider: ArrayLike, ratings: ArrayLike, *, categories: ArrayLike | None = None
) -> AgreementParts:
    """Shah's S with its terms; see :func:`s_against_group`.

    >>> group = [["a", "a", "a"], ["a", "a", "b"], ["b", "b", "b"], ["a", "b", "b"]]
    >>> parts = s_against_group_parts(["a", "b", "b", "a"], group)
    >>> parts.observed, round(parts.expected * 48), round(parts.maximum, 4)
    (0.5, 11, 0.6667)
    """
    group = _as_ratings(ratings)
    out = _as_array(outsider)
    if out.ndim != 1 or out.shape[0] != group.shape[0]:
        raise ValueError(
            f"outsider must be 1-D with one value per item ({group.shape[0]}); "
            f"got shape {out.shape}"
        )
    if out.dtype != group.dtype:  # code both with one set of categories, without casting
        out, group = out.astype(object), group.astype(object)
    codes, cats = _code_values(np.column_stack([out, group]), categories)
    complete = (codes >= 0).all(axis=1)
    skipped = {SKIP_MISSING: int(codes.shape[0] - complete.sum())}
    target, codes = codes[complete, 0], codes[complete, 1:]
    (n, m), k = codes.shape, len(cats)
    common = dict(n_items=n, n_raters=m, n_categories=k, skipped=skipped)
    undefined = _complete_undefined(n, m)
    if undefined:
        undefined = undefined.replace("every rater", "the outsider and every group rater")
        return _finish("s_against_group", math.nan, math.nan, undefined=undefined, **common)
    pairs = m * (m - 1)
    agree_with_target = (codes == target[:, None]).sum(axis=1)
    observed = float((agree_with_target * (agree_with_target - 1)).sum() / (n * pairs))
    item, _, count = _cells(codes, k)
    item_starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
    maximum = float(np.maximum.reduceat(count * (count - 1), item_starts).sum() / (n * pairs))
    target_share = np.bincount(target, minlength=k) / n
    expected = float(target_share @ _pairwise_chance(_rater_marginals(codes, k), n))
    return _finish("s_against_group", observed, expected, maximum=maximum, **common)


def s_against_group(
    outsider: ArrayLike, ratings: ArrayLike, *, categories: ArrayLike | None = None
) -> float:
    """Shah's S: one rater or system (the outsider) against a fixed group of m raters.

    For item i with outsider category t_i and n_ic group raters in category c:

    .. math::
        A_o &= \\frac{1}{n} \\sum_i \\frac{n_{i t_i}(n_{i t_i} - 1)}{m(m-1)}, \\qquad
        A_{max} = \\frac{1}{n} \\sum_i \\max_c \\frac{n_{ic}(n_{ic} - 1)}{m(m-1)}, \\\\
        A_e &= \\sum_c \\bar t_c A_{e,c}, \\qquad
        A_{e,c} = \\frac{1}{m(m-1)} \\sum_{p \\neq p'} \\frac{n_{pc}}{n}\\frac{n_{p'c}}{n},
        \\qquad S = \\frac{A_o - A_e}{A_{max} - A_e}

    where t̄_c is the outsider's share of category c and A_{e,c} the group's pairwise chance
    term for c (the per-category term of :func:`kappa_s`). A_o is the chance that two group
    raters both agree with the outsider; A_max is its best possible value given the group.
    Items where the outsider or any group rater is missing are skipped and counted.

    Parameters
    ----------
    outsider : array-like of shape (n_items,)
        The outsider's category for each item; ``None`` or ``nan`` = missing.
    ratings : array-like of shape (n_items, n_raters)
        The group's labels; ``None`` or ``nan`` = missing.
    categories : array-like of shape (k,), optional
        The allowed categories.

    Returns
    -------
    float
        S (1 when the outsider always picks the group's best-agreed category); ``nan`` (with
        :class:`UndefinedAgreementWarning`) when no item is complete, the group has fewer than
        two raters, or A_max = A_e.

    References
    ----------
    Shah, M. (2011). Generalized agreement statistics over fixed group of experts. In Machine
    Learning and Knowledge Discovery in Databases (ECML PKDD 2011), LNCS 6913, 191-206.

    Examples
    --------
    The paper's numeric examples do not follow its formulas (see :func:`kappa_s`), so this
    example is worked by hand. Three experts, four items; the outsider matches the unanimous
    experts on items 1 and 3 and the minority on items 2 and 4: A_o = (1 + 0 + 1 + 0)/4 = 1/2,
    A_max = (1 + 1/3 + 1 + 1/3)/4 = 2/3. The experts' shares of "a" are 3/4, 2/4, 1/4, so
    A_{e,a} = ((6/4)² - 14/16)/6 = 11/48 = A_{e,b}, and A_e = 11/48 whatever the outsider's
    shares. S = (1/2 - 11/48)/(2/3 - 11/48) = 13/21.

    >>> group = [["a", "a", "a"], ["a", "a", "b"], ["b", "b", "b"], ["a", "b", "b"]]
    >>> round(s_against_group(["a", "b", "b", "a"], group), 4)
    0.619
    """
    return s_against_group_parts(outsider, ratings, categories=categories).value


def gwet_ac1_parts(ratings: ArrayLike, *, categories: ArrayLike | None = None) -> AgreementParts:
    """Gwet's AC1 with its terms; see :func:`gwet_ac1`.

    >>> parts = gwet_ac1_parts([[1, 1], [1, 2], [2, None]])
    >>> parts.n_items, parts.skipped
    (2, {'one rating (chance term only)': 1})
    """
    codes, cats = code_ratings(ratings, categories)
    n_all, m = codes.shape
    k = len(cats)
    per_item = (codes >= 0).sum(axis=1)
    rated, pairable = per_item >= 1, per_item >= 2
    n, n_rated = int(pairable.sum()), int(rated.sum())
    skipped = {SKIP_UNRATED: n_all - n_rated, SKIP_SINGLE: n_rated - n}
    common = dict(n_items=n, n_raters=m, n_categories=k, skipped=skipped)
    if n == 0:
        undefined = "no item has two or more ratings"
    elif k < 2:
        undefined = f"it needs at least two categories (q - 1 = 0); got {cats.tolist()}"
    else:
        undefined = None
    if undefined:
        return _finish("gwet_ac1", math.nan, math.nan, undefined=undefined, **common)
    item, code, count = _cells(codes, k)
    r = per_item[item].astype(float)
    shares = np.bincount(code, weights=count / r, minlength=k) / n_rated
    two = r >= 2
    pairs = np.where(two, r * (r - 1), 1.0)
    observed = float((count * (count - 1) / pairs)[two].sum() / n)
    observed_disagreement = float((count * (r - count) / pairs)[two].sum() / n)
    expected = float((shares * (1 - shares)).sum() / (k - 1))
    return _finish(
        "gwet_ac1",
        observed,
        expected,
        disagreement=(observed_disagreement, 1.0 - expected),
        **common,
    )


def gwet_ac1(ratings: ArrayLike, *, categories: ArrayLike | None = None) -> float:
    """Gwet's AC1 for m raters, allowing missing ratings.

    With r_i the number of ratings of item i, r_ic those in category c, n' the items with
    r_i ≥ 2, n the items with r_i ≥ 1 and q the number of categories:

    .. math::
        p_a = \\frac{1}{n'} \\sum_{i: r_i \\ge 2} \\sum_c \\frac{r_{ic}(r_{ic} - 1)}{r_i(r_i - 1)},
        \\qquad \\pi_c = \\frac{1}{n} \\sum_{i: r_i \\ge 1} \\frac{r_{ic}}{r_i},
        \\qquad p_e = \\frac{1}{q - 1} \\sum_c \\pi_c (1 - \\pi_c),
        \\qquad AC_1 = \\frac{p_a - p_e}{1 - p_e}

    This is the missing-data form of Gwet (2014, the ``irrCAC`` package); on complete data it
    is Gwet (2008)'s multi-rater AC1. Items with a single rating enter π_c only (counted in
    ``skipped["one rating (chance term only)"]``); items with none are skipped. q is the number
    of categories: the distinct values, or ``len(categories)`` when given -- unused categories
    lower p_e, so pass the full category list.

    Parameters
    ----------
    ratings : array-like of shape (n_items, n_raters)
        Category labels; ``None`` or ``nan`` = missing.
    categories : array-like of shape (k,), optional
        All possible categories (q = k).

    Returns
    -------
    float
        AC1; ``nan`` (with :class:`UndefinedAgreementWarning`) when no item has two ratings or
        q < 2. If q ≥ 2 but one category was used throughout, p_e = 0 and AC1 = p_a = 1.

    References
    ----------
    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of
    high agreement. British Journal of Mathematical and Statistical Psychology 61(1), 29-48.

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed. Advanced Analytics.

    Examples
    --------
    Gwet (2014)'s ``cac.raw4raters`` (irrCAC): 12 units, 4 raters, missing values;
    p_a = 0.8181818, p_e = 0.1903212, AC1 = 0.77544.

    >>> nan = float("nan")
    >>> ratings = [[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2],
    ...            [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [nan, 5, 5, 5],
    ...            [nan, nan, 1, 1], [nan, nan, 3, nan]]
    >>> round(gwet_ac1(ratings), 5)
    0.77544
    >>> parts = gwet_ac1_parts(ratings)
    >>> round(parts.observed, 7), round(parts.expected, 7)
    (0.8181818, 0.1903212)
    """
    return gwet_ac1_parts(ratings, categories=categories).value


# --- Krippendorff's alpha ---------------------------------------------------------------------


def _coincidences(codes: np.ndarray, k: int) -> tuple[np.ndarray, int, int]:
    """Krippendorff's coincidence matrix o (k, k), the pairable items and the skipped ones.

    o_ck = Σ_u (number of ordered pairs of values (c, k) in unit u) / (m_u - 1), over units with
    m_u ≥ 2 values. Built from the non-empty (item, category) cells: the diagonal from each
    cell alone, the off-diagonal from each unordered pair of distinct cells of one item, so the
    memory grows with the number of ratings, never with items × k².
    """
    per_item = (codes >= 0).sum(axis=1)
    pairable = per_item >= 2
    item, code, count = _cells(codes[pairable], k)
    weight = 1.0 / (per_item[pairable][item] - 1)
    o = np.zeros((k, k))
    o[np.diag_indices(k)] = np.bincount(code, weights=count * (count - 1) * weight, minlength=k)
    n_cells = item.size
    if n_cells:
        # Cells are sorted by item: pair each cell with the later cells of its item.
        starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
        sizes = np.diff(np.r_[starts, n_cells])
        position = np.arange(n_cells) - np.repeat(starts, sizes)
        n_later = np.repeat(sizes, sizes) - 1 - position
        left = np.repeat(np.arange(n_cells), n_later)
        run_starts = np.repeat(np.cumsum(n_later) - n_later, n_later)
        right = left + 1 + (np.arange(left.size) - run_starts)
        upper = np.bincount(
            code[left] * k + code[right],
            weights=count[left] * count[right] * weight[left],
            minlength=k * k,
        ).reshape(k, k)
        o += upper + upper.T
    return o, int(pairable.sum()), int((~pairable).sum())


def _numeric_categories(cats: np.ndarray, distance: str) -> np.ndarray:
    if cats.dtype.kind in "iufb":
        return cats.astype(float)
    if cats.dtype == object and all(isinstance(c, numbers.Real) for c in cats.tolist()):
        return cats.astype(float)
    raise ValueError(
        f"distance={distance!r} needs numeric category values; got {reprlib.repr(cats.tolist())}."
        " Use distance='ordinal' with categories in order, or give a distance matrix"
    )


def _check_distance(distance: Distance) -> np.ndarray | str:
    """Validate ``distance`` up front: a known name, or a square matrix."""
    if isinstance(distance, str):
        if distance not in DISTANCES:
            raise ValueError(
                f"distance={distance!r} is not one of {', '.join(map(repr, DISTANCES))} "
                "or a k×k matrix of squared distances"
            )
        return distance
    not_allowed = (
        f"distance={reprlib.repr(distance)} is not one of {', '.join(map(repr, DISTANCES))} "
        "or a k×k matrix of squared distances"
    )
    try:
        delta = np.asarray(distance, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(not_allowed) from exc
    if delta.ndim != 2 or delta.shape[0] != delta.shape[1]:
        raise ValueError(not_allowed)
    if not np.isfinite(delta).all() or (delta < 0).any():
        raise ValueError(f"a distance matrix must be finite and non-negative; got {delta.tolist()}")
    if (np.diag(delta) != 0).any():
        raise ValueError(
            f"a distance matrix must be 0 on the diagonal; got diagonal {np.diag(delta).tolist()}"
        )
    if not np.allclose(delta, delta.T):
        raise ValueError("a distance matrix must be symmetric")
    return delta


def _squared_distances(
    distance: np.ndarray | str, cats: np.ndarray, marginals: np.ndarray
) -> np.ndarray:
    """δ²(c, k) for every pair of categories, shape (k, k)."""
    k = len(cats)
    if not isinstance(distance, str):
        if distance.shape != (k, k):
            raise ValueError(
                f"the distance matrix is {distance.shape[0]}×{distance.shape[1]} but there are "
                f"{k} categories {reprlib.repr(cats.tolist())}; pass categories= in the matrix's "
                "order"
            )
        return distance
    if distance == "nominal":
        return 1.0 - np.eye(k)
    if distance == "ordinal":
        # δ²(c, k) = (Σ_{g between c and k} n_g - (n_c + n_k)/2)², categories in order.
        index = np.arange(k)
        low, high = np.minimum.outer(index, index), np.maximum.outer(index, index)
        cumulative = np.r_[0.0, np.cumsum(marginals)]
        between = cumulative[high + 1] - cumulative[low]
        return (between - (marginals[:, None] + marginals[None, :]) / 2) ** 2
    values = _numeric_categories(cats, distance)
    difference = values[:, None] - values[None, :]
    if distance == "interval":
        return difference**2
    total = values[:, None] + values[None, :]  # ratio
    ratio = np.divide(difference, total, out=np.zeros_like(difference), where=total != 0)
    return ratio**2


def krippendorff_alpha_parts(
    ratings: ArrayLike,
    *,
    distance: Distance = "nominal",
    categories: ArrayLike | None = None,
) -> AgreementParts:
    """Krippendorff's α with its terms (disagreements); see :func:`krippendorff_alpha`.

    >>> parts = krippendorff_alpha_parts([[1, 1, None], [1, 2, 2], [3, None, None]])
    >>> parts.basis, parts.n_items, parts.skipped
    ('disagreement', 2, {'fewer than two values': 1})
    """
    delta = _check_distance(distance)
    codes, cats = code_ratings(ratings, categories)
    if isinstance(delta, str) and delta != "nominal":
        if delta == "ordinal" and categories is None:
            _numeric_categories(cats, "ordinal")  # sorted order is meaningful only for numbers
        elif delta in ("interval", "ratio"):
            values = _numeric_categories(cats, delta)
            if delta == "ratio" and (values < 0).any():
                raise ValueError(
                    f"distance='ratio' needs non-negative values; got {values[values < 0][0]:g}"
                )
    k = len(cats)
    o, n_items, n_skipped = _coincidences(codes, k)
    marginals = o.sum(axis=1)
    n_values = float(marginals.sum())
    common = dict(
        maximum=0.0,
        basis="disagreement",
        n_items=n_items,
        n_raters=codes.shape[1],
        n_categories=k,
        skipped={SKIP_UNPAIRABLE: n_skipped},
    )
    if n_items == 0:
        return _finish(
            "krippendorff_alpha",
            math.nan,
            math.nan,
            undefined="no item has two or more values (nothing is pairable)",
            **common,
        )
    d2 = _squared_distances(delta, cats, marginals)
    observed, expected = (float(x) for x in alpha_disagreements(o, d2))
    return _finish("krippendorff_alpha", observed, expected, **common)


def alpha_disagreements(o: np.ndarray, d2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Krippendorff's observed and expected disagreement of every (…, k, k) coincidence matrix
    ``o`` under the squared distances ``d2`` (k, k): ``Do = Σ o_ck δ²_ck / n`` and
    ``De = Σ n_c n_k δ²_ck / (n (n − 1))`` (Krippendorff 2011); α = 1 − Do/De. The point
    estimate (:func:`krippendorff_alpha_parts`) and every bootstrap replicate use these terms."""
    o = np.asarray(o, dtype=float)
    marginals = o.sum(axis=-1)
    n = marginals.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = (o * d2).sum(axis=(-1, -2)) / n
        expected = np.einsum("...c,ck,...k->...", marginals, d2, marginals) / (n * (n - 1))
    return observed, expected


def nominal_alpha_array(o: np.ndarray) -> np.ndarray:
    """Krippendorff's nominal α of every (…, k, k) coincidence matrix, NaN where undefined.

    >>> float(nominal_alpha_array(np.array([[4.0, 2.0], [2.0, 4.0]])).round(4))
    0.3889
    """
    k = o.shape[-1]
    return disagreement_ratio(*alpha_disagreements(o, 1.0 - np.eye(k)))


def krippendorff_alpha(
    ratings: ArrayLike,
    *,
    distance: Distance = "nominal",
    categories: ArrayLike | None = None,
) -> float:
    """Krippendorff's α for any number of raters, with missing values and a choice of distance.

    From the coincidence matrix o (o_ck: pairs of values c, k within a unit u, each weighted
    1/(m_u - 1)), its marginals n_c and n = Σ n_c pairable values:

    .. math:: D_o = \\frac{1}{n}\\sum_{c,k} o_{ck}\\,\\delta^2_{ck}, \\qquad
              D_e = \\frac{1}{n(n-1)}\\sum_{c,k} n_c n_k\\,\\delta^2_{ck}, \\qquad
              \\alpha = 1 - \\frac{D_o}{D_e}

    Distances δ²: ``"nominal"`` 0 if equal else 1; ``"ordinal"``
    (Σ_{g=c}^{k} n_g - (n_c + n_k)/2)² over categories in order; ``"interval"`` (c - k)²;
    ``"ratio"`` ((c - k)/(c + k))²; or a k×k matrix giving δ²(c, k) directly, in the order of
    ``categories`` (symmetric, non-negative, 0 on the diagonal). ``"ordinal"`` needs numeric
    labels or ``categories`` in order; ``"interval"`` and ``"ratio"`` need numeric labels
    (``"ratio"``: non-negative).

    Items with fewer than two values are not pairable: they are skipped and counted
    (``krippendorff_alpha_parts(...).skipped["fewer than two values"]``).

    Parameters
    ----------
    ratings : array-like of shape (n_items, n_raters)
        Category labels; ``None`` or ``nan`` = missing. Items are rows (the transpose of the
        ``krippendorff`` package's reliability data).
    distance : {"nominal", "ordinal", "interval", "ratio"} or array-like of shape (k, k), \
default="nominal"
        The metric δ².
    categories : array-like of shape (k,), optional
        The categories in order; default: the distinct values, sorted.

    Returns
    -------
    float
        α; ``nan`` (with :class:`UndefinedAgreementWarning`) when nothing is pairable or
        D_e = 0 (all pairable values equal).

    References
    ----------
    Krippendorff, K. (2004). Content Analysis: An Introduction to Its Methodology, 2nd ed.,
    ch. 11. Sage.

    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. University of
    Pennsylvania, Annenberg School for Communication, Departmental Papers 43.

    Examples
    --------
    Krippendorff (2011)'s reliability data: 4 coders, 12 units, with missing values
    (rows are units here).

    >>> nan = float("nan")
    >>> ratings = [[1, 1, nan, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2],
    ...            [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [nan, 5, 5, 5],
    ...            [nan, nan, 1, 1], [nan, 3, nan, nan]]
    >>> round(krippendorff_alpha(ratings), 3)
    0.743
    >>> round(krippendorff_alpha(ratings, distance="ordinal"), 3)
    0.815
    >>> round(krippendorff_alpha(ratings, distance="interval"), 3)
    0.849
    >>> round(krippendorff_alpha(ratings, distance="ratio"), 3)
    0.797
    """
    return krippendorff_alpha_parts(ratings, distance=distance, categories=categories).value
