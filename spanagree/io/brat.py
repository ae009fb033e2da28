"""brat standoff: one directory per annotator, holding ``NAME.txt`` and ``NAME.ann`` pairs.

- rater: the directory's name (``spanagree score ann1/ ann2/`` compares two annotators); a single
  ``NAME.ann`` file may also be given, and its directory names the rater. A project root whose
  sub-directories hold ``.ann`` files (one folder per annotator) may be given as one path: each
  sub-directory is a rater;
- document: ``NAME``, with the text of ``NAME.txt`` read as UTF-8 with its line breaks kept, so
  that brat's character offsets index it exactly;
- spans: the text-bound annotations ``T1<TAB>TYPE START END<TAB>covered text``. A discontinuous
  annotation (``TYPE 0 5;16 23``, "North ... America") is one entity; by default
  (``discontinuous="covering"``) it is scored as the span that covers all its fragments, so it
  matches another rater's discontinuous entity with the same extent, and never a lone fragment;
  ``discontinuous="fragments"`` scores each fragment as a span of its own (the older reading, under
  which "North" and "America" marked apart agree with "North ... America"). Either way the
  number of such entities is noted in the output. (A match that compares every fragment needs
  spans with gaps, which the aligner does not have; the covering span is exact on the outer
  extent only, and the covering spans on which raters agree while their fragments differ are
  counted in a note: all annotators' directories are read together for this);
- the covered text is checked against the document's text at those offsets (brat joins the
  fragments' texts with a space): ``check_text="whitespace"`` (default) compares with runs of
  white space made one space, ``"exact"`` as they are, ``"off"`` not at all. A ``.txt`` whose
  line breaks became CRLF after the annotation (a git checkout on Windows) is recognised: when
  the covered texts match only with LF line breaks, the text is read with LF and this is counted;
- ignored and counted: relations (``R``), events (``E``) and the text-bound triggers they point
  to (an event trigger is not an entity), attributes (``A``, ``M``), normalizations (``N``),
  notes (``#``) and equivalences (``*``);
- a ``NAME.txt`` without its ``NAME.ann`` is a document the rater did not submit (counted); a
  ``NAME.ann`` without its ``NAME.txt`` is an error, since its offsets cannot be checked.

Only the files directly in the directory are read (not subdirectories).
"""
from __future__ import annotations

import re
from pathlib import Path

from ..errors import InputError, Location, describe, option
from ..core.model import CorpusBuilder, SpanTuple
from . import Format
from ._text import read_text, text_lines
from .common import choice, text_check

IGNORED = {
    "R": "relation",
    "E": "event",
    "A": "attribute",
    "M": "attribute",
    "N": "normalization",
    "#": "note",
    "*": "equivalence",
}


#: ``discontinuous=`` values.
DISCONTINUOUS = ("covering", "fragments")

_SPACES = re.compile(r"\s+")


def read_brat(
    path: Path,
    builder: CorpusBuilder,
    *,
    check_text: bool | str = "whitespace",
    discontinuous: str = "covering",
) -> None:
    """Read one annotator's brat directory (or one ``.ann`` file, or a project root of annotator
    directories) into ``builder``."""
    read_brat_paths([path], builder, check_text=check_text, discontinuous=discontinuous)


def read_brat_paths(
    paths: list[Path],
    builder: CorpusBuilder,
    *,
    check_text: bool | str = "whitespace",
    discontinuous: str = "covering",
) -> None:
    """Read every annotator's brat directory together, so that covering spans whose raters agree
    on the extent but not on the fragments can be counted (they match under the exact rule)."""
    check = text_check(check_text)
    choice("discontinuous", discontinuous, DISCONTINUOUS)
    shapes: dict[tuple, dict[str, tuple]] = {}  # (doc, start, end, label) -> rater -> fragments
    for path in paths:
        folders = [path]
        if path.is_dir():
            inside = annotator_dirs(path)
            if inside and next(path.glob("*.ann"), None) is not None:
                raise InputError(
                    f"holds .ann files and annotator folders ({', '.join(d.name for d in inside[:5])}); a brat "
                    "folder is one annotator's documents or a project of annotator folders: give the folders "
                    "to read, or move the stray .ann files",
                    where=Location(str(path)),
                )
            folders = inside or [path]
        for folder in folders:
            for nested in annotator_dirs(folder) if folder.is_dir() else []:
                builder.exclusions.notes[f"brat folder inside an annotator's folder, not read: {nested}"] += 1
            _read_one(folder, builder, check, discontinuous, shapes)
    differ = sum(
        1 for raters in shapes.values()
        if len(raters) > 1 and len(set(raters.values())) > 1 and any(len(f) > 1 for f in raters.values())
    )
    if differ:
        builder.exclusions.notes[
            "covering spans on which raters agree but whose fragments differ (a match under the exact rule)"
        ] += differ


def annotator_dirs(root: Path) -> list[Path]:
    """The sub-directories of a brat project root that hold ``.ann`` files (one per annotator)."""
    return sorted(d for d in root.iterdir() if d.is_dir() and next(d.glob("*.ann"), None) is not None)


