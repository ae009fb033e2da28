"""Convert annotations between formats: read anything spanagree reads, write any format that has
a writer (spanagree JSONL, Prodigy JSONL, and every other format that declares ``write``).

What the readers leave out (a Prodigy ``ignore``, a cancelled Label Studio annotation, a brat
relation, ...) is not written; :func:`convert` returns it with the counts written.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..errors import UsageError
from ..core.files import check_outputs
from ..io import formats, read

#: The output format a suffix implies, when ``to`` is not given.
SUFFIXES = {".jsonl": "spanagree", ".spacy": "docbin"}


def writers() -> list[str]:
    """The names of the formats that can be written."""
    return [name for name, fmt in formats().items() if fmt.write is not None]


def convert(
    paths: str | Path | Sequence[str | Path],
    out: str | Path,
    *,
    to: str | None = None,
    format: str = "auto",
    ents: str | None = None,
    spans_key: str | None = None,
    **options,
) -> dict:
    """Read annotation files and write them in another format, keeping rater, document id and text.

    Parameters
    ----------
    paths : the input files or directories, as for :func:`spanagree.read`.
    out : the file to write.
    to : the output format (one of :func:`writers`); by default from the suffix of ``out``
        (``.jsonl``: spanagree JSONL, ``.spacy``: DocBin).
    format : the input format, ``"auto"`` (default) or a format name.
    ents, spans_key : DocBin output: the rater whose spans also go to ``doc.ents`` (and to the span
        group ``spans_key``), for spaCy's tools (see :func:`spanagree.io.docbin.write_docbin`).
    **options : reader options (``answers=``, ``scheme=``, ``columns=``, ``relevant_at=``, ...).

    Returns
    -------
    dict with ``format`` (written), ``out``, ``written`` (``documents``, ``annotations``,
    ``spans``), ``raters``, ``read`` (what the readers saw), ``excluded`` (what they left out,
    by reason, for ``documents``, ``annotations`` and ``spans``) and ``notes`` (what they changed
    or could not verify on the way). Input with nothing to write is a UsageError, not an empty
    file.
    """
    out = Path(out)
    name = _output_format(out, to)
    entities = {k: v for k, v in (("ents", ents), ("spans_key", spans_key)) if v is not None}
    if entities and name != "docbin":
        raise UsageError(f"--ents and --spans-key are for DocBin output (.spacy), not {name!r}")
    check_outputs([out], [paths] if isinstance(paths, (str, Path)) else paths)
    corpus = read(paths, format=format, **options)
    if not corpus.n_annotations and not (name == "spanagree" and len(corpus.dl_doc)):
        what = "document labels only (write them as spanagree JSONL)" if len(corpus.dl_doc) else "no annotation"
        left = "; ".join(f"{reason}: {n}" for kind in ("documents", "annotations", "spans", "notes")
                         for reason, n in getattr(corpus.exclusions, kind).items())
        raise UsageError(f"nothing to write to {out}: the input holds {what}" + (f" (read: {left})" if left else ""))
    try:
        written = formats()[name].write(corpus, out, **entities)
    except OSError as err:
        raise UsageError(f"cannot write {out}: {err.strerror or err}") from None
    if not isinstance(written, dict):
        written = {"documents": len(set(corpus.ann_doc.tolist())), "annotations": corpus.n_annotations,
                   "spans": corpus.n_spans}
    extra = sum(corpus.extra_parts.values())
    if extra:  # read as one annotation each, written as one span per fragment
        written = {**written, "spans beyond the annotations read (fragments of discontinuous annotations, one span "
                   "each)": extra}
    if corpus.token_conflicts:  # a document holds one token list: the first rater's is written
        written = {**written, "documents whose raters gave different tokens (one rater's written for all)":
                   len(corpus.token_conflicts)}
    held = corpus.structure
    if held is not None and (held.relations or held.attributes) and "relations" not in written:
        # this format's writer has no place for them: say what was not written
        written = {**written, "relations and span attributes not written (this format has no place for them; "
                              "spanagree JSONL keeps them)": len(held.relations) + len(held.attributes)}
    excluded = corpus.exclusions
    return {
        "format": name,
        "out": str(out),
        "written": written,
        "raters": list(corpus.raters),
        "read": {
            "documents": corpus.n_documents_read,
            "annotations": corpus.n_annotations_read,
            "spans": corpus.n_spans_read,
        },
        "excluded": {
            "documents": dict(sorted(excluded.documents.items())),
            "annotations": dict(sorted(excluded.annotations.items())),
            "spans": dict(sorted(excluded.spans.items())),
            **{kind: dict(sorted(getattr(excluded, kind).items())) for kind in ("relations", "attributes")
               if getattr(excluded, kind)},
        },
        "notes": dict(sorted(excluded.notes.items())),
    }


def _output_format(out: Path, to: str | None) -> str:
    available = writers()
    if to is None:
        to = SUFFIXES.get(out.suffix.lower())
        if to is None:
            raise UsageError(
                f"cannot tell the output format from {out.name!r}; name it with to= (--to): {', '.join(available)}"
            )
    if to not in available:
        why = "it has no writer" if to in formats() else "no such format"
        raise UsageError(f"cannot write {to!r} ({why}); formats with a writer: {', '.join(available)}")
    return to
