"""Prodigy JSONL as written by ``prodigy db-out`` (``ner.manual``, ``spans.manual`` and friends).

- rater: ``_annotator_id``, else ``_session_id``, else the file's stem (one annotator per file);
- document: ``_input_hash``, else the text itself;
- ``answer``: ``accept`` counts; ``reject`` and ``ignore`` mean the rater did not submit the
  document and are excluded and counted (``answers=`` chooses which answers count);
- ``tokens`` and the spans' ``token_start``/``token_end`` (inclusive, Prodigy's convention) are
  checked against the character offsets and give the token unit;
- text classification (no ``spans``): a choice task's ``accept`` list gives the document labels;
  a binary task's ``label`` is given with ``accept`` and judged absent with ``reject``.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Iterable

from ..errors import InputError, describe
from ..model import CorpusBuilder
from . import Format
from .common import json_lines, parse_labels, parse_spans, parse_tokens, require

ANSWERS = ("accept", "reject", "ignore")


def read_prodigy(path: Path, builder: CorpusBuilder, *, answers: Iterable[str] = ("accept",)) -> None:
    """Read one Prodigy JSONL export into ``builder``."""
    counted = set(answers)
    stem = path.stem
    for where, obj in json_lines(path, builder.tick):
        text = require(obj, "text", str, where)
        input_hash = obj.get("_input_hash")
        if input_hash is not None and (type(input_hash) is not int):
            raise InputError(f"expected an integer hash, got {describe(input_hash)}", where=where, field="_input_hash")
        doc_id = doc_id_of_task(obj)
        key = doc_id
        rater = _rater(obj, stem, where, doc_id)
        answer = require(obj, "answer", str, where, doc_id)
        if answer not in ANSWERS:
            raise InputError(
                f"got {answer!r}; expected one of {', '.join(ANSWERS)}", where=where, doc_id=doc_id, field="answer"
            )
        if "spans" not in obj and ("options" in obj or "label" in obj):
            _add_doc_labels(obj, builder, key, doc_id, text, rater, answer, where)
            continue
        if answer not in counted:
            spans = obj.get("spans")
            n_spans = len(spans) if isinstance(spans, list) else 0
            builder.skip(key, doc_id, text, where, rater, f"Prodigy answer {answer!r}", n_spans)
            continue
        if "spans" in obj:
            spans = parse_spans(obj["spans"], len(text), where, doc_id)
        else:
            spans = []
            builder.exclusions.notes["Prodigy task without 'spans' (read as no spans)"] += 1
        tokens = None
        if "tokens" in obj:
            tokens = parse_tokens(obj["tokens"], len(text), where, doc_id)
            _check_token_indices(obj["spans"] if spans else [], tokens, where, doc_id)
        builder.add(key, doc_id, text, rater, spans, where, tokens)


def _add_doc_labels(obj: dict, builder: CorpusBuilder, key, doc_id: str, text: str, rater: str, answer: str, where) -> None:
    """A text-classification task: a choice task (``options`` + the ``accept`` list) or a
    binary task (``label`` + ``answer``, where ``reject`` says the label does not apply)."""
    if answer == "ignore":
        builder.skip(key, doc_id, text, where, rater, "Prodigy answer 'ignore'")
        return
    builder.n_annotations_read += 1
    if "options" in obj:
        if answer != "accept":
            builder.exclusions.annotations[f"Prodigy choice answer {answer!r}"] += 1
            return
        chosen = [str(x) for x in obj.get("accept") or []]
        # the options are what the rater could choose: an option nobody chose is still a category
        options = obj["options"]
        offered = None
        if isinstance(options, list) and all(isinstance(o, dict) and "id" in o for o in options):
            offered = [str(o["id"]) for o in options]
        builder.add_labels(key, doc_id, text, rater, parse_labels(chosen, where, doc_id, "accept"), where,
                           judged=offered)
        return
    label = require(obj, "label", str, where, doc_id)
    given = [label] if answer == "accept" else []
    builder.add_labels(key, doc_id, text, rater, given, where, judged=[label])


def write_prodigy(corpus, path: Path) -> dict:
    """Write a corpus as Prodigy JSONL (as ``prodigy db-in`` takes it), one accepted task per
    (document, rater), in corpus order.

    - ``_input_hash``: the document id when it is an integer (as it is for Prodigy input), else
      a stable 32-bit hash of it; the id itself is kept in ``meta.doc_id``;
    - ``_annotator_id`` and ``_session_id``: the rater; ``answer``: ``accept``;
    - ``tokens`` (with ``ws``) where the corpus has them, and then ``token_start``/``token_end``
      (inclusive) on every span whose boundaries are token boundaries.

    Returns what was written: ``{"documents", "annotations", "spans"}``.
    """
    import re

    import numpy as np
    import orjson

    from ..errors import UsageError

    hashes: dict[int, str] = {}
    doc_hash = []
    for doc_id in corpus.doc_ids:
        if re.fullmatch(r"-?[0-9]+", doc_id):
            value = int(doc_id)
        else:
            value = int.from_bytes(hashlib.sha1(doc_id.encode("utf-8")).digest()[:4], "big", signed=True)
        if hashes.setdefault(value, doc_id) != doc_id:
            raise UsageError(
                f"documents {hashes[value]!r} and {doc_id!r} get the same Prodigy _input_hash {value}; "
                "give them integer ids or write another format"
            )
        doc_hash.append(value)
    lengths = (corpus.ann_ptr[1:] - corpus.ann_ptr[:-1]).tolist()
    starts, ends, labels = corpus.span_start.tolist(), corpus.span_end.tolist(), corpus.span_label.tolist()
    with open(path, "wb") as out:
        lo = 0
        for doc, rater, n in zip(corpus.ann_doc.tolist(), corpus.ann_rater.tolist(), lengths):
            text, tokens, name = corpus.texts[doc], corpus.doc_tokens[doc], corpus.raters[rater]
            spans = []
            for i in range(lo, lo + n):
                span = {"start": starts[i], "end": ends[i], "label": corpus.labels[labels[i]]}
                if tokens is not None:
                    first = int(np.searchsorted(tokens[:, 0], starts[i]))
                    last = int(np.searchsorted(tokens[:, 1], ends[i]))
                    if first < len(tokens) and last < len(tokens) and tokens[first, 0] == starts[i] and tokens[last, 1] == ends[i]:
                        span["token_start"], span["token_end"] = first, last
                spans.append(span)
            record = {"text": text, "_input_hash": doc_hash[doc], "meta": {"doc_id": corpus.doc_ids[doc]}}
            if tokens is not None:
                record["tokens"] = [
                    {"text": text[s:e], "start": s, "end": e, "id": k, "ws": text[e:e + 1].isspace()}
                    for k, (s, e) in enumerate(tokens.tolist())
                ]
            record.update({"spans": spans, "answer": "accept", "_annotator_id": name, "_session_id": name})
            out.write(orjson.dumps(record) + b"\n")
            lo += n
    return {"documents": len(set(corpus.ann_doc.tolist())), "annotations": corpus.n_annotations, "spans": corpus.n_spans}


def looks_like(path: Path, first: dict | None) -> bool:
    """True when the first record of a file has Prodigy's keys."""
    return first is not None and any(
        k in first for k in ("_input_hash", "_task_hash", "_annotator_id", "_session_id", "answer")
    )


