"""Krippendorff's unitizing alpha (α_U) on a continuum of characters or tokens.

Every rater marks units (spans with a label) on one continuum of length ``L``; the stretches
between a rater's units of a label are that rater's *gaps*. For one label ``c``, with ``R``
raters, Krippendorff (1995; 2004, §12.4) defines

- the distance between two raters' segments: ``(s1 - s2)² + (e1 - e2)²`` for two overlapping
  units, ``l²`` for a unit of length ``l`` lying inside a gap of the other rater, 0 otherwise;
- the observed disagreement ``D_o(c) = 2 T_o / (R (R - 1) L²)``, where ``T_o`` sums those
  distances over every pair of raters;
- the expected disagreement, the mean distance over every way of placing the observed units and
  gaps on the continuum,

  .. math::
     D_e(c) = \\frac{2}{L} \\cdot
        \\frac{\\sum_u \\left[ (N_c - 1)\\,\\frac{l_u (l_u - 1)(2 l_u - 1)}{3}
               + l_u^2 \\sum_{g \\ge l_u} (g - l_u + 1) \\right]}
             {R L (R L - 1) - \\sum_u l_u (l_u - 1)}

  with ``N_c`` units of the label, the inner sum over every rater's gaps ``g`` of the label;
- ``α_U(c) = 1 - D_o(c) / D_e(c)``, and 0 when ``D_o(c) = D_e(c)``;
- over all labels, ``α_U = 1 - mean_c D_o(c) / mean_c D_e(c)`` (not the mean of the per-label
  values), over the labels that have at least one unit.

This is the computation of DKPro Statistics' ``KrippendorffAlphaUnitizingAgreement`` (Meyer et
al. 2014), which INCEpTION uses. Every sum above is an integer, so the ratio ``D_o / D_e`` is
computed exactly (as a fraction) and the "equal disagreements give 0" rule holds without
rounding noise.

Several documents are laid end to end, in document-id order, as one continuum (so a rater's gap
at the end of one document runs into the next); the mean of per-document values is reported
separately. A unit may not overlap another unit of the same rater and label: as INCEpTION does,
units are taken in order of start (longer first on a tie) and a unit is left out when it overlaps
an earlier unit of that rater and label (kept or left out), and the units left out are counted.

References: Krippendorff, K. (1995), "On the reliability of unitizing continuous data",
Sociological Methodology 25:47-76. Krippendorff, K. (2004), *Content Analysis*, 2nd ed., Sage,
pp. 251-256. Definitions in our words: ``docs/unitizing.md``.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ..align import SpanColumns, candidate_pairs
from ..errors import UsageError


def reduce_overlaps(group: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Which units to keep when units of one group (rater and label) overlap.

    Units are visited by ``(group, start, -end)``; a unit is dropped when an earlier unit of its
    group (kept or dropped) ends after it starts. Returns a boolean mask in the input order.

    >>> reduce_overlaps(np.array([0, 0, 0, 1]), np.array([0, 4, 8, 2]), np.array([5, 10, 12, 3])).tolist()
    [True, False, False, True]
    """
    n = len(start)
    keep = np.ones(n, dtype=bool)
    if n < 2:
        return keep
    order = np.lexsort((-end, start, group))
    g, s, e = group[order], start[order], end[order]
    # running maximum of the ends within each group: offset each group above the previous ones
    rank = np.concatenate([[0], np.cumsum(g[1:] != g[:-1])])
    width = int(e.max()) - int(min(s.min(), 0)) + 1
    running = np.maximum.accumulate(e + rank * width) - rank * width
    previous = np.concatenate([[np.iinfo(np.int64).min], running[:-1]])
    first = np.concatenate([[True], g[1:] != g[:-1]])
    keep[order] = first | (previous <= s)
    return keep


