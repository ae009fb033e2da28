"""brat standoff: one directory per annotator, holding ``NAME.txt`` and ``NAME.ann`` pairs.

- rater: the directory's name (a single ``NAME.ann`` file may also be given, and its directory
  names the rater); a project root whose sub-directories hold ``.ann`` files is one corpus, each
  sub-directory a rater. Only the files directly in a directory are read;
- document: ``NAME``, with the text of ``NAME.txt`` read as UTF-8 with its line breaks kept, so
  that brat's character offsets index it exactly;
- spans: the text-bound annotations ``T1<TAB>TYPE START END<TAB>covered text``, the covered text
  checked against the document's text (``check_text=``; brat joins a discontinuous entity's
  fragments with a space). A discontinuous annotation (``TYPE 0 5;16 23``) is one entity, scored
  as its covering span or as its fragments (``discontinuous=``); all annotators' directories are
  read together, to count the covering spans on which raters agree while their fragments differ;
- relations (``R``), events (``E``), attributes (``A``, ``M``), normalizations (``N``) and
  equivalence sets (``*``) are read into the corpus's structure (:func:`read_structure`); notes
  (``#``) are ignored and counted;
- a ``NAME.txt`` without its ``NAME.ann`` is a document the rater did not submit (counted); a
  ``NAME.ann`` without its ``NAME.txt`` is an error, since its offsets cannot be checked.

The options, CRLF line breaks, and how events, attributes and equivalences become relations:
docs/formats.md, "brat" and "Relations, events and attributes".
"""
from __future__ import annotations

from pathlib import Path

from ..errors import InputError, Location, describe
from ..core.model import SpanTuple
from ..core.builder import CorpusBuilder
from . import Format
from ._text import read_text, text_lines
from .common import check_text_hint, choice, same_text, text_check

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


def read_brat_paths(
    paths: list[Path],
    builder: CorpusBuilder,
    *,
    check_text: bool | str = "whitespace",
    discontinuous: str = "covering",
) -> None:
    """Read every annotator's brat directory (or ``.ann`` file, or project root of annotator
    directories) together, so that covering spans whose raters agree on the extent but not on the
    fragments can be counted (they match under the exact rule)."""
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
    symmetric = _symmetric_types(path if path.is_dir() else path.parent)  # annotation.conf, once per folder
    for ann in anns:
        _read_pair(ann, rater, builder, check, discontinuous, shapes, symmetric)
    for txt in unannotated:
        text = read_text(txt)
        builder.tick(len(text))
        builder.skip(txt.stem, txt.stem, text, Location(str(txt)), rater, "brat .txt without its .ann (not submitted)")


