"""CoNLL-style token files: a token and a tag per line, tags in an IOB-family scheme.

Layout
    One token per line, columns separated by white space: the token first, the tag last (columns
    in between, such as CoNLL-2003's part-of-speech and chunk tags, are ignored). A blank line ends
    a sentence. When a file has ``-DOCSTART-`` lines, each starts a new document (which holds all
    its sentences); without them, every sentence is a document. A ``-DOCSTART-`` with no tokens
    after it is not a document. Lines starting with ``#`` are tokens like any other.

Raters
    One file per annotator: the rater is the file's stem. Or one file with a tag column per
    annotator: ``columns="ann1,ann2"`` (or a list of names) says that the last two columns are
    the tags of raters ``ann1`` and ``ann2``, in that order.

Documents
    Documents are identified by position, ``doc-0001``, ``doc-0002``, ... and paired across files
    by position: every file must hold the same documents, with the same tokens and sentence
    breaks, in the same order (an error names both files, the document and the first token that
    differs). A document's text is its tokens joined by single spaces, with a line break between
    sentences; the token offsets go with it, so ``unit="token"`` works.

Tag schemes (``scheme=``, default ``"auto"``)
    ``IOB1`` (``I-X`` inside; ``B-X`` only begins a chunk right after another ``X`` chunk),
    ``IOB2`` (every chunk begins with ``B-X``), ``IOE1``/``IOE2`` (the same with ``E-X`` ending
    chunks), ``IOBES`` (``B``, ``I``, ``E``, ``S`` for single-token chunks) and its synonym
    ``BILOU`` (``B``, ``I``, ``L``, ``U``). ``"auto"`` looks at each tag column: ``S``/``U``/``E``/``L``
    with ``B`` is IOBES/BILOU; ``E`` without ``B`` is IOE2 if some chunk ends with ``E-X`` without
    another ``X`` chunk right after it, else IOE1; ``B`` is IOB2 if some ``B-X`` begins a chunk
    that does not follow an ``X`` chunk, else IOB1; only ``I`` (the IO scheme) reads as IOB1.

Ill-formed sequences (``repair=``)
    A chunk that does not begin with its beginning tag (``I-X`` after ``O`` or after ``B-Y`` in
    IOB2 or IOBES; ``E-X`` out of a chunk in IOBES), or that is left without its end tag (IOE2,
    IOBES), is ill-formed. Every ill-formed chunk is counted, and handled as ``repair`` says:

    - ``"begin"`` (default): read it as a chunk anyway, as if ``I-X`` were ``B-X`` (the convention
      of the conlleval script) and an unclosed chunk ended at its last token;
    - ``"drop"``: leave it out;
    - ``"error"``: raise an InputError naming the file, line, document and tag.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import zip_longest
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from ..errors import InputError, Location, UsageError, describe, option
from ..core.model import SpanTuple
from ..core.builder import CorpusBuilder
from . import Format
from ._text import head_lines, numbered_lines

SCHEMES = ("IOB1", "IOB2", "IOE1", "IOE2", "IOBES", "BILOU")
REPAIRS = ("begin", "drop", "error")
SUFFIXES = (".conll", ".iob", ".bio", ".bioes", ".iob2", ".iobes", ".bilou")
DOCSTART = "-DOCSTART-"

BEGIN, INSIDE, END, SINGLE = "begin", "inside", "end", "single"
#: What each tag prefix does in each scheme.
ROLES = {
    "IOB1": {"B": BEGIN, "I": INSIDE},
    "IOB2": {"B": BEGIN, "I": INSIDE},
    "IOE1": {"I": INSIDE, "E": END},
    "IOE2": {"I": INSIDE, "E": END},
    "IOBES": {"B": BEGIN, "I": INSIDE, "E": END, "S": SINGLE},
    "BILOU": {"B": BEGIN, "I": INSIDE, "L": END, "U": SINGLE},
}
#: Schemes where a chunk must begin with B- (I-/E- cannot start one) and must end with E-/L-.
STRICT_START = {"IOB2", "IOBES", "BILOU"}
MUST_CLOSE = {"IOE2", "IOBES", "BILOU"}
#: Auto-detection reads IOBES and BILOU prefixes alike.
FAMILY = {**ROLES["IOBES"], "L": END, "U": SINGLE}


def read_conll_files(
    paths: Sequence[Path],
    builder: CorpusBuilder,
    *,
    scheme: str = "auto",
    repair: str = "begin",
    columns: str | Sequence[str] | None = None,
) -> None:
    """Read CoNLL files, one per rater (or one file with ``columns=``), pairing documents by
    position and checking that they hold the same tokens."""
    scheme = _check_options(scheme, repair)
    names = _column_names(columns)
    if names is not None and len(paths) != 1:
        raise UsageError(
            f"{option('columns', 'ann1,ann2')} reads one file holding every rater's tag column; got {len(paths)} files"
        )
    if names is None:
        by_stem: dict[str, Path] = {}
        for path in paths:
            if path.stem in by_stem:
                raise UsageError(
                    f"{by_stem[path.stem]} and {path} have the same stem, so the same rater name "
                    f"{path.stem!r}; rename one of them"
                )
            by_stem[path.stem] = path
    files = [_ConllFile(path, names, scheme, repair) for path in paths]
    for f in files:
        f.scan()
        builder.tick(f.size)
    streams = [f.documents() for f in files]
    for position, docs in enumerate(zip_longest(*streams), 1):
        doc_id = f"doc-{position:04d}"
        _check_same_documents(files, docs, doc_id)
        first = docs[0]
        text, offsets = _text_and_offsets(first.sentences)
        for f, doc in zip(files, docs):
            for column, rater in enumerate(f.raters):
                spans = f.decode(doc, column, offsets, doc_id, builder)
                builder.add(doc_id, doc_id, text, rater, spans, doc.where, offsets)


@dataclass
class _Document:
    """One document of one file: its sentences' tokens, tags (per column) and line numbers."""

    where: Location
    sentences: list[list[str]] = field(default_factory=list)
    tags: list[list[list[str]]] = field(default_factory=list)  # per sentence, per token, per column
    lines: list[list[int]] = field(default_factory=list)


