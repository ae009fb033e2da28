"""A spaCy corpus reader over multi-rater data: ``spanagree.RaterCorpus.v1``.

It yields one :class:`spacy.training.Example` per document: the reference Doc carries the
``reference`` rater's spans; the predicted Doc carries the ``predicted`` rater's spans, or none
when no predicted rater is named (then a pipeline fills it in, as in ``nlp.evaluate``). Spans go
to ``doc.ents`` (``spans_key`` None) or to ``doc.spans[spans_key]``. Any format spanagree reads
will do (JSONL, Prodigy, DocBin, ...).

In a config (``gold_preproc``, ``max_length``, ``limit`` and ``augmenter`` as for
``spacy.Corpus.v1``; ``path`` may also be a list of files)::

    [corpora.dev]
    @readers = "spanagree.RaterCorpus.v1"
    path = "annotations.jsonl"
    reference = "alice"
    predicted = "bob"
    gold_preproc = false
    max_length = 0
    limit = 0
    augmenter = null

Documents the reference (or the named predicted) rater did not submit are skipped, and spans
that do not fall on the Doc's token boundaries are widened to whole tokens; both are counted in
the reader's ``notes`` and raised as a warning at the end of a pass, never silently; so are
documents of ``max_length`` tokens or more, which ``spacy.Corpus.v1`` would split into sentences
(spanagree's Docs have none) or drop.
"""
import warnings
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Union

from ..core import options
from ..core.validate import shown
from ..errors import UsageError
from ..io import read
from ..io.docbin import make_doc
from ..io.docbin import spacy_spans

NOT_BY_REFERENCE = "documents the reference rater did not submit (skipped)"
NOT_BY_PREDICTED = "documents the predicted rater did not submit (skipped)"
TOO_LONG = "documents of max_length tokens or more (skipped)"


def make_rater_corpus(
    path: Union[str, Path, List[Union[str, Path]], None],
    reference: Optional[str] = None,
    gold_preproc: bool = False,
    max_length: int = 0,
    limit: int = 0,
    augmenter: Optional[Callable] = None,
    predicted: Optional[str] = None,
    spans_key: Optional[str] = None,
    format: str = "auto",
    answers: Optional[List[str]] = None,
) -> "RaterCorpus":
    """Make the reader (registered as ``spanagree.RaterCorpus.v1``); see ``docs/spacy.md``.

    ``path``, ``gold_preproc``, ``max_length``, ``limit`` and ``augmenter`` are those of
    ``spacy.Corpus.v1``, with the same meaning, so a config's ``@readers`` can be swapped without
    touching the rest of the block.

    Parameters
    ----------
    path : a file or directory of multi-rater annotations, or a list of them.
    reference : the rater whose spans are the reference; may be left out when there is one rater.
    gold_preproc : the predicted Doc takes the reference Doc's tokens instead of the pipeline's
        tokenizer.
    max_length : documents of this many tokens or more are left out (0: no limit); spanagree's
        Docs carry no sentence boundaries to split them at. Counted and warned about.
    limit : stop after this many documents (0: all).
    augmenter : a spaCy augmenter, ``(nlp, example) -> Iterable[Example]``.
    predicted : the rater whose spans are the prediction, or None for unannotated predicted Docs.
    spans_key : None for ``doc.ents``, else the span group key to use on both Docs.
    format : the input format (``"auto"`` by default).
    answers : Prodigy answers that count (default ``["accept"]``).
    """
    if path is None:
        raise UsageError("spanagree.RaterCorpus.v1: path is null; give the annotation file(s) (e.g. --paths.dev FILE)")
    return RaterCorpus(path, reference, predicted=predicted, spans_key=spans_key, format=format, answers=answers,
                       limit=limit, gold_preproc=gold_preproc, max_length=max_length, augmenter=augmenter)


