"""spaCy DocBin files (``.spacy``): a reader for two layouts, and a writer.

Reading, one Doc per document:

- **one DocBin for every rater**: each Doc carries one span group per rater, the group key being
  the rater's name (``doc.spans["alice"]``, ``doc.spans["bob"]``). A rater whose group is absent
  from a Doc did not submit that document; an empty group means "nothing here". ``span_keys=``
  names the groups to read (the others are ignored); ``doc.ents`` is not read in this layout.
- **one DocBin per rater**: the rater is the file's stem; the spans are ``doc.spans[spans_key]``
  when ``spans_key=`` is given, else ``doc.ents``.

Without either option, a file whose Docs carry span groups is read in the first layout and one
without span groups in the second (``doc.ents``). A per-rater file whose spans live in a span
group (a ``spancat`` output, say) needs ``spans_key=``.

The document id is ``doc.user_data["doc_id"]`` when present, else the Doc's position in the file
(``doc-0001`` for the first), so that per-rater files written in the same document order pair up;
a file whose order differs is caught by the text check (every rater must see the same text). The
tokens of the Doc give the token unit.

Writing (:func:`write_docbin`) makes one Doc per document, one span group per rater who submitted
it, and ``doc.user_data["doc_id"]``. Documents read with tokens keep them; the others are
tokenized by a blank spaCy pipeline (``language=``, default ``"en"``), and a span whose boundaries
fall inside a token is widened to whole tokens and counted. Text between two given tokens other
than a single space becomes a white-space token, as spaCy's tokenizer does; it then counts in the
token unit when read back (token lists made by spaCy already have these tokens).

spaCy is imported only when a DocBin is read or written, so that this module, which the format
registry imports to discover formats, costs nothing otherwise.
"""
from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import InputError, Location, UsageError, describe
from ..core.model import Corpus, SpanTuple
from ..core.builder import CorpusBuilder
from . import Format
from ..core.files import write_bytes
from ..core.sanitize import cut
from .common import labels_left_out

SUFFIX = ".spacy"
WIDENED = "spans widened to token boundaries"
NOT_WRITTEN = "spans covering no token (not written)"
OVERLAPPING = "spans overlapping another, not in doc.ents (tokens marked missing)"
#: ``doc.user_data`` key of the span groups :func:`write_docbin` wrote as copies of a rater's
#: (``spans_key=``): ``{group key: rater}``; read back, they are not raters.
COPIES = "spanagree_copies"
COPY_NOT_READ = "span groups copying a rater's spans (spans_key of the writer), not read as raters"


def read_docbin(
    path: Path,
    builder: CorpusBuilder,
    *,
    span_keys: str | Sequence[str] | None = None,
    spans_key: str | None = None,
) -> None:
    """Read one DocBin into ``builder`` (see the module docstring for the two layouts)."""
    from spacy.tokens import DocBin
    from spacy.vocab import Vocab

    if span_keys is not None and spans_key is not None:
        raise UsageError("give span_keys (one DocBin, a span group per rater) or spans_key (one DocBin per rater), not both")
    keys = _key_list(span_keys)
    where = Location(str(path))
    docs = _load(path, DocBin, Vocab)
    if keys is None and spans_key is None:
        per_rater_groups = any(len(doc.spans) for doc in docs)
    else:
        per_rater_groups = keys is not None
    clashes = IdClashes()
    for position, doc in enumerate(docs, 1):
        doc_id = doc_id_of(doc, position, where)
        clashes.check(doc, doc_id, where)
        text = doc.text
        tokens = doc_tokens(doc)
        if per_rater_groups:
            names = keys if keys is not None else _rater_groups(doc, builder, where, doc_id)
            present = [k for k in names if k in doc.spans]
            if not present:
                builder.document(doc_id, doc_id, text, where, "")
                continue
            for key in present:
                field = f"spans[{key!r}]"
                builder.add(doc_id, doc_id, text, key, span_tuples(doc.spans[key], where, doc_id, field, builder), where, tokens)
        elif spans_key is not None:
            if spans_key not in doc.spans:
                builder.skip(doc_id, doc_id, text, where, path.stem, f"no span group {spans_key!r} in the Doc")
                continue
            spans = span_tuples(doc.spans[spans_key], where, doc_id, f"spans[{spans_key!r}]", builder)
            builder.add(doc_id, doc_id, text, path.stem, spans, where, tokens)
        else:
            builder.add(doc_id, doc_id, text, path.stem, span_tuples(doc.ents, where, doc_id, "ents", builder), where, tokens)
    builder.tick(path.stat().st_size)


