"""An INCEpTION (or WebAnno) project export: the ``.zip`` that "Export the whole project" writes,
or the folder it unpacks to.

The export holds ``exportedproject*.json`` (the project's documents, annotators and their states),
``source/`` (the documents), ``annotation/DOC/USER.EXT`` (each annotator's annotations of each
document, in the secondary format chosen at export: WebAnno TSV 3.x, UIMA CAS XMI (zipped with its
``TypeSystem.xml``) or CAS JSON), ``curation/DOC/CURATION_USER.EXT`` (the curated document), and
``annotation_ser/``, ``curation_ser/`` (the same as Java-serialised CAS, which only UIMA Java
reads).

The raters are the annotators of ``annotation/`` (named as in INCEpTION) and the curation, the
rater ``curation`` (:data:`CURATION`); the documents are the export's document names. What each
document state of ``exportedproject*.json`` becomes (``states=``, by default only ``FINISHED``
documents are read: :data:`BECOMES`), and the errors for a CAS of another document or an export of
``.ser`` files only: docs/formats.md, "INCEpTION project export".
"""
from __future__ import annotations

import json
import tempfile
import zipfile
from collections import Counter
from pathlib import Path

from ..errors import InputError, Location, UsageError
from ..core.builder import CorpusBuilder
from . import Format, uima_cas, webanno_tsv
from .layers import INITIAL_CAS, Placed, add_documents

#: The rater name of the curated documents.
CURATION = "curation"
#: Annotation document states (INCEpTION's AnnotationDocumentState).
STATES = ("NEW", "IN_PROGRESS", "FINISHED", "IGNORE")
#: What each state becomes, for the notes and the docs.
BECOMES = {
    "NEW": "never opened: not annotated by this rater (excluded)",
    "IN_PROGRESS": "in progress: not submitted (excluded; states='FINISHED,IN_PROGRESS' reads it)",
    "FINISHED": "finished: read (nothing marked is a rater who marked nothing)",
    "IGNORE": "locked by the project manager: excluded",
}
_CURATION_STATES = {"CURATION_FINISHED": "FINISHED", "CURATION_IN_PROGRESS": "IN_PROGRESS"}
_READ_SUFFIXES = (".tsv", ".xmi", ".json")


def _states(value: str | None) -> set[str]:
    chosen = {s.strip().upper() for s in ("FINISHED" if value is None else str(value)).split(",") if s.strip()}
    unknown = chosen - set(STATES)
    if unknown or not chosen:
        raise UsageError(f"states={value!r}: expected states among {', '.join(STATES)}, comma-separated "
                         "(config: [input] states)")
    return chosen