class RaterCorpus:
    """Iterate over Examples built from two raters' annotations (see the module docstring)."""

    def __init__(self, path, reference: Optional[str] = None, *, predicted: Optional[str] = None,
                 spans_key: Optional[str] = None, format: str = "auto", answers: Optional[List[str]] = None,
                 limit: int = 0, gold_preproc: bool = False, max_length: int = 0, augmenter: Optional[Callable] = None):
        if predicted is not None and predicted == reference:
            raise UsageError(f"reference and predicted are the same rater ({reference!r}); name two raters")
        for name, value in (("limit", limit), ("max_length", max_length)):
            if type(value) is not int or value < 0:
                raise UsageError(f"spanagree.RaterCorpus.v1: {name} must be a whole number >= 0 (0: none), got {value!r}")
        for name, value in (("reference", reference), ("predicted", predicted), ("spans_key", spans_key)):
            if value is not None and (not isinstance(value, str) or not value):
                raise UsageError(f"spanagree.RaterCorpus.v1: {name} must be null or a non-empty string, got {shown(value)}")
        if augmenter is not None and not callable(augmenter):
            raise UsageError(f"spanagree.RaterCorpus.v1: augmenter must be null or a spaCy augmenter, got {shown(augmenter)}")
        if answers is not None:
            answers = list(options.check("answers", answers))
        self.paths = [Path(p) for p in path] if isinstance(path, (list, tuple)) else [Path(path)]
        self.path = self.paths[0] if len(self.paths) == 1 else self.paths
        self.reference = reference
        self.predicted = predicted
        self.spans_key = spans_key
        self.format = format
        self.answers = answers
        self.limit = limit
        self.gold_preproc = gold_preproc
        self.max_length = max_length
        self.augmenter = augmenter
        self.notes: Counter = Counter()
        self._corpus = None

    def corpus(self):
        """The annotations, read once and kept."""
        if self._corpus is None:
            # the default answers need not be said (and would be refused for input that is not Prodigy's)
            given = self.answers is not None and self.answers != options.default("answers")
            reading: Dict[str, Any] = {"answers": tuple(self.answers)} if given else {}
            corpus = read(self.paths, format=self.format, **reading)
            if self.reference is None:
                if len(corpus.raters) != 1:
                    raise UsageError(
                        f"spanagree.RaterCorpus.v1: name the reference rater (reference = ...); {self._where()} has "
                        f"{len(corpus.raters)} raters: {', '.join(corpus.raters)}"
                    )
                self.reference = corpus.raters[0]
            for role, rater in (("reference", self.reference), ("predicted", self.predicted)):
                if rater is not None and rater not in corpus.raters:
                    raise UsageError(f"{role} rater {rater!r} not found in {self._where()}; raters: {', '.join(corpus.raters)}")
            self._corpus = corpus
        return self._corpus

    def __call__(self, nlp) -> Iterator:
        from spacy.training import Example

        augment = self.augmenter or (lambda nlp, eg: [eg])
        corpus = self.corpus()
        self.notes = Counter()
        ref_code = corpus.raters.index(self.reference)
        pred_code = corpus.raters.index(self.predicted) if self.predicted is not None else None
        by_doc: Dict[int, Dict[int, int]] = {}
        for i, (d, r) in enumerate(zip(corpus.ann_doc.tolist(), corpus.ann_rater.tolist())):
            by_doc.setdefault(d, {})[r] = i
        n = 0
        for d in range(corpus.n_documents):
            anns = by_doc.get(d, {})
            if ref_code not in anns:
                self.notes[NOT_BY_REFERENCE] += 1
                continue
            if pred_code is not None and pred_code not in anns:
                self.notes[NOT_BY_PREDICTED] += 1
                continue
            text, tokens = corpus.texts[d], corpus.doc_tokens[d]
            reference = self._annotate(make_doc(nlp, text, tokens), corpus, anns[ref_code], d)
            if not len(reference):
                continue  # as spacy.Corpus.v1: an empty Doc is no example
            n += 1
            if self.max_length and len(reference) >= self.max_length:
                self.notes[TOO_LONG] += 1
            else:
                predicted = self._predicted(nlp, reference)
                if pred_code is not None:
                    predicted = self._annotate(predicted, corpus, anns[pred_code], d)
                yield from augment(nlp, Example(predicted, reference))
            if self.limit and n >= self.limit:
                break
        if self.notes:
            details = ", ".join(f"{count} {what}" for what, count in sorted(self.notes.items()))
            warnings.warn(f"spanagree.RaterCorpus.v1 ({self._where()}): {details}", UserWarning, stacklevel=2)

    def _where(self) -> str:
        return ", ".join(str(p) for p in self.paths)

    def _predicted(self, nlp, reference):
        """The predicted Doc: the pipeline's tokens, or with ``gold_preproc`` the reference's
        (and, as spaCy does, the reference's tokens when its white space is unknown)."""
        from spacy.tokens import Doc

        if self.gold_preproc or reference.has_unknown_spaces:
            return Doc(nlp.vocab, words=[t.text for t in reference], spaces=[bool(t.whitespace_) for t in reference])
        return nlp.make_doc(reference.text)

    def _annotate(self, doc, corpus, ann: int, d: int):
        spans = spacy_spans(doc, corpus.annotation_spans(ann), self.notes)
        if self.spans_key is not None:
            doc.spans[self.spans_key] = spans
            return doc
        ordered = sorted(spans, key=lambda s: (s.start, s.end))
        for x, y in zip(ordered, ordered[1:]):
            if y.start < x.end:
                rater = corpus.raters[corpus.ann_rater[ann]]
                raise UsageError(
                    f"document {corpus.doc_ids[d]!r}: rater {rater!r} has overlapping spans "
                    f"({x.text!r} and {y.text!r}), which doc.ents cannot hold; set spans_key to use a span group"
                )
        doc.set_ents(spans, default="outside")
        return doc