class _ConllFile:
    """One CoNLL file: a first pass to detect the scheme(s), then its documents one by one."""

    def __init__(self, path: Path, raters: list[str] | None, scheme: str, repair: str) -> None:
        self.path = path
        self.name = str(path)
        self.columns_mode = raters is not None
        self.raters = raters if raters is not None else [path.stem]
        self.scheme = scheme
        self.repair = repair
        self.schemes: list[str] = []
        self.has_docstart = False
        self.size = 0

    # --- first pass ---------------------------------------------------------------------------

    def scan(self) -> None:
        """Check every line, find ``-DOCSTART-`` lines and each column's tag scheme."""
        n = len(self.raters)
        seen = [_SchemeEvidence() for _ in range(n)]
        known: dict[str, tuple[str | None, str | None]] = {}  # tags already checked
        n_lines = 0
        for number, line in numbered_lines(self.path):
            self.size += len(line) + 1
            parts = line.split()
            if not parts:
                for s in seen:
                    s.sentence_end()
                continue
            n_lines += 1
            if parts[0].upper() == DOCSTART:
                self.has_docstart = True
                for s in seen:
                    s.sentence_end()
                continue
            if len(parts) <= n:
                self._too_few_columns(parts, Location(self.name, number))
            for column in range(n):
                tag = parts[column - n]
                split = known.get(tag)
                if split is None:
                    split = known[tag] = self._check_tag(tag, Location(self.name, number), column)
                seen[column].tag(*split)
        if not n_lines:
            raise InputError("the file is empty; expected a token and a tag per line", where=Location(self.name))
        for s in seen:
            s.sentence_end()
        self.schemes = [self.scheme if self.scheme != "auto" else s.scheme() for s in seen]

    def _too_few_columns(self, parts: list[str], where: Location) -> None:
        n = len(self.raters)
        expected = "a token and a tag" if n == 1 else f"a token and {n} tag columns ({', '.join(self.raters)})"
        raise InputError(
            f"got {describe(' '.join(parts))}; expected {expected}, separated by white space",
            where=where, field="tag" if n == 1 else "columns",
        )

    def _check_tag(self, tag: str, where: Location, column: int) -> tuple[str | None, str | None]:
        prefix, label = _split_tag(tag, where, self._field(column))
        if self.scheme != "auto" and prefix is not None and prefix not in ROLES[self.scheme]:
            raise InputError(
                f"got {tag!r}, which is not a tag of the {self.scheme} scheme "
                f"(prefixes {', '.join(ROLES[self.scheme])} and the tag O); "
                f"name the scheme with {option('scheme', 'IOB2')} or leave it to auto-detection",
                where=where, field=self._field(column),
            )
        return prefix, label

    def _field(self, column: int) -> str:
        return f"tag of {self.raters[column]}" if self.columns_mode else "tag"

    # --- second pass --------------------------------------------------------------------------

    def documents(self) -> Iterator[_Document]:
        """The file's documents, in order (a document per sentence without ``-DOCSTART-``)."""
        doc: _Document | None = None
        sentence: list[str] = []
        tags: list[list[str]] = []
        lines: list[int] = []

        def end_sentence():
            nonlocal sentence, tags, lines
            if sentence:
                doc.sentences.append(sentence)
                doc.tags.append(tags)
                doc.lines.append(lines)
                sentence, tags, lines = [], [], []

        n = len(self.raters)
        for number, line in numbered_lines(self.path):
            parts = line.split()
            if parts and parts[0].upper() == DOCSTART:
                if doc is not None:
                    end_sentence()
                    if doc.sentences:
                        yield doc
                doc = _Document(Location(self.name, number))
                continue
            if not parts:
                if doc is not None:
                    end_sentence()
                    if not self.has_docstart and doc.sentences:
                        yield doc
                        doc = None
                continue
            if doc is None:
                doc = _Document(Location(self.name, number))
            sentence.append(parts[0])
            tags.append([tag if tag == "O" or tag[1:2] == "-" else _prefixed(tag) for tag in parts[-n:]])
            lines.append(number)
        if doc is not None:
            end_sentence()
            if doc.sentences:
                yield doc

    def decode(
        self, doc: _Document, column: int, offsets: np.ndarray, doc_id: str, builder: CorpusBuilder
    ) -> list[SpanTuple]:
        """The spans of one tag column of one document, as character offsets."""
        scheme = self.schemes[column]
        spans: list[SpanTuple] = []
        base = 0
        for sentence_tags, sentence_lines in zip(doc.tags, doc.lines):
            tags = [t[column] for t in sentence_tags]
            for first, last, label, problem in _chunks(tags, scheme):
                if problem is not None:
                    line, message = problem
                    if self.repair == "error":
                        raise InputError(
                            f"{message}; an ill-formed {scheme} sequence ({option('repair', 'begin')} reads it as a "
                            f"chunk, {option('repair', 'drop')} leaves it out)",
                            where=Location(self.name, sentence_lines[line]), doc_id=doc_id, field=self._field(column),
                        )
                    if self.repair == "drop":
                        builder.exclude_span(f"ill-formed {scheme} chunk dropped (repair='drop')")
                        continue
                    builder.exclusions.notes[f"ill-formed {scheme} chunk read as a chunk (repair='begin')"] += 1
                spans.append((int(offsets[base + first, 0]), int(offsets[base + last, 1]), label))
            base += len(tags)
        return spans


