"""BioC, XML and JSON (Comeau et al. 2013, "BioC: a minimalist approach to interoperability for
biomedical text processing", Database bat064): the collections of BioCreative, n2c2 and PubTator
Central. Parsed with the ``bioc`` package (bionlplab, MIT; the ``bioc`` extra), which reads both
encodings into one data model; spanagree only maps that model to spans, as docs/formats.md ("BioC
XML and JSON") says: a document's text is its passages (and their sentences) at their offsets, the
gaps filled with spaces; a span is an annotation at its locations (one discontinuous entity when
there are several, as for brat), labelled by its ``type`` infon (``feature=``); the rater is an
``annotator`` infon, else the layout (:func:`spanagree.io.layers.rater_files`); relations are counted.
"""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from ..errors import InputError, Location, describe
from ..core.builder import CorpusBuilder
from ..core.extras import need
from . import Format
from ._text import peek
from .common import choice
from .brat import DISCONTINUOUS
from .layers import rater_files, rater_files_sniffer
from .offsets import to_codepoints

SUFFIXES = (".xml", ".json")
#: What may stand before an XML file's root: the declaration, a DOCTYPE (BioC.dtd), comments.
_PROLOG = re.compile(r"^(\s*(<\?xml[^>]*\?>|<!DOCTYPE[^>\[]*(\[.*?\])?\s*>|<!--.*?-->))*", re.S)
EXTRA = "bioc"


def load(path: Path) -> Any:
    """The BioC collection of one file, its parse errors as InputErrors naming the file (the
    ``bioc`` package missing: a UsageError naming the extra)."""
    bioc = need(EXTRA, "reading BioC needs the bioc package", "bioc", "bioc.biocjson", "bioc.biocxml")
    try:
        with open(path, encoding="utf-8") as handle:
            if (peek(path, 2048) or "").lstrip("\ufeff \t\r\n").startswith("{"):
                return bioc.biocjson.load(handle)
            return bioc.biocxml.load(handle)
    except Exception as err:  # lxml's XMLSyntaxError, json's errors, KeyError for a missing field ...
        raise InputError(f"cannot be read as BioC ({type(err).__name__}: {err}); expected a BioC <collection> "
                         "(XML) or {\"documents\": [...]} (JSON)", where=Location(str(path))) from None


def document_text(document) -> str:
    """The passages' (or sentences') texts at their offsets, gaps filled with spaces."""
    pieces = []
    for passage in document.passages:
        if passage.text:
            pieces.append((passage.offset, passage.text))
        for sentence in passage.sentences:
            if sentence.text:
                pieces.append((sentence.offset, sentence.text))
    end = max((offset + len(text) for offset, text in pieces), default=0)
    chars = [" "] * end
    for offset, text in pieces:
        chars[offset: offset + len(text)] = text
    return "".join(chars)


def annotations(document):
    """Every annotation of a document: its passages', their sentences', its own."""
    for passage in document.passages:
        yield from passage.annotations
        for sentence in passage.sentences:
            yield from sentence.annotations
    yield from document.annotations


def relations(document) -> int:
    n = len(document.relations)
    for passage in document.passages:
        n += len(passage.relations) + sum(len(s.relations) for s in passage.sentences)
    return n


def _fragments(annotation, text: str, where: Location, doc_id: str, notes: Counter) -> list[tuple[int, int]]:
    """The locations in code points, checked against the annotation's text."""
    if not annotation.locations:
        raise InputError("no location; expected <location offset=... length=...>", where=where, doc_id=doc_id,
                         field=f"annotation {annotation.id}.location")
    spans = []
    for i, loc in enumerate(annotation.locations):
        start, end = loc.offset, loc.offset + loc.length
        if not 0 <= start < end <= len(text):
            raise InputError(
                f"offset {loc.offset}, length {loc.length} out of range; expected a location within the document's "
                f"text (0..{len(text)}, its passages at their offsets)",
                where=where, doc_id=doc_id, field=f"annotation {annotation.id}.location[{i}]",
            )
        spans.append((start, end))
    covered = " ".join(text[s:e] for s, e in spans)
    written = annotation.text or ""
    if written and covered != written and "[...]" not in written and len(spans) == 1:
        starts, ends, ok = to_codepoints(text, [spans[0][0]], [spans[0][1]], "utf16")
        if ok[0] and text[int(starts[0]):int(ends[0])] == written:
            notes["BioC annotation whose offsets count UTF-16 code units, converted"] += 1
            return [(int(starts[0]), int(ends[0]))]
        raise InputError(
            f"the annotation's text {describe(written)} is not the document's text at its location "
            f"({describe(covered)}); expected offsets in characters into the document (passage offsets included)",
            where=where, doc_id=doc_id, field=f"annotation {annotation.id}.text",
        )
    return spans


