"""What the UIMA-based formats share (WebAnno TSV, UIMA CAS XMI and JSON, INCEpTION exports):
which span layer and feature hold the label, and who the rater of a file is.

A *layer* is a UIMA annotation type (``de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity``,
``webanno.custom.Span``) and its *features* are the type's own primitive features (``value``,
``identifier``). A span is an annotation of the chosen layer; its label is the chosen feature's
value. How ``layer=`` and ``feature=`` choose them (by default the one custom layer, else the
named-entity layer; ``value``, else the layer's only feature), and how a folder's files are placed
(``layout=``): docs/formats.md, "INCEpTION, WebAnno and UIMA CAS". The output says which layer and
feature were read and why (a note).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..errors import InputError, Location
from .common import choice as one_of

#: The named-entity layer of DKPro Core, INCEpTION's built-in span layer for entities.
NAMED_ENTITY = "de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity"
#: Prefixes of the user-defined layers of INCEpTION (``custom.``) and WebAnno (``webanno.custom.``).
CUSTOM_PREFIXES = ("webanno.custom.", "custom.")

#: The pseudo-user of INCEpTION's exports whose file is the document before annotation.
INITIAL_CAS = "INITIAL_CAS"

#: ``layout=`` values: who the rater of a file is.
LAYOUTS = ("auto", "annotator-folders", "document-folders")


def short_name(type_name: str) -> str:
    """``de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity`` -> ``NamedEntity``."""
    return type_name.rsplit(".", 1)[-1]


@dataclass
class Choice:
    """The layers read, the feature of each (None: the layer has none), and why (for the note)."""

    layers: list[str]
    features: dict[str, str | None]
    reason: str
    prefix: bool = False  # several layers: labels carry the layer's short name

    def label(self, layer: str, value: str | None) -> str:
        """The label of an annotation of ``layer`` whose feature holds ``value``."""
        text = short_name(layer) if value is None or value == "" else value
        return f"{short_name(layer)}:{text}" if self.prefix and value not in (None, "") else text

    def note(self, tool: str) -> str:
        parts = [f"{layer} (feature {self.features[layer] or 'none: labelled with the layer name'})"
                 for layer in self.layers]
        return f"{tool}: span layer read: {'; '.join(parts)} [{self.reason}]"


def _match(name: str, declared: Iterable[str]) -> str | None:
    declared = list(declared)
    if name in declared:
        return name
    found = [d for d in declared if short_name(d) == name]
    return found[0] if len(found) == 1 else None


def choose(
    declared: dict[str, Sequence[str]],
    used: Iterable[str],
    layer: str | None,
    feature: str | None,
    where: Location,
) -> Choice:
    """The span layers and features to read.

    ``declared``: every span layer there is, with its features, in the order found; ``used``: the
    layers with at least one annotation. An unknown layer or feature is an InputError at ``where``
    that lists the layers (or the layer's features) there are.
    """
    listing = "; ".join(f"{name} ({', '.join(f for f in feats if f) or 'no feature'})" for name, feats in declared.items())
    if layer is not None:
        names = [n.strip() for n in str(layer).split(",") if n.strip()]
        chosen = []
        for name in names:
            found = _match(name, declared)
            if found is None:
                raise InputError(
                    f"layer={name!r} is not a span layer here; the span layers are: {listing or 'none'}",
                    where=where, field="layer",
                )
            chosen.append(found)
        reason = "named with layer="
    else:
        used = set(used)
        pool = [n for n in declared if n in used] or list(declared)
        custom = [n for n in pool if n.startswith(CUSTOM_PREFIXES)]
        if len(custom) == 1:
            chosen, reason = custom, "chosen: the one custom span layer with annotations"
        elif not custom and NAMED_ENTITY in pool:
            chosen, reason = [NAMED_ENTITY], "chosen: the named-entity layer (no custom span layer)"
        elif len(pool) == 1:
            chosen, reason = pool, "chosen: the one span layer"
        else:
            raise InputError(
                "cannot tell which span layer holds the labels (no single custom layer and no named-entity "
                f"layer alone); name it with --layer (and --feature); the span layers are: {listing or 'none'}",
                where=where, field="layer",
            )
    features: dict[str, str | None] = {}
    for name in chosen:
        own = [f for f in declared[name] if f]
        if feature is not None:
            if feature not in own:
                raise InputError(
                    f"feature={feature!r} is not a feature of layer {name}; its features are: "
                    f"{', '.join(own) or 'none'}",
                    where=where, field="feature",
                )
            features[name] = feature
        elif "value" in own:
            features[name] = "value"
        elif len(own) == 1:
            features[name] = own[0]
        elif not own:
            features[name] = None
        else:
            raise InputError(
                f"cannot tell which feature of layer {name} holds the label; name it with --feature; its "
                f"features are: {', '.join(own)}",
                where=where, field="feature",
            )
    return Choice(chosen, features, reason, prefix=len(chosen) > 1)


def choose_for(docs: Sequence, layer: str | None, feature: str | None, notes, tool: str) -> Choice:
    """:func:`choose` over parsed documents (each with ``span_layers()``, ``spans`` and ``path``),
    the choice said in a note. A layer or feature named that holds nothing in the files read (no
    annotation of the layer, or the feature unset on every one) is an InputError listing what they hold."""
    declared: dict[str, list[str]] = {}
    used: set[str] = set()
    for doc in docs:
        for name, features in doc.span_layers().items():
            declared.setdefault(name, list(features))
        used.update(span.layer for span in doc.spans)
    where = Location(str(docs[0].path)) if docs else Location("")
    choice = choose(declared, used, layer, feature, where)
    for name in choice.layers:
        spans = [span.values for doc in docs for span in doc.spans if span.layer == name]
        held = sorted({key for values in spans for key, value in values.items() if value not in (None, "")})
        if layer is not None and not spans:
            raise InputError(f"layer={short_name(name)!r} has no annotation in the files read; the span layers "
                             f"with annotations are: {', '.join(sorted(used)) or 'none'}", where=where, field="layer")
        if feature is not None and spans and feature not in held:
            raise InputError(f"feature={feature!r} is unset on every annotation of layer {name}; the features "
                             f"set there are: {', '.join(held) or 'none'}", where=where, field="feature")
    notes[choice.note(tool)] += 1
    return choice


def labelled(choice: Choice, spans: Iterable, builder, tool: str) -> list[tuple[int, int, str]]:
    """``(start, end, label)`` of the spans (each with ``layer``, ``start``, ``end``, ``values``) of
    the chosen layers; the others' annotations, zero-width annotations (excluded) and unset
    features are counted."""
    notes = builder.exclusions.notes
    out = []
    for span in spans:
        if span.layer not in choice.layers:
            notes[f"{tool}: annotations of span layer {short_name(span.layer)} not read (--layer chooses)"] += 1
            continue
        if span.start == span.end:
            builder.exclude_span(f"{tool}: zero-width annotation (no text to agree on)")
            continue
        name = choice.features[span.layer]
        value = span.values.get(name) if name is not None else None
        if name is not None and value is None:
            notes[f"{tool}: annotations of {short_name(span.layer)} whose feature {name!r} is unset, labelled with "
                  "the layer's name"] += 1
        out.append((span.start, span.end, choice.label(span.layer, None if value is None else str(value))))
    return out


@dataclass
class Placed:
    """One file of one document by one rater, as the layout says."""

    path: Path
    rater: str
    doc_id: str


def rater_files(path: Path, is_format, rater_of) -> list[tuple[Path, str]]:
    """``(file, rater)`` for the formats whose files hold many documents (BioC, PubTator), laid out
    as people keep them: a file is one rater's, named after it (``rater_of(file)``), given alone or
    in a folder of such files (as doccano's export); in a folder of folders each folder is one
    rater's (brat's layout)."""
    if path.is_file():
        return [(path, rater_of(path))]
    return [(p, rater_of(p) if folder == path else folder.name) for p, folder in folder_files(path, is_format)]


def folder_files(folder: Path, keep: Callable[[Path], bool] = bool) -> list[tuple[Path, Path]]:
    """``(file, its folder)`` for the files of a folder that ``keep`` keeps, or, when it holds
    none, for those of its sub-folders."""
    entries = sorted(folder.iterdir())
    files = [(p, folder) for p in entries if p.is_file() and keep(p)]
    return files or [(p, d) for d in entries if d.is_dir() for p in sorted(d.iterdir()) if p.is_file() and keep(p)]


def rater_files_sniffer(is_format) -> Callable[[Path, dict | None], bool]:
    """The ``sniff`` of a format of :func:`rater_files`: a file of the format, or a folder (or a
    folder of folders) holding some among its first 20 files."""
    def sniff(path: Path, first: dict | None) -> bool:
        if not path.is_dir():
            return path.is_file() and is_format(path)
        return any(is_format(p) for p, _ in folder_files(path)[:20])

    return sniff


def collect(paths: Sequence[Path], suffixes: tuple[str, ...]) -> list[tuple[Path, Path]]:
    """``(file, folder)`` for every file with one of ``suffixes``: files given, the files directly
    in a folder given, or in its sub-folders when it holds none itself (a project root)."""
    found: list[tuple[Path, Path]] = []
    for path in paths:
        inside = folder_files(path, lambda p: p.name.lower().endswith(suffixes)) if path.is_dir() else [(path, path.parent)]
        if not inside:
            raise InputError(f"holds no {' or '.join(suffixes)} files, nor folders of them", where=Location(str(path)))
        found.extend(inside)
    return found


def stem(path: Path, suffixes: tuple[str, ...]) -> str:
    name = path.name
    for suffix in suffixes:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def place(
    found: list[tuple[Path, Path]], texts: dict[Path, str], layout: str, suffixes: tuple[str, ...], notes, tool: str
) -> list[Placed]:
    """Who rated what: in ``annotator-folders`` a folder is a rater and its files its documents
    (brat's layout); in ``document-folders`` a folder is a document and each file in it one rater's
    annotation, named after the rater (INCEpTION's export keeps ``annotation/DOC/USER.tsv``).
    ``auto``: when every folder of two files or more holds one text in all its files, folders are
    documents; otherwise they are annotators (decided once for all the folders read together, and
    said in a note)."""
    by_folder: dict[Path, list[Path]] = {}
    for path, folder in found:
        by_folder.setdefault(folder, []).append(path)
    kind = layout
    if kind == "auto":
        several = [files for files in by_folder.values() if len(files) > 1]
        same = bool(several) and all(len({texts[p] for p in files}) == 1 for files in several)
        kind = "document-folders" if same else "annotator-folders"
        said = ("a folder per document, a file per rater (the files of each folder hold one text)" if same
                else "a folder per rater, a file per document")
        notes[f"{tool}: {said} (layout={kind!r})"] += 1
    placed = []
    for folder, files in by_folder.items():
        folder_name = folder.resolve().name
        for path in files:
            name = stem(path, suffixes)
            if name == INITIAL_CAS:
                notes[f"{tool}: INCEpTION's {INITIAL_CAS} (the document before anyone annotated it), not a rater"] += 1
                continue
            if kind == "document-folders":
                placed.append(Placed(path, name, folder_name))
            else:
                placed.append(Placed(path, folder_name, name))
    return placed


def read_together(paths: Sequence[Path], builder, parse: Callable[[Path], Any], suffixes: tuple[str, ...], tool: str,
                  layer: str | None, feature: str | None, layout: str | None, keep: Callable[[Path], bool] = bool) -> None:
    """Read every file given (files, annotators' or documents' folders, or a root of them) together, the
    layer chosen once over all of them: each file with one of ``suffixes`` (and that ``keep`` keeps) is
    parsed by ``parse``, placed by :func:`place` and added by :func:`add_documents`."""
    chosen_layout = one_of("layout", "auto" if layout is None else layout, LAYOUTS)
    found = [(path, folder) for path, folder in collect(paths, suffixes) if keep(path)]
    docs = {path: parse(path) for path, _ in found}
    placed = place(found, {p: d.text for p, d in docs.items()}, chosen_layout, suffixes, builder.exclusions.notes, tool)
    add_documents([(p, docs[p.path]) for p in placed], builder, layer, feature, tool)


def add_documents(items: list[tuple[Placed, Any]], builder, layer: str | None, feature: str | None, tool: str) -> None:
    """Add parsed documents, each with its rater and document id, reading the chosen layer. A
    document gives the labelled spans in code points (``in_codepoints(spans, doc_id)``) and its
    tokens (``token_array()``); its relations, chain links and slot links are counted, not scored."""
    notes = builder.exclusions.notes
    choice = choose_for([doc for _, doc in items], layer, feature, notes, tool)
    for placed, doc in items:
        spans = doc.in_codepoints(labelled(choice, doc.spans, builder, tool), placed.doc_id)
        builder.add(placed.doc_id, placed.doc_id, doc.text, placed.rater, spans, Location(str(doc.path)),
                    tokens=doc.token_array())
        for name, n in Counter(r.layer for r in doc.relations).items():
            notes[f"{tool}: relations of layer {short_name(name)} read, not scored (governor, dependent)"] += n
        if doc.chain_links:
            notes[f"{tool}: chain links read, not scored"] += doc.chain_links
        if doc.slot_links:
            notes[f"{tool}: slot-feature links read, not scored"] += doc.slot_links