class _SchemeEvidence:
    """What one tag column shows about its scheme (see the module docstring)."""

    def __init__(self) -> None:
        self.prefixes: set[str] = set()
        self.b_opens_chunk = False  # some B-X not right after an X chunk: IOB2, not IOB1
        self.e_closes_chunk = False  # some E-X not right before an X chunk: IOE2, not IOE1
        self.previous: tuple[str | None, str | None] = (None, None)

    def tag(self, prefix: str | None, label: str | None) -> None:
        last_prefix, last_label = self.previous
        if prefix == "B" and (last_prefix is None or last_label != label):
            self.b_opens_chunk = True
        if last_prefix == "E" and (prefix is None or label != last_label):
            self.e_closes_chunk = True
        self.previous = (prefix, label)
        if prefix is not None:
            self.prefixes.add(prefix)

    def sentence_end(self) -> None:
        if self.previous[0] == "E":
            self.e_closes_chunk = True
        self.previous = (None, None)

    def scheme(self) -> str:
        p = self.prefixes
        if p & {"S", "U", "L"} or {"B", "E"} <= p:
            return "BILOU" if p & {"L", "U"} and not p & {"E", "S"} else "IOBES"
        if "E" in p:
            return "IOE2" if self.e_closes_chunk else "IOE1"
        if "B" in p:
            return "IOB2" if self.b_opens_chunk else "IOB1"
        return "IOB1"


