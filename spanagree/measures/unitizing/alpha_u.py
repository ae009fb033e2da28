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

from ...core.arrays import ranges
from ...core.align import SpanColumns, candidate_pairs
from ...errors import UsageError


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


def _usable(doc, rater, label, start, end, n_raters: int, n_labels: int) -> np.ndarray:
    """Units that count: non-empty, and not overlapping an earlier unit of their rater and label."""
    keep = end > start
    kept = keep.copy()
    group = (doc[keep] * n_raters + rater[keep]) * max(n_labels, 1) + label[keep]
    kept[keep] = reduce_overlaps(group, start[keep], end[keep])
    return kept


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

    s_cubic, s_gaps = _expected_parts(key, rater, start, end, length, n, n_raters, n_labels)
    return {"n": n, "t_o": t_o, "s_cubic": s_cubic, "s_gaps": s_gaps, "q": q}


def _expected_parts(key, rater, start, end, length, n, n_raters: int, n_labels: int):
    """The two parts of the expected-distance numerator per (continuum, label) ``key``:
    ``Σ l (l - 1)(2l - 1) / 3`` and ``Σ_u l² Σ_{gaps g >= l} (g - l + 1)``, every rater's gaps."""
    size = len(n)
    lens = end - start
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
    return _sum_by(key, cubic, size), _sum_by(key, lens**2 * g_sum, size)