def doc_id_of_task(obj: dict) -> str:
    """A task's document id: its ``_input_hash`` as a string, else ``text:`` and a hash of the text.

    Documents are keyed by their id string, as in every other format, so that a file converted
    from this one (a consensus, say) can be scored beside it.
    """
    input_hash = obj.get("_input_hash")
    if input_hash is None:
        return "text:" + hashlib.sha1(obj["text"].encode("utf-8")).hexdigest()[:12]
    return str(input_hash)


def _rater(obj: dict, stem: str, where, doc_id: str) -> str:
    for key in ("_annotator_id", "_session_id"):
        value = obj.get(key)
        if value is not None:
            if not isinstance(value, str) or not value:
                raise InputError(f"expected a non-empty string, got {describe(value)}", where=where, doc_id=doc_id, field=key)
            return value
    return stem


def _check_token_indices(raw_spans: list, tokens, where, doc_id: str) -> None:
    """Token indices, where given, must point at the tokens the character offsets name."""
    n = len(tokens)
    for i, span in enumerate(raw_spans):
        for key, column, offset_key in (("token_start", 0, "start"), ("token_end", 1, "end")):
            if key not in span:
                continue
            index = span[key]
            if type(index) is not int or not 0 <= index < n or tokens[index, column] != span[offset_key]:
                raise InputError(
                    f"got {describe(index)}; expected the index of the token that "
                    f"{'starts' if column == 0 else 'ends'} at character {span[offset_key]} "
                    f"({'inclusive, ' if column == 1 else ''}{n} tokens)",
                    where=where, doc_id=doc_id, field=f"spans[{i}].{key}",
                )


FORMAT = Format(
    name="prodigy",
    read=read_prodigy,
    sniff=looks_like,
    order=150,
    write=write_prodigy,
    description="Prodigy JSONL from 'prodigy db-out'",
)