def _chunks(tags: list[str], scheme: str):
    """Yield ``(first, last, label, problem)`` for the chunks of one sentence's tags (token
    indices inclusive); ``problem`` is None, or ``(token index, message)`` for an ill-formed one."""
    roles = FAMILY if scheme in ("IOBES", "BILOU") else ROLES[scheme]
    strict, must_close = scheme in STRICT_START, scheme in MUST_CLOSE
    start = label = None
    problem = None
    previous = "the start of the sentence"

    def close(last: int, closed: bool):
        issue = problem
        if issue is None and must_close and not closed:
            issue = (last, f"{tags[last]} ends its chunk without an end tag (next: {_next(tags, last)})")
        return start, last, label, issue

    for i, tag in enumerate(tags):
        if tag == "O":
            if start is not None:
                yield close(i - 1, False)
                start = None
            previous = "O"
            continue
        prefix, name = tag[0], tag[2:]
        role = roles[prefix]
        same = start is not None and label == name
        if role == INSIDE and same:
            previous = tag
            continue
        if role == END and same:
            yield close(i, True)
            start, previous = None, tag
            continue
        if start is not None:
            yield close(i - 1, False)
        bad = strict and role in (INSIDE, END)
        problem = (i, f"{tag} follows {previous}") if bad else None
        start, label = i, name
        if role in (SINGLE, END):
            yield start, i, label, problem
            start = None
        previous = tag
    if start is not None:
        yield close(len(tags) - 1, False)


def _next(tags: list[str], i: int) -> str:
    return tags[i + 1] if i + 1 < len(tags) else "the end of the sentence"


def _split_tag(tag: str, where: Location, field: str) -> tuple[str | None, str | None]:
    """``("B", "PER")`` for ``B-PER`` (and for ``PER-B``, the suffix style that seqeval reads with
    ``suffix=True``); ``(None, None)`` for ``O``."""
    if not _is_tag(tag):
        raise InputError(
            f"got {tag!r}; expected O or a prefixed tag such as B-PER (prefixes B, I, E, S, L, U), or a "
            "suffixed one such as PER-B",
            where=where, field=field,
        )
    if tag == "O":
        return None, None
    return (tag[0], tag[2:]) if tag[1] == "-" and tag[0] in FAMILY else (tag[-1], tag[:-2])


def _is_tag(tag: str) -> bool:
    """``O``, or a tag with a prefix (``B-PER``) or a suffix (``PER-B``) of the IOB family."""
    return tag == "O" or len(tag) > 2 and (tag[1] == "-" and tag[0] in FAMILY or tag[-2] == "-" and tag[-1] in FAMILY)


def _prefixed(tag: str) -> str:
    """``B-PER`` for the suffix-style ``PER-B`` (checked by :func:`_split_tag` on the first pass)."""
    return f"{tag[-1]}-{tag[:-2]}"


