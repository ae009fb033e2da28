"""spaCy pipeline components and a registered scorer.

- ``span_agreement``: reads the raters' span groups of every Doc, sets ``doc._.agreement``
  (that document's counts and PSA per rater pair and label) and keeps the corpus report across
  ``nlp.pipe``: ``nlp.get_pipe("span_agreement").report()`` is the dict that
  ``spanagree score --output json`` prints for the same data; ``reset()`` starts again.
- ``span_consensus``: writes the raters' consensus (:mod:`spanagree.diagnostics.consensus`) to
  ``doc.spans["consensus"]``, and to ``doc.ents`` when its spans do not overlap.
- ``spanagree.agreement_scorer.v1``: scores spaCy ``Example``\\ s, predicted against reference
  spans, under spanagree's alignment rules (partial and proportional credit included), with
  spaCy's own keys (``ents_f`` ...), so default score weights and spaCy's commands show them.

Reference, and the choice of None or 0 for the keys spaCy reads: ``docs/spacy.md``.

All three are advertised through entry points (``spacy_factories``, ``spacy_scorers``), so
``nlp.add_pipe("span_agreement")`` and ``{"@scorers": "spanagree.agreement_scorer.v1"}`` work
without importing spanagree. Nothing here re-implements alignment or counting: Docs become a
:class:`~spanagree.core.model.Corpus` through the :class:`~spanagree.core.builder.CorpusBuilder`, and
:func:`spanagree.score` does the rest.

This module imports spaCy; ``import spanagree`` does not import it.
"""
import inspect
import multiprocessing
import os
import warnings
from collections import Counter
from multiprocessing.context import get_spawning_popen
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc

from ..measures.psa.specific import prf_arrays, reported
from ..measures.psa.summary import against
from ..request import Request, run
from ..core import options
from ..core.validate import INLINE_COMMENT, inline_comment, shown
from ..core.align import AlignmentRule
from ..errors import Location, UsageError
from ..io.docbin import IdClashes, doc_id_of, doc_tokens, spacy_spans, span_tuples
from ..core.model import Corpus
from ..core.builder import CorpusBuilder
from ..diagnostics.consensus import check_min_raters
from ..diagnostics.consensus import consensus

SCORER = "spanagree.agreement_scorer.v1"
EXISTING_ENTS = ("replace", "keep")
#: What span_consensus did to a Doc's entities (``doc._.consensus["ents_note"]``).
ENTS_NOTES = {
    "set": "the consensus was set as doc.ents",
    "replaced": "the consensus replaced the Doc's existing entities",
    "kept": "doc.ents not set: the Doc had entities, kept (existing_ents = keep)",
    "overlapping": "doc.ents not set: the consensus spans overlap; doc.ents left as it was",
    "not set": "doc.ents not set (set_ents = false)",
}
REFERENCE, PREDICTED = "reference", "predicted"
#: The alignment options of the components' configs, with their declared defaults (spaCy checks a
#: config's types against the factory's named parameters; the values are checked once, by
#: :func:`spanagree.core.options.keywords`, when the component is made).
ALIGNMENT: Dict[str, Any] = {name: options.default(name) for name in options.COMPONENT_OPTIONS}


class SpanGroupNotFoundWarning(UserWarning):
    """The span groups a component or scorer was told to read (``spans_key``, ``rater_keys``,
    ``rater_prefix``) are in none of the Docs it scored, so its scores are None."""


def _warn_no_group(where: str, asked: str, docs: int, groups: Iterable[str]) -> None:
    warnings.warn(f"{where}: {asked}: no span group of the {docs} Docs scored matches, so every score is None; "
                  f"the span groups they have: {', '.join(sorted(set(groups))) or 'none'}",
                  SpanGroupNotFoundWarning, stacklevel=3)


