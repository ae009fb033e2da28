"""Prodigy JSONL as written by ``prodigy db-out`` (manual, binary and text-classification tasks).

- rater (``rater=``): ``"annotator"`` (default) reads ``_annotator_id``, else ``_session_id``,
  else the file's stem; ``"session"`` reads ``_session_id``; ``"prefix"`` reads ``_session_id``
  without Prodigy's default timestamp (one person's unnamed sessions make one rater); ``"file"``
  reads the file's stem;
- document: ``_input_hash``, else the text itself (:func:`doc_id_of_task`);
- manual tasks (``ner.manual``, ``spans.manual``, ``ner.correct``, ...): ``accept`` counts
  (``answers=``), ``reject`` and ``ignore`` are excluded and counted; a rater's latest answer to an
  input, by ``_timestamp`` and else by position in the file, replaces the others (``duplicates=``);
- binary span tasks (``_view_id`` ``"ner"`` or ``"spans"``, or, in older exports, spans carrying a
  model's ``score`` or ``rank``): the tasks of one input are merged, the spans of accepted tasks the
  rater's marks, those of rejected tasks judged absent;
- ``relations`` (``rel.manual``) are read into the corpus's structure (docs/structure.md) from the
  answer kept for the input;
- ``tokens`` and the spans' ``token_start``/``token_end`` (inclusive, Prodigy's convention) are
  checked against the character offsets and give the token unit;
- text classification: a choice task's (``options``) ``accept`` list, or a binary task's top-level
  ``label`` (``textcat.teach``) accepted or rejected, gives the document labels, the latest answer
  to each question read.

Offsets are code points (Prodigy is written in Python); ``offsets=`` reads another unit (see
:mod:`spanagree.io.offsets`). The options: docs/formats.md, "Prodigy" and "Duplicates".
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Iterable, NamedTuple

from ..errors import InputError, describe, option
from ..core.model import SpanTuple
from ..core.builder import CorpusBuilder
from . import Format
from .common import LineSource, choice, json_lines, labels_left_out, parse_labels, parse_tokens, require, span_objects
from ..core.raw_spans import parse_spans
from .offsets import check_unit, convert_spans, length, out_of_range, to_codepoints
from ..core.files import atomic_write
from ..errors import UsageError

ANSWERS = ("accept", "reject", "ignore")

#: ``rater=`` values.
RATERS = ("annotator", "session", "prefix", "file")

#: ``duplicates=`` values.
DUPLICATES = ("latest", "error")

#: The views of Prodigy's binary span recipes.
BINARY_VIEWS = {"ner", "spans"}

#: Prodigy's default session name: a timestamp appended to the dataset's name.
_TIMESTAMP = re.compile(r"-\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}\Z")


def read_prodigy(
    path: Path,
    builder: CorpusBuilder,
    *,
    answers: Iterable[str] = ("accept",),
    rater: str = "annotator",
    duplicates: str = "latest",
    offsets: str | None = None,
    lines: LineSource | None = None,
) -> None:
    """Read one Prodigy JSONL export into ``builder``; ``lines``: where its ``(location, object)``
    lines come from instead of the whole file (the engines pass byte ranges of it)."""
    counted = set(answers)
    choice("rater", rater, RATERS)
    choice("duplicates", duplicates, DUPLICATES)
    unit = check_unit(offsets, "codepoint")
    stem = path.stem
    # (document, rater) -> [(order, binary, answer, spans, tokens, where, doc_id, text)]
    held: dict[tuple[str, str], list] = {}
    # (document, rater, label or None) -> [(order, task, doc_id, text, answer, where)]: text
    # classification answers, the latest of each question kept
    questions: dict[tuple[str, str, str | None], list] = {}
    relation_of: dict[tuple, list] = {}  # (document, rater, order) -> the answer's relations
    for where, obj in json_lines(path, builder.tick) if lines is None else lines:
        text = require(obj, "text", str, where)
        input_hash = obj.get("_input_hash")
        if input_hash is not None and (type(input_hash) is not int):
            raise InputError(f"expected an integer hash, got {describe(input_hash)}", where=where, field="_input_hash")
        doc_id = doc_id_of_task(obj)
        key = doc_id
        who = task_rater(obj, stem, where, doc_id, rater)
        answer = require(obj, "answer", str, where, doc_id)
        if answer not in ANSWERS:
            raise InputError(
                f"got {answer!r}; expected one of {', '.join(ANSWERS)}", where=where, doc_id=doc_id, field="answer"
            )
        if "options" in obj and obj.get("_view_id") == "blocks" and isinstance(obj.get("spans"), list):
            # blocks: spans and a choice in one task (a rater may mark no span and still choose)
            if answer == "accept":
                _add_choices(obj, builder, key, doc_id, text, who, where)
        elif not obj.get("spans") and ("options" in obj or type(obj.get("label")) is str):
            question = (key, who, None if "options" in obj else obj["label"])
            builder.about(key)  # read once the file is: the latest answer to each question counts
            questions.setdefault(question, []).append((_order(obj, where), obj, doc_id, text, answer, where))
            continue
        binary = _binary(obj)
        if answer not in counted if not binary else answer == "ignore":
            spans = obj.get("spans")
            n_spans = len(spans) if isinstance(spans, list) else 0
            if binary:
                builder.skip(key, doc_id, text, where, who, f"Prodigy answer {answer!r}", n_spans)
            else:  # a manual answer that does not count: it may still replace an earlier one
                builder.document(key, doc_id, text, where, who)
                held.setdefault((key, who), []).append(
                    Answer(_order(obj, where), False, answer, [], None, where, doc_id, text, False, n_spans))
            _count_skipped_relations(obj, builder, f"Prodigy answer {answer!r}")
            continue
        if "spans" in obj:
            spans = parse_spans(obj["spans"], length(text, unit), where, doc_id)
            if unit != "codepoint":
                spans = convert_spans(spans, text, unit, where, doc_id, "spans")
        else:
            spans = []
            builder.exclusions.notes["Prodigy task without 'spans' (read as no spans)"] += 1
        tokens = None
        if "tokens" in obj:
            tokens = parse_tokens(obj["tokens"], length(text, unit), where, doc_id)
            _check_token_indices(obj["spans"] if spans else [], tokens, where, doc_id)
            if unit != "codepoint" and len(tokens):  # counted in the same unit as the spans
                tokens = _tokens_in_codepoints(tokens, text, unit, where, doc_id)
        relations = obj.get("relations")
        if relations:
            relation_of[key, who, _order(obj, where)] = task_relations(relations, spans, text, unit, where, doc_id, builder)
        builder.document(key, doc_id, text, where, who)  # registered per line; spans added once all are read
        held.setdefault((key, who), []).append(Answer(_order(obj, where), binary, answer, spans, tokens, where, doc_id, text))
    for (key, who), entries in held.items():
        _flush(builder, key, who, entries, duplicates)
        if relation_of:
            _add_relations(builder, key, who, entries, relation_of)
    for (key, who, _), answered in questions.items():
        _latest_doc_labels(builder, key, who, answered, duplicates)


def _order(obj: dict, where) -> tuple:
    """How recent an answer is: its ``_timestamp``, then its line (an answer without a time stamp
    comes before those with one)."""
    stamp = obj.get("_timestamp")
    return (stamp if type(stamp) in (int, float) and not isinstance(stamp, bool) else float("-inf"), where.line or 0)


#: Why an answer is excluded when the rater answered the same question again.
ANSWERED_AGAIN = "Prodigy answer by a rater who answered the input again (the latest kept)"


def _latest_doc_labels(builder: CorpusBuilder, key, rater: str, answered: list, duplicates: str) -> None:
    """A rater's text-classification answers to one question (an input, and a binary task's
    label): the latest is read; the earlier ones are counted as excluded."""
    answered.sort(key=lambda entry: entry[0])
    if len(answered) > 1 and duplicates == "error":
        first, last = answered[0], answered[-1]
        raise InputError(
            f"rater {rater!r} answered this question {len(answered)} times (also at line {first[5].line}); keep one "
            f"answer per question and rater, or read the latest with {option('duplicates', 'latest')}",
            where=last[5], doc_id=last[2], field="_input_hash",
        )
    for _ in answered[:-1]:
        builder.exclude(ANSWERED_AGAIN)
    _, obj, doc_id, text, answer, where = answered[-1]
    _add_doc_labels(obj, builder, key, doc_id, text, rater, answer, where)


class Answer(NamedTuple):
    """One task a rater answered about an input, held until the file is read."""

    order: tuple
    binary: bool
    answer: str
    spans: list
    tokens: Any
    where: Any
    doc_id: str
    text: str
    counts: bool = True  # an answer that counts (``answers=``), else one the rater did not submit
    n_raw: int = 0  # the spans of an answer that does not count, as the file holds them


def task_relations(raw, spans: list, text: str, unit: str, where, doc_id: str, builder: CorpusBuilder) -> list:
    """The relations of one ``rel.manual`` answer, ``(head span, child span, label, ...)`` as the
    structure holds them; a relation whose ``head_span`` or ``child_span`` is not one of the
    answer's spans is counted and left out."""
    if type(raw) is not list:
        raise InputError(f"got {describe(raw)}; expected a list of relations", where=where, doc_id=doc_id, field="relations")
    marked = set(spans)
    n = length(text, unit)
    out = []
    for i, relation in enumerate(raw):
        at = f"relations[{i}]"
        if type(relation) is not dict:
            raise InputError(f"got {describe(relation)}; expected {{head, child, head_span, child_span, label}}",
                             where=where, doc_id=doc_id, field=at)
        label = relation.get("label")
        if type(label) is not str or not label.strip():
            raise InputError(f"{'missing' if 'label' not in relation else 'got ' + describe(label)}; expected a "
                             "relation label", where=where, doc_id=doc_id, field=f"{at}.label")
        if "head_span" not in relation or "child_span" not in relation:
            builder.exclusions.relations["Prodigy relation without head_span and child_span (token indices only)"] += 1
            continue
        ends = []
        for name in ("head_span", "child_span"):
            end = relation.get(name)
            if type(end) is not dict:
                raise InputError(f"{'missing' if name not in relation else 'got ' + describe(end)}; expected the "
                                 "span object rel.manual writes", where=where, doc_id=doc_id, field=f"{at}.{name}")
            if not end.get("label"):  # a bare token: rel.manual allows relations between tokens
                ends = None
                break
            (span,) = parse_spans([end], n, where, doc_id, f"{at}.{name}")
            if unit != "codepoint":
                (span,) = convert_spans([span], text, unit, where, doc_id, f"{at}.{name}")
            ends.append(span)
        if ends is None or not all(end in marked for end in ends):
            builder.exclusions.relations["Prodigy relation whose head or child is not one of the task's spans"] += 1
            continue
        out.append((ends[0], ends[1], label, False, "relation", where, at))
    return out