def _read_pair(
    ann: Path, rater: str, builder: CorpusBuilder, check: str, discontinuous: str, shapes: dict,
    symmetric: frozenset[str] = frozenset(),
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
    event_trigger = _event_triggers(lines, doc_id)
    triggers = set(event_trigger.values())
    bound: list[tuple[str, str, list]] = []  # every T line parsed: (id, label, fragments), for relations
    spans: list[SpanTuple] = []
    extra = 0  # fragments beyond the first of discontinuous entities scored apart
    structured = False
    for where, line in lines:
        if not line.strip():
            continue
        kind = line[0]
        if kind == "T":
            ann_id, label, fragments = _text_bound(line, text, where, doc_id, check)
            bound.append((ann_id, label, fragments))
            if ann_id in triggers:
                builder.exclude_span("brat event trigger (not an entity)")
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
        elif kind == "#":
            builder.exclude_span(f"brat {IGNORED[kind]} ({kind}) ignored")
        elif kind in IGNORED:
            structured = True
        else:
            raise InputError(
                f"got {describe(line.split(chr(9), 1)[0])}; expected an annotation id starting with "
                "T (text-bound), R, E, A, M, N, # or *",
                where=where, doc_id=doc_id, field="id",
            )
    builder.add(doc_id, doc_id, text, rater, spans, Location(str(ann)))
    if extra:
        builder.parts(doc_id, rater, extra)
    if structured:
        read_structure(lines, bound, event_trigger, builder, doc_id, rater, discontinuous, symmetric)


def read_structure(
    lines: list[tuple[Location, str]], bound: list[tuple[str, str, list]], event_trigger: dict[str, str],
    builder: CorpusBuilder, doc_id: str, rater: str, discontinuous: str, symmetric: frozenset[str],
) -> None:
    """The ``R``, ``E``, ``A``/``M``, ``N`` and ``*`` lines of one ``.ann`` into the builder's
    structure for (``doc_id``, ``rater``), their ``T`` ids (``bound``, as :func:`_read_pair` parsed
    them; ``event_trigger``: each event's trigger id) resolved to the spans as scored."""
    pending = builder.structure(doc_id, rater)
    triggers = set(event_trigger.values())
    span_of: dict[str, SpanTuple | None] = {}  # T id -> its span as scored (None: scored as fragments)
    for ann_id, label, fragments in bound:
        whole = (fragments[0][0], max(end for _, end in fragments), label)
        span_of[ann_id] = None if len(fragments) > 1 and discontinuous == "fragments" else whole
        if ann_id in triggers:
            pending.extra_spans.append(whole)

    def target(ref: str, where: Location, place: str) -> SpanTuple | None:
        """The span a T or E id stands for; None when it is not scored as one span (counted by
        the caller); an unknown id is an error."""
        ref = event_trigger.get(ref, ref)
        if ref not in span_of:
            raise _Undefined(ref, where, place)
        return span_of[ref]

    def argument(text_field: str, where: Location, place: str) -> tuple[str, str]:
        role, _, ref = text_field.partition(":")
        if not role or not ref:
            raise InputError(
                f"got {describe(text_field)}; expected ROLE:ID", where=where, doc_id=doc_id, field=place
            )
        return role, ref

    equivalences: list[tuple[list[str], Location]] = []
    for where, line in lines:
        kind = line[:1]
        if kind not in "REAMN*" or not kind:
            continue
        try:
            _structure_line(kind, line, where, doc_id, target, argument, symmetric, pending, equivalences)
        except _Undefined as undefined:
            _count_undefined(undefined, pending.excluded_attributes if kind in "AMN" else pending.excluded_relations, pending)
    for where, ref, place in pending.undefined_at[:1]:
        builder.exclusions.notes[
            f"brat annotation pointing at an id its .ann does not define: first {ref!r} at {where}, field {place}"
        ] += 1
    _equivalence_relations(equivalences, span_of, pending, builder)


def _count_undefined(undefined: "_Undefined", counter, pending) -> None:
    """brat's own tools refuse an id a file does not define; hand-edited projects have them (a
    deleted entity whose relations stayed): the relation or attribute is counted, not fatal, and
    the first place is noted."""
    counter["points at an id not defined in its .ann file"] += 1
    pending.undefined_at.append((undefined.where, undefined.ref, undefined.place))


class _Undefined(Exception):
    """A brat line names an id its file does not define."""

    def __init__(self, ref: str, where: Location, place: str) -> None:
        super().__init__(ref)
        self.ref, self.where, self.place = ref, where, place


def _structure_line(kind, line, where, doc_id, target, argument, symmetric, pending, equivalences) -> None:
    """One ``R``, ``E``, ``A``/``M``, ``N`` or ``*`` line into ``pending`` (equivalence sets into
    ``equivalences``, merged per file afterwards)."""
    fields = line.split("\t")
    words = fields[1].split() if len(fields) > 1 else []
    if kind == "R":
        if len(words) != 3:
            raise InputError(
                f"got {describe(line)}; expected 'R1<TAB>TYPE Arg1:T1 Arg2:T2'", where=where, doc_id=doc_id,
                field="arguments",
            )
        (_, head_ref), (_, child_ref) = argument(words[1], where, "Arg1"), argument(words[2], where, "Arg2")
        head, child = target(head_ref, where, "Arg1"), target(child_ref, where, "Arg2")
        if head is None or child is None:
            pending.excluded_relations["endpoint is a discontinuous entity scored as fragments"] += 1
            return
        pending.relations.append((head, child, words[0], words[0] in symmetric, "relation", where, fields[0]))
    elif kind == "E":
        head = target(words[0].split(":", 1)[1], where, "trigger")
        for i, word in enumerate(words[1:], 1):
            role, ref = argument(word, where, f"argument {i}")
            try:
                child = target(ref, where, f"argument {i} ({role})")
            except _Undefined as undefined:
                _count_undefined(undefined, pending.excluded_relations, pending)
                continue
            if head is None or child is None:
                pending.excluded_relations["endpoint is a discontinuous entity scored as fragments"] += 1
                continue
            pending.relations.append((head, child, role.rstrip("0123456789") or role, False, "event", where, fields[0]))
    elif kind in "AM":
        if len(words) not in (2, 3):
            raise InputError(
                f"got {describe(line)}; expected 'A1<TAB>NAME ID [VALUE]'", where=where, doc_id=doc_id, field="attribute",
            )
        span = target(words[1], where, "target")
        if span is None:
            pending.excluded_attributes["on a discontinuous entity scored as fragments"] += 1
            return
        value = words[2] if len(words) == 3 else True
        pending.attributes.append((span, words[0], value, where, fields[0]))
    elif kind == "N":
        if len(words) != 3 or ":" not in words[2]:
            raise InputError(
                f"got {describe(line)}; expected 'N1<TAB>Reference ID RESOURCE:ENTRY<TAB>text'", where=where,
                doc_id=doc_id, field="normalization",
            )
        span = target(words[1], where, "target")
        resource, _, entry = words[2].partition(":")
        if span is None:
            pending.excluded_attributes["on a discontinuous entity scored as fragments"] += 1
            return
        pending.attributes.append((span, f"norm:{resource}", entry, where, fields[0]))
    elif kind == "*":
        if len(words) < 3:
            raise InputError(
                f"got {describe(line)}; expected '*<TAB>TYPE ID ID ...'", where=where, doc_id=doc_id, field="members",
            )
        for ref in words[1:]:
            target(ref, where, "members")
        equivalences.append(([words[0], *words[1:]], where))


def _equivalence_relations(sets: list[tuple[list[str], Location]], span_of: dict, pending, builder: CorpusBuilder) -> None:
    """Equivalence sets (``*``) of one type that share a member are one class; every two members of
    a class are a symmetric relation. A member listed twice (a cycle, ``T1 T2 T1``) and sets merged
    into one are counted in notes."""
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def root(node):
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    where_of = {}
    for (kind, *members), where in sets:
        if len(set(members)) < len(members):
            builder.exclusions.notes["brat equivalence set listing a member twice (read once)"] += 1
        for member in members:
            node = (kind, member)
            parent.setdefault(node, node)
            where_of.setdefault(node, where)
        for member in members[1:]:
            a, b = root((kind, members[0])), root((kind, member))
            if a != b:
                parent[b] = a
    classes: dict = {}
    for node in parent:
        classes.setdefault(root(node), []).append(node)
    if len(classes) < len(sets):
        builder.exclusions.notes["brat equivalence sets sharing a member, merged"] += len(sets) - len(classes)
    for members in classes.values():
        kind = members[0][0]
        spans = sorted({span_of[m] for _, m in members if span_of[m] is not None})
        if any(span_of[m] is None for _, m in members):
            pending.excluded_relations["endpoint is a discontinuous entity scored as fragments"] += 1
        for i, head in enumerate(spans):
            for child in spans[i + 1:]:
                pending.relations.append((head, child, kind, True, "equivalence", where_of[members[0]], "*"))


def _symmetric_types(folder: Path) -> frozenset[str]:
    """Relation types the project's ``annotation.conf`` (in the folder or a parent) declares
    symmetric (``TYPE Arg1:X, Arg2:X, <REL-TYPE>:symmetric-transitive``)."""
    for place in (folder, *folder.parents):
        conf = place / "annotation.conf"
        if conf.is_file():
            section, found = "", set()
            for line in read_text(conf).splitlines():
                line = line.strip()
                if line.startswith("["):
                    section = line
                elif section == "[relations]" and "symmetric" in line and line and not line.startswith("#"):
                    found.add(line.split()[0])
            return frozenset(found)
    return frozenset()


def _event_triggers(lines: list[tuple[Location, str]], doc_id: str) -> dict[str, str]:
    """Each event's trigger, the id of the text-bound annotation it uses (``E1<TAB>TYPE:T3 ...``)."""
    triggers: dict[str, str] = {}
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
        triggers[fields[0]] = head.split(":", 1)[1]
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
        if not same_text(fields[2], covered, check):
            raise InputError(
                f"the annotation's text {describe(fields[2])} is not the document's text at these offsets "
                f"({describe(covered)}); expected offsets into the .txt read as UTF-8 with its line breaks "
                f"kept ({check_text_hint(check)})",
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
    read=read_brat_paths,
    together=True,
    sniff=looks_like,
    jsonl=False,
    order=40,
    description="brat standoff: a directory of NAME.txt + NAME.ann per annotator",
)
