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
from typing import Any

import numpy as np

from ..core import options
from ..core.align import AlignmentRule
from ..measures.annotators.items import cluster_roots, rule_and_unit, unit_offsets
from ..errors import Location, UsageError
from ..core import validate
from ..core.validate import shown
from ..core.model import Corpus
from ..core.builder import CorpusBuilder
from ..io import formats

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


def documents_section(read: int, raters_per_doc: np.ndarray, min_raters: int) -> dict[str, Any]:
    """The documents read, those in the consensus (submitted by at least ``min_raters`` raters) and
    those left out (submitted by fewer, none being no document of theirs)."""
    in_consensus = raters_per_doc >= min_raters
    fewer = int((~in_consensus & (raters_per_doc > 0)).sum())
    return {"read": read, "in_consensus": int(in_consensus.sum()), "excluded": {FEWER_RATERS: fewer} if fewer else {}}


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
    >>> from spanagree.core.builder import CorpusBuilder
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
    kept_span: dict[int, tuple[int, int, str]] = {}  # cluster root -> its consensus span
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
        kept_span[root] = outcome["span"]

    builder = CorpusBuilder()
    where = Location(f"<{name}>")
    for d in np.flatnonzero(eligible).tolist():
        doc_id = corpus.doc_ids[d]
        builder.add(doc_id, doc_id, corpus.texts[d], name, sorted(kept.get(d, [])), where, corpus.doc_tokens[d])
    structure_report = None
    if corpus.structure is not None and (corpus.structure.relations or corpus.structure.attributes):
        structure_report = vote_structure(corpus, roots, kept_span, min_raters, builder, name, where)
    gold = builder.build()

    report = {
        "name": name,
        "min_raters": min_raters,
        "rule": {**rule.to_dict(), "unit": unit},
        "raters": list(corpus.raters),
        "documents": documents_section(corpus.n_documents, raters_per_doc, min_raters),
        "clusters": {key: clusters[key] for key in ("total", "kept", "below_min_raters", "tied")},
        "spans": {
            "read": corpus.n_spans,
            "in_consensus": gold.n_spans,
            "support": {str(k): v for k, v in sorted(support_hist.items())},
        },
        "ties": ties,
    }
    if structure_report is not None:
        report["structure"] = structure_report
    if notes:
        report["notes"] = dict(sorted(notes.items()))
    return gold, report


def vote_structure(
    corpus: Corpus, roots: np.ndarray, kept_span: dict[int, tuple[int, int, str]], min_raters: int,
    builder: CorpusBuilder, name: str, where: Location,
) -> dict[str, Any]:
    """Relations and attributes of the consensus, by vote (docs/structure.md), into ``builder``.

    A relation is a (head cluster, child cluster, label) triple (an unordered pair of clusters
    when symmetric): kept when at least ``min_raters`` raters have it and both clusters are in the
    consensus. An attribute of a kept cluster takes the value most of the cluster's raters gave it
    (a binary attribute's absence is false), kept when at least ``min_raters`` raters gave that
    value; a tie is left out. Relations from spans that are not scored (event triggers) are
    counted, not voted. Returns the counts."""
    structure = corpus.structure
    span_index: dict[tuple[int, int, int, str], int] = {}
    used = {row.ann for row in structure.relations} | {row.ann for row in structure.attributes}
    for ann in sorted(used):
        for i in range(int(corpus.ann_ptr[ann]), int(corpus.ann_ptr[ann + 1])):
            span_index[(ann, int(corpus.span_start[i]), int(corpus.span_end[i]), corpus.labels[corpus.span_label[i]])] = i
    counts: Counter = Counter()
    votes: dict[tuple, set[int]] = defaultdict(set)
    for row in structure.relations:
        ends = [span_index.get((row.ann, *end)) for end in (row.head, row.child)]
        if None in ends:
            counts["relations on spans that are not scored (not voted)"] += 1
            continue
        head, child = (int(roots[i]) for i in ends)
        if row.symmetric:
            head, child = min(head, child), max(head, child)
        votes[(head, child, row.label, row.symmetric, row.kind)].add(int(corpus.ann_rater[row.ann]))
    kept_relations = 0
    for (head, child, label, symmetric, kind), who in sorted(votes.items(), key=lambda kv: kv[0][:3]):
        if len(who) < min_raters:
            counts["relations below min_raters"] += 1
        elif head not in kept_span or child not in kept_span:
            counts["relations on a span not in the consensus"] += 1
        else:
            d = int(corpus.ann_doc[corpus.span_ann[head]])
            builder.structure(corpus.doc_ids[d], name).relations.append(
                (kept_span[head], kept_span[child], label, symmetric, kind, where, "relations")
            )
            kept_relations += 1
    binary = structure.binary
    given: dict[tuple[int, str], dict[int, Any]] = defaultdict(dict)  # (cluster, attribute) -> rater -> value
    for row in structure.attributes:
        i = span_index.get((row.ann, *row.span))
        if i is None:
            counts["attributes on spans that are not scored (not voted)"] += 1
            continue
        given[(int(roots[i]), row.name)].setdefault(int(corpus.ann_rater[row.ann]), row.value)
    members: dict[int, set[int]] = defaultdict(set)  # kept cluster -> raters with a span in it
    span_ann = corpus.span_ann
    in_kept = np.flatnonzero(np.isin(roots, np.fromiter(kept_span, np.int64, len(kept_span))))
    for i, root in zip(in_kept.tolist(), roots[in_kept].tolist()):
        members[root].add(int(corpus.ann_rater[span_ann[i]]))
    named: dict[int, set[str]] = defaultdict(set)  # kept cluster -> attributes some rater gave it
    for root, attribute in given:
        named[root].add(attribute)
    kept_attributes = 0
    for root, span in sorted(kept_span.items()):
        for attribute in sorted(named[root] | binary):
            values = given.get((root, attribute), {})
            tally: Counter = Counter()
            for rater in members[root]:
                value = values.get(rater, False if attribute in binary else None)
                if value is not None:
                    tally[value] += 1
            if not tally:
                continue
            ranked = tally.most_common()
            if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
                counts["attribute values tied (left out)"] += 1
                continue
            value, n = ranked[0]
            if n < min_raters:
                counts["attribute values below min_raters"] += 1
                continue
            if value is False:
                continue  # a binary attribute voted absent
            d = int(corpus.ann_doc[span_ann[root]])
            builder.structure(corpus.doc_ids[d], name).attributes.append((span, attribute, value, where, "attributes"))
            kept_attributes += 1
    return {"relations": {"read": len(structure.relations), "in_consensus": kept_relations},
            "attributes": {"read": len(structure.attributes), "in_consensus": kept_attributes},
            "left_out": dict(sorted(counts.items()))}


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
