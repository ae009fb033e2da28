"""Did agreement change between two rounds? ``spanagree compare OLD NEW``.

Both rounds are scored under the same settings; for every statistic the catalogue marks as
comparable (:func:`spanagree.catalogue.comparable`: ``pairwise_mean_psa``, ``pooled_psa``,
``macro_psa``, ``macro_pooled_psa``, and ``label:<LABEL>``, ``label_pooled:<LABEL>`` for labels in
both rounds) this gives the difference NEW − OLD and its paired percentile bootstrap interval
over documents (:func:`spanagree.measures.psa.deciding.paired_change`), and the ``max_drop``
checks (:func:`spanagree.measures.psa.deciding.drop_check`). Definitions: ``docs/deciding.md``.
"""
from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from .. import catalogue
from ..errors import UsageError
from ..measures.psa.deciding import drop_check, paired_change
from .gate import name_and_number
from .tables import MAX_LABELS, largest, num, shown_of

#: Replicates when none are asked for.
DEFAULT_REPLICATES = 1000


def parse_bounds(texts: Sequence[str]) -> dict[str, float]:
    """``--min NAME=BOUND`` values on a change NEW − OLD (split at the last ``=``), as the drops
    they allow (``max_drop = −BOUND``); BOUND <= 0, NAME a comparable statistic of the catalogue.

    >>> parse_bounds(["pairwise_mean_psa=-0.02", "label:ORG=-0.05"])
    {'pairwise_mean_psa': 0.02, 'label:ORG': 0.05}
    """
    out: dict[str, float] = {}
    for text in texts:
        name, bound = name_and_number(text, "--min", "BOUND", "pairwise_mean_psa=-0.02")
        if not math.isfinite(bound) or bound > 0:
            raise UsageError(f"--min {text!r}: a bound on the change NEW - OLD is a number <= 0 "
                             "(-0.05: fail when it dropped significantly by more than 0.05)")
        statistic, _ = catalogue.find(name, f"--min {text!r}")
        if statistic not in catalogue.comparable():
            raise UsageError(
                f"--min {text!r}: compare cannot pair {statistic.name} over two rounds (it is not a sum of "
                f"per-document counts); comparable: {', '.join(s.name for s in catalogue.comparable())}"
            )
        out[name] = -bound + 0.0  # -0.0 is 0
    return out


def compare(old, new, *, max_drop: Mapping[str, float] | None = None, replicates: int = DEFAULT_REPLICATES,
            level: float = 0.95, seed: int = 0) -> dict[str, Any]:
    """Compare two scored rounds (:class:`~spanagree.AgreementReport`): every comparable
    statistic, NEW − OLD, with its paired bootstrap interval, and the ``max_drop`` checks."""
    max_drop, in_new = dict(max_drop or {}), set(new.corpus.labels)
    labels = [name for name in old.corpus.labels if name in in_new]
    comparable = catalogue.comparable()
    paths = {s.name: s.path_of(None) for s in comparable if s.argument is None}
    paths |= {f"{s.key}:{label}": s.path_of(label) for label in labels for s in comparable if s.argument is not None}
    for name in max_drop:
        if name not in paths:
            raise UsageError(f"--min {name}: label {name.partition(':')[2]!r} is not in both rounds "
                             f"(labels in both: {', '.join(labels) or 'none'})")
    documents, changes = paired_change(old, new, list(paths.values()), replicates=replicates, level=level, seed=seed)
    statistics = {name: {"name": name, **change} for name, change in zip(paths, changes)}
    checks = [{"name": name, **drop_check(statistics[name], delta)} for name, delta in max_drop.items()]
    return {
        "documents": documents,
        "paired": bool(documents["shared"]),
        "method": "percentile bootstrap of NEW - OLD over documents, paired on shared documents",
        "level": level,
        "replicates": replicates,
        "seed": seed,
        "statistics": list(statistics.values()),
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
        out.append(("Checks (--min, on the change)", ["check", "bound", "difference", "verdict", "reason"], [
            [c["name"], f"{-c['max_drop'] + 0.0:g}", _signed(c["difference"]), "pass" if c["passed"] else "FAIL", c["reason"] or ""]
            for c in result["checks"]
        ]))
    return out


def _signed(value: float | None) -> str:
    return "undefined" if value is None else f"{value:+.4f}"