def _refuse_inline_comments(where: str, settings: Dict[str, Any]) -> None:
    """Refuse a string setting (or list item) with an inline comment: spaCy's configs read it into the value."""
    for name, value in settings.items():
        for text in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(text, str) and inline_comment(text):
                raise UsageError(f"{where}: {name} = {text!r}: {INLINE_COMMENT}")


def _rule_and_unit(settings: Dict[str, Any], where: str) -> Tuple[AlignmentRule, str]:
    """The alignment rule and unit of a component's or the scorer's settings, checked as declared."""
    checked = options.keywords(settings, options.COMPONENT_OPTIONS, where=where)
    return AlignmentRule(**{k: checked[k] for k in options.RULE_OPTIONS}), checked["unit"]


def _score(corpus: Corpus, rule: AlignmentRule, **given: Any):
    """The report on ``corpus`` under ``rule``: the run request every way in builds."""
    return run(Request.from_keywords(corpus, {"rule": rule, **given}))


def _alignment_parameters(factory: Callable, *, unset: bool = False) -> Callable:
    """Name the alignment options in ``factory``'s signature (typed as their declared defaults),
    where its ``**alignment`` stands: spaCy checks a config's keys and types against it. With
    ``unset`` each is optional, default None."""
    signature = inspect.signature(factory)
    own = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    named = [
        inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, annotation=Optional[type(v)], default=None) if unset
        else inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, annotation=type(v))
        for k, v in ALIGNMENT.items()
    ]
    factory.__signature__ = signature.replace(parameters=own + named)
    return factory


# --- span_agreement -------------------------------------------------------------------------------


@Language.factory(
    "span_agreement",
    default_config={"rater_keys": None, "rater_prefix": None, **ALIGNMENT, "scorer": {"@scorers": SCORER}},
    assigns=["doc._.agreement"],
    default_score_weights={"ents_f": 1.0, "ents_p": 0.0, "ents_r": 0.0, "ents_per_type": None},
)
@_alignment_parameters
def make_span_agreement(
    nlp: Language,
    name: str,
    rater_keys: Optional[List[str]],
    rater_prefix: Optional[str],
    scorer: Optional[Callable],
    **alignment: Any,
) -> "SpanAgreement":
    """Build the ``span_agreement`` component (see :class:`SpanAgreement`)."""
    _refuse_inline_comments(name, {"rater_keys": rater_keys, "rater_prefix": rater_prefix, **alignment})
    return SpanAgreement(nlp, name, rater_keys=rater_keys, rater_prefix=rater_prefix, scorer=scorer, **alignment)


