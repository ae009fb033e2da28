"""A gold set from several raters, by vote.

Construction, per document (only documents that at least ``min_raters`` raters submitted):

1. **Align every pair of raters** with the same aligner and rule as ``score`` (docs/alignment.md): each
   pair's optimal one-to-one matching.
2. **Clusters** are the connected components of the graph whose nodes are the raters' spans and
   whose edges are those matches. A span matched to nobody is a cluster of its own.
3. **Support** of a cluster is the number of distinct raters with a span in it. A cluster is
   kept when its support is at least ``min_raters``; otherwise it is dropped (and counted).
4. **Boundaries by plurality**: each distinct ``(start, end)`` in the cluster gets one vote per
   rater who marked it; the single most voted wins. **Label by plurality** the same way over all
   the cluster's spans (with ``labels="strict"`` a cluster has one label, since only spans of
   equal labels match).
5. **Ties are never broken**: a cluster whose top boundaries (or labels) are tied is left out
   of the consensus, counted, and listed in the report with every candidate and who voted for
   it, for a human to decide.

Under the exact rule with strict labels two spans match only when identical, so a cluster is the
set of raters who marked one identical ``(start, end, label)``: the consensus is exactly the
spans that at least ``min_raters`` raters marked (two raters, ``min_raters=2``: their common
spans; three raters: the majority), and no ties can occur. Under the looser rules a cluster may
chain through spans that do not all overlap (A's span matches B's, B's matches C's), and a rater
may then have two spans in one cluster; it still gives one consensus span, whose boundaries are
the plurality's.

With ``unit="token"`` spans are aligned and voted in tokens and written back as the character
offsets of the tokens they cover.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..core import options
from ..core.align import AlignmentRule
from ..measures.annotators.items import cluster_roots, rule_and_unit, unit_offsets
from ..errors import Location, UsageError
from ..core.files import check_outputs
from ..core import validate
from ..core.validate import shown
from ..core.model import Corpus, CorpusBuilder
from ..io import formats
from ..io import read

DEFAULT_NAME = "consensus"
FEWER_RATERS = "fewer than min_raters raters submitted it"


def check_min_raters(min_raters: Any) -> int:
    """``min_raters`` as a whole number >= 1, or a UsageError."""
    return validate.whole("min_raters", min_raters, 1)


def check_name(name: Any) -> str:
    """The consensus rater's name: a string with something visible in it, as every rater name."""
    if not isinstance(name, str) or not name.strip():
        raise UsageError(f"the consensus name must be a non-empty string, got {shown(name)}")
    return name


