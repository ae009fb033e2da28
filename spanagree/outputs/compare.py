"""Did agreement change between two rounds? ``spanagree compare OLD NEW``.

Both rounds are scored under the same settings; for every headline statistic (the names of the
gate: ``pairwise_mean_psa``, ``pooled_psa``, ``macro_psa``, ``macro_pooled_psa``,
``label:<LABEL>``, ``label_pooled:<LABEL>`` for labels in both rounds) this gives the
difference NEW − OLD and a percentile bootstrap interval of it over documents (Efron &
Tibshirani 1993, ch. 13). Documents are matched by id; the bootstrap is **stratified and
paired**: each replicate draws the shared documents with replacement once and gives each drawn
document the same weight in both rounds (so what a document contributes to both rounds moves
together, and the interval reflects only the change), and draws the documents present in one
round only within that round. Every replicate is a weighted sum of the per-document counts
(:class:`spanagree.measures.psa.intervals.DocumentCounts`): nothing is re-aligned.

A drop is **significant** when the whole interval of NEW − OLD lies below zero. A check
``max_drop NAME=DELTA`` fails only when the data show that the statistic fell by more than DELTA:
the interval's upper end is below −DELTA. A drop larger than DELTA whose interval still reaches
−DELTA passes, with a note (more documents would tell). An undefined difference (the statistic
is undefined in a round) fails its check, with the reason. Definitions: ``docs/deciding.md``.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np

from ..errors import UsageError
from .gate import name_and_number
from ..measures.psa.intervals import DocumentCounts, IntervalOptions, row_quantiles
from .tables import MAX_LABELS, largest, num, shown_of

#: Replicates when none are asked for.
DEFAULT_REPLICATES = 1000
PLAIN = {
    "pairwise_mean_psa": ("overall", "pairwise_mean_psa"),
    "pooled_psa": ("overall", "pooled_psa"),
    "macro_psa": ("macro", "pairwise_mean_psa"),
    "macro_pooled_psa": ("macro", "pooled_psa"),
}
PER_LABEL = {"label": "pairwise_mean_psa", "label_pooled": "pooled_psa"}


def parse_max_drop(texts: Sequence[str]) -> dict[str, float]:
    """``NAME=DELTA`` values (split at the last ``=``) as a dict; DELTA >= 0.

    >>> parse_max_drop(["pairwise_mean_psa=0.02", "label:ORG=0.05"])
    {'pairwise_mean_psa': 0.02, 'label:ORG': 0.05}
    """
    out: dict[str, float] = {}
    for text in texts:
        name, delta = name_and_number(text, "--max-drop", "DELTA", "pairwise_mean_psa=0.02")
        if not math.isfinite(delta) or delta < 0:
            raise UsageError(f"--max-drop {text!r}: DELTA must be a number >= 0")
        statistic, colon, label = name.partition(":")
        if not ((not colon and statistic in PLAIN) or (colon and label and statistic in PER_LABEL)):
            allowed = ", ".join([*PLAIN, "label:<LABEL>", "label_pooled:<LABEL>"])
            raise UsageError(f"--max-drop {text!r}: unknown statistic {name!r}; allowed: {allowed}")
        out[name] = delta
    return out


def _path(name: str) -> tuple:
    statistic, _, label = name.partition(":")
    return PLAIN[statistic] if statistic in PLAIN else ("labels", label, PER_LABEL[statistic])


def _texts(report, counts) -> list[str] | None:
    """The texts of the documents ``counts`` holds, or None when the corpus kept no texts (the
    engines keep ids and counts only)."""
    corpus_texts = getattr(report.corpus, "texts", None)
    if not corpus_texts:
        return None
    return [corpus_texts[d] for d in np.asarray(counts.docs).tolist()]


def compare(old, new, *, max_drop: Mapping[str, float] | None = None, replicates: int = DEFAULT_REPLICATES,
            level: float = 0.95, seed: int = 0) -> dict[str, Any]:
    """Compare two scored rounds (:class:`~spanagree.AgreementReport`): every headline statistic,
    NEW − OLD, with its paired bootstrap interval, and the ``max_drop`` checks."""

    IntervalOptions(level=level, replicates=replicates, seed=seed)  # validates
    max_drop = dict(max_drop or {})
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
    in_new = set(new.corpus.labels)
    labels = [name for name in old.corpus.labels if name in in_new]
    names = [*PLAIN] + [f"{kind}:{label}" for label in labels for kind in PER_LABEL]
    for name in max_drop:
        if name not in names:
            raise UsageError(f"--max-drop {name}: label {name.partition(':')[2]!r} is not in both rounds "
                             f"(labels in both: {', '.join(labels) or 'none'})")

    rng = np.random.default_rng(seed)
    paths = [_path(name) for name in names]
    replicated = np.empty((len(names), replicates))  # NEW - OLD: statistics × replicates
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

    tail = (1 - level) / 2
    lows, highs, _, n_defined = row_quantiles(replicated, tail)  # over each row's defined values
    statistics = []
    for row, (name, path) in enumerate(zip(names, paths)):
        before, after = _float(points[0][path][0]), _float(points[1][path][0])
        low = float(lows[row]) if n_defined[row] and before is not None and after is not None else None
        high = float(highs[row]) if low is not None else None
        change = None if before is None or after is None else after - before
        entry = {
            "name": name, "old": before, "new": after, "difference": change,
            "interval": None if low is None else {"low": low, "high": high},
            "significant": None if low is None else "drop" if high < 0 else "rise" if low > 0 else None,
        }
        undefined = replicates - int(n_defined[row])
        if undefined:
            entry["undefined_replicates"] = int(undefined)
        statistics.append(entry)

    checks = [_check(next(s for s in statistics if s["name"] == name), delta) for name, delta in max_drop.items()]
    return {
        "documents": {"old": int(counts[0].n_documents), "new": int(counts[1].n_documents), "shared": len(shared),
                      "old_only": len(only[0]), "new_only": len(only[1]),
                      "same_id_other_text": len(other_text)},
        "paired": bool(len(shared)),
        "method": "percentile bootstrap of NEW - OLD over documents, paired on shared documents",
        "level": level,
        "replicates": replicates,
        "seed": seed,
        "statistics": statistics,
        "checks": checks,
        "passed": all(c["passed"] for c in checks),
    }


def _shown(statistics: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The table's rows: every corpus-wide statistic, and the per-label rows of at most
    MAX_LABELS labels — those with a significant change first, then the largest changes (in
    either statistic) — in the order of the result; and how many labels there are."""
    by_label: dict[str, list[dict[str, Any]]] = {}
    for s in statistics:
        kind, colon, label = s["name"].partition(":")
        if colon:
            by_label.setdefault(label, []).append(s)

    def weight(label: str) -> float:
        entries = by_label[label]
        significant = any(e["significant"] for e in entries)
        change = max((abs(e["difference"]) for e in entries if e["difference"] is not None), default=-1.0)
        return (2.0 if significant else 0.0) + change  # a difference lies within [-1, 1]

    keep = set(largest(list(by_label), weight))
    return [s for s in statistics if ":" not in s["name"] or s["name"].partition(":")[2] in keep], len(by_label)


