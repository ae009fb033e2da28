"""Every disagreement between two raters, listed for adjudication.

The cases are the report's diagnostic outcomes themselves: the one outcome alignment computed with
the counts (:mod:`spanagree.core.outcomes`, ``overall.outcomes``). For each comparison (a document as
submitted by both raters of a pair, the pair's first rater taken as the reference), the spans of
rater A and rater B are matched one-to-one by overlap, labels ignored, preferring identical pairs,
then pairs of the same label (the best explanation). Then

- a matched pair with the same label and boundaries is ``correct`` (not a disagreement);
- a matched pair with the same label and other boundaries is ``partial``;
- a matched pair with different labels is ``wrong_label`` (whatever its boundaries);
- a span of A that matched nothing is ``missed``, a span of B that matched nothing ``spurious``
  (the SemEval-2013 names, with A as the reference); ``only_in`` names the rater whose span it is.

So the number of cases of each kind equals the report's outcome count of that kind. Offsets are
always characters of the document text (``text[start:end]``), also when the alignment ran in
tokens (``unit = "token"``); spans with no extent in tokens, and a rater's spans that coincide
once widened to tokens, are left out of the alignment (and counted in the report's excluded spans),
as they are in the outcome counts.

Outputs (:func:`write`):

- ``jsonl`` and ``csv``: one record per case with the document, both raters, each side's span
  (offsets, label, text) and some characters of context around the two spans;
- ``prodigy-review``: for every document with at least one disagreement, one accepted task per
  rater who submitted it (the rater's whole version of the document), with the same
  ``_input_hash`` per document and the rater as ``_annotator_id`` and ``_session_id``. Prodigy's
  ``review`` recipe groups tasks by ``_input_hash`` and shows the distinct versions (by
  ``_task_hash``) with the sessions that made each, for an adjudicator to pick or correct.
  Documents everyone agreed on are left out by default and counted; ``include_agreed`` writes
  them too (one version each), so that the reviewed dataset is the whole adjudicated set. When
  the input was Prodigy JSONL (``sources``), each task keeps the fields of the rater's original
  task (``meta`` and any custom field); ``meta.doc`` gives a readable name for the document
  (the id when it is not a hash, else a ``meta`` field such as ``title`` or ``id``, else the first
  words of the text), shown by Prodigy beside the card.

With relation and attribute agreement (``--structure``), the JSONL output also lists the relation
and attribute disagreements after the span cases (:mod:`spanagree.measures.structure.cases`:
``relation_missed``, ``relation_spurious``, ``attribute``).
"""
from __future__ import annotations

import csv
import re
from collections import Counter
from itertools import chain
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import orjson

from ..core.counts import unit_positions
from ..core.counts import side as unit_side
from ..errors import SpanagreeError, UsageError
from ..core.model import Corpus
from ..core.outcomes import OUTCOMES, OutcomeAlignment, best_explanation
from ..core.files import atomic_write, write_jsonl
from ..core.sanitize import csv_cell
from ..io.candidates import document_tokens
from ..io import detect_format
from ..io.common import json_lines
from ..io.prodigy import doc_id_of_task, hash32, input_hashes, task_rater, task_tokens, token_indices

#: The kinds of disagreement, in the order of the report's outcomes (``correct`` is left out).
KINDS = tuple(kind for kind in OUTCOMES if kind != "correct")
#: Output formats of :func:`write`.
FORMATS = ("jsonl", "csv", "prodigy-review")
#: Characters of context on each side of a case.
CONTEXT = 40
#: The columns of the CSV output (and the keys of every JSONL record).
FIELDS = (
    "kind", "doc_id", "rater_a", "rater_b",
    "a_start", "a_end", "a_label", "a_text",
    "b_start", "b_end", "b_label", "b_text",
    "context_left", "context_right", "only_in",
)

def from_report(report, *, search: str = "sweep") -> OutcomeAlignment:
    """The outcome alignment behind a :class:`~spanagree.report.AgreementReport`'s outcome
    counts: the one computed with the counts (computed here, in the counts' unit, only when the
    counts were merged from parts)."""
    corpus, counts = report.corpus, report.counts
    if counts.outcome_pairs is not None:
        return counts.outcome_pairs
    starts, ends, _ = unit_positions(corpus, counts.unit_name)
    side_a, spans_a = unit_side(corpus, counts.comparisons.ann_a, starts, ends)
    side_b, spans_b = unit_side(corpus, counts.comparisons.ann_b, starts, ends)
    return best_explanation(counts.comparisons, side_a, spans_a, side_b, spans_b, search=search)


