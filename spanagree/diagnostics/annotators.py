"""A consensus weighted by annotator models, each rater's competence, and what to adjudicate.

The models are in :mod:`spanagree.measures.annotators` (items, Dawid–Skene, MACE, decoding); this
module ties them to a corpus: it leaves a gold rater out of the model and scores the consensus
and every rater against them, builds the consensus corpus with each span's probability, and
writes the adjudication list as a Prodigy review file. Definitions: docs/annotators.md.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np
import orjson

from ..core import options
from ..core.align import AlignmentRule
from ..core.files import write_jsonl
from ..core.model import Corpus
from ..errors import UsageError
from ..measures.annotators import decode
from ..measures.annotators.bsc import bsc_seq
from ..measures.annotators.dawid_skene import Fit, dawid_skene
from ..measures.annotators.items import rule_and_unit, span_items, token_items
from ..measures.annotators.mace import mace
from .consensus import DEFAULT_NAME, check_name, documents_section, write
from .disagreements import review_tasks
from .raters import copied, rater_against, subset

#: The consensus methods: the vote (:mod:`.consensus`) and the annotator models.
METHODS = ("vote", "dawid-skene", "mace", "bsc-seq")
#: The models of items (:mod:`spanagree.measures.annotators.items`, spans or tokens).
MODELS = {"dawid-skene": dawid_skene, "mace": mace}
#: The models of tag sequences, fitted to a corpus's tokens (their items are always the tokens).
SEQUENCE_MODELS = {"bsc-seq": bsc_seq}
MODEL_NAMES = (*MODELS, *SEQUENCE_MODELS)
#: What the models see: every marked boundary (docs/annotators.md), or every token's BIO tag.
VIEWS = ("spans", "tokens")


def check_method(method: Any, allowed: Sequence[str] = METHODS) -> str:
    if method not in allowed:
        raise UsageError(f"unknown method {method!r}; expected one of: {', '.join(allowed)}")
    return method


def split_gold(corpus: Corpus, gold_rater: str | None) -> tuple[Corpus, Corpus | None]:
    """The corpus without the gold rater, and the gold rater's own corpus (None without one)."""
    if gold_rater is None:
        return corpus, None
    if gold_rater not in corpus.raters:
        raise UsageError(f"unknown gold rater {gold_rater!r}; the raters are: {', '.join(corpus.raters)}")
    others = [r for r in corpus.raters if r != gold_rater]
    if not others:
        raise UsageError(f"the gold rater {gold_rater!r} is the only rater; there is nobody to model")
    return subset(corpus, others), subset(corpus, [gold_rater])


def fit_model(
    corpus: Corpus,
    *,
    method: str = "dawid-skene",
    rule: str | AlignmentRule = options.default("rule"),
    model_options: dict[str, Any] | None = None,
    view: str = "spans",
    **alignment: Any,
) -> Fit:
    """Items of ``corpus`` (``view``: ``spans`` under the rule, or ``tokens``, each token's BIO
    tag), and the fitted model ``method`` (``dawid-skene`` or ``mace``); ``bsc-seq`` models the
    tokens' tag sequences whatever the view."""
    check_method(method, MODEL_NAMES)
    if method in SEQUENCE_MODELS:
        return SEQUENCE_MODELS[method](corpus, **(model_options or {}))
    if view not in VIEWS:
        raise UsageError(f"unknown item view {view!r}; expected one of: {', '.join(VIEWS)}")
    if view == "tokens":
        if not corpus.has_tokens():
            raise UsageError("token items need the raters' tokens (Prodigy or spanagree JSONL 'tokens', CoNLL, DocBin); "
                             "this input has none: use span items (--items spans)")
        items = token_items(corpus)
    else:
        items = span_items(corpus, rule=rule, **alignment)
    return MODELS[method](items, **(model_options or {}))


def against_gold(corpus: Corpus, gold: Corpus, rule: AlignmentRule, unit: str) -> dict[str, dict[str, Any]]:
    """Precision, recall and F of every rater of ``corpus`` against ``gold`` (one rater), over the
    documents both submitted, aligned with ``rule`` (as ``score --reference``)."""
    return {name: rater_against(corpus, r, gold, rule, unit)[3] for r, name in enumerate(corpus.raters)}