def _check(entry: dict[str, Any], delta: float) -> dict[str, Any]:
    out = {"name": entry["name"], "max_drop": delta, "difference": entry["difference"], "interval": entry["interval"]}
    if entry["interval"] is None:
        return {**out, "passed": False, "reason": "undefined: the statistic is undefined in a round"}
    high, change = entry["interval"]["high"], entry["difference"]
    if high < -delta:
        return {**out, "passed": False,
                "reason": f"dropped by {-change:.4f}; the interval's upper end {high:.4f} is below -{delta:g}: a significant drop"}
    note = None
    if change < -delta:
        note = f"dropped by {-change:.4f}, more than {delta:g}, but not significantly (interval reaches {high:.4f})"
    return {**out, "passed": True, "reason": note}



def tables(result: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    docs = result["documents"]
    summary = [
        ["documents old / new", f"{docs['old']} / {docs['new']}"],
        ["shared (paired) / old only / new only", f"{docs['shared']} / {docs['old_only']} / {docs['new_only']}"],
        *([["same id, other text (not paired)", str(docs["same_id_other_text"])]] if docs.get("same_id_other_text") else []),
        ["interval", f"{result['level']:.0%} percentile bootstrap, {result['replicates']} replicates, seed {result['seed']}"],
    ]
    shown, n_labels = _shown(result["statistics"])
    rows = [
        [s["name"], num(s["old"]), num(s["new"]), _signed(s["difference"]),
         "-" if s["interval"] is None else f"[{s['interval']['low']:+.4f}, {s['interval']['high']:+.4f}]",
         s["significant"] or ""]
        for s in shown
    ]
    note = shown_of(min(n_labels, MAX_LABELS), n_labels, "the {n} labels changed most, significant changes first")
    out = [("Comparison", ["", ""], summary),
           ("NEW - OLD" + (f" ({note})" if note else ""),
            ["statistic", "old", "new", "difference", "interval", "significant"], rows)]
    if result["checks"]:
        out.append(("Checks (--max-drop)", ["check", "max drop", "difference", "verdict", "reason"], [
            [c["name"], f"{c['max_drop']:g}", _signed(c["difference"]), "pass" if c["passed"] else "FAIL", c["reason"] or ""]
            for c in result["checks"]
        ]))
    return out


def _signed(value: float | None) -> str:
    return "undefined" if value is None else f"{value:+.4f}"


def _float(value: float) -> float | None:
    return None if np.isnan(value) else float(value)