class _RaterGroups:
    """Which span groups of a Doc are raters, and under which names.

    ``rater_keys``: exactly these keys (a key absent from a Doc: that rater did not submit it);
    ``rater_prefix``: every key that starts with the prefix, the rater being the rest of the key;
    neither: every span group of the Doc except those the pipeline writes itself: the
    ``spans_key`` of any component that has one (``span_consensus``'s ``consensus``,
    ``spancat``'s and ``span_finder``'s ``sc``, ``span_ruler``'s ``ruler``), which are outputs,
    not raters. Name such a group in ``rater_keys`` to count it.
    """

    def __init__(self, nlp: Language, name: str, rater_keys, rater_prefix, alignment: Dict[str, Any]):
        if rater_keys is not None and rater_prefix is not None:
            raise UsageError(f"{name}: give rater_keys or rater_prefix, not both")
        if rater_keys is not None and (isinstance(rater_keys, str) or not all(isinstance(k, str) and k for k in rater_keys)):
            raise UsageError(f"{name}: rater_keys must be a list of span group keys, got {rater_keys!r}")
        self.name = name
        self.rater_keys = list(rater_keys) if rater_keys is not None else None
        self.rater_prefix = rater_prefix
        self.rule, self.unit = _rule_and_unit(alignment, name)
        self.nlp = nlp
        self._outputs: Tuple[Tuple[str, ...], frozenset] = ((), frozenset())
        self._home = os.getpid()
        self._elsewhere = _shared_counter()
        self.reset()

    def reset(self) -> None:
        """Forget the Docs seen so far (document positions start again at ``doc-0001``)."""
        self._n_docs = 0
        self._id_clashes = IdClashes()
        self.forget_elsewhere()

    def pipe(self, stream: Iterable[Doc], batch_size: int = 128) -> Iterator[Doc]:
        for doc in stream:
            yield self(doc)

    def __getstate__(self) -> Dict[str, Any]:
        state = dict(self.__dict__)
        if get_spawning_popen() is None:
            state["_elsewhere"] = None  # a shared counter travels only to the processes it starts
        return state

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self._elsewhere is None:
            self._elsewhere = _shared_counter()

    def at_home(self) -> bool:
        """Whether this is the process the component was made in; a Doc processed in a worker of
        ``nlp.pipe(n_process=...)`` is counted as seen elsewhere."""
        if os.getpid() == self._home:
            return True
        if self._elsewhere is not None:
            with self._elsewhere.get_lock():
                self._elsewhere.value += 1
        return False

    def refuse_if_elsewhere(self) -> None:
        """A report without ``docs`` after a multi-process ``nlp.pipe`` would miss Docs: refuse."""
        elsewhere = self._elsewhere.value if self._elsewhere is not None else 0
        if elsewhere:
            raise UsageError(
                f"{self.name}: {elsewhere} documents were processed in other processes (nlp.pipe with n_process > 1), "
                f"so this process has not seen them; pass the Docs nlp.pipe returned: report(docs)"
            )

    def forget_elsewhere(self) -> None:
        if self._elsewhere is not None:
            with self._elsewhere.get_lock():
                self._elsewhere.value = 0

    def pipeline_outputs(self) -> frozenset:
        """The span group keys the pipeline's components write (their ``spans_key``)."""
        names = tuple(self.nlp.component_names)
        if self._outputs[0] != names:
            keys = set()
            for name in names:
                try:
                    key = self.nlp.get_pipe_config(name).get("spans_key")
                except ValueError:  # a component without a stored config
                    continue
                if isinstance(key, str):
                    keys.add(key)
            self._outputs = (names, frozenset(keys))
        return self._outputs[1]

    def groups(self, doc: Doc) -> List[Tuple[str, str]]:
        """``(rater, span group key)`` for every rater group in the Doc."""
        if self.rater_keys is not None:
            return [(key, key) for key in self.rater_keys if key in doc.spans]
        prefix = self.rater_prefix or ""
        outputs = self.pipeline_outputs() if self.rater_prefix is None else frozenset()
        return [
            (key[len(prefix):], key) for key in sorted(doc.spans)
            if key.startswith(prefix) and len(key) > len(prefix) and key not in outputs
        ]

    def record(self, doc: Doc) -> Dict[str, Any]:
        """One Doc as plain data: id, text, tokens and each rater's ``(start, end, label)`` spans."""
        self._n_docs += 1
        doc_id = doc_id_of(doc, self._n_docs)
        where = Location(f"<{self.name}>")
        self._id_clashes.check(doc, doc_id, where)
        empty = CorpusBuilder()  # counts spans with no characters, left out
        raters = [(rater, span_tuples(doc.spans[key], where, doc_id, f"spans[{key!r}]", empty)) for rater, key in self.groups(doc)]
        return {"doc_id": doc_id, "text": doc.text, "tokens": doc_tokens(doc), "raters": raters,
                "left_out": empty.exclusions.spans, "groups": list(doc.spans)}

    def corpus(self, records: Iterable[Dict[str, Any]]) -> Corpus:
        builder = CorpusBuilder()
        where = Location(f"<{self.name}>")
        for rec in records:
            builder.exclusions.spans.update(rec["left_out"])
            if not rec["raters"]:
                builder.document(rec["doc_id"], rec["doc_id"], rec["text"], where, "")
            for rater, spans in rec["raters"]:
                builder.add(rec["doc_id"], rec["doc_id"], rec["text"], rater, spans, where, rec["tokens"])
        return builder.build()


