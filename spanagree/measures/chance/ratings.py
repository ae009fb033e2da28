"""Ratings as the coefficients read them: coding labels, and moving between tables and ratings.

Two input shapes are used by :mod:`spanagree.stats`:

``ratings``
    An items × raters matrix (**items are rows**; the ``krippendorff`` package uses the transpose,
    raters × units). Values are category labels of any hashable type (numbers, strings, ...).
    ``None`` and ``nan`` mean *missing*. Values that compare equal (``1 == 1.0 == True``) are one
    category. In a NumPy string array ``"nan"`` is an ordinary label, not a missing value
    (``np.array(["a", np.nan])`` silently turns NaN into ``"nan"``: pass a list or an object array
    to keep NaN missing).

``table``
    A k×k contingency table of counts for **two** raters: ``table[i, j]`` is the number of items
    rater 1 (rows) put in category i and rater 2 (columns) in category j. Counts may be fractional
    (partial credit) but must be finite and non-negative.

A k×k table or an items × categories count matrix passed where ratings belong is refused with a
message naming :func:`table_to_ratings` or :func:`counts_to_ratings` (see :func:`check_ratings`).
Ratings are coded once to integer category codes; every count after that is an ``np.bincount``
over codes, so memory grows with the number of ratings, never with items × categories².
"""

from __future__ import annotations

import math
import numbers
import reprlib
from typing import Any, Iterable, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "CodedRatings",
    "RatingsTable",
    "as_table",
    "check_ratings",
    "code_ratings",
    "counts_to_ratings",
    "ratings_to_table",
    "table_to_ratings",
]

class RatingsTable(NamedTuple):
    """Result of :func:`ratings_to_table`."""

    table: np.ndarray
    """(k, k) int array: rows rater 1 (column 0 of ratings), columns rater 2."""
    categories: np.ndarray
    """(k,) the category of each row/column."""
    n_skipped: int
    """Items left out because either rater's value is missing."""


def as_table(table: ArrayLike) -> np.ndarray:
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


def as_array(values: ArrayLike) -> np.ndarray:
    """An ndarray as is; anything else through an object array (so NaN and None survive)."""
    if isinstance(values, np.ndarray):
        return values
    try:
        return np.array(values, dtype=object)
    except ValueError as exc:  # inhomogeneous nesting
        raise ValueError(
            f"ratings must be a rectangular array; got {reprlib.repr(values)}"
        ) from exc


def as_ratings(ratings: ArrayLike, name: str = "ratings") -> np.ndarray:
    arr = as_array(ratings)
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


def as_categories(categories: ArrayLike) -> np.ndarray:
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


def code_values(arr: np.ndarray, categories: ArrayLike | None) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes (-1 = missing) with the same shape as ``arr``, and the categories.

    An infinite value is refused: it is neither a label a rater could give nor a missing rating
    (``None``/``nan``), and as a number it would make every distance infinite."""
    missing = _missing_mask(arr)
    uniq, inverse = _unique(arr[~missing])
    infinite = [value for value in uniq.tolist() if isinstance(value, numbers.Real) and math.isinf(value)]
    if infinite:
        where = tuple(int(i) for i in np.argwhere(~missing & (arr == infinite[0]))[0])
        raise ValueError(f"ratings must be labels or None/nan for missing; got {infinite[0]} at (item, rater) {where}")
    if categories is None:
        cats, position = uniq, np.arange(len(uniq), dtype=np.intp)
    else:
        cats = as_categories(categories)
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


def cells(codes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The non-empty (item, category) cells of an items × raters code matrix.

    Returns ``item``, ``code`` and ``count`` (how many raters put that item in that category),
    each of shape (n_cells,), sorted by item and then code; ``n_cells <= n_ratings``.
    """
    present = codes >= 0
    rows = np.nonzero(present)[0].astype(np.int64)
    keys, count = np.unique(rows * max(k, 1) + codes[present], return_counts=True)
    item, code = np.divmod(keys, max(k, 1))
    return item, code, count.astype(float)


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
    arr = as_ratings(ratings)
    if categories is None:
        check_ratings(arr)
    elif isinstance(categories, (str, bytes)) or not isinstance(categories, Iterable):
        raise ValueError(f"categories must be a list of the category labels, got {reprlib.repr(categories)}")
    return CodedRatings(*code_values(arr, categories))


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
    t = as_table(table)
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
    codes = np.repeat(np.tile(np.arange(c.shape[1]), c.shape[0]), c.astype(np.int64).ravel())
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
            "spanagree.stats.counts_to_ratings(counts), or pass categories= if they really are labels"
        )
    if helper == "table_to_ratings":
        raise ValueError(
            f"this {arr.shape[0]}×{arr.shape[1]} matrix looks like a contingency table of counts, not items × "
            "raters ratings; use the table functions (cohen_kappa(table), ...) or convert it with "
            "spanagree.stats.table_to_ratings(table), or pass categories= if the values really are labels"
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