def _count_skipped_relations(obj: dict, builder: CorpusBuilder, reason: str) -> None:
    relations = obj.get("relations")
    if type(relations) is list and relations:
        builder.exclusions.relations[f"on an excluded annotation ({reason})"] += len(relations)


def _add_relations(builder: CorpusBuilder, key: str, rater: str, entries: list, relation_of: dict) -> None:
    """The relations of the answer kept for (document, rater) (the latest manual one); those of
    the answers left out are counted."""
    manual = sorted((e for e in entries if not e[1]), key=lambda e: e[0])
    kept = manual[-1][0] if manual else None
    for entry in entries:
        relations = relation_of.get((key, rater, entry[0]))
        if not relations:
            continue
        if entry[0] != kept:
            builder.exclusions.relations["on an excluded annotation (an older answer)"] += len(relations)
            continue
        builder.structure(key, rater).relations.extend(relations)


def _flush(builder: CorpusBuilder, key: str, rater: str, entries: list, duplicates: str) -> None:
    """One rater's annotation of one input from everything the rater answered about it."""
    notes = builder.exclusions.notes
    manual = sorted((e for e in entries if not e[1]), key=lambda e: e[0])
    binary = [e for e in entries if e[1]]
    if len(manual) > 1:
        if duplicates == "error":
            raise InputError(
                f"rater {rater!r} answered this input {len(manual)} times (also at line {manual[0][5].line}); keep "
                f"one answer per input and rater, or read the latest with {option('duplicates', 'latest')}",
                where=manual[-1][5], doc_id=manual[-1][6], field="_input_hash",
            )
        for older in manual[:-1]:
            builder.exclude(ANSWERED_AGAIN, len(older.spans) if older.counts else older.n_raw)
    if manual and not manual[-1].counts:  # the latest answer says the rater did not submit it
        latest = manual[-1]
        builder.skip(key, latest.doc_id, latest.text, latest.where, rater, f"Prodigy answer {latest.answer!r}",
                     latest.n_raw)
        if not binary:
            return
        manual = []
    spans: list[SpanTuple] = list(manual[-1][3]) if manual else []
    for entry in binary:  # merged: read as one annotation, below
        if entry.answer == "accept":
            spans.extend(entry.spans)
            notes["Prodigy binary task accepted (its spans are the rater's marks)"] += 1
        else:
            notes["Prodigy binary task rejected (its spans judged absent)"] += 1
    last = (manual or binary)[-1]
    tokens = next((e[4] for e in reversed(entries) if e[4] is not None), None)
    builder.add(key, last[6], last[7], rater, spans, last[5], tokens)