class SpanAgreement(_RaterGroups):
    """Agreement between the raters whose spans are in each Doc's span groups.

    Per Doc, ``doc._.agreement`` is a dict: ``doc_id``, ``raters``, the document's totals
    (``a``, ``b``, ``c``, ``pooled_psa``, ``pairwise_mean_psa``) and ``pairs``, one entry per rater
    pair with ``a``, ``b``, ``c``, ``psa`` and per-label counts. PSA is None when undefined (neither
    rater marked anything). The document id is ``doc.user_data["doc_id"]``, else the Doc's
    position in the stream (``doc-0001``).

    :meth:`report` scores every Doc seen so far as one corpus: the same dict as
    ``spanagree score --output json`` on the same data.
    """

    def __init__(self, nlp: Language, name: str = "span_agreement", *, rater_keys=None, rater_prefix=None,
                 scorer: Optional[Callable] = None, **alignment: Any):
        super().__init__(nlp, name, rater_keys, rater_prefix, alignment)
        if isinstance(scorer, AgreementScorer) and scorer.given is not None:
            scorer = scorer.with_rule(self.rule, self.unit)  # what the scorer leaves unset: the component's
        self.scorer = scorer
        if not Doc.has_extension("agreement"):
            Doc.set_extension("agreement", default=None)

    def __call__(self, doc: Doc) -> Doc:
        record = self.record(doc)
        if self.at_home():  # else a worker of nlp.pipe(n_process=...): the spans travel on the Doc
            earlier = self._positions.setdefault(record["doc_id"], len(self._records))
            if earlier < len(self._records):  # a Doc processed again (same id): its latest spans count
                self._records[earlier] = record
            else:
                self._records.append(record)
        report = _score(self.corpus([record]), self.rule, unit=self.unit).to_dict()
        doc._.agreement = _document_summary(record, report)
        return doc

    def report(self, docs: Optional[Iterable[Doc]] = None, *, reference: Optional[str] = None, beta: float = 1.0) -> Dict[str, Any]:
        """The corpus report over every Doc processed since the last :meth:`reset` (a Doc processed
        again, with the same ``user_data["doc_id"]``, counts once, with its latest spans), or over
        ``docs`` (Docs this component has processed, e.g. those ``nlp.pipe(..., n_process=2)``
        returned, in order: their span groups are read again).

        After a multi-process ``nlp.pipe`` the Docs went through copies of this component in
        other processes; without ``docs`` the report would miss them, so it refuses.
        """
        if docs is not None:
            records = [self._from_doc(doc, i) for i, doc in enumerate(docs, 1)]
        else:
            self.refuse_if_elsewhere()
            records = self._records
        if records and not any(rec["raters"] for rec in records):  # a report of None: say why
            asked = (f"rater_keys {self.rater_keys}" if self.rater_keys is not None else f"rater_prefix "
                     f"{self.rater_prefix!r}" if self.rater_prefix is not None else "every span group but outputs")
            _warn_no_group(self.name, asked, len(records), [g for rec in records for g in rec["groups"]])
        return _score(self.corpus(records), self.rule, unit=self.unit, reference=reference, beta=beta).to_dict()

    def _from_doc(self, doc: Doc, position: int) -> Dict[str, Any]:
        """A processed Doc as a record; its id is ``doc.user_data["doc_id"]``, else its position
        in ``docs`` (positions counted in a worker process are that worker's own)."""
        if doc._.agreement is None:
            raise UsageError(f"{self.name}: Doc {position} of report(docs) has not been through this component (doc._.agreement is None)")
        record = self.record(doc)
        self._n_docs -= 1  # record() counts a position; these Docs were counted when processed
        record["doc_id"] = doc_id_of(doc, position)
        return record

    def reset(self) -> None:
        super().reset()
        self._records: List[Dict[str, Any]] = []
        self._positions: Dict[str, int] = {}  # doc id -> its record

    def score(self, examples: Iterable, **kwargs) -> Dict[str, Any]:
        """Score Examples with the configured scorer (``spanagree.agreement_scorer.v1`` by default)."""
        if self.scorer is None:
            return {}
        return self.scorer(examples, **kwargs)


