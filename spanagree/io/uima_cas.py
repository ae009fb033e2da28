"""UIMA CAS, as XMI (``.xmi`` with its type system beside it) or CAS JSON (``.json``, the type
system inside), the formats INCEpTION recommends for export; read through dkpro-cassis (the
``inception`` extra: ``pip install 'spanagree[inception]'``).

How it is read (docs/formats.md, "UIMA CAS XMI and CAS JSON"): raters and documents as the layout
says (:func:`spanagree.io.layers.place`); the text is the CAS's document text (its initial view) as
it is, and cassis gives offsets in code points (it converts the files' UTF-16 code units); an XMI
file's type system is :func:`given_typesystem` or :func:`find_typesystem`'s; the span layers are the
annotation types with annotations, less the document's metadata and the relation layers (a
``Governor`` and a ``Dependent`` feature), which are counted in a note.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError, Location
from ..core.builder import CorpusBuilder
from ..core.extras import need
from . import Format
from ._text import peek
from .layers import folder_files, read_together, short_name

SUFFIXES = (".xmi", ".json")
TOOL = "UIMA CAS"
EXTRA = "inception"

#: Types that are never span layers: the document and its metadata, the sofa.
NOT_LAYERS = {
    "uima.tcas.DocumentAnnotation",
    "de.tudarmstadt.ukp.dkpro.core.api.metadata.type.DocumentMetaData",
    "de.tudarmstadt.ukp.dkpro.core.api.metadata.type.TagsetDescription",
}
PRIMITIVE = {"uima.cas.String", "uima.cas.Boolean", "uima.cas.Integer", "uima.cas.Float", "uima.cas.Double",
             "uima.cas.Long", "uima.cas.Short", "uima.cas.Byte"}
#: DKPro Core's token type: its annotations are the document's tokens (``--unit token``).
TOKEN = "de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Token"
#: Features every annotation has (not labels).
BUILT_IN = {"sofa", "begin", "end"}


def cassis():
    """The dkpro-cassis module, or a UsageError that names the extra to install."""
    return need(EXTRA, "reading UIMA CAS (XMI, CAS JSON) and INCEpTION exports needs dkpro-cassis", "cassis")


@dataclass
class Span:
    layer: str
    start: int  # code points
    end: int
    values: dict[str, Any]
    ident: int | None = None  # the annotation's xmi:id, to name it


@dataclass
class Relation:
    """A relation as the CAS gives it: its layer, the governor's and the dependent's span (layer,
    begin, end in code points) and the relation's own label features."""

    layer: str
    governor: tuple[str, int, int] | None
    dependent: tuple[str, int, int] | None
    values: dict[str, Any]


@dataclass
class CasDocument:
    """One CAS: its text, span layers (with their label features), spans and relations."""

    path: Path
    text: str
    layers: dict[str, list[str]]
    spans: list[Span] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    title: str | None = None
    tokens: list[tuple[int, int]] = field(default_factory=list)  # DKPro Core's tokens, for --unit token

    chain_links = slot_links = 0  # WebAnno TSV's, which a CAS does not count

    def span_layers(self) -> dict[str, list[str]]:
        return self.layers

    def in_codepoints(self, spans: list[tuple[int, int, str]], doc_id: str) -> list[tuple[int, int, str]]:
        """The labelled spans as they are (cassis counts code points), once every annotation's
        offsets are checked to lie in the text."""
        for span in self.spans:
            if not 0 <= span.start <= span.end <= len(self.text):
                raise InputError(
                    f"offsets [{span.start}, {span.end}) of a {short_name(span.layer)} annotation (xmi:id {span.ident}) "
                    f"out of range; expected 0 <= begin <= end <= {len(self.text)} (the length of the document's text)",
                    where=Location(str(self.path)), doc_id=doc_id, field=f"{span.layer}.end",
                )
        return spans

    def token_array(self) -> np.ndarray | None:
        return np.array(sorted(self.tokens), dtype=np.int64).reshape(-1, 2) if self.tokens else None


def find_typesystem(path: Path) -> Path:
    """The type system beside an XMI file, or an InputError saying where it was looked for."""
    folder = path.parent
    xml = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() == ".xml")
    named = [p for p in xml if p.name.lower() == "typesystem.xml"]
    if named:
        return named[0]
    typesystems = [p for p in xml if "typeSystemDescription" in (peek(p, 4096) or "")]
    if len(typesystems) == 1:
        return typesystems[0]
    seen = ", ".join(p.name for p in xml) or "no .xml file"
    raise InputError(
        f"no type system beside it (looked for TypeSystem.xml, or one .xml file holding a typeSystemDescription, "
        f"in {folder}; found {seen}); expected the type system the XMI was written with (INCEpTION's UIMA "
        "XMI export puts TypeSystem.xml beside the files)",
        where=Location(str(path)), field="typesystem",
    )


def given_typesystem(typesystem: str | None) -> tuple[Path, ...]:
    """The type system files named by ``typesystem=`` (comma-separated), each checked to exist."""
    if typesystem is None:
        return ()
    paths = tuple(Path(p.strip()) for p in str(typesystem).split(",") if p.strip())
    for p in paths:
        if not p.is_file():
            raise InputError("no such file; expected a UIMA type system (typesystem=)", where=Location(str(p)),
                             field="typesystem")
    return paths


