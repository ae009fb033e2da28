"""Attribute agreement on matched spans (docs/structure.md).

The span pairs the aligner matched (under the rule of the span scores) are countable items, so
each attribute gets the chance-corrected coefficients on them (:mod:`spanagree.stats`):

- **per rater pair**, items are the pair's matched spans: percent agreement, Cohen's κ
  (nominal) and Krippendorff's α (nominal by default, ``ordinal`` or ``interval`` when declared);
- **all raters**, items are the *clusters* of matched spans: the connected groups of spans
  linked by some pair's match on one document (under the exact rule, the spans at one position);
  Krippendorff's α on the items × raters values, missing where a rater has no span in the
  cluster (α takes missing values; Krippendorff 2011). A cluster holding two spans of one rater
  (possible under the overlap rules) is skipped and counted.

A value is a rater's value of the attribute on its span. A **binary** attribute (every value in
the corpus is ``true``, a brat flag) absent on a span is ``false``, so a matched span pair where
one rater set the flag and the other did not is a disagreement. Any other attribute absent on a
span has no value there: an item where neither span has it is not an item of that attribute
(counted), and one where only one has it is skipped (counted) by Cohen's κ and percent
agreement and is a single value, also skipped, for α. A normalization is one attribute
(``norm:<RESOURCE>``) whose values are the references.
"""
from __future__ import annotations

import warnings
from collections import Counter
from typing import Any, Mapping, Sequence

import numpy as np

from ...core.model import Corpus
from ...errors import UsageError
from .. import stats
from .spans import Alignment, SpanTable

#: Allowed declared scales (a list of values declares an ordinal scale in that order).
SCALES = ("nominal", "ordinal", "interval")

NEITHER = "attribute on neither span"
ONE_ONLY = "attribute on one span only"
SAME_RATER = "cluster holds two spans of one rater"
CONFLICT = "one rater's spans at one position give different values (labels ignored)"


def attribute_values(corpus: Corpus, table: SpanTable) -> tuple[dict[str, dict[int, Any]], Counter]:
    """Per attribute name, span table row -> value; and the values left out, by reason."""
    rows = corpus.structure.attributes if corpus.structure is not None else []
    index = table.index([r.ann for r in rows], [r.span for r in rows])
    values: dict[str, dict[int, Any]] = {}
    left_out: Counter = Counter()
    conflicted: set[tuple[str, int]] = set()
    for row, at in zip(rows, index.tolist()):
        held = values.setdefault(row.name, {})
        if at in held and held[at] != row.value:
            conflicted.add((row.name, at))
            left_out[CONFLICT] += 1
        held.setdefault(at, row.value)
    for name, at in conflicted:
        del values[name][at]
    return values, left_out


def _declared(name: str, scales: Mapping[str, Any]) -> tuple[str, list | None]:
    scale = scales.get(name, "nominal")
    if isinstance(scale, (list, tuple)):
        return "ordinal", list(scale)
    if scale not in SCALES:
        raise UsageError(
            f"attribute {name!r}: scale {scale!r} is not one of {', '.join(SCALES)} (or a list of values in order)"
        )
    return scale, None


def _coded(values: list, scale: str, order: list | None, name: str) -> np.ndarray:
    """Values as the coefficients take them: strings for nominal (booleans as true/false),
    numbers for ordinal and interval (or the declared order's values)."""
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        if value is None:
            out[i] = None
        elif scale == "nominal":
            out[i] = ("true" if value else "false") if isinstance(value, bool) else str(value)
        elif order is not None:
            if value not in order:
                raise UsageError(f"attribute {name!r}: value {value!r} is not in the declared order {order}")
            out[i] = value
        elif isinstance(value, bool) or not isinstance(value, (int, float)):
            raise UsageError(
                f"attribute {name!r} is declared {scale} but has the value {value!r}; expected numbers "
                "(or declare the values in order)"
            )
        else:
            out[i] = value
    return out


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs).to_dict()