def _shared_counter():
    """A counter the worker processes of ``nlp.pipe(n_process=...)`` share with this one."""
    return multiprocessing.Value("q", 0)


def _document_summary(record: Dict[str, Any], report: Dict[str, Any]) -> Dict[str, Any]:
    row = report["per_document"][0] if report["per_document"] else {}
    return {
        "doc_id": record["doc_id"],
        "raters": [rater for rater, _ in record["raters"]],
        "a": row.get("a", 0.0),
        "b": row.get("b", 0.0),
        "c": row.get("c", 0.0),
        "pooled_psa": row.get("pooled_psa"),
        "pairwise_mean_psa": row.get("pairwise_mean_psa"),
        "pairs": [{k: v for k, v in pair.items() if k != "documents"} for pair in report["pairs"]],
    }


# --- span_consensus -------------------------------------------------------------------------------


@Language.factory(
    "span_consensus",
    default_config={
        "rater_keys": None, "rater_prefix": None, "min_raters": 2, **ALIGNMENT,
        "spans_key": "consensus", "set_ents": True, "existing_ents": "replace",
    },
    assigns=["doc.spans", "doc.ents", "doc._.consensus"],
)
@_alignment_parameters
def make_span_consensus(
    nlp: Language,
    name: str,
    rater_keys: Optional[List[str]],
    rater_prefix: Optional[str],
    min_raters: int,
    spans_key: str,
    set_ents: bool,
    existing_ents: str,
    **alignment: Any,
) -> "SpanConsensus":
    """Build the ``span_consensus`` component (see :class:`SpanConsensus`)."""
    _refuse_inline_comments(name, {"rater_keys": rater_keys, "rater_prefix": rater_prefix, "spans_key": spans_key,
                                   "existing_ents": existing_ents, **alignment})
    return SpanConsensus(
        nlp, name, rater_keys=rater_keys, rater_prefix=rater_prefix, min_raters=min_raters, spans_key=spans_key,
        set_ents=set_ents, existing_ents=existing_ents, **alignment,
    )


