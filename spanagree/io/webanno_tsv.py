"""WebAnno TSV 3.x, the tab-separated export of WebAnno and INCEpTION (one file per document and
annotator).

The format (INCEpTION's user guide, "WebAnno TSV 3.x"): a ``#FORMAT=WebAnno TSV 3.3`` line, one
header line per layer (``#T_SP=TYPE|FEATURE|...`` span layers, ``#T_RL=TYPE|FEATURE|...|BT_TYPE``
relation layers, ``#T_CH=TYPE|...`` chains), then per sentence its text (``#Text=...``, one line per
line of the sentence) and one row per token: ``SENT-TOKEN``, ``BEGIN-END`` (UTF-16 code units, as
Java counts), the token, and one column per feature of each layer, in header order. A cell holds
``_`` (no annotation), or the annotations on that token separated by ``|``, each a value (``*``:
an annotation whose feature is unset) with ``[N]`` when the annotation covers several tokens or is
stacked with others (``ORG[7]|PER[8]``). Rows ``SENT-TOKEN.K`` are parts of a token (an annotation
that begins or ends inside it). ``\\``, ``[``, ``]``, ``|``, ``_``, ``*``, ``;``, ``->``, tab and
line breaks in values are escaped with a backslash.

How it is read (docs/formats.md, "WebAnno TSV 3.x"): raters and documents as the layout says
(:func:`spanagree.io.layers.place`); the text rebuilt from the sentences, each put at its first
token's offset and the gaps filled with spaces, so that every offset indexes the same characters as
in the tool, every token checked against it; spans of the layer and feature chosen
(:mod:`spanagree.io.layers`), each from its first to its last row, a stacked annotation a span of
its own; zero-width annotations excluded, relations, chain links and slot links counted in notes;
WebAnno TSV 2 (a first line `` # de.tudarmstadt...``, no offsets) refused, naming the version.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError, Location, describe
from ..core.builder import CorpusBuilder
from . import Format
from ._text import peek, text_lines
from .layers import read_together
from .offsets import convert_spans, to_codepoints

SUFFIXES = (".tsv",)
TOOL = "WebAnno TSV"
MAGIC = "#FORMAT=WebAnno TSV 3"

_ROW_ID = re.compile(r"^(\d+)-(\d+)(?:\.(\d+))?$")
_OFFSETS = re.compile(r"^(\d+)-(\d+)$")
_REF = re.compile(r"^(\d+-\d+(?:\.\d+)?)(?:\[(\d+)_(\d+)\])?$")


@dataclass
class Layer:
    """One ``#T_..`` header line: its kind (``SP``, ``RL``, ``CH``), type, plain features, and what
    each of its columns holds (``("feature", name)``, ``("role", name)``, ``("target", name)``,
    ``("governor", BT_TYPE)``, ``("chain", name)``)."""

    kind: str
    type: str
    features: list[str]
    columns: list[tuple[str, str]]


@dataclass
class Span:
    layer: str
    start: int  # UTF-16 code units
    end: int
    values: dict[str, str | None]
    where: Location


@dataclass
class Relation:
    """A relation as the file gives it: the dependent's row and annotation id, the governor's."""

    layer: str
    dependent: str
    governor: str
    values: dict[str, str | None]
    where: Location


@dataclass
class Document:
    """One parsed TSV file."""

    path: Path
    version: str
    layers: list[Layer]
    text: str = ""
    spans: list[Span] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    chain_links: int = 0
    slot_links: int = 0
    tokens: list[tuple[int, int]] = field(default_factory=list)  # UTF-16 offsets of the token rows

    def span_layers(self) -> dict[str, list[str]]:
        return {layer.type: layer.features for layer in self.layers if layer.kind == "SP"}

    def in_codepoints(self, spans: list[tuple[int, int, str]], doc_id: str) -> list[tuple[int, int, str]]:
        return convert_spans(spans, self.text, "utf16", Location(str(self.path)), doc_id, "spans")

    def token_array(self) -> np.ndarray | None:
        """The token rows' offsets in code points, an (n, 2) array (for ``--unit token``)."""
        if not self.tokens:
            return None
        starts, ends = zip(*self.tokens)
        first, last, _ = to_codepoints(self.text, starts, ends, "utf16")
        return np.stack([first, last], axis=1).astype(np.int64)


# --- cells ---------------------------------------------------------------------------------------

_UNESCAPE = {"t": "\t", "n": "\n", "r": "\r"}
_ESCAPE = re.compile(r"\\(.)", re.S)


def unescape(raw: str) -> str:
    """A value with its backslash escapes undone (``\\t`` a tab, ``\\n`` a line break, ``\\X`` X)."""
    return _ESCAPE.sub(lambda found: _UNESCAPE.get(found.group(1), found.group(1)), raw) if "\\" in raw else raw