def _check_same_documents(files: list[_ConllFile], docs: tuple, doc_id: str) -> None:
    """Documents paired by position must hold the same tokens and sentence breaks."""
    first_file, first = files[0], docs[0]
    for f, doc in zip(files, docs):
        if doc is None or first is None:
            short, long_ = (f, first_file) if doc is None else (first_file, f)
            raise InputError(
                f"the file ends before this document, while {long_.name} goes on; CoNLL documents are "
                "paired across files by position, so every file must hold the same documents in the same order",
                where=Location(short.name), doc_id=doc_id,
            )
    for f, doc in zip(files[1:], docs[1:]):
        a = [(tok, line) for s, ls in zip(first.sentences, first.lines) for tok, line in zip(s, ls)]
        b = [(tok, line) for s, ls in zip(doc.sentences, doc.lines) for tok, line in zip(s, ls)]
        for i, ((tok_a, line_a), (tok_b, line_b)) in enumerate(zip(a, b)):
            if tok_a != tok_b:
                raise InputError(
                    f"token {i + 1} is {tok_b!r} here but {tok_a!r} in {first_file.name}:{line_a}; "
                    "CoNLL documents are paired across files by position and must hold the same tokens",
                    where=Location(f.name, line_b), doc_id=doc_id, field="token",
                )
        if len(a) != len(b):
            shorter, longer = (f, first_file) if len(b) < len(a) else (first_file, f)
            raise InputError(
                f"the document has {min(len(a), len(b))} tokens in {shorter.name} and more in {longer.name} "
                f"(token {min(len(a), len(b)) + 1} is {max(a, b, key=len)[min(len(a), len(b))][0]!r}); "
                "CoNLL documents are paired across files by position and must hold the same tokens",
                where=Location(f.name, doc.where.line), doc_id=doc_id, field="token",
            )
        if [len(s) for s in first.sentences] != [len(s) for s in doc.sentences]:
            raise InputError(
                f"the same tokens as in {first_file.name}, but the sentences break at other tokens; "
                "paired documents must have the same sentence breaks (blank lines)",
                where=Location(f.name, doc.where.line), doc_id=doc_id, field="sentence",
            )


def _text_and_offsets(sentences: list[list[str]]) -> tuple[str, np.ndarray]:
    """Tokens joined by spaces, sentences by line breaks; and each token's ``(start, end)``."""
    n = sum(len(s) for s in sentences)
    offsets = np.empty((n, 2), dtype=np.int64)
    pieces = []
    position = i = 0
    for k, sentence in enumerate(sentences):
        if k:
            pieces.append("\n")
            position += 1
        for j, token in enumerate(sentence):
            if j:
                pieces.append(" ")
                position += 1
            pieces.append(token)
            offsets[i] = position, position + len(token)
            position += len(token)
            i += 1
    return "".join(pieces), offsets


def _check_options(scheme: str, repair: str) -> str:
    if repair not in REPAIRS:
        raise UsageError(f"repair must be one of {', '.join(REPAIRS)}; got {repair!r}")
    if scheme == "auto":
        return scheme
    normal = str(scheme).upper()
    if normal not in SCHEMES:
        raise UsageError(f"scheme must be 'auto' or one of {', '.join(SCHEMES)}; got {scheme!r}")
    return normal


def _column_names(columns: str | Sequence[str] | None) -> list[str] | None:
    if columns is None:
        return None
    names = [c.strip() for c in columns.split(",")] if isinstance(columns, str) else [str(c) for c in columns]
    if not names or not all(names) or len(set(names)) != len(names):
        raise UsageError(
            f"columns must name each rater's tag column once, e.g. 'ann1,ann2' for the last two columns; "
            f"got {columns!r}"
        )
    return names


def looks_like(path: Path, first: dict | None) -> bool:
    """A CoNLL suffix, or a file whose first lines are all token-tag lines."""
    if path.suffix.lower() in SUFFIXES:
        return True
    rows = [parts for parts in map(str.split, head_lines(path, (".jsonl", ".json", ".ann", ".qrels")))
            if parts[0].upper() != DOCSTART]
    return bool(rows) and all(len(parts) >= 2 and _is_tag(parts[-1]) for parts in rows)


FORMAT = Format(
    name="conll",
    read=read_conll_files,
    together=True,
    sniff=looks_like,
    jsonl=False,
    order=50,
    description="CoNLL-style token files: a token and an IOB/IOE/IOBES tag per line",
)