def attribute_section(
    corpus: Corpus, table: SpanTable, alignment: Alignment, scales: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Per attribute: the pairs' coefficients on matched span pairs and α over all raters on clusters."""
    scales = dict(scales or {})
    values, left_out = attribute_values(corpus, table)
    binary = corpus.structure.binary if corpus.structure is not None else frozenset()
    unknown = sorted(set(scales) - set(values))
    comparisons = alignment.comparisons
    raters = corpus.raters
    clusters, cluster_rater = _clusters(corpus, table, alignment)
    out: dict[str, Any] = {}
    for name in sorted(values):
        scale, order = _declared(name, scales)
        held = values[name]
        flag = name in binary

        def value(row: int) -> Any:
            return held.get(row, False if flag else None)

        va = [value(r) for r in alignment.row_a.tolist()]
        vb = [value(r) for r in alignment.row_b.tolist()]
        pair_of = comparisons.pair[alignment.comparison]
        entry: dict[str, Any] = {"binary": flag, "scale": scale, "values": sorted({str(v) for v in held.values()})}
        if order is not None:
            entry["order"] = order
        pairs = []
        for p in range(len(comparisons.pairs)):
            at = np.flatnonzero(pair_of == p)
            skipped: Counter = Counter()
            items = []
            for i in at.tolist():
                a, b = va[i], vb[i]
                if a is None and b is None:
                    skipped[NEITHER] += 1
                elif a is None or b is None:
                    skipped[ONE_ONLY] += 1
                else:
                    items.append((a, b))
            pairs.append(_pair_entry([raters[r] for r in comparisons.pairs[p].tolist()], items, skipped, scale, order, name))
        entry["pairs"] = pairs
        entry["all_raters"] = _cluster_entry(clusters, cluster_rater, value, len(raters), scale, order, name)
        out[name] = entry
    return {
        "attributes": out,
        "excluded": {**dict(corpus.exclusions.attributes), **dict(left_out)},
        **({"declared_but_absent": unknown} if unknown else {}),
    }


def _pair_entry(raters: list[str], items: list[tuple], skipped: Counter, scale: str, order, name: str) -> dict:
    entry: dict[str, Any] = {"raters": raters, "items": len(items), "skipped": dict(skipped)}
    if not items:
        entry.update(percent_agreement=None, cohen_kappa=None, krippendorff_alpha=None)
        return entry
    ratings = np.stack([_coded([a for a, _ in items], scale, order, name), _coded([b for _, b in items], scale, order, name)], axis=1)
    nominal = np.stack([_coded([a for a, _ in items], "nominal", None, name), _coded([b for _, b in items], "nominal", None, name)], axis=1)
    table = stats.ratings_to_table(nominal)
    entry["percent_agreement"] = _quiet(stats.percent_agreement_parts, table.table)
    entry["cohen_kappa"] = _quiet(stats.cohen_kappa_parts, table.table)
    entry["krippendorff_alpha"] = _quiet(stats.krippendorff_alpha_parts, ratings, distance=scale, categories=order)
    return entry


def _clusters(corpus: Corpus, table: SpanTable, alignment: Alignment) -> tuple[list[np.ndarray], np.ndarray]:
    """Connected groups of span table rows linked by matches (only groups of two rows or more),
    and the rater of every row."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = alignment.n_rows
    row_rater = np.repeat(corpus.ann_rater, np.diff(table.ptr))
    if not len(alignment.row_a):
        return [], row_rater
    graph = coo_matrix((np.ones(len(alignment.row_a)), (alignment.row_a, alignment.row_b)), shape=(n, n))
    _, component = connected_components(graph, directed=False)
    linked = np.unique(np.concatenate([alignment.row_a, alignment.row_b]))
    order = linked[np.argsort(component[linked], kind="stable")]
    cuts = np.flatnonzero(np.diff(component[order])) + 1
    return np.split(order, cuts), row_rater


def _cluster_entry(clusters, row_rater, value, n_raters: int, scale: str, order, name: str) -> dict:
    skipped: Counter = Counter()
    rows = []
    for members in clusters:
        who = row_rater[members]
        if len(np.unique(who)) < len(who):
            skipped[SAME_RATER] += 1
            continue
        line: list = [None] * n_raters
        for row, rater in zip(members.tolist(), who.tolist()):
            line[rater] = value(row)
        if all(v is None for v in line):
            skipped[NEITHER] += 1
            continue
        rows.append(line)
    entry: dict[str, Any] = {"clusters": len(clusters), "skipped": dict(skipped)}
    if not rows:
        entry["krippendorff_alpha"] = None
        return entry
    ratings = np.array([_coded(line, scale, order, name) for line in rows], dtype=object).reshape(len(rows), n_raters)
    entry["krippendorff_alpha"] = _quiet(stats.krippendorff_alpha_parts, ratings, distance=scale, categories=order)
    return entry


def declared_scales(spec: Sequence[str] | None) -> dict[str, Any]:
    """``["NAME=ordinal", "NAME=interval", "NAME=LOW<MID<HIGH"]`` as a scales mapping (a list of
    values in order declares an ordinal scale in that order)."""
    scales: dict[str, Any] = {}
    for item in spec or ():
        name, sep, scale = item.rpartition("=")
        if not sep or not name or not scale:
            raise UsageError(f"attribute scale {item!r}: expected NAME=nominal|ordinal|interval or NAME=V1<V2<...")
        scales[name] = scale.split("<") if "<" in scale else scale
        _declared(name, scales)
    return scales
