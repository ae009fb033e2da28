"""Deciding from intervals (docs/deciding.md): how many documents would likely decide a check
whose interval straddles its bound, and whether a statistic changed between two rounds.

**Change between two rounds.** A percentile bootstrap of NEW − OLD over documents (Efron &
Tibshirani 1993, ch. 13), **stratified and paired**: each replicate draws the documents both
rounds share (matched by id and text) with replacement once and gives each drawn document the
same weight in both rounds, so what a document contributes to both rounds moves together and the
interval reflects only the change; the documents of one round only are drawn within that round.
Every replicate is a weighted sum of the per-document counts (:class:`DocumentCounts`): nothing
is re-aligned. A drop is significant when the whole interval lies below zero; a check
``max_drop = DELTA`` fails only when the interval's upper end is below −DELTA.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from ..student_t import normal_quantile
from .intervals import DocumentCounts, IntervalOptions, row_quantiles


def documents_to_decide(value: float, low: float, high: float, bound: float, documents: int, *,
                        level: float = 0.95, power: float = 0.5) -> tuple[int | None, str | None]:
    """How many documents in all would decide a check ``value >= bound`` held against an interval
    (at ``level``) with probability ``power``, and which way (``"pass"`` or ``"fail"``);
    ``(None, None)`` when the estimate sits on the bound. The gate's "documents to decide" and
    ``spanagree plan --min`` are this one number (docs/planning.md).

    The estimate θ stays where it is and each side of its interval shrinks as 1/sqrt(n) (the
    standard error of a mean over n independent documents): the side facing the bound, of width
    w = z·se at n documents, is ``z·se·sqrt(n/n')`` at n'. The check is decided when that side no
    longer reaches the bound; with θ̂ normal around θ this happens with probability ``power`` at
    ``n' = n · (w·(1 + z_power/z) / |θ − bound|)²`` (z = z_{(1+level)/2}, z_power its quantile of
    ``power``). At power 0.5 (z_power = 0), ``n' = n · (w / |θ − bound|)²``: about as likely to
    stay undecided as to be decided, a floor for planning.

    >>> documents_to_decide(0.80, 0.74, 0.86, 0.77, 100)
    (400, 'pass')
    """
    if value > bound:
        side, gap, way = value - low, value - bound, "pass"
    elif value < bound:
        side, gap, way = high - value, bound - value, "fail"
    else:
        return None, None
    stretch = 1 + normal_quantile(power) / normal_quantile((1 + level) / 2)
    return math.ceil(documents * (side * stretch / gap) ** 2 - 1e-9), way


def _texts(report, counts: DocumentCounts) -> list[str] | None:
    """The texts of the documents ``counts`` holds, or None when the corpus kept no texts (the
    engines keep ids and counts only)."""
    corpus_texts = getattr(report.corpus, "texts", None)
    if not corpus_texts:
        return None
    return [corpus_texts[d] for d in np.asarray(counts.docs).tolist()]


def paired_change(old, new, paths: Sequence[tuple], *, replicates: int = 1000, level: float = 0.95,
                  seed: int = 0) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """NEW − OLD of the statistics at ``paths`` (keys of :meth:`DocumentCounts.statistics`) of
    two scored rounds, with the paired percentile bootstrap interval of each: the documents
    (``{"old", "new", "shared", "old_only", "new_only", "same_id_other_text"}``) and one
    ``{"old", "new", "difference", "interval", "significant"}`` per path (and
    ``undefined_replicates`` when some replicate left it undefined)."""
    IntervalOptions(level=level, replicates=replicates, seed=seed)  # validates
    counts = [DocumentCounts(old), DocumentCounts(new)]
    ids = [np.asarray(r.corpus.doc_ids, dtype=object)[c.docs] for r, c in zip((old, new), counts)]
    position = [{doc_id: i for i, doc_id in enumerate(x.tolist())} for x in ids]
    # a document is shared when both rounds have its id *and* its text (positional ids such as
    # CoNLL's doc-0001 name different sentences in two files)
    texts = [_texts(r, c) for r, c in zip((old, new), counts)]
    other_text = {
        d for d in ids[0].tolist()
        if d in position[1] and None not in texts and texts[0][position[0][d]] != texts[1][position[1][d]]
    }
    shared = [d for d in ids[0].tolist() if d in position[1] and d not in other_text]
    only = [[d for d in ids[k].tolist() if d not in position[1 - k] or d in other_text] for k in (0, 1)]
    shared_rows = [np.array([position[k][d] for d in shared], dtype=np.int64) for k in (0, 1)]
    only_rows = [np.array([position[k][d] for d in only[k]], dtype=np.int64) for k in (0, 1)]

    points = [c.statistics(c.point()) for c in counts]
    rng = np.random.default_rng(seed)
    replicated = np.empty((len(paths), replicates))  # NEW - OLD: statistics × replicates
    done = 0
    while done < replicates:
        block = min(250, replicates - done)
        weights = [np.zeros((block, c.n_documents)) for c in counts]
        if len(shared):
            drawn = rng.integers(0, len(shared), size=(block, len(shared)))
            for k in (0, 1):
                for row in range(block):
                    weights[k][row, shared_rows[k]] = np.bincount(drawn[row], minlength=len(shared))
        for k in (0, 1):
            if len(only_rows[k]):
                drawn = rng.integers(0, len(only_rows[k]), size=(block, len(only_rows[k])))
                for row in range(block):
                    weights[k][row, only_rows[k]] = np.bincount(drawn[row], minlength=len(only_rows[k]))
        values = [c.statistics(c.sums(w)) for c, w in zip(counts, weights)]
        for row, path in enumerate(paths):
            replicated[row, done : done + block] = values[1][path] - values[0][path]
        done += block

    lows, highs, _, n_defined = row_quantiles(replicated, (1 - level) / 2)  # over each row's defined values
    changes = []
    for row, path in enumerate(paths):
        before, after = _float(points[0][path][0]), _float(points[1][path][0])
        low = float(lows[row]) if n_defined[row] and before is not None and after is not None else None
        high = float(highs[row]) if low is not None else None
        entry = {
            "old": before, "new": after, "difference": None if before is None or after is None else after - before,
            "interval": None if low is None else {"low": low, "high": high},
            "significant": None if low is None else "drop" if high < 0 else "rise" if low > 0 else None,
        }
        if replicates > n_defined[row]:
            entry["undefined_replicates"] = replicates - int(n_defined[row])
        changes.append(entry)
    documents = {"old": int(counts[0].n_documents), "new": int(counts[1].n_documents), "shared": len(shared),
                 "old_only": len(only[0]), "new_only": len(only[1]), "same_id_other_text": len(other_text)}
    return documents, changes


def drop_check(change: dict[str, Any], delta: float) -> dict[str, Any]:
    """Did the statistic drop by more than ``delta``? Failed only when the data show it: the
    interval's upper end is below −delta (a larger but uncertain drop passes, with a note)."""
    out = {"max_drop": delta, "difference": change["difference"], "interval": change["interval"]}
    if change["interval"] is None:
        return {**out, "passed": False, "reason": "undefined: the statistic is undefined in a round"}
    high, difference = change["interval"]["high"], change["difference"]
    if high < -delta:
        return {**out, "passed": False,
                "reason": f"dropped by {-difference:.4f}; the interval's upper end {high:.4f} is below -{delta:g}: a significant drop"}
    note = None
    if difference < -delta:
        note = f"dropped by {-difference:.4f}, more than {delta:g}, but not significantly (interval reaches {high:.4f})"
    return {**out, "passed": True, "reason": note}


def _float(value: float) -> float | None:
    return None if np.isnan(value) else float(value)