def split_unescaped(raw: str, sep: str) -> list[str]:
    """``raw`` split at every ``sep`` not escaped by a backslash (escapes kept): a piece that
    ends in an odd number of backslashes escapes the ``sep`` after it."""
    parts: list[str] = []
    for piece in raw.split(sep):
        if parts and (len(parts[-1]) - len(parts[-1].rstrip("\\"))) % 2:
            parts[-1] += sep + piece
        else:
            parts.append(piece)
    return parts


def entry(raw: str) -> tuple[str | None, int | None]:
    """``(value, id)`` of one entry of a cell: ``PER[2]`` -> ``("PER", 2)``, ``*`` -> ``(None, None)``.
    The ``[N]`` suffix counts only where its ``[`` is not escaped."""
    ident = None
    if raw.endswith("]"):
        at = raw.rfind("[")
        digits = raw[at + 1:-1]
        backslashes = len(raw[:at]) - len(raw[:at].rstrip("\\"))
        if at >= 0 and digits.isdigit() and backslashes % 2 == 0:
            raw, ident = raw[:at], int(digits)
    return (None if raw == "*" else unescape(raw)), ident


# --- the file ------------------------------------------------------------------------------------


def _header(line: str, where: Location) -> Layer:
    kind, _, spec = line[3:].partition("=")
    parts = spec.split("|")
    layer_type, rest = parts[0], parts[1:]
    if not layer_type:
        raise InputError(f"got {describe(line)}; expected '#T_{kind}=TYPE|FEATURE|...'", where=where, field="header")
    features, columns = [], []
    if kind == "SP":
        i = 0
        while i < len(rest):
            name = rest[i]
            if name.startswith("ROLE_"):
                columns += [("role", name), ("target", name)]
                i += 2  # the next part names the link's target type
                continue
            if name:
                features.append(name)
            columns.append(("feature", name))
            i += 1
        if not columns:
            columns.append(("feature", ""))
    elif kind == "RL":
        if not rest or not rest[-1].startswith("BT_"):
            raise InputError(
                f"got {describe(line)}; expected a relation layer '#T_RL=TYPE|FEATURE|...|BT_BASETYPE'",
                where=where, field="header",
            )
        for name in rest[:-1]:
            if name.startswith("ROLE_"):
                raise InputError("slot features on a relation layer are not supported", where=where, field="header")
            features.append(name)
            columns.append(("feature", name))
        columns.append(("governor", rest[-1]))
    elif kind == "CH":
        columns = [("chain", name) for name in (rest or ["", ""])[:2]]
        columns += [("chain", "")] * (2 - len(columns))
    else:
        raise InputError(f"got {describe(line)}; expected a layer header #T_SP, #T_RL or #T_CH", where=where,
                         field="header")
    return Layer(kind, layer_type, features, columns)


def parse(path: Path, tick=None) -> Document:
    """Parse one WebAnno TSV 3.x file (every annotation of every layer)."""
    lines = list(text_lines(path))
    if tick is not None:
        tick(sum(len(line) + 1 for _, line in lines))
    if not lines:
        raise InputError("the file is empty; expected '#FORMAT=WebAnno TSV 3.x'", where=Location(str(path)))
    first_where, first = lines[0]
    if not first.startswith(MAGIC):
        version = "WebAnno TSV 2 (a first line ' # TYPE | FEATURE # ...')" if first.startswith(" # ") else describe(first[:60])
        raise InputError(
            f"got {version}; expected a first line '#FORMAT=WebAnno TSV 3.x' (WebAnno TSV 1 and 2 are not read: "
            "export the documents again from INCEpTION or WebAnno 3 as WebAnno TSV 3)",
            where=first_where, field="#FORMAT",
        )
    doc = Document(path, first.split("=", 1)[1], [])
    columns: list[tuple[Layer, str, str]] = []
    sentences: list[tuple[int, list[str], list[tuple[Location, list[str]]]]] = []  # text lines, rows
    rows_started = False
    for where, line in lines[1:]:
        if line.startswith("#T_"):
            if rows_started:
                raise InputError("a layer header after the first sentence; expected the headers first",
                                 where=where, field="header")
            layer = _header(line, where)
            doc.layers.append(layer)
            columns += [(layer, kind, name) for kind, name in layer.columns]
        elif line.startswith("#Text="):
            if sentences and not sentences[-1][2]:
                sentences[-1][1].append(unescape(line[6:]))  # a sentence of several lines
            else:
                sentences.append((where.line, [unescape(line[6:])], []))
            rows_started = True
        elif line.startswith("#"):
            continue  # other comments (#Sentence.id=...)
        elif not line.strip():
            continue
        else:
            if not sentences:
                raise InputError("a token row before any '#Text=' line", where=where, field="row")
            cells = line.split("\t")
            if len(cells) == len(columns) + 4 and cells[-1] == "":
                cells.pop()  # the trailing tab INCEpTION writes
            if len(cells) != len(columns) + 3:
                raise InputError(
                    f"{len(cells)} columns; expected {len(columns) + 3} (id, offsets, token, and "
                    f"{len(columns)} for the layers in the header)",
                    where=where, field="row",
                )
            sentences[-1][2].append((where, cells))
    doc.text = _rebuild(doc, sentences)
    _annotations(doc, sentences, columns)
    return doc


