"""What :func:`spanagree.measures.chance.candidates.build_items` takes, read: the token offsets of
each document, or a JSONL file of candidate spans (docs/chance-corrected.md)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from ..core.model import Corpus
from ..errors import InputError, describe
from .common import json_lines, require
from .docbin import blank


def document_tokens(corpus: Corpus, language: str, docs: np.ndarray | None = None) -> dict[int, np.ndarray]:
    """Token offsets per document (default: every document with an annotation): the input's,
    else a blank spaCy tokenizer's."""
    out = {}
    tokenizer = None
    for d in (np.unique(corpus.ann_doc) if docs is None else docs).tolist():
        toks = corpus.doc_tokens[d]
        if toks is None:
            if tokenizer is None:
                tokenizer = blank(language).tokenizer
            doc = tokenizer(corpus.texts[d])
            toks = np.array([(t.idx, t.idx + len(t)) for t in doc], dtype=np.int64).reshape(-1, 2)
        out[d] = toks
    return out


def read_candidates(path: str | Path, corpus: Corpus) -> tuple[np.ndarray, np.ndarray, np.ndarray, Counter]:
    """Read ``{"doc_id": str, "spans": [{"start": int, "end": int}, ...]}`` lines (a ``text``, if
    there, must be the raters' text of the document).

    Returns candidate ``doc``, ``start``, ``end`` (sorted, duplicates dropped) and notes.
    """

    index = {doc_id: d for d, doc_id in enumerate(corpus.doc_ids)}
    docs, starts, ends = [], [], []
    notes: Counter = Counter()
    for where, obj in json_lines(Path(path)):
        doc_id = str(require(obj, "doc_id", (str, int), where))
        spans = require(obj, "spans", list, where, doc_id)
        d = index.get(doc_id)
        if d is None:
            notes["candidate lines for documents no rater annotated"] += 1
            continue
        text = obj.get("text")
        if text is not None and text != corpus.texts[d]:  # offsets into another text would mislead
            raise InputError(
                f"got {describe(text)}; expected the raters' text of this document (or no 'text'), "
                "since the candidates' offsets index it",
                where=where, doc_id=doc_id, field="text",
            )
        text_len = len(corpus.texts[d])
        for i, span in enumerate(spans):
            start = span.get("start") if isinstance(span, dict) else None
            end = span.get("end") if isinstance(span, dict) else None
            if type(start) is not int or type(end) is not int or not 0 <= start < end <= text_len:
                raise InputError(
                    f"got {span!r}; expected {{start, end}} integer offsets with 0 <= start < end <= {text_len}",
                    where=where, doc_id=doc_id, field=f"spans[{i}]",
                )
            docs.append(d)
            starts.append(start)
            ends.append(end)
    rows = np.unique(np.array([docs, starts, ends], dtype=np.int64).reshape(3, -1).T, axis=0)
    if len(rows) < len(docs):
        notes["duplicate candidates (kept once)"] += len(docs) - len(rows)
    return rows[:, 0], rows[:, 1], rows[:, 2], notes