def label_confusion(corpus: Corpus, found: OutcomeAlignment) -> np.ndarray:
    """Labels × labels counts of position-matched span pairs, pooled over rater pairs.

    Unordered: each matched pair adds one to ``[i, j]`` with ``i >= j`` (lower triangle and
    diagonal), since which rater of a pair comes first is only alphabetical. Shape
    (n_labels, n_labels): k² cells, so with many labels use :func:`label_confusion_pairs`.
    """
    k = len(corpus.labels)
    table = np.zeros((k, k), dtype=np.int64)
    high, low, n = label_confusion_pairs(corpus, found)
    table[high, low] = n
    return table


def label_confusion_pairs(corpus: Corpus, found: OutcomeAlignment) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`label_confusion` sparse: only the label pairs that occur, as ``(high, low, count)``
    arrays (label codes, ``high >= low``) sorted by ``high`` then ``low``; their size grows with
    the matched span pairs, not with labels²."""
    k = max(len(corpus.labels), 1)
    la = corpus.span_label[found.match_a].astype(np.int64)
    lb = corpus.span_label[found.match_b].astype(np.int64)
    keys, n = np.unique(np.maximum(la, lb) * k + np.minimum(la, lb), return_counts=True)
    return keys // k, keys % k, n.astype(np.int64)


def cases(corpus: Corpus, found: OutcomeAlignment, *, context: int = CONTEXT) -> Iterator[dict[str, Any]]:
    """Every disagreement as a flat record (keys :data:`FIELDS`), by document, pair and position."""
    if context < 0:
        raise UsageError(f"context must be >= 0 characters, got {context!r}")
    comparisons = found.comparisons
    keep = found.match_kind != 0
    n = int(keep.sum()) + len(found.missed_span) + len(found.spurious_span)
    comparison = np.concatenate([found.match_comparison[keep], found.missed_comparison, found.spurious_comparison])
    span_a = np.concatenate([found.match_a[keep], found.missed_span, np.full(len(found.spurious_span), -1)])
    span_b = np.concatenate([found.match_b[keep], np.full(len(found.missed_span), -1), found.spurious_span])
    kind = np.concatenate([
        found.match_kind[keep], np.full(len(found.missed_span), 3), np.full(len(found.spurious_span), 4)
    ]).astype(np.int64)
    first = np.where(span_a >= 0, corpus.span_start[np.maximum(span_a, 0)], corpus.span_start[np.maximum(span_b, 0)])
    first_b = np.where(span_b >= 0, corpus.span_start[np.maximum(span_b, 0)], first)
    order = np.lexsort((kind, first_b, first, comparisons.pair[comparison], comparisons.doc[comparison])) if n else np.zeros(0, np.int64)
    for i in order.tolist():
        u = int(comparison[i])
        doc = int(comparisons.doc[u])
        ra, rb = comparisons.pairs[comparisons.pair[u]].tolist()
        text = corpus.texts[doc]
        record: dict[str, Any] = {
            "kind": OUTCOMES[kind[i]],
            "doc_id": corpus.doc_ids[doc],
            "rater_a": corpus.raters[ra],
            "rater_b": corpus.raters[rb],
        }
        lo, hi = len(text), 0
        for side, span in (("a", int(span_a[i])), ("b", int(span_b[i]))):
            s, e = (int(corpus.span_start[span]), int(corpus.span_end[span])) if span >= 0 else (None, None)
            values = (s, e, corpus.labels[corpus.span_label[span]], text[s:e]) if span >= 0 else (None,) * 4
            record.update(zip((f"{side}_start", f"{side}_end", f"{side}_label", f"{side}_text"), values))
            if span >= 0:
                lo, hi = min(lo, s), max(hi, e)
        record["context_left"] = text[max(0, lo - context):lo]
        record["context_right"] = text[hi:hi + context]
        # whose span a missed / spurious case is, by name (None for a matched pair)
        record["only_in"] = record["rater_a"] if kind[i] == 3 else record["rater_b"] if kind[i] == 4 else None
        yield record


def disputed_spans(corpus: Corpus, found: OutcomeAlignment) -> np.ndarray:
    """Boolean mask over the corpus spans: True where the span is part of some disagreement."""
    mask = np.zeros(corpus.n_spans, dtype=bool)
    bad = found.match_kind != 0
    mask[found.match_a[bad]] = True
    mask[found.match_b[bad]] = True
    mask[found.missed_span] = True
    mask[found.spurious_span] = True
    return mask


def documents_with_disagreements(found: OutcomeAlignment) -> np.ndarray:
    """Sorted codes of the documents with at least one case."""
    comparisons = found.comparisons
    bad = np.concatenate([found.match_comparison[found.match_kind != 0], found.missed_comparison, found.spurious_comparison])
    return np.unique(comparisons.doc[bad])


def write(report, out: str | Path, *, output: str | None = None, context: int = CONTEXT,
          language: str = "en", sources=None, include_agreed: bool = False) -> dict[str, Any]:
    """Write the disagreements of ``report`` to ``out`` as ``output`` (by default from the suffix:
    ``.jsonl``/``.json`` → jsonl, ``.csv`` → csv). Returns what was written.

    ``language`` names the blank spaCy tokenizer used for the Prodigy tasks' ``tokens`` when
    the input has none. ``prodigy-review`` only: ``sources`` (the input paths) lets each task keep
    its original Prodigy fields; ``include_agreed`` also writes the documents with no
    disagreement.
    """
    out = Path(out)
    output = resolve_format(out, output)
    corpus = report.corpus
    found = from_report(report)
    counts = found.kind_counts()
    summary: dict[str, Any] = {
        "out": str(out),
        "format": output,
        "cases": {kind: counts[kind] for kind in KINDS},
        "correct": counts["correct"],
        "documents_with_disagreements": len(documents_with_disagreements(found)),
    }
    if output == "prodigy-review":
        tasks, notes = review_tasks(corpus, found, language, originals=original_tasks(sources),
                                    include_agreed=include_agreed)
        write_jsonl(out, tasks)
        summary.update({"tasks": len(tasks), "view_id": tasks[0]["_view_id"] if tasks else None})
        agreed = len(np.unique(corpus.ann_doc)) - summary["documents_with_disagreements"]
        notes["documents everyone agreed on " + ("(written)" if include_agreed else
                                                 "(not written; --include-agreed writes them)")] += agreed
        if notes:
            summary["notes"] = dict(notes)
        return summary
    records = cases(corpus, found, context=context)
    structure = _structure_cases(report)
    if structure is not None:
        summary["structure_cases"] = structure[0]
        if output != "jsonl":
            summary["structure_cases_note"] = "relation and attribute cases are written in JSONL output only"
    if output == "jsonl":
        write_jsonl(out, chain(records, structure[1] if structure is not None else ()))
    else:
        with atomic_write(out, "w", encoding="utf-8", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=FIELDS)
            writer.writeheader()
            writer.writerows({k: csv_cell(v) for k, v in record.items()} for record in records)
    return summary


def _structure_cases(report) -> tuple[dict[str, int], list[dict]] | None:
    """The relation and attribute disagreements (docs/structure.md), when the report has that
    section: their counts by kind and the records."""
    if getattr(report, "structure", None) is None:
        return None
    from ..measures.structure.cases import count_kinds, structure_cases

    records = list(structure_cases(report.corpus, report.counts.rule))
    return count_kinds(records), records


# --- Prodigy review ---------------------------------------------------------------------------


def review_tasks(corpus: Corpus, found: OutcomeAlignment, language: str = "en", *,
                 originals: dict[tuple[str, str], dict] | None = None,
                 include_agreed: bool = False) -> tuple[list[dict], Counter]:
    """The Prodigy ``review`` input: one accepted task per (document with a disagreement, or
    every document with ``include_agreed``; rater who submitted it), and notes (spans whose
    boundaries are not token boundaries). ``originals`` maps ``(doc_id, rater)`` to the rater's
    original Prodigy task, whose other fields the task keeps."""

    docs = np.unique(corpus.ann_doc) if include_agreed else documents_with_disagreements(found)
    originals = originals or {}
    input_hash = input_hashes(corpus.doc_ids, "write jsonl or csv")
    tokens = document_tokens(corpus, language, docs)
    wanted = np.zeros(corpus.n_documents, dtype=bool)
    wanted[docs] = True
    tasks: list[dict] = []
    notes: Counter = Counter()
    overlapping = False
    for ann in np.flatnonzero(wanted[corpus.ann_doc]).tolist():
        doc, rater = int(corpus.ann_doc[ann]), corpus.raters[int(corpus.ann_rater[ann])]
        text, toks = corpus.texts[doc], tokens[doc]
        spans = []
        for s, e, label in corpus.annotation_spans(ann):
            span: dict[str, Any] = {"start": s, "end": e, "label": label}
            indices = token_indices(toks, s, e)
            if indices is not None:
                span["token_start"], span["token_end"] = indices
            else:
                notes["spans not on token boundaries (written without token indices)"] += 1
            if spans and s < max(p["end"] for p in spans):
                overlapping = True
            spans.append(span)
        task_key = orjson.dumps([input_hash[doc], [[p["start"], p["end"], p["label"]] for p in spans]])
        original = originals.get((corpus.doc_ids[doc], rater), {})
        meta = original.get("meta") if isinstance(original.get("meta"), dict) else {}
        task = {k: v for k, v in original.items() if k not in REVIEW_FIELDS}
        task.update({
            "text": text,
            "tokens": task_tokens(text, toks),
            "spans": spans,
            "_input_hash": input_hash[doc],
            "_task_hash": hash32(task_key),
            "answer": "accept",
            "_annotator_id": rater,
            "_session_id": rater,
            "meta": {**meta, "doc": readable_name(corpus.doc_ids[doc], text, meta), "doc_id": corpus.doc_ids[doc], "rater": rater},
        })
        tasks.append(task)
    # ner_manual shows no overlapping spans; spans_manual does
    view = "spans_manual" if overlapping else "ner_manual"
    for task in tasks:
        task["_view_id"] = view
    return tasks, notes


#: The fields a review task sets itself; every other field of the original task is kept.
REVIEW_FIELDS = frozenset(("text", "tokens", "spans", "_input_hash", "_task_hash", "answer", "_annotator_id",
                           "_session_id", "_view_id", "meta"))
#: ``meta`` fields that name a document, in order of preference.
NAME_FIELDS = ("title", "name", "id", "doc_id", "file")


def readable_name(doc_id: str, text: str, meta: dict, words: int = 6) -> str:
    """A name a person recognises: the id unless it is a hash, else a naming ``meta`` field,
    else the first words of the text.

    >>> readable_name("-1234", "The mayor of Kellsbridge said on Monday that", {})
    'The mayor of Kellsbridge said on…'
    >>> readable_name("-1234", "text", {"title": "Budget day"}), readable_name("news-7", "text", {})
    ('Budget day', 'news-7')
    """
    if not re.fullmatch(r"-?[0-9]+|text:[0-9a-f]+", doc_id):
        return doc_id
    for key in NAME_FIELDS:
        value = meta.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            return str(value)
    head = text.split()
    return " ".join(head[:words]) + ("…" if len(head) > words else "")


def original_tasks(paths, answers=("accept",)) -> dict[tuple[str, str], dict]:
    """The Prodigy tasks of ``paths`` (only the files in Prodigy JSONL) by ``(doc_id, rater)``,
    keyed as the Prodigy reader keys them; a task whose answer counts wins over one that does
    not."""
    files = []
    for path in (Path(p) for p in paths or ()):
        files.extend(sorted(path.glob("*.jsonl")) if path.is_dir() else [path])
    found: dict[tuple[str, str], dict] = {}
    for path in files:
        try:
            if not path.is_file() or detect_format(path) != "prodigy":
                continue
        except SpanagreeError:  # a file of a directory layout that is not itself a format
            continue
        for where, obj in json_lines(path):
            if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
                continue
            doc_id = doc_id_of_task(obj)
            key = (doc_id, task_rater(obj, path.stem, where, doc_id))
            if key not in found or obj.get("answer") in answers:
                found[key] = obj
    return found


# --- helpers ------------------------------------------------------------------------------------


def resolve_format(out: str | Path, output: str | None = None) -> str:
    """The output format: ``output`` when given (checked), else from the suffix of ``out``."""
    if output is not None:
        if output not in FORMATS:
            raise UsageError(f"output must be one of {', '.join(FORMATS)}; got {output!r}")
        return output
    out = Path(out)
    found = {".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl", ".csv": "csv"}.get(out.suffix.lower())
    if found is not None:
        return found
    raise UsageError(
        f"cannot tell the output format from {out.name!r}; use a .jsonl or .csv name, or --output "
        + "|".join(FORMATS)
    )