class SpanConsensus(_RaterGroups):
    """The raters' consensus per Doc, by vote (:func:`spanagree.diagnostics.consensus.consensus`).

    Writes ``doc.spans[spans_key]`` (default ``"consensus"``) for every Doc that at least
    ``min_raters`` raters submitted, and ``doc.ents`` too when ``set_ents`` and the consensus spans
    do not overlap. A Doc that already has entities (from an earlier ``ner`` or
    ``entity_ruler``): ``existing_ents="replace"`` (default) replaces them with the consensus,
    ``"keep"`` leaves them and writes the span group only. ``doc._.consensus`` holds the
    document's report: spans kept, clusters below ``min_raters``, the ties (left out and listed),
    and under ``ents_note`` what was done to ``doc.ents``. :meth:`report` sums them over the Docs
    seen.
    """

    def __init__(self, nlp: Language, name: str = "span_consensus", *, rater_keys=None, rater_prefix=None, min_raters=2,
                 spans_key="consensus", set_ents=True, existing_ents="replace", **alignment: Any):

        super().__init__(nlp, name, rater_keys, rater_prefix, alignment)
        self.min_raters = check_min_raters(min_raters)
        if not isinstance(spans_key, str) or not spans_key:
            raise UsageError(f"{name}: spans_key must be a non-empty string, got {shown(spans_key)}")
        if rater_keys is not None and spans_key in rater_keys:
            raise UsageError(f"{name}: spans_key {spans_key!r} is one of rater_keys; the consensus would overwrite "
                             "that rater's spans: choose another spans_key")
        if existing_ents not in EXISTING_ENTS:
            raise UsageError(f"{name}: existing_ents must be one of {', '.join(EXISTING_ENTS)}; got {existing_ents!r}")
        self.spans_key = spans_key
        self.set_ents = set_ents
        self.existing_ents = existing_ents
        if not Doc.has_extension("consensus"):
            Doc.set_extension("consensus", default=None)

    def groups(self, doc: Doc) -> List[Tuple[str, str]]:
        """The rater groups, never this component's own output group."""
        return [(rater, key) for rater, key in super().groups(doc) if key != self.spans_key]

    def __call__(self, doc: Doc) -> Doc:
        record = self.record(doc)
        gold, report = consensus(self.corpus([record]), min_raters=self.min_raters, rule=self.rule, unit=self.unit, name=self.spans_key)
        notes: Counter = Counter()
        summary = {"doc_id": record["doc_id"], "kept": 0, "clusters": report["clusters"], "ties": report["ties"]}
        if gold.n_annotations:
            spans = spacy_spans(doc, gold.spans_of(record["doc_id"], self.spans_key), notes)
            doc.spans[self.spans_key] = spans
            summary["kept"] = len(spans)
            outcome = self._set_ents(doc, spans)
            summary["ents"] = outcome in ("set", "replaced")
            summary["ents_note"] = ENTS_NOTES[outcome]
            notes[f"doc.ents {outcome}"] += 1
        else:
            summary["excluded"] = report["documents"]["excluded"]
        summary.update(notes)
        summary["notes"] = dict(notes)
        doc._.consensus = summary
        if self.at_home():  # else a worker of nlp.pipe(n_process=...): the summary travels on the Doc
            _add_summary(self._totals, self._ties, summary)
        return doc

    def _set_ents(self, doc: Doc, spans: List) -> str:
        """Put the consensus in ``doc.ents`` if the settings allow it; what was done."""
        if not self.set_ents:
            return "not set"
        if _overlapping(spans):
            return "overlapping"
        if doc.ents and self.existing_ents == "keep":
            return "kept"
        outcome = "replaced" if doc.ents else "set"
        doc.set_ents(spans, default="outside")
        return outcome

    def report(self, docs: Optional[Iterable[Doc]] = None) -> Dict[str, Any]:
        """Totals over the Docs seen since :meth:`reset` (or over ``docs``, Docs this component
        has processed, e.g. those a multi-process ``nlp.pipe`` returned), and every tie listed."""
        if docs is None:
            self.refuse_if_elsewhere()
            return {**dict(self._totals), "ties": list(self._ties)}
        totals: Counter = Counter()
        ties: List[Dict[str, Any]] = []
        for position, doc in enumerate(docs, 1):
            if doc._.consensus is None:
                raise UsageError(f"{self.name}: Doc {position} of report(docs) has not been through this component (doc._.consensus is None)")
            _add_summary(totals, ties, doc._.consensus)
        return {**dict(totals), "ties": ties}

    def reset(self) -> None:
        super().reset()
        self._totals: Counter = Counter()
        self._ties: List[Dict[str, Any]] = []


def _add_summary(totals: Counter, ties: List[Dict[str, Any]], summary: Dict[str, Any]) -> None:
    """Add one Doc's ``doc._.consensus`` to the totals and the list of ties."""
    totals.update({"documents": 1, "kept": summary["kept"], **summary["clusters"], **summary["notes"]})
    ties.extend(summary["ties"])


def _overlapping(spans: List) -> bool:
    ordered = sorted((s.start, s.end) for s in spans)
    return any(b[0] < a[1] for a, b in zip(ordered, ordered[1:]))