def _metadata(root: Path, shown: str) -> dict:
    found = sorted(root.glob("exportedproject*.json"))
    if not found:
        raise InputError("no exportedproject*.json; expected an INCEpTION project export", where=Location(shown))
    try:
        return json.loads(found[0].read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise InputError(f"not valid JSON ({err}); expected INCEpTION's project metadata",
                         where=Location(f"{shown}/{found[0].name}")) from None


def read_export(path: Path, builder: CorpusBuilder, *, layer: str | None = None, feature: str | None = None,
                states: str | None = None, typesystem: str | None = None) -> None:
    """Read one INCEpTION project export (``.zip`` or its folder) into ``builder``."""
    counted = _states(states)
    with tempfile.TemporaryDirectory(prefix="spanagree-inception-") as tmp:
        if path.is_dir():
            _read_root(path, str(path), Path(tmp), builder, layer, feature, counted, typesystem)
            return
        unpacked = Path(tmp) / "export"
        try:
            with zipfile.ZipFile(path) as archive:
                archive.extractall(unpacked)
        except (zipfile.BadZipFile, OSError) as err:
            raise InputError(f"cannot be read as a zip archive ({err}); expected an INCEpTION project export",
                             where=Location(str(path))) from None
        _read_root(unpacked, f"{path}!", Path(tmp) / "inner", builder, layer, feature, counted, typesystem)


def _shown(error: InputError, display: dict[str, str], doc_id: str) -> InputError:
    """The error with a path inside the unpacked export named as inside the export."""
    file = error.where.file or ""
    for real, said in sorted(display.items(), key=lambda item: -len(item[0])):
        if file.startswith(real):
            file = said + file[len(real):]
            break
    return InputError(error.problem, where=Location(file, error.where.line), doc_id=error.doc_id or doc_id,
                      field=error.field)


def _read_root(root: Path, shown: str, scratch: Path, builder: CorpusBuilder, layer, feature, counted: set[str],
               typesystem) -> None:
    meta = _metadata(root, shown)
    doc_states = {d.get("name"): d.get("state") for d in meta.get("source_documents") or []}
    user_states = {(d.get("name"), d.get("user")): d.get("state") or d.get("annotatorState")
                   for d in meta.get("annotation_documents") or []}
    notes = builder.exclusions.notes
    files: list[tuple[Path, str, str, str]] = []  # (file, rater, document, state)
    display: dict[str, str] = {str(root): shown}  # where files are -> how to name them
    unreadable = Counter()
    for kind, folder_name in (("annotation", "annotation"), ("curation", "curation")):
        folder = root / folder_name
        if not folder.is_dir():
            continue
        for doc_dir in sorted(d for d in folder.iterdir() if d.is_dir()):
            for item in sorted(p for p in doc_dir.iterdir() if p.is_file()):
                for file, user in _unpack(item, root, scratch, display):
                    if file.suffix.lower() not in _READ_SUFFIXES:
                        unreadable[file.suffix.lower() or "(none)"] += 1
                        continue
                    if user == INITIAL_CAS:
                        continue  # the document before anyone annotated it
                    if kind == "curation":
                        rater, state = CURATION, _CURATION_STATES.get(doc_states.get(doc_dir.name), "FINISHED")
                    else:
                        rater, state = user, user_states.get((doc_dir.name, user))
                    files.append((file, rater, doc_dir.name, state))
    if not files:
        ser = sorted(p.relative_to(root).as_posix() for p in root.glob("*_ser/*/*.ser"))
        said = ", ".join(f"{n} {s} file(s)" for s, n in unreadable.items())
        raise InputError(
            "no annotations spanagree can read: "
            + (f"annotation/ and curation/ hold {said} (the plain-text format keeps no annotations); " if said else "")
            + (f"the annotations are only in Java-serialised CAS ({', '.join(ser[:3])}), which only UIMA Java reads; "
               if ser else "")
            + "expected annotation/DOC/USER.tsv, .xmi or .json: export the project again with the secondary "
            "format set to UIMA CAS XMI, UIMA CAS JSON or WebAnno TSV 3",
            where=Location(shown.rstrip("!")),
        )
    for suffix, n in unreadable.items():
        kind = "plain text, which keeps no annotations" if suffix == ".txt" else "a format not read here"
        notes[f"INCEpTION export: annotation files in {kind} ({suffix}), not scored"] += n
    present = {(doc, rater) for _, rater, doc, _ in files}
    for (name, user), state in user_states.items():
        if state in ("NEW", "IGNORE") and (name, user) not in present:  # INCEpTION exports no file for these
            builder.exclude(f"INCEpTION: {BECOMES[state]}")
    tsv_items, cas_items = [], []
    cache: dict = {}
    given = uima_cas.given_typesystem(typesystem)
    for file, rater, doc_id, state in files:
        try:
            if file.suffix.lower() == ".tsv":
                parsed = webanno_tsv.parse(file, builder.tick)
            else:
                parsed = uima_cas.parse(file, cache, builder.tick, given)
        except InputError as err:
            raise _shown(err, display, doc_id) from None
        named = Path(_shown(InputError("", where=Location(str(file))), display, doc_id).where.file)
        if isinstance(parsed, uima_cas.CasDocument) and parsed.title and parsed.title != doc_id:
            raise InputError(
                f"the CAS says it is document {parsed.title!r} (DocumentMetaData.documentTitle); expected the "
                f"document of its folder, {doc_id!r}",
                where=Location(str(named)), doc_id=doc_id, field="DocumentMetaData.documentTitle",
            )
        parsed.path = named
        if state is None:
            notes["INCEpTION export: annotation with no state in the project metadata, read"] += 1
        elif state not in counted:
            reason = f"INCEpTION: {BECOMES.get(state, state + ': excluded')}"
            builder.skip(doc_id, doc_id, parsed.text, Location(str(named)), rater, reason)
            continue
        if state is not None:
            notes[f"INCEpTION export: {'curated document' if rater == CURATION else 'annotation'} {state}, read"] += 1
        (tsv_items if file.suffix.lower() == ".tsv" else cas_items).append((Placed(named, rater, doc_id), parsed))
    if tsv_items:
        add_documents(tsv_items, builder, layer, feature, "INCEpTION export (WebAnno TSV)")
    if cas_items:
        add_documents(cas_items, builder, layer, feature, "INCEpTION export (UIMA CAS)")


def _unpack(item: Path, root: Path, scratch: Path, display: dict[str, str]) -> list[tuple[Path, str]]:
    """``(file, user)``: an annotation file ``USER.EXT``, or the files of ``USER.zip`` (INCEpTION
    zips a format that writes several files: XMI with its type system), unpacked into ``scratch``
    (never beside the export's files). A zip named as a temporary file (``webanno...export.zip``,
    exports of user names INCEpTION thinks invalid) names the user by the file inside."""
    if item.suffix.lower() != ".zip":
        return [(item, item.stem)]
    target = scratch / item.relative_to(root)
    try:
        with zipfile.ZipFile(item) as archive:
            archive.extractall(target)
    except (zipfile.BadZipFile, OSError) as err:
        raise InputError(f"cannot be read as a zip archive ({err})", where=Location(display[str(root)] + str(item)[len(str(root)):])) from None
    display[str(target)] = display[str(root)] + str(item)[len(str(root)):] + "!"
    inner = [p for p in sorted(target.rglob("*")) if p.is_file() and p.suffix.lower() != ".xml"]
    temporary = item.stem.startswith("webanno") and item.stem.endswith("export")
    return [(p, p.stem if temporary else item.stem) for p in inner]


def looks_like(path: Path, first: dict | None) -> bool:
    """A zip or folder with ``exportedproject*.json`` at its top."""
    if path.is_dir():
        return next(path.glob("exportedproject*.json"), None) is not None
    if path.suffix.lower() != ".zip" or not path.is_file():
        return False
    try:
        with zipfile.ZipFile(path) as archive:
            return any(n.startswith("exportedproject") and n.endswith(".json") and "/" not in n
                       for n in archive.namelist())
    except (zipfile.BadZipFile, OSError):
        return False


FORMAT = Format(
    name="inception",
    read=read_export,
    sniff=looks_like,
    jsonl=False,
    order=30,
    description="INCEpTION/WebAnno project export (.zip or folder): annotators, curation as rater 'curation'",
)
