"""The spanagree JSONL format: one line per (document, rater).

``{"doc_id": str, "text": str, "annotator": str, "spans": [{"start": int, "end": int, "label": str}]}``

``annotator`` may be left out when each file holds one rater: the rater is then the file's stem.
Optional ``"tokens": [{"start": int, "end": int}, ...]`` enables the token unit. Optional
``"labels": [str, ...]`` gives the rater's document labels (text classification; the rater chose
among all labels); a line with ``labels`` and no ``spans`` carries document labels only.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..core.model import CorpusBuilder
from . import Format
from .common import LineSource, doc_id_of, dumps_json, json_lines, parse_labels, parse_tokens, require
from ..core.raw_spans import parse_spans
from ..core.files import atomic_write



def read_spanagree(path: Path, builder: CorpusBuilder, lines: LineSource | None = None) -> None:
    """Read one spanagree JSONL file into ``builder``; ``lines``: where its ``(location, object)``
    lines come from instead of the whole file (the engines pass byte ranges of it)."""
    try:
        _read_lines(path.stem, builder, json_lines(path, builder.tick) if lines is None else lines)
    except InputError:
        builder.check_spans()  # a bad span of an earlier line is the first error
        raise
    builder.check_spans()


def _read_lines(stem: str, builder: CorpusBuilder, lines: LineSource) -> None:
    add_unchecked = builder.add_unchecked
    last_tokens: tuple = (None, 0, b"", None)  # document, text length, token list as JSON, offsets
    for where, obj in lines:
        get = obj.get
        doc_id, text, rater, raw_spans = get("doc_id"), get("text"), get("annotator", stem), get("spans")
        if (
            type(raw_spans) is list and type(doc_id) is str and type(text) is str and type(rater) is str
            and doc_id and rater and len(obj) <= 3 + ("annotator" in obj)
        ):  # the common line: document, text, spans and perhaps the rater; nothing else
            add_unchecked(doc_id, doc_id, text, rater, raw_spans, where)
            continue
        if not (type(doc_id) is str and doc_id and type(text) is str and type(rater) is str and rater):
            # slow path: the precise error for whichever field is wrong
            doc_id = doc_id_of(obj, "doc_id", where)
            text = require(obj, "text", str, where, doc_id)
            rater = require(obj, "annotator", str, where, doc_id) if "annotator" in obj else stem
            if not rater:
                raise InputError("empty; expected a rater name", where=where, doc_id=doc_id, field="annotator")
        labels = get("labels")
        if labels is not None:
            builder.add_labels(doc_id, doc_id, text, rater, parse_labels(labels, where, doc_id), where)
            if raw_spans is None:
                continue  # a document-label line: no span annotation
        elif raw_spans is None:
            require(obj, "spans", list, where, doc_id)
        if type(raw_spans) is not list:
            parse_spans(raw_spans, len(text), where, doc_id)  # says what the spans are instead
        tokens = get("tokens")
        if tokens is not None:
            # each rater's line of a document repeats its tokens: the same JSON as the line
            # before is the same offsets (JSON, not ==, tells 1 from 1.0 and true)
            written = _as_json(tokens) if last_tokens[0] == doc_id and last_tokens[1] == len(text) else b""
            if written and written == last_tokens[2]:
                tokens = last_tokens[3]
            else:
                try:
                    offsets = parse_tokens(tokens, len(text), where, doc_id)
                except InputError:
                    parse_spans(raw_spans, len(text), where, doc_id)  # the line's spans are named first
                    raise
                last_tokens = (doc_id, len(text), written or _as_json(tokens), offsets)
                tokens = offsets
        add_unchecked(doc_id, doc_id, text, rater, raw_spans, where, tokens)


def _as_json(value) -> bytes:
    """``value`` written as JSON, or ``b""`` when it cannot be (an integer beyond 64 bits)."""
    try:
        return dumps_json(value)
    except (TypeError, ValueError):
        return b""


def write_spanagree(corpus, path: Path) -> dict:
    """Write a corpus as spanagree JSONL, one line per (document, rater), in corpus order.

    Each line keeps the document id, text, rater and spans, and the token offsets where the
    corpus has them. Document labels (text classification) go in ``labels``, on the rater's span
    line or on a line of their own; a rater's ``labels`` list is read back as a choice among every
    label, so a label that was judged absent is written by leaving it out.
    Returns what was written: ``{"documents", "annotations", "spans"}`` (and ``"document_labels"``,
    the (document, rater) pairs with labels, when there are any).
    """
    import orjson

    lengths = (corpus.ann_ptr[1:] - corpus.ann_ptr[:-1]).tolist()
    starts, ends, labels = corpus.span_start.tolist(), corpus.span_end.tolist(), corpus.span_label.tolist()
    given: dict[tuple[int, int], list[str]] = {}
    for doc, rater, label, value in zip(
        corpus.dl_doc.tolist(), corpus.dl_rater.tolist(), corpus.dl_label.tolist(), corpus.dl_value.tolist()
    ):
        names = given.setdefault((doc, rater), [])
        if value:
            names.append(corpus.doc_label_names[label])
    spans_at = {}
    lo = 0
    for doc, rater, n in zip(corpus.ann_doc.tolist(), corpus.ann_rater.tolist(), lengths):
        spans_at[doc, rater] = (lo, n)
        lo += n
    documents = set()
    with atomic_write(path, "wb") as out:
        for doc, rater in sorted(spans_at.keys() | given.keys()):
            record = {"doc_id": corpus.doc_ids[doc], "text": corpus.texts[doc], "annotator": corpus.raters[rater]}
            documents.add(doc)
            if (doc, rater) in given:
                record["labels"] = given[doc, rater]
            if (doc, rater) in spans_at:
                lo, n = spans_at[doc, rater]
                record["spans"] = [
                    {"start": starts[i], "end": ends[i], "label": corpus.labels[labels[i]]} for i in range(lo, lo + n)
                ]
                tokens = corpus.doc_tokens[doc]
                if tokens is not None:
                    record["tokens"] = [{"start": s, "end": e} for s, e in tokens.tolist()]
            out.write(orjson.dumps(record) + b"\n")
    written = {"documents": len(documents), "annotations": corpus.n_annotations, "spans": corpus.n_spans}
    if given:
        written["document_labels"] = len(given)
    return written


def looks_like(path: Path, first: dict | None) -> bool:
    """True when the first record of a file has the spanagree keys."""
    return first is not None and (
        "doc_id" in first or ("spans" in first and "answer" not in first and "_input_hash" not in first)
    )


FORMAT = Format(
    name="spanagree",
    read=read_spanagree,
    sniff=looks_like,
    order=200,
    write=write_spanagree,
    description="spanagree JSONL: one line per (document, rater)",
)