# --- spanagree.agreement_scorer.v1 ----------------------------------------------------------------


def make_agreement_scorer(*, spans_key: Optional[str] = None, attr: Optional[str] = None, **alignment: Any) -> "AgreementScorer":
    """Make a scorer of predicted against reference spans under a spanagree rule (registered as
    ``spanagree.agreement_scorer.v1``). See ``docs/spacy.md``.

    Parameters
    ----------
    rule, labels, min_overlap, partial_credit, proportional : the alignment rule
        (``docs/spacy.md``; declared in :mod:`spanagree.core.options`). Left unset, the scorer
        of a ``span_agreement`` component takes the component's rule; anywhere else the
        defaults apply (exact rule, strict labels).
    spans_key : ``None`` or ``"ents"`` scores ``doc.ents``; any other key ``doc.spans[spans_key]``.
    attr : the prefix of the result keys: ``"ents"`` for ``doc.ents``, ``"spans_{spans_key}"``
        for a span group, as spaCy's own scorers name them.
    unit : ``"char"`` (default) or ``"token"`` (the reference Doc's tokens).

    Returns
    -------
    A callable ``(examples, **kwargs) -> dict`` with spaCy's keys ``{attr}_p``, ``_r``, ``_f``,
    ``_per_type`` (``{label: {"p", "r", "f"}}``) and spanagree's ``_psa``, ``_a``, ``_b``, ``_c``
    and ``_rule``.
    """
    _refuse_inline_comments(SCORER, {"spans_key": spans_key, "attr": attr, **alignment})
    explicit = {k: v for k, v in alignment.items() if v is not None}
    rule, unit = _rule_and_unit(explicit, SCORER)
    return AgreementScorer(rule, spans_key=spans_key, attr=attr, unit=unit, given=explicit)


_alignment_parameters(make_agreement_scorer, unset=True)


