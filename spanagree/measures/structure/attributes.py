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
from ..chance import coefficients as stats  # spanagree.stats
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


def _codes(held: dict[int, Any], n_rows: int, flag: bool, scale: str, order: list | None, name: str):
    """Per span table row, the attribute's value as a number for the coefficients (NaN: no value;
    a binary attribute's absence is false), and the categories in code order.

    Nominal values are coded 0..k-1 in sorted order of their text (booleans as false/true);
    ordinal ones by their declared order, or as numbers; interval ones are the numbers."""
    codes = np.full(n_rows, np.nan)
    if flag:
        codes[:] = 0.0
    if not held:
        return codes, (["false", "true"] if flag else [])
    rows = np.fromiter(held.keys(), np.int64, len(held))
    values = list(held.values())
    if scale == "nominal":
        shown = [("true" if v else "false") if isinstance(v, bool) else str(v) for v in values]
        categories = sorted(set(shown) | ({"false"} if flag else set()))
        code = {c: i for i, c in enumerate(categories)}
        if flag:
            codes[:] = code["false"]
        codes[rows] = [code[v] for v in shown]
        return codes, categories
    if order is not None:
        missing = sorted({str(v) for v in values if v not in order})
        if missing:
            raise UsageError(f"attribute {name!r}: values {', '.join(missing)} are not in the declared order {order}")
        codes[rows] = [order.index(v) for v in values]
        return codes, list(order)
    wrong = [v for v in values if isinstance(v, bool) or not isinstance(v, (int, float))]
    if wrong:
        raise UsageError(
            f"attribute {name!r} is declared {scale} but has the value {wrong[0]!r}; expected numbers "
            "(or declare the values in order)"
        )
    codes[rows] = values
    return codes, sorted(set(values))


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
    n_pairs = len(comparisons.pairs)
    pair_of = comparisons.pair[alignment.comparison]
    clusters = _clusters(corpus, table, alignment)
    out: dict[str, Any] = {}
    for name in sorted(values):
        scale, order = _declared(name, scales)
        flag = name in binary
        codes, categories = _codes(values[name], alignment.n_rows, flag, scale, order, name)
        entry: dict[str, Any] = {"binary": flag, "scale": scale, "categories": categories}
        code_a, code_b = codes[alignment.row_a], codes[alignment.row_b]
        has_a, has_b = ~np.isnan(code_a), ~np.isnan(code_b)
        neither = np.bincount(pair_of[~has_a & ~has_b], minlength=n_pairs)
        one_only = np.bincount(pair_of[has_a ^ has_b], minlength=n_pairs)
        used = has_a & has_b
        order_of_items = np.argsort(pair_of[used], kind="stable")
        items_a, items_b, items_pair = code_a[used][order_of_items], code_b[used][order_of_items], pair_of[used][order_of_items]
        bounds = np.searchsorted(items_pair, np.arange(n_pairs + 1))
        pairs = []
        for p in range(n_pairs):
            skipped = {reason: int(n) for reason, n in ((NEITHER, neither[p]), (ONE_ONLY, one_only[p])) if n}
            lo, hi = bounds[p], bounds[p + 1]
            pairs.append(_pair_entry(
                [raters[r] for r in comparisons.pairs[p].tolist()], items_a[lo:hi], items_b[lo:hi], skipped, scale,
            ))
        entry["pairs"] = pairs
        entry["all_raters"] = _cluster_entry(clusters, codes, len(raters), scale)
        out[name] = entry
    return {
        "attributes": out,
        "excluded": {**dict(corpus.exclusions.attributes), **dict(left_out)},
        **({"declared_but_absent": unknown} if unknown else {}),
    }


def _pair_entry(raters: list[str], a: np.ndarray, b: np.ndarray, skipped: dict, scale: str) -> dict:
    """Percent agreement and Cohen's κ on the pair's k×k table of codes (nominal), and α (the
    declared scale) on its items."""
    entry: dict[str, Any] = {"raters": raters, "items": len(a), "skipped": skipped}
    if not len(a):
        entry.update(percent_agreement=None, cohen_kappa=None, krippendorff_alpha=None)
        return entry
    pair = np.stack([a, b], axis=1)
    table = stats.ratings_to_table(pair, categories=np.unique(pair)).table  # the values the pair used
    entry.update(_table_coefficients(table))
    entry["krippendorff_alpha"] = _alpha(pair, scale)
    return entry


# The two calls of the chance-corrected coefficients (spanagree.stats); each result as its dict.

def _table_coefficients(table: np.ndarray) -> dict[str, dict]:
    """Percent agreement and Cohen's κ (nominal) on a k×k table of two raters."""
    both = stats.table_family(table, coefficients=["percent_agreement", "cohen_kappa"])
    return {name: result.to_dict() for name, result in both.items()}


def _alpha(ratings: np.ndarray, scale: str) -> dict:
    """Krippendorff's α on items × raters codes (NaN missing) with the scale's distance; the codes
    are labels (``categories=`` says so: a square matrix of codes is not a contingency table)."""
    seen = np.unique(ratings[~np.isnan(ratings)])
    return _quiet(stats.krippendorff_alpha, ratings, categories=seen, metric=scale)


def _clusters(corpus: Corpus, table: SpanTable, alignment: Alignment) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """The connected groups of span table rows linked by matches: ``(rows, group, rater,
    n_groups, n_same_rater)``: the rows of the groups with one span per rater at most, each
    row's group (codes 0..n_groups-1) and rater, and how many groups held two spans of one rater."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = alignment.n_rows
    row_rater = np.repeat(corpus.ann_rater, np.diff(table.ptr))
    linked = np.unique(np.concatenate([alignment.row_a, alignment.row_b]))
    if not len(linked):
        return linked, linked, linked, 0, 0
    graph = coo_matrix((np.ones(len(alignment.row_a)), (alignment.row_a, alignment.row_b)), shape=(n, n))
    _, component = connected_components(graph, directed=False)
    groups, group_of = np.unique(component[linked], return_inverse=True)
    group_of = group_of.reshape(-1)
    n_raters = max(len(corpus.raters), 1)
    per_cell = np.bincount(group_of * n_raters + row_rater[linked], minlength=len(groups) * n_raters)
    doubled = (per_cell.reshape(len(groups), n_raters) > 1).any(axis=1)
    keep = ~doubled[group_of]
    kept_groups = np.flatnonzero(~doubled)
    renumber = np.full(len(groups), -1, dtype=np.int64)
    renumber[kept_groups] = np.arange(len(kept_groups))
    rows = linked[keep]
    return rows, renumber[group_of[keep]], row_rater[rows], len(kept_groups), int(doubled.sum())


def _cluster_entry(clusters, codes: np.ndarray, n_raters: int, scale: str) -> dict:
    """α over all raters on the clusters' values (clusters with no value at all skipped, counted)."""
    rows, group, rater, n_kept, n_doubled = clusters
    skipped: dict[str, int] = {SAME_RATER: n_doubled} if n_doubled else {}
    entry: dict[str, Any] = {"clusters": n_kept + n_doubled}
    ratings = np.full((n_kept, n_raters), np.nan)
    ratings[group, rater] = codes[rows]
    empty = np.isnan(ratings).all(axis=1)
    if empty.any():
        skipped[NEITHER] = int(empty.sum())
    ratings = ratings[~empty]
    entry["skipped"] = skipped
    entry["krippendorff_alpha"] = _alpha(ratings, scale) if len(ratings) else None
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