def _binary(obj: dict) -> bool:
    """A binary span task: Prodigy's binary views, or (without ``_view_id``) a model's suggestions."""
    view = obj.get("_view_id")
    if view is not None:
        return view in BINARY_VIEWS
    spans = obj.get("spans")
    return isinstance(spans, list) and any(isinstance(s, dict) and ("score" in s or "rank" in s) for s in spans)


def _chosen(accept, where, doc_id: str) -> list[str]:
    """The options a choice task's ``accept`` lists: a list of option ids (strings or integers);
    ``null`` or a missing list is nothing chosen."""
    if accept is None:
        return []
    if type(accept) is not list or not all(type(x) in (str, int) for x in accept):
        raise InputError(f"expected a list of chosen option ids (strings or integers), got {describe(accept)}",
                         where=where, doc_id=doc_id, field="accept")
    return [str(x) for x in accept]


def _add_choices(obj: dict, builder: CorpusBuilder, key, doc_id: str, text: str, rater: str, where) -> None:
    """The document labels of an accepted choice task: the options its ``accept`` list names."""
    chosen = _chosen(obj.get("accept", []), where, doc_id)
    # the options are what the rater could choose: an option nobody chose is still a category
    options = obj["options"]
    if type(options) is not list or not all(
        type(o) is dict and type(o.get("id")) in (str, int) and o["id"] != "" for o in options
    ):
        raise InputError(f"expected a list of options, each with an 'id' (a string or integer), got {describe(options)}",
                         where=where, doc_id=doc_id, field="options")
    offered = [str(o["id"]) for o in options]
    offered_set = set(offered)
    unknown = [c for c in chosen if c not in offered_set]
    if unknown:
        raise InputError(f"chose {unknown[0]!r}, which is not among the options ({', '.join(offered[:10])})",
                         where=where, doc_id=doc_id, field="accept")
    builder.add_labels(key, doc_id, text, rater, parse_labels(chosen, where, doc_id, "accept"), where, judged=offered)


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
        _add_choices(obj, builder, key, doc_id, text, rater, where)
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

    Reading the file back gives the same document ids (:func:`doc_id_of_task`). Returns what was
    written: ``{"documents", "annotations", "spans"}``.
    """
    import orjson

    doc_hash = input_hashes(corpus.doc_ids, "write another format")
    with atomic_write(path, "wb") as out:
        for ann, (doc, rater) in enumerate(zip(corpus.ann_doc.tolist(), corpus.ann_rater.tolist())):
            text, tokens, name = corpus.texts[doc], corpus.doc_tokens[doc], corpus.raters[rater]
            spans = span_objects(corpus, ann)
            for span in spans if tokens is not None else ():
                indices = token_indices(tokens, span["start"], span["end"])
                if indices is not None:
                    span["token_start"], span["token_end"] = indices
            record = {"text": text, "_input_hash": doc_hash[doc], "meta": {"doc_id": corpus.doc_ids[doc]}}
            if tokens is not None:
                record["tokens"] = task_tokens(text, tokens)
            record.update({"spans": spans, "answer": "accept", "_annotator_id": name, "_session_id": name})
            out.write(orjson.dumps(record) + b"\n")
    written = {"documents": len(set(corpus.ann_doc.tolist())), "annotations": corpus.n_annotations, "spans": corpus.n_spans}
    return {**written, **labels_left_out(corpus, "Prodigy")}


def looks_like(path: Path, first: dict | None) -> bool:
    """True when the first record of a file has Prodigy's keys."""
    return first is not None and any(
        k in first for k in ("_input_hash", "_task_hash", "_annotator_id", "_session_id", "answer")
    )