def looks_like(path: Path, first: dict | None) -> bool:
    """A DocBin is recognised by its ``.spacy`` suffix."""
    return path.suffix.lower() == SUFFIX and not path.is_dir()


def blank(language: str):
    """``spacy.blank(language)``; a language spaCy does not have is a usage error."""
    import spacy

    try:
        return spacy.blank(language)
    except Exception as err:  # spaCy raises ImportError (E048) or its own error types
        raise UsageError(f"no spaCy language {cut(language, 40)!r}: {err}") from None


def write_docbin(
    corpus: Corpus,
    path: str | Path,
    *,
    language: str = "en",
    ents: str | None = None,
    spans_key: str | None = None,
    scores: dict[tuple[str, int, int, str], float] | None = None,
) -> dict[str, Any]:
    """Write ``corpus`` as one DocBin: a Doc per document, a span group per rater.

    ``scores`` maps ``(doc_id, start, end, label)`` (characters) to a number that each span group
    then carries in ``attrs["scores"]``, one per span in the group's order (spaCy's ``spancat``
    convention; NaN for a span with no score): an annotator model's consensus puts each span's
    probability there.

    ``ents`` names a rater whose spans also go to ``doc.ents``, so that ``spacy train``,
    ``spacy evaluate`` and ``spacy debug data`` read them as entities; ``spans_key`` (with
    ``ents``) copies the same spans to one more span group of that name (``"sc"`` for
    ``spancat``), marked as a copy in ``doc.user_data`` so that reading the file back does not
    take it for another rater. ``doc.ents`` cannot hold overlapping spans: the spans of that rater that overlap
    another are not written to ``doc.ents``, their tokens are marked missing (spaCy neither
    trains nor scores on them) and they are counted; the span groups keep them. A document that
    rater did not submit has no entity annotation at all (spaCy skips it).

    Returns what was written: ``documents``, ``annotations`` (span groups), ``spans``, and the
    spans whose boundaries had to be widened to whole tokens or could not go to ``doc.ents``
    (also raised as a warning, never silently).
    """
    from spacy.tokens import DocBin

    if spans_key is not None and (not isinstance(spans_key, str) or not spans_key):
        raise UsageError(f"spans_key must be a non-empty span group key, got {describe(spans_key)}")
    if spans_key is not None and ents is None:
        raise UsageError("spans_key needs ents: name the rater whose spans go to doc.ents and to that span group")
    if ents is not None and ents not in corpus.raters:
        raise UsageError(f"no rater {ents!r} to write as doc.ents; raters: {', '.join(corpus.raters)}")
    if spans_key is not None and spans_key in corpus.raters:
        raise UsageError(f"spans_key {spans_key!r} is a rater's name; choose another span group key")
    nlp = blank(language)
    notes: Counter = Counter()
    bin_ = DocBin(store_user_data=True)
    n_groups = n_spans = n_ents = 0
    first = np.searchsorted(corpus.ann_doc, np.arange(corpus.n_documents + 1))
    for d in range(corpus.n_documents):
        doc = make_doc(nlp, corpus.texts[d], corpus.doc_tokens[d])
        doc.user_data["doc_id"] = corpus.doc_ids[d]
        for i in range(first[d], first[d + 1]):
            group = spacy_spans(doc, corpus.annotation_spans(i), notes)
            rater = corpus.raters[corpus.ann_rater[i]]
            doc.spans[rater] = group
            if scores is not None:
                doc.spans[rater].attrs["scores"] = [
                    float(scores.get((corpus.doc_ids[d], span.start_char, span.end_char, span.label_), float("nan"))) for span in group
                ]
            n_groups += 1
            n_spans += len(group)
            if rater == ents:
                n_ents += set_entities(doc, group, notes)
                if spans_key is not None:
                    doc.spans[spans_key] = list(group)
                    doc.user_data[COPIES] = {spans_key: rater}
        if ents is not None and not doc.has_annotation("ENT_IOB"):
            notes[f"documents {ents} did not submit (no entity annotation)"] += 1
        bin_.add(doc)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, bin_.to_bytes())
    _warn_widened(notes, path)
    written = {"documents": corpus.n_documents, "annotations": n_groups, "spans": n_spans}
    if ents is not None:
        written["ents"] = n_ents
    return {**written, **dict(sorted(notes.items())), **labels_left_out(corpus, "DocBin")}