def _load_typesystem(paths: tuple[Path, ...]) -> Any:
    module = cassis()
    loaded = []
    for p in paths:
        try:
            with open(p, "rb") as handle:
                loaded.append(module.load_typesystem(handle))
        except Exception as err:
            raise InputError(f"cannot be read as a UIMA type system ({type(err).__name__}: {err})",
                             where=Location(str(p)), field="typesystem") from None
    merged = loaded[0]
    for other in loaded[1:]:
        merged = module.merge_typesystems(merged, other)
    return merged


def load(path: Path, typesystems: dict, given: tuple[Path, ...] = ()) -> Any:
    """The CAS of one file (XMI or CAS JSON), its errors as InputErrors naming the file; an XMI
    file's type system is ``given`` (merged) or the one beside it."""
    module = cassis()
    try:
        if path.suffix.lower() == ".json":
            with open(path, "rb") as handle:
                return module.load_cas_from_json(handle)
        key = given or (find_typesystem(path),)
        if key not in typesystems:
            typesystems[key] = _load_typesystem(key)
        with open(path, "rb") as handle:
            return module.load_cas_from_xmi(handle, typesystem=typesystems[key])
    except InputError:
        raise
    except Exception as err:  # cassis raises TypeNotFoundError, XMLSyntaxError, ValueError, KeyError ...
        detail = str(err) or type(err).__name__
        hint = ("; expected every type the file uses in its type system (the type system beside it may be of "
                "another project or incomplete)" if "type" in detail.lower() else "")
        raise InputError(f"cannot be read as UIMA CAS ({type(err).__name__}: {detail}){hint}",
                         where=Location(str(path)), field="cas") from None


def _label_features(ts, type_) -> list[str]:
    return [f.name for f in type_.all_features
            if f.name not in BUILT_IN and (f.rangeType.name in PRIMITIVE or ts.subsumes("uima.cas.String", f.rangeType.name))]


def _is_relation(type_) -> bool:
    names = {f.name for f in type_.all_features}
    return "Governor" in names and "Dependent" in names


def parse(path: Path, typesystems: dict, tick=None, given: tuple[Path, ...] = ()) -> CasDocument:
    """Read one CAS file: every span layer with annotations, its spans, and its relations."""
    cas = load(path, typesystems, given)
    if tick is not None:
        tick(path.stat().st_size)
    ts = cas.typesystem
    text = cas.sofa_string or ""
    doc = CasDocument(path, text, {})
    every = getattr(cas, "select_all_annotations", None) or cas.select_all  # cassis < 0.10 has select_all
    kinds: dict[str, tuple[bool, bool, list[str]]] = {}  # type -> (a layer?, a relation?, its label features)
    for fs in every():
        type_ = fs.type
        name = type_.name
        if name == "de.tudarmstadt.ukp.dkpro.core.api.metadata.type.DocumentMetaData":
            doc.title = getattr(fs, "documentTitle", None)
        kind = kinds.get(name)
        if kind is None:  # what a type is, worked out once per type
            layer = name not in NOT_LAYERS and ts.subsumes("uima.tcas.Annotation", name)
            kind = kinds[name] = (layer, layer and _is_relation(type_), _label_features(ts, type_) if layer else [])
        layer, relation, features = kind
        if not layer:
            continue
        if name == TOKEN:
            doc.tokens.append((fs.begin, fs.end))
        if relation:
            ends = [getattr(fs, end, None) for end in ("Governor", "Dependent")]
            spans = [None if e is None else (e.type.name, e.begin, e.end) for e in ends]
            doc.relations.append(Relation(name, spans[0], spans[1], {f: fs.get(f) for f in features}))
            continue
        doc.layers.setdefault(name, features)
        doc.spans.append(Span(name, fs.begin, fs.end, {f: fs.get(f) for f in features}, fs.xmiID))
    return doc


def read_cas_paths(paths: list[Path], builder: CorpusBuilder, *, layer: str | None = None,
                   feature: str | None = None, layout: str | None = None, typesystem: str | None = None) -> None:
    """Read every CAS file given (files, annotators' or documents' folders, or a root of them)
    together: the layer is chosen once, over all of them."""
    typesystems: dict = {}
    given = given_typesystem(typesystem)
    read_together(paths, builder, lambda path: parse(path, typesystems, builder.tick, given), SUFFIXES, TOOL,
                  layer, feature, layout, keep=_is_cas)


def _is_cas(path: Path) -> bool:
    """An ``.xmi`` file, or a ``.json`` file that is CAS JSON (``%TYPES``, ``%FEATURE_STRUCTURES``)."""
    suffix = path.suffix.lower()
    if suffix == ".xmi":
        return True
    if suffix != ".json":
        return False
    head = peek(path, 4096) or ""
    return head.lstrip("\ufeff \t\r\n").startswith("{") and ('"%TYPES"' in head or '"%FEATURE_STRUCTURES"' in head)


def looks_like(path: Path, first: dict | None) -> bool:
    """An ``.xmi`` file or CAS JSON file, or a folder of them (or of folders of them)."""
    if path.is_dir():
        files = [p for p, _ in folder_files(path)]
        return any(_is_cas(p) for p in files) and not any(p.suffix.lower() == ".jsonl" for p in files)
    return path.is_file() and _is_cas(path)


FORMAT = Format(
    name="uima-cas",
    read=read_cas_paths,
    together=True,
    sniff=looks_like,
    jsonl=False,
    order=36,
    description="UIMA CAS XMI (TypeSystem.xml beside) or CAS JSON (INCEpTION; needs the inception extra)",
)