#: The rebuilt text may be at most this many times the file's size (the gaps between sentences are
#: white space the file leaves out; offsets far beyond that are an error, not a huge allocation).
MAX_GROWTH = 64


def _rebuild(doc: Document, sentences) -> str:
    """The document's text in code points, from its sentences put at their offsets (UTF-16); each
    row's offsets checked to lie in its sentence, and its token to be the text there."""
    placed: list[tuple[int, bytes]] = []
    end = 0
    offsets: list[list[tuple[int, int]]] = []  # each sentence's rows' offsets, parsed once
    for _, lines, rows in sentences:
        encoded = "\n".join(lines).encode("utf-16-le", "surrogatepass")
        parsed: list[tuple[int, int]] = []
        offsets.append(parsed)
        if not rows:
            continue
        where, cells = rows[0]
        token = unescape(cells[2]).encode("utf-16-le", "surrogatepass")
        lead = max(encoded.find(token), 0) // 2 if token else 0
        begin = max(_offsets(cells[1], where)[0] - lead, 0)
        stop = begin + len(encoded) // 2
        for row_where, row in rows:
            first, last = _offsets(row[1], row_where)
            parsed.append((first, last))
            if not begin <= first <= last <= stop:
                raise InputError(
                    f"offsets {first}-{last} lie outside the sentence's text ({begin}-{stop} in UTF-16 code units, "
                    "from its '#Text=' lines placed at its first token); expected offsets within the sentence",
                    where=row_where, field="offsets",
                )
        placed.append((begin, encoded))
        end = max(end, max(last for _, last in parsed))
    limit = MAX_GROWTH * max(doc.path.stat().st_size, 1024) if doc.path.is_file() else end
    if end > limit:
        raise InputError(
            f"offsets reach {end:,}, far beyond the text the file's sentences hold; expected the offsets of the "
            "document the sentences come from", where=Location(str(doc.path)), field="offsets",
        )
    buffer = bytearray(" ".encode("utf-16-le") * end)
    for begin, encoded in placed:
        piece = encoded[: max(0, 2 * end - 2 * begin)]
        buffer[2 * begin: 2 * begin + len(piece)] = piece
    for (_, _, rows), parsed in zip(sentences, offsets):
        for (where, cells), (start, stop) in zip(rows, parsed):
            token = unescape(cells[2])
            if bytes(buffer[2 * start: 2 * stop]) != token.encode("utf-16-le", "surrogatepass"):
                seen = bytes(buffer[2 * start: 2 * stop]).decode("utf-16-le", "replace")
                raise InputError(
                    f"the token {describe(token)} is not the sentence's text at offsets {start}-{stop} "
                    f"({describe(seen)}); expected offsets in UTF-16 code units into the text of the "
                    "'#Text=' lines",
                    where=where, field="offsets",
                )
    try:
        return bytes(buffer).decode("utf-16-le")
    except UnicodeDecodeError:
        raise InputError("the sentences' offsets split a character beyond U+FFFF; expected UTF-16 offsets",
                         where=Location(str(doc.path)), field="offsets") from None


def _offsets(raw: str, where: Location) -> tuple[int, int]:
    found = _OFFSETS.match(raw)
    if found is None or int(found.group(1)) > int(found.group(2)):
        raise InputError(f"got {describe(raw)}; expected 'BEGIN-END' character offsets", where=where, field="offsets")
    return int(found.group(1)), int(found.group(2))


def _annotations(doc: Document, sentences, columns: list[tuple[Layer, str, str]]) -> None:
    extents: dict[tuple, list] = {}  # (layer, id or row position) -> [start, end, values, where]
    for _, _, rows in sentences:
        for where, cells in rows:
            if _ROW_ID.match(cells[0]) is None:
                raise InputError(f"got {describe(cells[0])}; expected a row id 'SENTENCE-TOKEN' or "
                                 "'SENTENCE-TOKEN.PART'", where=where, field="id")
            start, end = _offsets(cells[1], where)
            if "." not in cells[0]:
                doc.tokens.append((start, end))
            at = 3
            for layer in doc.layers:
                own = cells[at: at + len(layer.columns)]
                at += len(layer.columns)
                _layer_cells(doc, layer, own, cells[0], start, end, where, extents)
    for (layer, _), (start, end, values, where) in extents.items():
        doc.spans.append(Span(layer, start, end, values, where))