def read_bioc_paths(paths: list[Path], builder: CorpusBuilder, *, layer: str | None = None,
                    feature: str | None = None, discontinuous: str = "covering") -> None:
    """Read BioC files, folders of them, or folders of annotators' folders, into ``builder``."""
    choice("discontinuous", discontinuous, DISCONTINUOUS)
    for path in paths:
        for file, rater in rater_files(path, _is_bioc, lambda p: p.stem):
            _read_file(file, rater, builder, layer, feature, discontinuous)


def _read_file(path: Path, rater: str, builder: CorpusBuilder, layer, feature, discontinuous: str) -> None:
    collection = load(path)
    builder.tick(path.stat().st_size)
    where = Location(str(path))
    key = feature or "type"
    layers = None if layer is None else {n.strip() for n in str(layer).split(",") if n.strip()}
    notes = builder.exclusions.notes
    annotators = sorted({a.infons["annotator"] for d in collection.documents for a in annotations(d)
                         if a.infons.get("annotator")})
    if annotators:
        notes["BioC: raters from the annotations' 'annotator' infon; each reads every document of its file"] += 1
    for document in collection.documents:
        doc_id = str(document.id)
        text = document_text(document)
        per_rater: dict[str, list] = {name: [] for name in (annotators or [rater])}
        for annotation in annotations(document):
            infons = annotation.infons
            if layers is not None and infons.get("type") not in layers:
                notes["BioC: annotations of another type than --layer, not read"] += 1
                continue
            label = infons.get(key)
            if label is None or not str(label).strip():
                present = sorted(infons) or ["none"]
                raise InputError(
                    f"no {key!r} infon; expected the label in the {key!r} infon (name another with --feature); "
                    f"this annotation's infons are: {', '.join(present)}",
                    where=where, doc_id=doc_id, field=f"annotation {annotation.id}.infon",
                )
            fragments = _fragments(annotation, text, where, doc_id, notes)
            owner = (infons.get("annotator") or "") if annotators else rater
            if owner not in per_rater:
                raise InputError("an annotation without the 'annotator' infon in a file whose other annotations "
                                 "have one; expected it on every annotation", where=where, doc_id=doc_id,
                                 field=f"annotation {annotation.id}.infon")
            if len(fragments) > 1 and discontinuous == "covering":
                notes["discontinuous BioC annotation (several locations), scored as its covering span"] += 1
                per_rater[owner].append((fragments[0][0], max(e for _, e in fragments), str(label)))
            else:
                if len(fragments) > 1:
                    notes[f"discontinuous BioC annotation, scored as its {len(fragments)} locations"] += 1
                per_rater[owner].extend((s, e, str(label)) for s, e in fragments)
        n_relations = relations(document)
        if n_relations:
            notes["BioC relations read, not scored"] += n_relations
        for name, spans in per_rater.items():
            builder.add(doc_id, doc_id, text, name, spans, where)
    if not collection.documents:
        notes[f"BioC collection with no document: {path.name}"] += 1


def _is_bioc(path: Path) -> bool:
    """A BioC XML file (its root is ``<collection>``) or BioC JSON (``"documents"`` beside ``"source"``)."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        return False
    head = peek(path, 4096) or ""
    if suffix == ".xml":
        return _PROLOG.sub("", head.lstrip("\ufeff")).lstrip().startswith("<collection")
    return head.lstrip("\ufeff \t\r\n").startswith("{") and '"documents"' in head and '"source"' in head


FORMAT = Format(
    name="bioc",
    read=read_bioc_paths,
    together=True,
    sniff=rater_files_sniffer(_is_bioc),
    jsonl=False,
    order=37,
    description="BioC XML or JSON collections (needs the bioc extra): a file or folder per annotator",
)