def model_consensus(
    corpus: Corpus,
    *,
    method: str = "dawid-skene",
    min_raters: int = 1,
    rule: str | AlignmentRule = options.default("rule"),
    name: str = DEFAULT_NAME,
    threshold: float = 0.5,
    allow_overlap: bool = False,
    gold_rater: str | None = None,
    model_options: dict[str, Any] | None = None,
    level: float = 0.95,
    seed: int = 0,
    adjudicate: int | None = 50,
    view: str = "spans",
    **alignment: Any,
) -> tuple[Corpus, dict[str, Any], dict[tuple[str, int, int, str], float], Fit]:
    """The consensus by an annotator model: ``(gold, report, probability, fit)``.

    ``gold`` has one rater, ``name``, with one annotation per document that at least
    ``min_raters`` raters (the gold rater not counted) submitted; ``probability`` maps each of its
    spans ``(doc_id, start, end, label)`` to its posterior; ``report`` holds the model's settings
    and convergence, the competence table, the adjudication list (the ``adjudicate`` items whose
    reading one more judgment would change most) and, with ``gold_rater``, precision, recall and
    F of the consensus and of every rater against the gold rater (who is left out of the model).

    Examples
    --------
    >>> from spanagree.core.builder import CorpusBuilder
    >>> b = CorpusBuilder()
    >>> for d in range(12):
    ...     for rater in "abc":
    ...         b.add(f"d{d}", f"d{d}", "Alice in Rome", rater, [(0, 5, "PER")] if rater != "c" else [], None)
    >>> gold, report, probability, fit = model_consensus(b.build())
    >>> gold.spans_of("d0", "consensus"), report["ranking"][-1]
    ([(0, 5, 'PER')], 'c')
    """
    check_method(method, MODEL_NAMES)
    check_name(name)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold < 1:
        raise UsageError(f"the threshold is a probability in [0, 1), got {threshold!r}")
    if min_raters is None:
        min_raters = 1
    if isinstance(min_raters, bool) or not isinstance(min_raters, int) or min_raters < 1:
        raise UsageError(f"min_raters must be a whole number >= 1, got {min_raters!r}")
    if name in corpus.raters:
        raise UsageError(f"the consensus name {name!r} is already a rater's name; choose another name")
    modelled, gold_corpus = split_gold(corpus, gold_rater)
    rule_obj, unit = rule_and_unit(rule, alignment)
    fit = fit_model(modelled, method=method, rule=rule_obj, unit=unit, model_options=model_options, view=view)
    raters_per_doc = np.bincount(modelled.ann_doc, minlength=modelled.n_documents)
    documents = np.flatnonzero(raters_per_doc >= min_raters)
    gold, probability = decode.consensus_corpus(fit, name=name, documents=documents, threshold=threshold,
                                                allow_overlap=allow_overlap)
    table = decode.competence(fit, level=level, seed=seed)
    report: dict[str, Any] = {
        "name": name,
        "method": method,
        "items": view,
        "min_raters": min_raters,
        "threshold": threshold,
        "allow_overlap": allow_overlap,
        "rule": {**rule_obj.to_dict(), "unit": unit},
        "raters": list(modelled.raters),
        "model": {"settings": fit.settings, "convergence": fit.convergence(), "items": fit.items.to_dict(),
                  "class_prior": dict(zip(fit.items.class_names, fit.class_prior.tolist()))},
        "documents": documents_section(corpus.n_documents, raters_per_doc, min_raters),
        "spans": {"read": corpus.n_spans, "in_consensus": gold.n_spans},
        "competence": table,
        "ranking": [row["rater"] for row in table],
        "adjudication": decode.adjudication(fit, limit=adjudicate),
    }
    if gold_corpus is not None:
        scores = against_gold(copied((modelled, None, None), (gold, None, None)), gold_corpus, rule_obj, unit)
        report["gold"] = {"rater": gold_rater, "consensus": scores.pop(name, None), "raters": scores}
    return gold, report, probability, fit


def write_adjudication(corpus: Corpus, gold: Corpus, report: dict[str, Any], out: str | Path, *,
                       language: str = "en") -> dict[str, Any]:
    """The documents of the adjudication list, most in need first, as a Prodigy review file: one
    task per rater who submitted the document and one for the model's consensus (as
    ``disagreements --output prodigy-review``); each task's ``meta`` has the document's largest
    expected change and its least certain item."""
    worst: dict[str, dict] = {}  # each document's first entry, documents in the list's order
    for entry in report["adjudication"]:
        worst.setdefault(entry["doc_id"], entry)
    wanted = set(worst)
    tasks, notes = review_tasks(copied((corpus, None, wanted), (gold, None, wanted)), None, language,
                                include_agreed=True)
    rank = {doc_id: i for i, doc_id in enumerate(worst)}
    tasks.sort(key=lambda t: (rank[t["meta"]["doc_id"]], t["meta"]["rater"]))
    for task in tasks:
        entry = worst[task["meta"]["doc_id"]]
        task["meta"]["expected_change"] = round(entry["expected_change"], 4)
        task["meta"]["least_certain"] = f"{entry['text']!r}: {entry['reading']} p={entry['probability']:.2f}"
    write_jsonl(Path(out), tasks)
    return {"path": str(out), "documents": len(worst), "tasks": len(tasks), **({"notes": dict(notes)} if notes else {})}


def write_with_probability(gold: Corpus, probability: dict, path: str | Path, **kwargs: Any) -> dict[str, Any]:
    """Write the consensus (:func:`spanagree.diagnostics.consensus.write`); in JSONL each span
    carries its ``probability``, in a DocBin the consensus span group's ``attrs["scores"]``."""
    suffix = Path(path).suffix.lower()
    written = write(gold, path, **kwargs, **({"scores": probability} if suffix == ".spacy" else {}))
    if suffix == ".jsonl":
        records = [orjson.loads(line) for line in Path(path).read_bytes().splitlines()]
        for record in records:
            for span in record.get("spans", []):
                p = probability.get((record["doc_id"], span["start"], span["end"], span["label"]))
                if p is not None:
                    span["probability"] = round(p, 6)
        write_jsonl(Path(path), records)
    return written