def consensus(
    corpus: Corpus,
    *,
    min_raters: int,
    rule: str | AlignmentRule = options.default("rule"),
    name: str = DEFAULT_NAME,
    **alignment: Any,
) -> tuple[Corpus, dict[str, Any]]:
    """The consensus of the corpus's raters, as a one-rater Corpus, and a report.

    Parameters
    ----------
    corpus : the raters' annotations.
    min_raters : keep a cluster of aligned spans when at least this many raters have a span in it.
    rule, labels, unit, min_overlap, partial_credit, proportional : how spans align
        (docs/alignment.md; declared in :mod:`spanagree.core.options`); ``rule`` may be an
        :class:`~spanagree.core.align.AlignmentRule`, and then only ``unit`` is read from the others.
    name : the consensus rater's name (must not be one of the raters).

    Returns
    -------
    ``(gold, report)``: ``gold`` has one rater, ``name``, and one annotation per document that at
    least ``min_raters`` raters submitted; ``report`` counts documents, clusters and kept spans,
    and lists every tie (left out of ``gold``).

    Examples
    --------
    >>> from spanagree.core.model import CorpusBuilder
    >>> b = CorpusBuilder()
    >>> for rater, spans in [("a", [(0, 5, "PER"), (9, 12, "LOC")]), ("b", [(0, 5, "PER")]), ("c", [(0, 5, "PER"), (9, 12, "LOC")])]:
    ...     b.add("d1", "d1", "Alice in Rome", rater, spans, None)
    >>> gold, report = consensus(b.build(), min_raters=3)
    >>> gold.spans_of("d1", "consensus")
    [(0, 5, 'PER')]
    """
    min_raters = check_min_raters(min_raters)
    check_name(name)
    rule, unit = rule_and_unit(rule, alignment)
    if name in corpus.raters:
        raise UsageError(f"the consensus name {name!r} is already a rater's name; choose another name")

    notes: Counter = Counter()
    starts, ends = unit_offsets(corpus, unit, notes)
    span_ann = corpus.span_ann
    span_doc = corpus.ann_doc[span_ann]
    span_rater = corpus.ann_rater[span_ann]
    raters_per_doc = np.bincount(corpus.ann_doc, minlength=corpus.n_documents)
    eligible = raters_per_doc >= min_raters

    roots = cluster_roots(corpus, starts, ends, rule)

    votable = eligible[span_doc] & (ends > starts)
    notes_unvotable = int((eligible[span_doc] & ~(ends > starts)).sum())
    if notes_unvotable:
        notes["spans with no extent in the unit (not voted)"] += notes_unvotable
    members: dict[int, list[int]] = defaultdict(list)
    for i in np.flatnonzero(votable).tolist():
        members[int(roots[i])].append(i)

    kept: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    support_hist: Counter = Counter()
    ties: list[dict] = []
    clusters = Counter()
    for root in sorted(members, key=lambda r: (span_doc[members[r][0]], members[r][0])):
        spans = members[root]
        d = int(span_doc[spans[0]])
        support = len({int(span_rater[i]) for i in spans})
        clusters["total"] += 1
        if support < min_raters:
            clusters["below_min_raters"] += 1
            continue
        outcome = _vote(corpus, spans, starts, ends, span_rater, d, unit)
        if "tie" in outcome:
            clusters["tied"] += 1
            ties.append({"doc_id": corpus.doc_ids[d], "support": support, **outcome["tie"]})
            continue
        clusters["kept"] += 1
        support_hist[support] += 1
        kept[d].append(outcome["span"])

    builder = CorpusBuilder()
    where = Location(f"<{name}>")
    for d in np.flatnonzero(eligible).tolist():
        doc_id = corpus.doc_ids[d]
        builder.add(doc_id, doc_id, corpus.texts[d], name, sorted(kept.get(d, [])), where, corpus.doc_tokens[d])
    gold = builder.build()

    excluded = {FEWER_RATERS: int((~eligible & (raters_per_doc > 0)).sum())}
    report = {
        "name": name,
        "min_raters": min_raters,
        "rule": {**rule.to_dict(), "unit": unit},
        "raters": list(corpus.raters),
        "documents": {
            "read": corpus.n_documents,
            "in_consensus": int(eligible.sum()),
            "excluded": {k: v for k, v in excluded.items() if v},
        },
        "clusters": {key: clusters[key] for key in ("total", "kept", "below_min_raters", "tied")},
        "spans": {
            "read": corpus.n_spans,
            "in_consensus": gold.n_spans,
            "support": {str(k): v for k, v in sorted(support_hist.items())},
        },
        "ties": ties,
    }
    if notes:
        report["notes"] = dict(sorted(notes.items()))
    return gold, report