def _stats(
    cont: np.ndarray,
    rater: np.ndarray,
    label: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    length: np.ndarray,
    n_raters: int,
    n_labels: int,
) -> dict[str, np.ndarray]:
    """Integer sufficient statistics per (continuum, label), flattened as ``cont * n_labels + label``.

    Units must not overlap within (continuum, rater, label). Returns arrays of shape
    (n_cont * n_labels,): ``n`` units, ``t_o`` observed distance sum, the two parts of the
    expected-distance numerator ``s = (n - 1) * s_cubic + s_gaps``, ``q`` the sum of ``l (l - 1)``.
    """
    n_cont = len(length)
    size = n_cont * n_labels
    key = cont * n_labels + label
    lens = end - start
    n = np.bincount(key, minlength=size)
    q = _sum_by(key, lens * (lens - 1), size)

    # observed: overlapping pairs of different raters, and units in the other raters' gaps
    cols = SpanColumns(group=cont, start=start, end=end, label=label)
    ia, ib = candidate_pairs(cols, cols, by_label=True)
    other = rater[ia] != rater[ib]
    ia, ib = ia[other], ib[other]
    once = rater[ia] < rater[ib]
    d = (start[ia] - start[ib]) ** 2 + (end[ia] - end[ib]) ** 2
    t_pairs = _sum_by(key[ia[once]], d[once], size)
    # distinct other raters each unit overlaps
    met = np.unique(ia * n_raters + rater[ib])
    k = np.bincount(met // n_raters, minlength=len(start))
    t_gaps = _sum_by(key, lens**2 * (n_raters - 1 - k), size)
    t_o = t_pairs + t_gaps

    # gaps of every rater for every (continuum, label) that has units
    run = key * n_raters + rater
    order = np.lexsort((start, run))
    r_run, r_start, r_end = run[order], start[order], end[order]
    first = np.concatenate([[True], r_run[1:] != r_run[:-1]]) if len(r_run) else np.zeros(0, bool)
    last = np.concatenate([r_run[1:] != r_run[:-1], [True]]) if len(r_run) else np.zeros(0, bool)
    run_key = r_run // n_raters
    inner = r_start[~first] - r_end[:-1][~first[1:]] if len(r_run) else np.zeros(0, np.int64)
    lead = r_start[first]
    trail = length[run_key[last] // n_labels] - r_end[last]
    present = np.flatnonzero(n)
    runs_per_key = np.bincount(np.unique(r_run) // n_raters, minlength=size)
    absent = n_raters - runs_per_key[present]
    gap_key = np.concatenate(
        [run_key[~first], run_key[first], run_key[last], np.repeat(present, absent)]
    )
    gap_len = np.concatenate([inner, lead, trail, np.repeat(length[present // n_labels], absent)])
    positive = gap_len > 0
    gap_key, gap_len = gap_key[positive], gap_len[positive]
    width = int(max(length.max(initial=0), 1)) + 2
    packed = np.sort(gap_key * width + gap_len)
    sorted_len = packed % width
    csum = np.concatenate([[0], np.cumsum(sorted_len)])
    lo = np.searchsorted(packed, key * width + lens, side="left")
    hi = np.searchsorted(packed, key * width + width, side="left")
    g_sum = (csum[hi] - csum[lo]) - (lens - 1) * (hi - lo)
    cubic = lens * (lens - 1) * (2 * lens - 1) // 3
    s_cubic = _sum_by(key, cubic, size)
    s_gaps = _sum_by(key, lens**2 * g_sum, size)
    return {"n": n, "t_o": t_o, "s_cubic": s_cubic, "s_gaps": s_gaps, "q": q}


def _sum_by(key: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """Exact integer sums of ``values`` by ``key``, shape (size,)."""
    out = np.zeros(size, dtype=np.int64)
    np.add.at(out, key, values.astype(np.int64))
    return out


def _disagreements(t_o: int, s: int, q: int, length: int, n_raters: int) -> tuple[Fraction, Fraction]:
    """``(D_o, D_e)`` of one label as exact fractions."""
    R, L = n_raters, length
    d_o = Fraction(2 * t_o, R * (R - 1) * L * L)
    d_e = Fraction(2 * s, L * (R * L * (R * L - 1) - q))
    return d_o, d_e


def _alpha(d_o: Fraction, d_e: Fraction) -> float | None:
    if d_o == d_e:
        return 0.0
    if d_e == 0:
        return None
    return float(1 - d_o / d_e)


def _summarise(stats: dict[str, np.ndarray], c: int, length: int, n_raters: int, n_labels: int) -> dict[str, Any]:
    """α_U overall and per label for continuum ``c``."""
    per_label: dict[int, dict[str, Any]] = {}
    sum_o = sum_e = Fraction(0)
    for lab in range(n_labels):
        i = c * n_labels + lab
        n = int(stats["n"][i])
        if n == 0:
            continue
        s = (n - 1) * int(stats["s_cubic"][i]) + int(stats["s_gaps"][i])
        d_o, d_e = _disagreements(int(stats["t_o"][i]), s, int(stats["q"][i]), length, n_raters)
        sum_o += d_o
        sum_e += d_e
        per_label[lab] = {"value": _alpha(d_o, d_e), "observed": float(d_o), "expected": float(d_e), "units": n}
    k = len(per_label)
    if not k:
        return {"value": None, "observed": None, "expected": None, "per_label": {}, "reason": "no units"}
    return {
        "value": _alpha(sum_o, sum_e),
        "observed": float(sum_o / k),
        "expected": float(sum_e / k),
        "per_label": per_label,
    }


def alpha_u(
    doc: np.ndarray,
    rater: np.ndarray,
    label: np.ndarray,
    start: np.ndarray,
    end: np.ndarray,
    doc_length: np.ndarray,
    *,
    n_raters: int,
    n_labels: int | None = None,
) -> dict[str, Any]:
    """Krippendorff's α_U over all documents laid end to end, per label, and per document.

    Parameters
    ----------
    doc, rater, label, start, end : int arrays of shape (n_units,)
        Each unit's document, rater and label codes and its half-open ``[start, end)`` offsets
        within its document. Every rater is taken to have annotated every document.
    doc_length : int array of shape (n_documents,)
        Each document's length; documents are concatenated in this order.
    n_raters : the number of raters ``R`` (codes ``0 .. R - 1``); at least 2.
    n_labels : the number of label codes (default: the largest code + 1).

    Returns
    -------
    A dict: ``value``, ``observed``, ``expected`` (means over labels of ``D_o`` and ``D_e``),
    ``per_label`` (label code -> ``value``, ``observed``, ``expected``, ``units``),
    ``per_document_mean`` (the mean of the defined per-document values and how many documents
    it covers), ``continuum_length``, ``units`` and ``overlapping_units_left_out``. Values are
    None (with a ``reason``) when undefined.

    >>> r = alpha_u(np.zeros(4, int), np.array([0, 1, 1, 1]), np.zeros(4, int),
    ...             np.array([1, 2, 4, 6]), np.array([9, 3, 5, 7]), np.array([10]), n_raters=2)
    >>> round(r["value"], 4), round(r["observed"], 3), round(r["expected"], 3)
    (-0.7003, 0.91, 0.535)
    """
    doc, rater, label, start, end = (np.asarray(x, dtype=np.int64) for x in (doc, rater, label, start, end))
    doc_length = np.asarray(doc_length, dtype=np.int64)
    if not len(doc) == len(rater) == len(label) == len(start) == len(end):
        raise UsageError("doc, rater, label, start and end must have the same length")
    if n_raters < 2:
        raise UsageError(f"α_U needs at least 2 raters, got {n_raters}")
    if len(start) and (
        (start < 0).any() or (end > doc_length[doc]).any() or (rater < 0).any() or (rater >= n_raters).any()
    ):
        raise UsageError("every unit must lie within its document, with a rater code below n_raters")
    if n_labels is None:
        n_labels = int(label.max()) + 1 if len(label) else 0
    empty = end <= start
    keep = ~empty
    kept = keep.copy()
    kept[keep] = reduce_overlaps((doc[keep] * n_raters + rater[keep]) * max(n_labels, 1) + label[keep], start[keep], end[keep])
    left_out = int(keep.sum() - kept.sum())
    doc, rater, label, start, end = doc[kept], rater[kept], label[kept], start[kept], end[kept]

    total = int(doc_length.sum())
    offset = np.concatenate([[0], np.cumsum(doc_length)[:-1]]).astype(np.int64)
    zero = np.zeros(len(doc), np.int64)
    result: dict[str, Any] = {}
    if total > 0 and n_labels:
        stats = _stats(zero, rater, label, start + offset[doc], end + offset[doc], np.array([total]), n_raters, n_labels)
        result.update(_summarise(stats, 0, total, n_raters, n_labels))
    else:
        reason = "no units" if total > 0 else "empty continuum"
        result.update({"value": None, "observed": None, "expected": None, "per_label": {}, "reason": reason})

    values = []
    if len(doc_length) and n_labels:
        per_doc = _stats(doc, rater, label, start, end, doc_length, n_raters, n_labels)
        for d in np.unique(doc).tolist():
            v = _summarise(per_doc, d, int(doc_length[d]), n_raters, n_labels)["value"]
            if v is not None:
                values.append(v)
    result["per_document_mean"] = {
        "value": float(np.mean(values)) if values else None,
        "documents": len(values),
        "documents_without_units": int(len(doc_length) - len(values)),
    }
    result.update(
        continuum_length=total,
        raters=n_raters,
        units=int(len(doc)),
        empty_units_left_out=int(empty.sum()),
        overlapping_units_left_out=left_out,
    )
    return result
