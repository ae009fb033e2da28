"""brat standoff: one directory per annotator, holding ``NAME.txt`` and ``NAME.ann`` pairs.

- rater: the directory's name (``spanagree score ann1/ ann2/`` compares two annotators); a single
  ``NAME.ann`` file may also be given, and its directory names the rater;
- document: ``NAME``, with the text of ``NAME.txt`` read as UTF-8 with its line breaks kept, so
  that brat's character offsets index it exactly;
- spans: the text-bound annotations ``T1<TAB>TYPE START END<TAB>covered text``. A discontinuous
  annotation (``TYPE 0 5;9 14``) is scored as its fragments, one span each, and counted. The
  covered text is checked against the document's text at those offsets (``check_text=False``
  skips the check);
- ignored and counted: relations (``R``), events (``E``) and the text-bound triggers they point
  to (an event trigger is not an entity), attributes (``A``, ``M``), normalizations (``N``),
  notes (``#``) and equivalences (``*``);
- a ``NAME.txt`` without its ``NAME.ann`` is a document the rater did not submit (counted); a
  ``NAME.ann`` without its ``NAME.txt`` is an error, since its offsets cannot be checked.

Only the files directly in the directory are read (not subdirectories).
"""
from __future__ import annotations

from pathlib import Path

from ..errors import InputError, Location, describe
from ..model import CorpusBuilder, SpanTuple
from . import Format
from ._text import read_text, text_lines

IGNORED = {
    "R": "relation",
    "E": "event",
    "A": "attribute",
    "M": "attribute",
    "N": "normalization",
    "#": "note",
    "*": "equivalence",
}


def read_brat(path: Path, builder: CorpusBuilder, *, check_text: bool = True) -> None:
    """Read one annotator's brat directory (or one ``.ann`` file) into ``builder``."""
    if path.is_dir():
        rater = path.resolve().name
        anns = sorted(path.glob("*.ann"))
        annotated = {p.stem for p in anns}
        unannotated = sorted(p for p in path.glob("*.txt") if p.stem not in annotated)
    else:
        rater = path.resolve().parent.name
        anns, unannotated = [path], []
    for ann in anns:
        _read_pair(ann, rater, builder, check_text)
    for txt in unannotated:
        text = read_text(txt)
        builder.tick(len(text))
        builder.skip(txt.stem, txt.stem, text, Location(str(txt)), rater, "brat .txt without its .ann (not submitted)")


def _read_pair(ann: Path, rater: str, builder: CorpusBuilder, check_text: bool) -> None:
    doc_id = ann.stem
    txt = ann.with_suffix(".txt")
    if not txt.is_file():
        raise InputError(
            f"no {txt.name} beside it; brat keeps each document's text in NAME.txt next to NAME.ann, "
            "and the offsets cannot be checked without it",
            where=Location(str(ann)),
            doc_id=doc_id,
        )
    text = read_text(txt)
    lines = list(text_lines(ann))
    builder.tick(len(text) + sum(len(line) + 1 for _, line in lines))
    triggers = _event_triggers(lines, doc_id)
    spans: list[SpanTuple] = []
    excluded = builder.exclusions.spans
    for where, line in lines:
        if not line.strip():
            continue
        kind = line[0]
        if kind == "T":
            ann_id, label, fragments = _text_bound(line, text, where, doc_id, check_text)
            if ann_id in triggers:
                excluded["brat event trigger (not an entity)"] += 1
                builder.n_spans_read += 1
                continue
            if len(fragments) > 1:
                builder.exclusions.notes[f"discontinuous brat span, scored as its {len(fragments)} fragments"] += 1
            spans.extend((start, end, label) for start, end in fragments)
        elif kind in IGNORED:
            excluded[f"brat {IGNORED[kind]} ({kind}) ignored"] += 1
        else:
            raise InputError(
                f"got {describe(line.split(chr(9), 1)[0])}; expected an annotation id starting with "
                "T (text-bound), R, E, A, M, N, # or *",
                where=where, doc_id=doc_id, field="id",
            )
    builder.add(doc_id, doc_id, text, rater, spans, Location(str(ann)))


def _event_triggers(lines: list[tuple[Location, str]], doc_id: str) -> set[str]:
    """The ids of the text-bound annotations that events use as triggers (``E1<TAB>TYPE:T3 ...``)."""
    triggers = set()
    for where, line in lines:
        if not line.startswith("E"):
            continue
        fields = line.split("\t")
        head = fields[1].split(" ", 1)[0] if len(fields) > 1 else ""
        if ":" not in head:
            raise InputError(
                f"got {describe(line)}; expected an event 'E1<TAB>TYPE:T1 ROLE:T2 ...'",
                where=where, doc_id=doc_id, field="trigger",
            )
        triggers.add(head.split(":", 1)[1])
    return triggers


def _text_bound(line: str, text: str, where: Location, doc_id: str, check_text: bool):
    """``(id, label, [(start, end), ...])`` of one ``T`` line, validated against the text."""
    fields = line.split("\t", 2)
    if len(fields) < 2:
        raise InputError(
            f"got {describe(line)}; expected 'T1<TAB>TYPE START END<TAB>covered text'",
            where=where, doc_id=doc_id, field="offsets",
        )
    head = fields[1].split(" ", 1)
    label = head[0]
    if not label:
        raise InputError(f"got {describe(fields[1])}; expected an entity type", where=where, doc_id=doc_id, field="type")
    fragments = []
    for fragment in (head[1] if len(head) > 1 else "").split(";"):
        parts = fragment.split()
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise InputError(
                f"got {describe(head[1] if len(head) > 1 else '')}; expected 'START END' character offsets, "
                "fragments of a discontinuous span separated by ';'",
                where=where, doc_id=doc_id, field="offsets",
            )
        start, end = int(parts[0]), int(parts[1])
        if not 0 <= start < end <= len(text):
            raise InputError(
                f"offsets [{start}, {end}) out of range; expected 0 <= start < end <= {len(text)} "
                "(the length of the document's .txt)",
                where=where, doc_id=doc_id, field="offsets",
            )
        fragments.append((start, end))
    if check_text and len(fields) == 3:
        covered = " ".join(text[s:e] for s, e in fragments)
        if fields[2] != covered:
            raise InputError(
                f"the annotation's text {describe(fields[2])} is not the document's text at these offsets "
                f"({describe(covered)}); expected offsets into the .txt read as UTF-8 with its line breaks "
                "kept (check_text=False skips this check)",
                where=where, doc_id=doc_id, field="text",
            )
    return fields[0], label, fragments


def looks_like(path: Path, first: dict | None) -> bool:
    """A directory holding ``*.ann`` files, or an ``.ann`` file."""
    if path.is_dir():
        return next(path.glob("*.ann"), None) is not None
    return path.suffix == ".ann"


FORMAT = Format(
    name="brat",
    read=read_brat,
    sniff=looks_like,
    jsonl=False,
    order=40,
    description="brat standoff: a directory of NAME.txt + NAME.ann per annotator",
)