def _sum_by(key: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """Exact integer sums of ``values`` by ``key``, shape (size,)."""
    out = np.zeros(size, dtype=np.int64)
    np.add.at(out, key, values.astype(np.int64))
    return out


def _per_document_values(stats: dict[str, np.ndarray], length: np.ndarray, n_raters: int, n_labels: int) -> np.ndarray:
    """α_U of every document that has units, vectorised; exact where ``D_o`` and ``D_e`` are close.

    ``mean_c D_o / mean_c D_e`` in floating point; a document whose two sums agree to 1e-9 is
    recomputed with exact fractions, so that the "0 when equal" rule is decided exactly.
    """
    shape = (len(length), n_labels)
    n = stats["n"].reshape(shape)
    t_o, q = stats["t_o"].reshape(shape).astype(np.float64), stats["q"].reshape(shape).astype(np.float64)
    s = (n - 1) * stats["s_cubic"].reshape(shape).astype(np.float64) + stats["s_gaps"].reshape(shape)
    R = n_raters
    L = length.astype(np.float64)[:, None]
    has = n > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        d_o = np.where(has, 2 * t_o / (R * (R - 1) * L * L), 0.0).sum(axis=1)
        d_e = np.where(has, 2 * s / (L * (R * L * (R * L - 1) - q)), 0.0).sum(axis=1)
        value = 1 - d_o / d_e
    docs = np.flatnonzero(has.any(axis=1))
    close = docs[np.abs(d_o[docs] - d_e[docs]) <= 1e-9 * np.maximum(np.abs(d_e[docs]), 1e-300)]
    for d in close.tolist():
        value[d] = np.nan
        exact = _summarise(stats, d, int(length[d]), n_raters, n_labels)["value"]
        if exact is not None:
            value[d] = exact
    out = value[docs]
    return out[~np.isnan(out)]


def _alpha(d_o: Fraction, d_e: Fraction) -> float | None:
    if d_o == d_e:
        return 0.0
    if d_e == 0:
        return None
    return float(1 - d_o / d_e)


def _summarise(stats: dict[str, np.ndarray], c: int, length: int, n_raters: int, n_labels: int) -> dict[str, Any]:
    """α_U overall and per label for continuum ``c``, ``D_o`` and ``D_e`` of each label as exact fractions."""
    per_label: dict[int, dict[str, Any]] = {}
    sum_o = sum_e = Fraction(0)
    R, L = n_raters, length
    for lab in range(n_labels):
        i = c * n_labels + lab
        n = int(stats["n"][i])
        if n == 0:
            continue
        s = (n - 1) * int(stats["s_cubic"][i]) + int(stats["s_gaps"][i])
        d_o = Fraction(2 * int(stats["t_o"][i]), R * (R - 1) * L * L)
        d_e = Fraction(2 * s, L * (R * L * (R * L - 1) - int(stats["q"][i])))
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
    replicates: int | None = None,
    level: float = 0.95,
    seed: int = 0,
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
    replicates, level, seed : with ``replicates``, percentile bootstrap intervals over documents
        at ``level`` (seeded), under ``interval`` overall and per label (see :func:`_intervals`).

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
    kept = _usable(doc, rater, label, start, end, n_raters, n_labels)
    left_out = int((~empty).sum() - kept.sum())
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

    values = np.zeros(0)
    if len(doc_length) and n_labels:
        per_doc = _stats(doc, rater, label, start, end, doc_length, n_raters, n_labels)
        values = _per_document_values(per_doc, doc_length, n_raters, n_labels)
        if replicates and result["value"] is not None:
            found = _intervals((doc, rater, label, start, end), doc_length, per_doc, n_raters, n_labels,
                               replicates, level, seed)
            result["interval"] = found[n_labels]
            for k, entry in result["per_label"].items():
                entry["interval"] = found[k]
    result["per_document_mean"] = {
        "value": float(np.mean(values)) if len(values) else None,
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


def _intervals(units, doc_length, per_doc, n_raters, n_labels, replicates, level, seed) -> list[dict[str, Any]]:
    """Percentile bootstrap intervals of α_U per label and overall (last), over documents.

    Each replicate draws the documents with replacement and lays the drawn documents end to end
    in document-id order (a document drawn twice appears twice in a row), exactly as
    :func:`alpha_u` would see that corpus. ``D_o``'s sums and the unit counts are sums over
    documents, but the gaps are not: a rater's last gap in one document joins the first gap in
    the next, so the gaps are recomputed for every replicate. ``units`` are the usable units'
    columns, ``per_doc`` their per-document statistics.
    """
    doc, rater, label, start, end = units
    n_docs = len(doc_length)
    shape = (n_docs, n_labels)
    n_dl, t_dl, q_dl = (per_doc[k].reshape(shape) for k in ("n", "t_o", "q"))
    order = np.argsort(doc, kind="stable")
    counts = np.bincount(doc, minlength=n_docs)
    first_unit = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rng = np.random.default_rng(seed)
    values = np.full((replicates, n_labels + 1), np.nan)
    R = n_raters
    for rep in range(replicates):
        w = np.bincount(rng.integers(0, n_docs, n_docs), minlength=n_docs)
        seq = np.repeat(np.arange(n_docs), w)
        L = int(doc_length[seq].sum())
        if L == 0:
            continue
        offset = np.concatenate([[0], np.cumsum(doc_length[seq])[:-1]])
        idx = order[ranges(first_unit[seq], counts[seq])]
        shift = np.repeat(offset, counts[seq])
        n = w @ n_dl
        s_cubic, s_gaps = _expected_parts(
            label[idx], rater[idx], start[idx] + shift, end[idx] + shift, np.array([L]), n, R, n_labels
        )
        stats = {"n": n, "t_o": w @ t_dl, "q": w @ q_dl, "s_cubic": s_cubic, "s_gaps": s_gaps}
        found = _summarise(stats, 0, L, R, n_labels)
        for c, entry in [*found["per_label"].items(), (n_labels, found)]:
            values[rep, c] = np.nan if entry["value"] is None else entry["value"]
    lo_q = (1 - level) / 2
    return [_interval(values[:, c], lo_q) for c in range(n_labels + 1)]


def _interval(values: np.ndarray, lo_q: float) -> dict[str, Any]:
    defined = values[~np.isnan(values)]
    entry: dict[str, Any] = {
        "low": float(np.quantile(defined, lo_q)) if len(defined) else None,
        "high": float(np.quantile(defined, 1 - lo_q)) if len(defined) else None,
        "bootstrap_se": float(defined.std(ddof=1)) if len(defined) > 1 else None,
    }
    if len(values) - len(defined):
        entry["undefined_replicates"] = int(len(values) - len(defined))
    return entry