def doc_id_of_task(obj: dict) -> str:
    """A task's document id: its ``_input_hash`` as a string (or, in a file spanagree wrote, the
    ``meta.doc_id`` that hash was made from), else ``text:`` and a hash of the text.

    Documents are keyed by their id string, as in every other format, so that a file converted
    from this one (a consensus, say) can be scored beside it.
    """
    input_hash = obj.get("_input_hash")
    if input_hash is None:
        return "text:" + hashlib.sha1(obj["text"].encode("utf-8")).hexdigest()[:12]
    meta = obj.get("meta")
    if isinstance(meta, dict):
        written = meta.get("doc_id")
        if type(written) is str and written and input_hash_of(written) == input_hash:
            return written  # a task spanagree wrote: the id it had before (hash and id agree)
    return str(input_hash)


def input_hash_of(doc_id: str) -> int:
    """The ``_input_hash`` spanagree writes for a document id: the id itself when it is an
    integer (as ids read from Prodigy are), else a stable 32-bit hash of it."""
    return int(doc_id) if _INTEGER.fullmatch(doc_id) else hash32(doc_id.encode("utf-8"))


def hash32(data: bytes) -> int:
    """A stable signed 32-bit hash (the first 4 bytes of SHA-1), as Prodigy's hashes are."""
    return int.from_bytes(hashlib.sha1(data).digest()[:4], "big", signed=True)


