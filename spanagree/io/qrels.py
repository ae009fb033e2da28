"""TREC relevance judgments (qrels) from several assessors, one file each.

Each line is ``topic iteration docno relevance``, white-space separated; lines starting with ``#``
are comments (as trec_eval reads them; a ``#`` inside a docno is part of it). The rater is the
file's stem, and the iteration column is ignored, except in trec_eval's multi-assessor layout
(``-R qrels_jg``: ``topic assessor docno relevance``), where column 2 names the assessor (the
judgment group). ``assessor=`` chooses: ``"file"`` (the stem), ``"column"`` (column 2), or
``"auto"`` (default): column 2 when a file judges some topic and docno more than once under
different column-2 values (the multi-assessor layout), else the stem; said in a note.

Relevance judgments are the information-retrieval case of Hripcsak & Rothschild (2005): the
documents an assessor judged relevant are the positives, and the documents nobody judged relevant
give no ``d``. To score them with the span machinery unchanged, every topic becomes one spanagree
document:

- its text lists the docnos that any assessor judged for the topic, sorted, one per line (each
  docno is also a token, so ``unit="token"`` counts the same);
- each assessor's relevant docnos (``relevance >= relevant_at``, default 1, so graded judgments
  can be cut at any grade) are spans over their docno, label ``relevant``;
- an assessor who judged nothing for a topic did not submit it, and is left out of that topic's
  pairs; an assessor who judged the topic but not some docno in the pool reads as having found
  that docno not relevant.

So, per topic and pair of assessors, ``a`` is the number of docnos both judged relevant, ``b`` and
``c`` those only one did, and the report's per-document PSA is the per-topic agreement (the
overlap measure of relevance-assessment studies). The report's headline is the mean over pairs
of PSA on counts summed over topics.

All files are read together, since a topic's text pools every assessor's judgments.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from ..errors import InputError, Location, UsageError, describe, option
from ..core.builder import CorpusBuilder
from . import Format
from ._text import head_lines, text_lines
from .common import choice

LABEL = "relevant"


#: ``assessor=`` values.
ASSESSORS = ("auto", "file", "column")


def read_qrels_files(
    paths: Sequence[Path], builder: CorpusBuilder, *, relevant_at: int = 1, assessor: str = "auto"
) -> None:
    """Read qrels files (one per assessor, or several assessors per file), pooling each topic's
    judged docnos."""
    if type(relevant_at) is not int:
        raise UsageError(f"relevant_at must be an integer relevance grade; got {relevant_at!r}")
    choice("assessor", assessor, ASSESSORS)
    # topic -> rater -> docno -> relevance; and where each rater's judgments of a topic begin
    judged: dict[str, dict[str, dict[str, int]]] = {}
    first_line: dict[tuple[str, str], Location] = {}
    raters: dict[str, Path] = {}
    for path in paths:
        rater = path.stem
        if rater in raters:
            raise UsageError(
                f"{raters[rater]} and {path} have the same stem, so the same assessor name {rater!r}; rename one"
            )
        raters[rater] = path
        by_column = assessor == "column" or assessor == "auto" and _several_assessors(path)
        if by_column and assessor == "auto":
            builder.exclusions.notes["qrels with several assessors per file: column 2 read as the assessor"] += 1
        prefix = (f"{rater}:" if len(paths) > 1 else "") if by_column else None
        _read_file(path, rater, builder, judged, first_line, prefix)
    for topic in sorted(judged):
        pool = sorted({docno for judgments in judged[topic].values() for docno in judgments})
        text = "\n".join(pool)
        offsets = np.empty((len(pool), 2), dtype=np.int64)
        at: dict[str, tuple[int, int]] = {}
        position = 0
        for i, docno in enumerate(pool):
            offsets[i] = at[docno] = position, position + len(docno)
            position += len(docno) + 1
        for rater, judgments in judged[topic].items():
            spans = [(*at[docno], LABEL) for docno, grade in judgments.items() if grade >= relevant_at]
            builder.add(topic, topic, text, rater, spans, first_line[topic, rater], offsets)


def _several_assessors(path: Path) -> bool:
    """True when some topic and docno are judged under two different column-2 values."""
    seen: dict[tuple[str, str], str] = {}
    for _, line in text_lines(path):
        parts = line.split()
        if len(parts) != 4 or line.startswith("#"):
            continue
        if seen.setdefault((parts[0], parts[2]), parts[1]) != parts[1]:
            return True
    return False


def _read_file(
    path: Path, rater: str, builder: CorpusBuilder, judged: dict, first_line: dict, prefix: str | None = None
) -> None:
    """``prefix`` None: the file is one rater; else column 2 is the rater (``prefix`` + it)."""
    lines_at: dict[tuple[str, str, str], int] = {}
    n = 0
    by_column = prefix is not None
    for where, line in text_lines(path):
        builder.tick(len(line) + 1)
        parts = line.split()
        if not parts:
            continue
        if line.startswith("#"):
            builder.exclusions.notes["qrels comment line (#) skipped"] += 1
            continue
        if len(parts) != 4:
            raise InputError(
                f"got {len(parts)} column(s) in {describe(line)}; expected 4: topic iteration docno relevance",
                where=where, field="columns",
            )
        topic, column2, docno, grade = parts
        try:
            relevance = int(grade)
        except ValueError:
            raise InputError(
                f"got {grade!r}; expected an integer relevance grade (column 4)",
                where=where, doc_id=topic, field="relevance",
            ) from None
        n += 1
        who = (prefix or "") + column2 if by_column else rater
        judgments = judged.setdefault(topic, {}).setdefault(who, {})
        first_line.setdefault((topic, who), where)
        if docno in judgments:
            if judgments[docno] != relevance:
                raise InputError(
                    f"docno {docno!r} judged {relevance} here and {judgments[docno]} at line "
                    f"{lines_at[topic, who, docno]}; expected one judgment per topic and docno (if column 2 "
                    f"names the assessor, read it with {option('assessor', 'column')})",
                    where=where, doc_id=topic, field="docno",
                )
            builder.exclude_span("repeated identical qrels judgment (kept once)")
            continue
        judgments[docno] = relevance
        lines_at[topic, who, docno] = where.line
    if not n:
        raise InputError(
            "the file is empty; expected lines 'topic iteration docno relevance'", where=Location(str(path))
        )


def looks_like(path: Path, first: dict | None) -> bool:
    """A ``.qrels`` suffix, or a file whose first lines all have 4 columns, the last an integer."""
    if path.suffix.lower() == ".qrels":
        return True
    rows = [line.split() for line in head_lines(path, (".jsonl", ".json", ".ann")) if not line.startswith("#")]
    return bool(rows) and all(len(p) == 4 and p[3].lstrip("-").isdigit() for p in rows)


FORMAT = Format(
    name="qrels",
    read=read_qrels_files,
    together=True,
    sniff=looks_like,
    jsonl=False,
    order=55,
    description="TREC qrels, one file per assessor: relevant docnos per topic",
)