def set_entities(doc, spans: list, notes: Counter) -> int:
    """Set ``spans`` as ``doc.ents``; the number set. Spans that overlap another cannot be
    entities: they are left out, their tokens marked missing, and counted in ``notes``."""
    ordered = sorted(spans, key=lambda s: (s.start, s.end))
    clash = set()
    reach, reacher = -1, None
    for i, span in enumerate(ordered):
        if span.start < reach:
            clash.update((i, reacher))
        if span.end > reach:
            reach, reacher = span.end, i
    kept = [span for i, span in enumerate(ordered) if i not in clash]
    regions: list[list[int]] = []  # the token ranges of the overlapping spans, merged
    for i in sorted(clash):
        span = ordered[i]
        if regions and span.start < regions[-1][1]:
            regions[-1][1] = max(regions[-1][1], span.end)
        else:
            regions.append([span.start, span.end])
    if clash:
        notes[OVERLAPPING] += len(clash)
    doc.set_ents(kept, missing=[doc[s:e] for s, e in regions], default="outside")
    return len(kept)


# --- shared with the spaCy component, scorer and corpus reader -----------------------------------


def doc_id_of(doc, position: int, where: Location | None = None) -> str:
    """``doc.user_data["doc_id"]`` if present (a string or an integer), else ``doc-0001``-style."""
    value = doc.user_data.get("doc_id") if doc.user_data else None
    if value is None:
        return f"doc-{position:04d}"
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        raise InputError(f"expected a non-empty string or integer, got {describe(value)}", where=where, field='user_data["doc_id"]')
    return str(value)


class IdClashes:
    """Ids given in ``user_data["doc_id"]`` and ids made from positions (``doc-0001``), kept apart
    so that one of each kind with the same value is an error, not two Docs merged into one."""

    def __init__(self) -> None:
        self.given: set[str] = set()
        self.positional: set[str] = set()

    def check(self, doc, doc_id: str, where: Location | None = None) -> None:
        given = bool(doc.user_data) and doc.user_data.get("doc_id") is not None
        (self.given if given else self.positional).add(doc_id)
        if doc_id in self.given and doc_id in self.positional:
            raise InputError(
                f"{doc_id!r} is one Doc's user_data['doc_id'] and the position id of another Doc, which has "
                "none; give every Doc a user_data['doc_id']",
                where=where, doc_id=doc_id,
            )


def doc_tokens(doc) -> np.ndarray:
    """The Doc's tokens as an (n_tokens, 2) array of character offsets, half-open."""
    offsets = np.fromiter((x for t in doc for x in (t.idx, t.idx + len(t))), dtype=np.int64, count=2 * len(doc))
    return offsets.reshape(-1, 2)


def span_tuples(spans: Iterable, where: Location, doc_id: str, field: str, builder: CorpusBuilder | None = None) -> list[SpanTuple]:
    """spaCy Spans as ``(start_char, end_char, label)``; an empty label is an error, and a span with
    no characters is left out and counted in ``builder``'s exclusions."""
    out = []
    for i, span in enumerate(spans):
        label = span.label_
        if not label or label.isspace():
            raise InputError(
                f"span {i} ({span.start_char}..{span.end_char}, {span.text!r}) has no label; expected a non-empty label",
                where=where, doc_id=doc_id, field=field,
            )
        if span.end_char <= span.start_char:
            if builder is not None:
                builder.exclude_span("empty spaCy span (no characters)")
            continue
        out.append((span.start_char, span.end_char, label))
    return out