_INTEGER = re.compile(r"-?[0-9]+")


def input_hashes(doc_ids: list[str], instead: str) -> list[int]:
    """Each document's :func:`input_hash_of`; two documents with the same hash are a UsageError
    that names them and says what to do ``instead``."""
    seen: dict[int, str] = {}
    for doc_id in doc_ids:
        value = input_hash_of(doc_id)
        if seen.setdefault(value, doc_id) != doc_id:
            raise UsageError(f"documents {seen[value]!r} and {doc_id!r} get the same Prodigy _input_hash {value}; "
                             f"give them integer ids or {instead}")
    return list(seen)


def token_indices(tokens, start: int, end: int) -> tuple[int, int] | None:
    """``(token_start, token_end)`` (inclusive) of a span whose boundaries are token boundaries
    of ``tokens`` (an (n, 2) offset array), else None."""
    first, last = int(tokens[:, 0].searchsorted(start)), int(tokens[:, 1].searchsorted(end))
    if first < len(tokens) and last < len(tokens) and tokens[first, 0] == start and tokens[last, 1] == end:
        return first, last
    return None


def task_tokens(text: str, tokens) -> list[dict]:
    """A task's ``tokens``: each token's text, offsets, index and whether white space follows it."""
    return [{"text": text[s:e], "start": s, "end": e, "id": k, "ws": text[e:e + 1].isspace()}
            for k, (s, e) in enumerate(tokens.tolist())]


def task_rater(obj: dict, stem: str, where, doc_id: str, source: str = "annotator") -> str:
    if source == "file":
        return stem
    keys = ("_annotator_id", "_session_id") if source == "annotator" else ("_session_id",)
    for key in keys:
        value = obj.get(key)
        if value is not None:
            if not isinstance(value, str) or not value:
                raise InputError(f"expected a non-empty string, got {describe(value)}", where=where, doc_id=doc_id, field=key)
            return _TIMESTAMP.sub("", value) or value if source == "prefix" else value
    if source == "annotator":
        return stem
    raise InputError(
        f"missing; {option('rater', source)} reads the session id ({option('rater', 'annotator')} falls back to "
        "the file's name)",
        where=where, doc_id=doc_id, field="_session_id",
    )


def _tokens_in_codepoints(tokens, text: str, unit: str, where, doc_id: str):
    """Token offsets counted in ``unit``, converted to code points like the spans."""
    import numpy as np

    starts, ends, ok = to_codepoints(text, tokens[:, 0], tokens[:, 1], unit)
    if not ok.all():
        i = int((~ok).nonzero()[0][0])
        raise out_of_range(text, int(tokens[i, 0]), int(tokens[i, 1]), unit, where, doc_id, f"tokens[{i}]")
    return np.stack([starts, ends], axis=1)


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