class AgreementScorer:
    """Precision, recall and F of predicted spans against reference spans under a spanagree rule.

    The reference is rater A: ``recall = a / (a + b)``, ``precision = a / (a + c)``, with ``a``
    the matched credit (fractional under the partial and proportional rules).

    The keys spaCy reads (``{attr}_p``, ``_r``, ``_f``, ``_per_type``) follow spaCy's own
    convention (``Scorer.score_spans``): when there is nothing to score at all (no span on either
    side) they are None; otherwise a ratio whose denominator is zero is 0.0 (precision with no
    predicted span, recall with no reference span), as spaCy's ``PRFScore`` gives. spaCy's
    training loop drops for good any score weight whose value was None at one evaluation, so
    None is kept for the case spaCy itself reports as None. ``{attr}_psa`` keeps spanagree's
    convention: None when undefined. As spaCy's own scorers do, an Example whose reference has no
    annotation of this kind (no entity annotation at all, or no span group ``spans_key``) is
    skipped.
    """

    def __init__(self, rule: AlignmentRule, *, spans_key: Optional[str] = None, attr: Optional[str] = None,
                 unit: str = "char", given: Optional[Dict[str, Any]] = None):
        options.check("unit", unit)
        for name, value in (("spans_key", spans_key), ("attr", attr)):
            if value is not None and (not isinstance(value, str) or not value):
                raise UsageError(f"{SCORER}: {name} must be null or a non-empty string, got {shown(value)}")
        self.rule = rule
        self.spans_key = None if spans_key in (None, "ents") else spans_key
        self.attr = attr or (f"spans_{self.spans_key}" if self.spans_key else "ents")
        self.unit = unit
        #: the alignment options set in the scorer's own config (None: made directly, nothing
        #: to inherit); a ``span_agreement`` component fills in the others from its own
        self.given = given

    def __repr__(self) -> str:
        return f"AgreementScorer({self.rule!r}, spans_key={self.spans_key!r}, unit={self.unit!r})"

    def with_rule(self, rule: AlignmentRule, unit: str) -> "AgreementScorer":
        """The same scorer under another rule and unit (a component's), keeping each option the
        scorer's own config set."""
        rule, unit = _rule_and_unit({**rule.to_dict(), "unit": unit, **(self.given or {})}, SCORER)
        return AgreementScorer(rule, spans_key=self.spans_key, attr=self.attr, unit=unit)

    def _spans(self, doc: Doc):
        return doc.ents if self.spans_key is None else doc.spans.get(self.spans_key, [])

    def _annotated(self, doc: Doc) -> bool:
        return doc.has_annotation("ENT_IOB") if self.spans_key is None else self.spans_key in doc.spans

    def rule_name(self) -> str:
        """The rule in a few characters, for the ``{attr}_rule`` key: ``partial/strict/char``."""
        return f"{self.rule.rule}/{self.rule.labels}/{self.unit}"

    def __call__(self, examples: Iterable, **kwargs) -> Dict[str, Any]:
        prefix = self.attr
        builder = CorpusBuilder()
        where = Location("<examples>")
        skipped: List[Doc] = []  # references without the span group (or entity annotation)
        for i, eg in enumerate(examples, 1):
            ref, pred = eg.reference, eg.predicted
            if not self._annotated(ref):
                skipped.append(ref)
                continue
            doc_id = f"example-{i:06d}"
            tokens = doc_tokens(ref) if self.unit == "token" else None
            builder.add(doc_id, doc_id, ref.text, REFERENCE, span_tuples(self._spans(ref), where, doc_id, prefix, builder), where, tokens)
            builder.add(doc_id, doc_id, pred.text, PREDICTED, span_tuples(self._spans(pred), where, doc_id, prefix, builder), where, tokens)
        result: Dict[str, Any] = {f"{prefix}_{k}": None for k in ("p", "r", "f", "per_type", "psa", "a", "b", "c")}
        result[f"{prefix}_rule"] = self.rule_name()
        corpus = builder.build()
        if self.spans_key is not None and skipped and not corpus.n_documents:
            _warn_no_group(SCORER, f"spans_key {self.spans_key!r}", len(skipped), [g for doc in skipped for g in doc.spans])
        if not corpus.n_spans:
            return result
        layout, summary = _score(corpus, self.rule, unit=self.unit).point()
        ref = corpus.raters.index(REFERENCE)
        _, abc = against(summary.pair_abc[0], layout.pairs, ref)  # the reference as side A
        a, b, c = abc[0].tolist()
        result.update({f"{prefix}_{k}": v for k, v in spacy_prf(a, b, c).items()})
        value = summary.pair_psa[0, 0]
        result.update({f"{prefix}_psa": reported(value), f"{prefix}_a": a, f"{prefix}_b": b, f"{prefix}_c": c})
        _, by_label = against(summary.cell_abc[0], layout.pairs[layout.cell_pair], ref)
        result[f"{prefix}_per_type"] = {
            corpus.labels[k]: spacy_prf(*row) for k, row in zip(layout.cell_label.tolist(), by_label.tolist()) if sum(row) > 0
        }
        return result


def spacy_prf(a: float, b: float, c: float) -> Dict[str, float]:
    """``{"p", "r", "f"}`` as spaCy's ``PRFScore`` reports them: a zero denominator gives 0.0.

    Only for the keys spaCy consumes; with ``a + b + c > 0`` F is ``2a / (2a + b + c)``.

    >>> spacy_prf(0, 2, 0)
    {'p': 0.0, 'r': 0.0, 'f': 0.0}
    >>> spacy_prf(1, 0, 1)
    {'p': 0.5, 'r': 1.0, 'f': 0.6666666666666666}
    """
    p, r, f = (0.0 if x != x else float(x) for x in prf_arrays(np.array([a, b, c], dtype=np.float64)))
    return {"p": p, "r": r, "f": f}