def make_doc(nlp, text: str, tokens: np.ndarray | None = None):
    """A Doc of ``text``: with the given token offsets when there are any, else ``nlp``'s tokenizer.

    Text between tokens that is not a single space becomes a token of its own (spaCy keeps
    white space that way), so ``doc.text == text`` always.
    """
    if tokens is None:
        return nlp.make_doc(text)
    from spacy.tokens import Doc

    words: list[str] = []
    spaces: list[bool] = []
    position = 0
    for start, end in np.asarray(tokens).tolist():
        if end <= start:
            continue
        _gap(text[position:start], words, spaces)
        words.append(text[start:end])
        spaces.append(False)
        position = end
    _gap(text[position:], words, spaces)
    return Doc(nlp.vocab, words=words, spaces=spaces)


def spacy_spans(doc, spans: Iterable[SpanTuple], notes: Counter) -> list:
    """``(start, end, label)`` character spans as spaCy Spans of ``doc``.

    A span whose boundaries fall inside a token is widened to whole tokens
    (``alignment_mode="expand"``) and counted in ``notes``; one that covers no token is left out
    and counted.
    """
    out = []
    for start, end, label in spans:
        span = doc.char_span(start, end, label=label)
        if span is None:
            span = doc.char_span(start, end, label=label, alignment_mode="expand")
            if span is None or not len(span):
                notes[NOT_WRITTEN] += 1
                continue
            notes[WIDENED] += 1
        out.append(span)
    return out


def _gap(gap: str, words: list[str], spaces: list[bool]) -> None:
    """Text between two tokens: one space goes on the previous token, the rest is a token."""
    if not gap:
        return
    if words and gap[0] == " " and not spaces[-1]:
        spaces[-1] = True
        gap = gap[1:]
    if gap:
        words.append(gap)
        spaces.append(False)


def _rater_groups(doc, builder: CorpusBuilder, where: Location, doc_id: str) -> list[str]:
    """The Doc's span group keys, less the copies :func:`write_docbin` made (counted). A copy is
    ``{copy key: rater key}``: both span groups of the Doc, the rater's not itself a copy."""
    copies = doc.user_data.get(COPIES) if doc.user_data else None
    if copies is None:
        copies = {}
    valid = isinstance(copies, dict) and all(
        isinstance(k, str) and isinstance(v, str) and k in doc.spans and v in doc.spans and v not in copies
        for k, v in copies.items()
    )
    if not valid:
        raise InputError(
            f"got {describe(copies)}; expected {{copy key: rater key}} naming span groups of this Doc, "
            "as spanagree writes it (a rater's group is never itself a copy)",
            where=where, doc_id=doc_id, field=f"user_data[{COPIES!r}]",
        )
    names = [key for key in sorted(doc.spans) if key not in copies]
    if len(names) < len(doc.spans):
        builder.exclusions.notes[COPY_NOT_READ] += len(doc.spans) - len(names)
    return names


def _key_list(span_keys: str | Sequence[str] | None) -> list[str] | None:
    if span_keys is None:
        return None
    keys = [k.strip() for k in span_keys.split(",")] if isinstance(span_keys, str) else list(span_keys)
    if not keys or not all(isinstance(k, str) and k for k in keys):
        raise UsageError(f"span_keys must name at least one span group, got {describe(span_keys)}")
    return keys


def _load(path: Path, DocBin, Vocab) -> list:
    try:
        return list(DocBin().from_disk(path).get_docs(Vocab()))
    except FileNotFoundError:
        raise InputError("no such file", where=Location(str(path))) from None
    except Exception as err:  # msgpack, zlib and spaCy each raise their own kind
        raise InputError(f"not a readable spaCy DocBin ({err}); expected a file written by DocBin.to_disk", where=Location(str(path))) from None


def _warn_widened(notes: Counter, path) -> None:
    if notes:
        details = ", ".join(f"{n} {what}" for what, n in sorted(notes.items()))
        warnings.warn(f"{path}: {details}", UserWarning, stacklevel=3)


FORMAT = Format(
    name="docbin",
    read=read_docbin,
    sniff=looks_like,
    jsonl=False,
    order=20,
    write=write_docbin,
    description="spaCy DocBin (.spacy): a span group per rater, or one file per rater",
)
