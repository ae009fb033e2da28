"""PubTator, the plain-text format of PubTator and of many biomedical NER corpora (NCBI disease,
BioCreative V CDR, tmVar). A small reader of its own: the format is a few lines per document and
the ``bioc`` package's reader gives no line numbers for errors.

Per document, separated by blank lines::

    PMID|t|Title text
    PMID|a|Abstract text
    PMID<TAB>START<TAB>END<TAB>MENTION<TAB>TYPE[<TAB>CONCEPT ID[<TAB>...]]
    PMID<TAB>RELATION TYPE<TAB>ID1<TAB>ID2

The text is the title, a space and the abstract (the abstract's offsets count from the title's
start; any further ``PMID|x|text`` line is appended the same way); the mentions are the spans,
labelled by TYPE and checked against the text; relation lines are counted; raters as for BioC
(docs/formats.md, "PubTator").
"""
from __future__ import annotations

import re
from pathlib import Path

from ..errors import InputError, describe
from ..core.builder import CorpusBuilder
from . import Format
from ._text import peek, text_lines
from .layers import rater_files, rater_files_sniffer, stem

SUFFIXES = (".pubtator.txt", ".pubtator", ".txt")  # longest first
_TEXT = re.compile(r"^([^|\t]+)\|([a-zA-Z]+)\|(.*)$")


def read_pubtator(path: Path, builder: CorpusBuilder) -> None:
    """Read one PubTator file, or a folder of them (or of annotators' folders), into ``builder``."""
    for file, rater in rater_files(path, _is_pubtator, lambda file: stem(file, SUFFIXES)):
        _read_file(file, rater, builder)


def _read_file(path: Path, rater: str, builder: CorpusBuilder) -> None:
    document: dict | None = None
    for where, line in text_lines(path):
        builder.tick(len(line) + 1)
        if not line.strip():
            document = _finish(document, rater, builder)
            continue
        found = _TEXT.match(line)
        if found is not None and "\t" not in line.split("|", 2)[0]:
            pmid, _, text = found.groups()
            if document is not None and document["id"] != pmid:
                document = _finish(document, rater, builder)
            if document is None:
                document = {"id": pmid, "text": text, "spans": [], "where": where, "relations": 0}
            elif document["spans"]:
                raise InputError("a text line after the document's mentions; expected the title and abstract first",
                                 where=where, doc_id=pmid, field="text")
            else:
                document["text"] += " " + text
            continue
        cells = line.split("\t")
        pmid = cells[0]
        if document is None or pmid != document["id"]:
            raise InputError(
                f"got {describe(line)}; expected the title line 'PMID|t|...' of document {pmid!r} before its mentions",
                where=where, doc_id=pmid, field="PMID",
            )
        if len(cells) == 4 and not cells[1].isdigit():
            document["relations"] += 1
            continue
        if len(cells) < 5 or not cells[1].isdigit() or not cells[2].isdigit():
            raise InputError(
                f"got {describe(line)}; expected 'PMID<TAB>START<TAB>END<TAB>MENTION<TAB>TYPE[<TAB>ID]' or a relation "
                "'PMID<TAB>TYPE<TAB>ID1<TAB>ID2'",
                where=where, doc_id=pmid, field="mention",
            )
        start, end, mention, label = int(cells[1]), int(cells[2]), cells[3], cells[4]
        text = document["text"]
        if not 0 <= start < end <= len(text):
            raise InputError(
                f"offsets [{start}, {end}) out of range; expected 0 <= start < end <= {len(text)} (the title, a space "
                "and the abstract)",
                where=where, doc_id=pmid, field="offsets",
            )
        if text[start:end] != mention:
            raise InputError(
                f"the mention {describe(mention)} is not the text at [{start}, {end}) ({describe(text[start:end])}); "
                "expected offsets into the title, a space, and the abstract",
                where=where, doc_id=pmid, field="mention",
            )
        if not label.strip():
            raise InputError("empty; expected the mention's type", where=where, doc_id=pmid, field="type")
        document["spans"].append((start, end, label))
    _finish(document, rater, builder)


def _finish(document: dict | None, rater: str, builder: CorpusBuilder) -> None:
    if document is not None:
        builder.add(document["id"], document["id"], document["text"], rater, document["spans"], document["where"])
        if document["relations"]:
            builder.exclusions.notes["PubTator relations read, not scored"] += document["relations"]
    return None


def _is_pubtator(path: Path) -> bool:
    if not path.name.lower().endswith(SUFFIXES):
        return False
    head = (peek(path, 2048) or "").lstrip("\ufeff \r\n")
    first = head.split("\n", 1)[0]
    return bool(re.match(r"^[^|\t\s]+\|t\|", first))


FORMAT = Format(
    name="pubtator",
    read=read_pubtator,
    sniff=rater_files_sniffer(_is_pubtator),
    jsonl=False,
    order=38,
    description="PubTator (PMID|t|title, PMID|a|abstract, mention lines): a file or folder per annotator",
)