def _layer_cells(doc: Document, layer: Layer, cells: list[str], row: str, start: int, end: int, where: Location,
                 extents: dict) -> None:
    kinds = [kind for kind, _ in layer.columns]
    if layer.kind == "CH":
        if cells[0] not in ("_", ""):
            doc.chain_links += len(split_unescaped(cells[0], "|"))
        return
    if "role" in kinds:
        role = cells[kinds.index("role")]
        if role not in ("_", ""):
            doc.slot_links += sum(len(split_unescaped(e, ";")) for e in split_unescaped(role, "|"))
    plain = [(i, name) for i, (kind, name) in enumerate(layer.columns) if kind == "feature"]
    if layer.kind == "RL":
        governors = cells[kinds.index("governor")]
        if governors in ("_", ""):
            return
        refs = split_unescaped(governors, "|")
        per_feature = {name: split_unescaped(cells[i], "|") for i, name in plain}
        for n, ref in enumerate(refs):
            found = _REF.match(ref)
            if found is None:
                raise InputError(f"got {describe(ref)}; expected a governor 'SENTENCE-TOKEN' or "
                                 "'SENTENCE-TOKEN[GOVID_DEPID]'", where=where, field=layer.columns[-1][1])
            values = {name: (entry(v[n])[0] if n < len(v) and v[n] != "_" else None) for name, v in per_feature.items()}
            dependent = f"{row}[{found.group(3)}]" if found.group(3) else row
            governor = f"{found.group(1)}[{found.group(2)}]" if found.group(2) else found.group(1)
            doc.relations.append(Relation(layer.type, dependent, governor, values, where))
        return
    # any feature's column may hold the annotations (``_`` beside them: unset); slot features only: the roles
    own = [(name, cells[i]) for i, name in plain] or [("", cells[kinds.index("role")])]
    filled = {name: split_unescaped(cell, "|") for name, cell in own if cell not in ("_", "")}
    if not filled:
        return
    counts = {name: len(items) for name, items in filled.items()}
    if len(set(counts.values())) > 1:
        raise InputError(f"{' and '.join(f'{n} annotation(s) in feature {name!r}' for name, n in counts.items())}; "
                         "expected one entry per stacked annotation in every feature column of the layer",
                         where=where, field=next(iter(counts)))
    for n in range(next(iter(counts.values()))):
        parsed = {name: entry(items[n]) for name, items in filled.items()}
        ident = next((i for _, i in parsed.values() if i is not None), None)
        values = {name: parsed[name][0] if name in parsed else None for _, name in plain}
        key = (layer.type, ident) if ident is not None else (layer.type, (row, n))
        held = extents.get(key)
        if held is None:
            extents[key] = [start, end, values, where]
        else:
            held[0], held[1] = min(held[0], start), max(held[1], end)


# --- reading -------------------------------------------------------------------------------------


def read_tsv_paths(paths: list[Path], builder: CorpusBuilder, *, layer: str | None = None,
                   feature: str | None = None, layout: str | None = None) -> None:
    """Read every TSV file given (a file, an annotator's folder, a document's folder, or a root
    of such folders) together: the layer is chosen once, over all of them."""
    read_together(paths, builder, lambda path: parse(path, builder.tick), SUFFIXES, TOOL, layer, feature, layout)


def looks_like(path: Path, first: dict | None) -> bool:
    """A ``.tsv`` file that begins ``#FORMAT=WebAnno TSV``, or a folder of them (or of folders of them)."""
    if path.is_dir():
        direct = sorted(path.glob("*.tsv"))
        if direct:
            return _magic(direct[0])
        inside = sorted(p for d in path.iterdir() if d.is_dir() for p in d.glob("*.tsv"))
        return bool(inside) and _magic(inside[0])
    return _magic(path)


def _magic(path: Path) -> bool:
    head = peek(path, 64) or ""
    return head.lstrip("\ufeff").startswith("#FORMAT=WebAnno TSV")


FORMAT = Format(
    name="webanno-tsv",
    read=read_tsv_paths,
    together=True,
    sniff=looks_like,
    jsonl=False,
    order=35,
    description="WebAnno TSV 3.x (INCEpTION, WebAnno): a file per document and annotator",
)