def _vote(corpus: Corpus, spans: list[int], starts, ends, span_rater, d: int, unit: str) -> dict:
    """Plurality of boundaries, then of labels, over one cluster: ``{"span": ...}`` or ``{"tie": ...}``."""
    bounds: dict[tuple[int, int], set[int]] = defaultdict(set)
    labels: dict[int, set[int]] = defaultdict(set)
    for i in spans:
        bounds[(int(starts[i]), int(ends[i]))].add(int(span_rater[i]))
        labels[int(corpus.span_label[i])].add(int(span_rater[i]))
    names = corpus.raters

    def chars(key: tuple[int, int]) -> tuple[int, int]:
        if unit == "char":
            return key
        tokens = corpus.doc_tokens[d]
        return int(tokens[key[0], 0]), int(tokens[key[1] - 1, 1])

    by_bounds = sorted(bounds.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    by_label = sorted(labels.items(), key=lambda kv: (-len(kv[1]), corpus.labels[kv[0]]))
    if len(by_bounds) > 1 and len(by_bounds[0][1]) == len(by_bounds[1][1]):
        return {"tie": {
            "kind": "boundaries",
            "candidates": [
                {"start": s, "end": e, "text": corpus.texts[d][s:e], "votes": len(who), "raters": sorted(names[r] for r in who)}
                for (s, e), who in ((chars(key), who) for key, who in by_bounds)
            ],
            "labels": sorted(corpus.labels[k] for k in labels),
        }}
    start, end = chars(by_bounds[0][0])
    if len(by_label) > 1 and len(by_label[0][1]) == len(by_label[1][1]):
        return {"tie": {
            "kind": "label",
            "start": start,
            "end": end,
            "text": corpus.texts[d][start:end],
            "candidates": [
                {"label": corpus.labels[k], "votes": len(who), "raters": sorted(names[r] for r in who)} for k, who in by_label
            ],
        }}
    return {"span": (start, end, corpus.labels[by_label[0][0]])}


# --- output ---------------------------------------------------------------------------------------


def write(corpus: Corpus, path: str | Path, *, language: str = "en", ents: bool = True,
          spans_key: str | None = None, scores: dict | None = None) -> dict[str, Any]:
    """Write ``corpus`` as spanagree JSONL (``.jsonl``) or a DocBin (``.spacy``), by suffix; what was written.

    In a DocBin the consensus is the span group named after the consensus rater and, with
    ``ents`` (default), ``doc.ents`` too, so spaCy's tools read it as entities; ``spans_key``
    copies it to one more span group (``"sc"`` for ``spancat``). Overlapping consensus spans
    stay in the span groups and are counted, not put in ``doc.ents``. ``scores`` (DocBin only):
    each span's probability, ``(doc_id, start, end, label)`` → p, written to the consensus span
    group's ``attrs["scores"]``.
    """

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", ".spacy"):
        raise UsageError(f"cannot tell the output format of {str(path)!r}; name a .jsonl or a .spacy file")
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".jsonl":
        return formats()["spanagree"].write(corpus, path)
    rater = corpus.raters[0] if ents and corpus.raters else None
    return formats()["docbin"].write(corpus, path, language=language, ents=rater, spans_key=spans_key if rater else None,
                                     scores=scores)


def run(
    paths: str | Path | Sequence[str | Path],
    out: str | Path,
    *,
    min_raters: int,
    format: str = "auto",
    language: str = "en",
    read_options: dict | None = None,
    ents: bool = True,
    spans_key: str | None = None,
    **rule_options,
) -> dict[str, Any]:
    """Read, build the consensus, write it to ``out`` (``.jsonl`` or ``.spacy``); the report.

    The output format is checked before anything is read.
    """

    if Path(out).suffix.lower() not in (".jsonl", ".spacy"):
        raise UsageError(f"cannot tell the output format of {str(out)!r}; name a .jsonl or a .spacy file")
    check_outputs([out], [paths] if isinstance(paths, (str, Path)) else paths)
    check_name(rule_options.get("name", DEFAULT_NAME))
    corpus = read(paths, format=format, **(read_options or {}))
    gold, report = consensus(corpus, min_raters=min_raters, **rule_options)
    if not gold.n_documents:  # an empty file would be no gold standard, and not readable input
        raise UsageError(
            f"no document was submitted by at least {min_raters} raters ({len(corpus.raters)} raters in the "
            f"input), so the consensus is empty and {str(out)!r} was not written; lower min_raters"
        )
    report["written"] = {"path": str(out), **write(gold, out, language=language, ents=ents, spans_key=spans_key)}
    return report