def _read_one(path: Path, builder: CorpusBuilder, check: str, discontinuous: str, shapes: dict) -> None:
    if path.is_dir():
        rater = path.resolve().name
        anns = sorted(path.glob("*.ann"))
        annotated = {p.stem for p in anns}
        unannotated = sorted(p for p in path.glob("*.txt") if p.stem not in annotated)
    else:
        rater = path.resolve().parent.name
        anns, unannotated = [path], []
    for ann in anns:
        _read_pair(ann, rater, builder, check, discontinuous, shapes)
    for txt in unannotated:
        text = read_text(txt)
        builder.tick(len(text))
        builder.skip(txt.stem, txt.stem, text, Location(str(txt)), rater, "brat .txt without its .ann (not submitted)")


def _read_pair(
    ann: Path, rater: str, builder: CorpusBuilder, check: str, discontinuous: str, shapes: dict
) -> None:
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
    if "\r\n" in text and check != "off" and _lf_fits_better(lines, text):
        text = text.replace("\r\n", "\n")
        builder.exclusions.notes["brat .txt with CRLF line breaks read with LF (the annotations' texts match only so)"] += 1
    triggers = _event_triggers(lines, doc_id)
    spans: list[SpanTuple] = []
    extra = 0  # fragments beyond the first of discontinuous entities scored apart
    excluded = builder.exclusions.spans
    for where, line in lines:
        if not line.strip():
            continue
        kind = line[0]
        if kind == "T":
            ann_id, label, fragments = _text_bound(line, text, where, doc_id, check)
            if ann_id in triggers:
                excluded["brat event trigger (not an entity)"] += 1
                builder.n_spans_read += 1
                continue
            if discontinuous == "covering":
                covering = (fragments[0][0], max(end for _, end in fragments), label)
                shapes.setdefault((doc_id, *covering), {})[rater] = tuple(fragments)
                if len(fragments) > 1:
                    builder.exclusions.notes["discontinuous brat entity, scored as its covering span"] += 1
                    spans.append(covering)
                    continue
            if len(fragments) > 1:
                builder.exclusions.notes[f"discontinuous brat entity, scored as its {len(fragments)} fragments"] += 1
                extra += len(fragments) - 1
            spans.extend((start, end, label) for start, end in fragments)
        elif kind in IGNORED:
            excluded[f"brat {IGNORED[kind]} ({kind}) ignored"] += 1
            builder.n_spans_read += 1
        else:
            raise InputError(
                f"got {describe(line.split(chr(9), 1)[0])}; expected an annotation id starting with "
                "T (text-bound), R, E, A, M, N, # or *",
                where=where, doc_id=doc_id, field="id",
            )
    builder.add(doc_id, doc_id, text, rater, spans, Location(str(ann)))
    if extra:
        builder.parts(doc_id, rater, extra)


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


def _lf_fits_better(lines: list[tuple[Location, str]], text: str) -> bool:
    """True when the ``T`` lines' covered texts all match the text with LF line breaks, and not
    all match it with CRLF: the .txt was annotated with LF and its line breaks changed since."""
    lf = text.replace("\r\n", "\n")

    def all_match(t: str) -> bool:
        for _, line in lines:
            fields = line.split("\t", 2)
            if not line.startswith("T") or len(fields) < 3:
                continue
            try:
                fragments = [tuple(map(int, f.split())) for f in fields[1].split(" ", 1)[1].split(";")]
            except (ValueError, IndexError):
                return False
            if " ".join(t[s:e] for s, e in fragments) != fields[2]:
                return False
        return True

    return not all_match(text) and all_match(lf)


def _text_bound(line: str, text: str, where: Location, doc_id: str, check: str):
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
    if check != "off" and len(fields) == 3:
        covered = " ".join(text[s:e] for s, e in fragments)
        if fields[2] != covered and not (
            check == "whitespace" and _SPACES.sub(" ", fields[2]) == _SPACES.sub(" ", covered)
        ):
            tolerance = f"{option('check_text', 'whitespace')} compares with white space collapsed; " if check == "exact" else ""
            raise InputError(
                f"the annotation's text {describe(fields[2])} is not the document's text at these offsets "
                f"({describe(covered)}); expected offsets into the .txt read as UTF-8 with its line breaks "
                f"kept ({tolerance}{option('check_text', 'off')} skips this check)",
                where=where, doc_id=doc_id, field="text",
            )
    return fields[0], label, fragments


def looks_like(path: Path, first: dict | None) -> bool:
    """A directory holding ``*.ann`` files (or sub-directories that do), or an ``.ann`` file."""
    if path.is_dir():
        return next(path.glob("*.ann"), None) is not None or (
            next(path.glob("*.jsonl"), None) is None and bool(annotator_dirs(path))
        )
    return path.suffix == ".ann"


FORMAT = Format(
    name="brat",
    read=read_brat,
    read_many=read_brat_paths,
    sniff=looks_like,
    jsonl=False,
    order=40,
    description="brat standoff: a directory of NAME.txt + NAME.ann per annotator",
)
