"""spaCy workflows run as their users run them: ``spacy train`` with the spanagree scorer and
reader, ``spacy evaluate`` and ``meta.json`` on the result, DocBins that spaCy's tools read."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

import spanagree
from conftest import EXAMPLE

spacy = pytest.importorskip("spacy")
from spacy.scorer import Scorer  # noqa: E402
from spacy.tokens import DocBin  # noqa: E402

ALICE, BOB = "news_ner-alice", "news_ner-bob"
N_DOCS = 8


def S(start, end, label):
    return {"start": start, "end": end, "label": label}

BASE_CONFIG = textwrap.dedent(
    """
    [paths]
    data = null

    [nlp]
    lang = "en"
    pipeline = ["ner", "ruler"]
    batch_size = 10

    [components]

    [components.ner]
    factory = "ner"

    [components.ner.scorer]
    @scorers = "spanagree.agreement_scorer.v1"
    rule = "partial"

    [components.ner.model]
    @architectures = "spacy.TransitionBasedParser.v2"
    state_type = "ner"
    hidden_width = 16
    maxout_pieces = 2
    use_upper = true

    [components.ner.model.tok2vec]
    @architectures = "spacy.HashEmbedCNN.v2"
    pretrained_vectors = null
    width = 16
    depth = 1
    embed_size = 500
    window_size = 1
    maxout_pieces = 2
    subword_features = false

    [components.ruler]
    source = "{ruler}"

    [corpora]

    [corpora.train]
    @readers = "spanagree.RaterCorpus.v1"
    path = ${paths.data}
    reference = "news_ner-alice"
    limit = 8

    [corpora.dev]
    @readers = "spanagree.RaterCorpus.v1"
    path = ${paths.data}
    reference = "news_ner-alice"
    limit = 8

    [training]
    max_steps = 6
    eval_frequency = 3
    frozen_components = ["ruler"]
    seed = 0
    """
)


def _spacy(*args, cwd=None, check=True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "spacy", *map(str, args)], capture_output=True, text=True, cwd=cwd, check=False)
    assert proc.returncode == 0 or not check, proc.stdout + proc.stderr
    return proc


def _ruler_pipeline(path):
    """A frozen entity ruler whose patterns are bob's spans: its output is bob's markup, so the
    scores are alice-against-bob, known in advance, whatever the few training steps do."""
    corpus = spanagree.read(EXAMPLE)
    bob = corpus.raters.index(BOB)
    patterns = set()
    for i, (d, r) in enumerate(zip(corpus.ann_doc.tolist(), corpus.ann_rater.tolist())):
        if r == bob and d < N_DOCS:
            lo, hi = corpus.ann_ptr[i], corpus.ann_ptr[i + 1]
            for s, e, k in zip(corpus.span_start[lo:hi].tolist(), corpus.span_end[lo:hi].tolist(), corpus.span_label[lo:hi].tolist()):
                patterns.add((corpus.labels[k], corpus.texts[d][s:e]))
    nlp = spacy.blank("en")
    scorer = {"@scorers": "spanagree.agreement_scorer.v1", "rule": "partial"}
    nlp.add_pipe("entity_ruler", name="ruler", config={"overwrite_ents": True, "scorer": scorer}).add_patterns(
        [{"label": label, "pattern": text} for label, text in sorted(patterns)]
    )
    nlp.to_disk(path)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Run ``spacy init fill-config`` and ``spacy train`` for six steps; the directory and the
    training output."""
    root = tmp_path_factory.mktemp("train")
    _ruler_pipeline(root / "ruler")
    (root / "base.cfg").write_text(BASE_CONFIG.replace("{ruler}", str(root / "ruler")))
    _spacy("init", "fill-config", root / "base.cfg", root / "config.cfg")
    proc = _spacy("train", root / "config.cfg", "--output", root / "out", "--paths.data", EXAMPLE)
    return root, proc.stdout


def _table(stdout: str):
    """The training table as (header, last row)."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in stdout.splitlines()]
    at = next(i for i, line in enumerate(lines) if line.startswith("E ") and "SCORE" in line)
    header = lines[at].split()
    rows = [line.split() for line in lines[at + 2:] if re.match(r"^\s*\d+\s+\d+\s", line)]
    return header, dict(zip(reversed(header), reversed(rows[-1])))  # "LOSS NER" is one column


def _expected(model_dir):
    """The trained pipeline's output on the dev documents, scored by spanagree under the partial
    rule in this process, and by spaCy's own exact scorer."""
    from spacy.training import Example

    from spanagree.integrations.corpus import make_rater_corpus

    nlp = spacy.load(model_dir)
    examples = list(make_rater_corpus(EXAMPLE, reference=ALICE, limit=N_DOCS)(nlp))
    predicted = [Example(nlp(eg.reference.text), eg.reference) for eg in examples]
    scorer = spacy.registry.get("scorers", "spanagree.agreement_scorer.v1")(rule="partial")
    return examples, scorer(predicted), Scorer.score_spans(predicted, "ents")


def test_training_table_meta_and_evaluate_show_the_spanagree_figures(trained):
    root, stdout = trained
    examples, partial, exact = _expected(root / "out" / "model-best")
    assert exact["ents_f"] < partial["ents_f"]  # the rule makes a difference on these documents

    header, last = _table(stdout)
    assert header[-4:] == ["ENTS_F", "ENTS_P", "ENTS_R", "SCORE"]  # ner's default weights, no override
    assert not any(col.startswith("SPANAGREE") for col in header)
    for key in ("f", "p", "r"):
        assert float(last[f"ENTS_{key.upper()}"]) == pytest.approx(100 * partial[f"ents_{key}"], abs=0.006)
    assert float(last["ENTS_F"]) > 0
    assert float(last["SCORE"]) == pytest.approx(partial["ents_f"], abs=0.006)  # SCORE is the weighted F

    meta = json.loads((root / "out" / "model-best" / "meta.json").read_text())
    assert meta["performance"]["ents_f"] == pytest.approx(partial["ents_f"])
    from spacy.cli.package import generate_readme  # the README that ``spacy package`` writes

    shown = re.search(r"\| `ENTS_F` \| ([\d.]+) \|", generate_readme(meta))
    assert shown and float(shown.group(1)) == pytest.approx(100 * partial["ents_f"], abs=0.006)
    per_type = meta["performance"]["ents_per_type"]
    assert set(per_type) == set(partial["ents_per_type"])
    for label, prf in partial["ents_per_type"].items():
        assert per_type[label] == pytest.approx(prf)

    DocBin(docs=[eg.reference for eg in examples]).to_disk(root / "dev.spacy")
    proc = _spacy("evaluate", root / "out" / "model-best", root / "dev.spacy", "--output", root / "scores.json")
    shown = re.search(r"NER F\s+([\d.]+)", proc.stdout)
    assert shown and float(shown.group(1)) == pytest.approx(100 * partial["ents_f"], abs=0.006)
    scores = json.loads((root / "scores.json").read_text())
    assert scores["ents_f"] == pytest.approx(partial["ents_f"]) and scores["ents_rule"] == "partial/strict/char"


# --- DocBins that spaCy's tools read ------------------------------------------------------------


def test_consensus_docbin_labels_found_by_spacy_corpus_and_debug_data(tmp_path):
    from spanagree.diagnostics.consensus import write

    gold = tmp_path / "gold.spacy"
    found_gold, report = spanagree.consensus(EXAMPLE, min_raters=2)
    written = write(found_gold, gold, spans_key="sc")
    assert written["ents"] == report["spans"]["in_consensus"] > 0
    nlp = spacy.blank("en")
    examples = list(spacy.registry.resolve({"c": {"@readers": "spacy.Corpus.v1", "path": str(gold), "gold_preproc": False}})["c"](nlp))
    found = {ent.label_ for eg in examples for ent in eg.reference.ents}
    assert found == {"PERSON", "ORG", "GPE", "DATE", "MONEY"}
    assert all(list(eg.reference.ents) == list(eg.reference.spans["consensus"]) == list(eg.reference.spans["sc"]) for eg in examples)
    assert spanagree.read(gold).raters == ["consensus"]
    # ``spacy debug data`` on a ner config finds the five labels (it exits 1 on its own findings
    # about so small a corpus, such as train and dev being the same file)
    _spacy("init", "config", "-p", "ner", "-l", "en", tmp_path / "ner.cfg", "-F")
    proc = _spacy("debug", "data", tmp_path / "ner.cfg", "--paths.train", gold, "--paths.dev", gold, check=False)
    assert re.search(r"5 label\(s\)", proc.stdout) and "0 missing value(s)" in proc.stdout, proc.stdout


def test_convert_writes_a_chosen_rater_as_ents_and_reports_overlaps(write_jsonl, tmp_path):
    from spanagree.outputs.convert import convert
    from spanagree.errors import UsageError

    text = "Maria Lopez met growers in Kellsbridge."
    path = write_jsonl([
        {"doc_id": "d1", "annotator": "alice", "text": text, "spans": [S(0, 11, "PER"), S(0, 5, "PER"), S(27, 38, "LOC")]},
        {"doc_id": "d1", "annotator": "bob", "text": text, "spans": [S(27, 38, "LOC")]},
        {"doc_id": "d2", "annotator": "bob", "text": "Nothing here.", "spans": []},
    ])
    with pytest.warns(UserWarning, match="overlapping another"):
        result = convert(path, tmp_path / "out.spacy", ents="alice", spans_key="sc")
    written = result["written"]
    assert written["ents"] == 1 and written["spans overlapping another, not in doc.ents (tokens marked missing)"] == 2
    assert written["documents alice did not submit (no entity annotation)"] == 1
    d1, d2 = DocBin().from_disk(tmp_path / "out.spacy").get_docs(spacy.blank("en").vocab)
    assert [(e.text, e.label_) for e in d1.ents] == [("Kellsbridge", "LOC")]
    assert [t.ent_iob_ for t in d1[:2]] == ["", ""]  # the overlapping spans' tokens: missing, not "outside"
    assert d1[2].ent_iob_ == "O" and len(d1.spans["alice"]) == len(d1.spans["sc"]) == 3
    assert not d2.has_annotation("ENT_IOB")  # alice did not submit it: no entity annotation at all
    back = spanagree.read(tmp_path / "out.spacy")  # the copy in "sc" is not taken for another rater
    assert back.raters == ["alice", "bob"] and back.spans_of("d1", "alice") == spanagree.read(path).spans_of("d1", "alice")
    assert back.exclusions.notes["span groups copying a rater's spans (spans_key of the writer), not read as raters"] == 1
    with pytest.raises(UsageError, match="no rater 'carol'"):
        convert(path, tmp_path / "x.spacy", ents="carol")
    with pytest.raises(UsageError, match="DocBin output"):
        convert(path, tmp_path / "x.jsonl", ents="alice")


# --- spanagree.RaterCorpus.v1 as a drop-in for spacy.Corpus.v1 ------------------------------------


def _reader(**config):
    return spacy.registry.resolve({"r": {"@readers": "spanagree.RaterCorpus.v1", **config}})["r"]


def test_rater_corpus_takes_every_spacy_corpus_parameter(tmp_path):
    from spacy.training.augment import create_lower_casing_augmenter

    gold = tmp_path / "gold.spacy"
    DocBin(docs=[eg.reference for eg in _reader(path=str(EXAMPLE), reference=ALICE, limit=6)(spacy.blank("en"))]).to_disk(gold)
    nlp = spacy.blank("en")
    common = {"path": str(gold), "gold_preproc": False, "max_length": 0, "limit": 0, "augmenter": None}
    ours = list(_reader(**common)(nlp))  # one rater in the file: no reference needed
    theirs = list(spacy.registry.resolve({"c": {"@readers": "spacy.Corpus.v1", **common}})["c"](nlp))
    assert [(eg.reference.text, [(e.start_char, e.end_char, e.label_) for e in eg.reference.ents]) for eg in ours] == [
        (eg.reference.text, [(e.start_char, e.end_char, e.label_) for e in eg.reference.ents]) for eg in theirs
    ]
    assert [len(eg.predicted) for eg in ours] == [len(eg.predicted) for eg in theirs]
    assert len(list(_reader(**{**common, "limit": 2})(nlp))) == 2

    lengths = sorted(len(eg.reference) for eg in ours)
    cut = lengths[3]
    with pytest.warns(UserWarning, match=r"documents of max_length tokens or more \(skipped\)"):
        short = list(_reader(**{**common, "max_length": cut})(nlp))
    assert len(short) == sum(n < cut for n in lengths)

    augmenter = create_lower_casing_augmenter(level=1.0)
    lowered = list(_reader(**{**common, "augmenter": augmenter})(nlp))
    assert all(eg.reference.text == eg.reference.text.lower() for eg in lowered) and len(lowered) == len(ours)

    # gold_preproc: the predicted Doc takes the reference's tokens, not the tokenizer's
    odd = tmp_path / "odd.jsonl"
    odd.write_text(json.dumps({"doc_id": "d", "annotator": "a", "text": "New-York rocks", "tokens": [
        {"start": 0, "end": 8}, {"start": 9, "end": 14}], "spans": [{"start": 0, "end": 8, "label": "GPE"}]}) + "\n")
    (eg,) = _reader(path=str(odd), gold_preproc=True)(nlp)
    assert [t.text for t in eg.predicted] == ["New-York", "rocks"]
    (eg,) = _reader(path=str(odd), gold_preproc=False)(nlp)
    assert [t.text for t in eg.predicted] == [t.text for t in nlp.make_doc("New-York rocks")]


def test_rater_corpus_reads_several_paths_and_needs_a_reference_among_several_raters(tmp_path, write_jsonl):
    from spanagree.errors import UsageError

    one = write_jsonl([{"doc_id": "1", "annotator": "a", "text": "Maria came.", "spans": [S(0, 5, "PER")]}], "one.jsonl")
    two = write_jsonl([{"doc_id": "2", "annotator": "a", "text": "Bob left.", "spans": [S(0, 3, "PER")]}], "two.jsonl")
    examples = list(_reader(path=[str(one), str(two)])(spacy.blank("en")))
    assert sorted(eg.reference.text for eg in examples) == ["Bob left.", "Maria came."]
    with pytest.raises(UsageError, match="name the reference rater"):
        list(_reader(path=str(EXAMPLE))(spacy.blank("en")))
    with pytest.raises(UsageError, match="path is null"):
        _reader(path=None)
    with pytest.raises(UsageError, match="max_length"):
        _reader(path=str(EXAMPLE), max_length=-1)


# --- the components ------------------------------------------------------------------------------

TEXT = "President Maria Lopez met growers in Kellsbridge."


def _rated(nlp, groups):
    doc = nlp.make_doc(TEXT)
    for key, spans in groups.items():
        doc.spans[key] = [doc.char_span(s, e, label) for s, e, label in spans]
    return doc


def test_report_after_multiprocess_pipe_refuses_then_merges_the_docs(tmp_path):
    nlp = spacy.blank("en")
    agree = nlp.add_pipe("span_agreement")
    docs = [
        _rated(nlp, {"a": [(10, 21, "PER")], "b": [(10, 21, "PER"), (37, 48, "LOC")]}),
        _rated(nlp, {"a": [(0, 21, "PER")], "b": [(10, 21, "PER")]}),
        _rated(nlp, {"a": [(37, 48, "LOC")], "b": [(37, 48, "LOC")]}),
    ]
    single = agree.report(list(nlp.pipe([d.copy() for d in docs])))
    assert single == agree.report()  # the Docs, or what the component saw: one report
    agree.reset()
    out = list(nlp.pipe([d.copy() for d in docs], n_process=2, batch_size=1))
    from spanagree.errors import UsageError

    with pytest.raises(UsageError, match=r"3 documents were processed in other processes.*report\(docs\)"):
        agree.report()
    assert agree.report(out) == single
    assert single["overall"] == spanagree.score(spanagree.read(_as_jsonl(docs, tmp_path))).to_dict()["overall"]


def _as_jsonl(docs, tmp_path):
    path = tmp_path / "docs.jsonl"
    with open(path, "w") as f:
        for i, doc in enumerate(docs, 1):
            for key, spans in doc.spans.items():
                f.write(json.dumps({"doc_id": f"doc-{i:04d}", "annotator": key, "text": doc.text,
                                    "spans": [S(s.start_char, s.end_char, s.label_) for s in spans]}) + "\n")
    return path


def test_default_raters_leave_out_the_pipelines_own_span_groups():
    nlp = spacy.blank("en")
    nlp.add_pipe("span_consensus", config={"min_raters": 2})
    nlp.add_pipe("span_ruler", config={"spans_key": "sc"}).add_patterns([{"label": "PER", "pattern": "Maria Lopez"}])
    agree = nlp.add_pipe("span_agreement")
    doc = nlp(_rated(nlp, {"a": [(10, 21, "PER")], "b": [(0, 21, "PER")]}))
    assert set(doc.spans) == {"a", "b", "consensus", "sc"}
    assert doc._.agreement["raters"] == ["a", "b"] and agree.report()["raters"] == ["a", "b"]
    named = spacy.blank("en")
    named.add_pipe("span_ruler", config={"spans_key": "sc"}).add_patterns([{"label": "PER", "pattern": "Maria Lopez"}])
    named.add_pipe("span_agreement", config={"rater_keys": ["a", "sc"]})
    assert named(_rated(named, {"a": [(10, 21, "PER")]}))._.agreement["raters"] == ["a", "sc"]


def test_span_consensus_says_what_it_does_to_existing_entities():
    from spanagree.errors import UsageError

    groups = {"a": [(10, 21, "PER")], "b": [(10, 21, "PER")]}
    for choice, expected, outcome in (("replace", [("Maria Lopez", "PER")], "replaced"), ("keep", [("Kellsbridge", "GPE")], "kept")):
        nlp = spacy.blank("en")
        component = nlp.add_pipe("span_consensus", config={"min_raters": 2, "existing_ents": choice})
        doc = _rated(nlp, groups)
        doc.set_ents([doc.char_span(37, 48, "GPE")])
        doc = nlp(doc)
        assert [(e.text, e.label_) for e in doc.ents] == expected
        assert doc._.consensus["ents_note"].startswith("the consensus replaced" if choice == "replace" else "doc.ents not set")
        assert component.report()[f"doc.ents {outcome}"] == 1
    with pytest.raises(UsageError, match="existing_ents"):
        spacy.blank("en").add_pipe("span_consensus", config={"existing_ents": "merge"})


def test_span_agreement_copies_and_pickles():
    import copy
    import pickle

    agree = spacy.blank("en").add_pipe("span_agreement")
    for other in (copy.deepcopy(agree), pickle.loads(pickle.dumps(agree))):
        assert other.report()["documents"] == agree.report()["documents"]


def test_span_consensus_report_after_multiprocess_pipe():
    from spanagree.errors import UsageError

    nlp = spacy.blank("en")
    component = nlp.add_pipe("span_consensus", config={"min_raters": 2})
    docs = [
        _rated(nlp, {"a": [(10, 21, "PER")], "b": [(10, 21, "PER"), (37, 48, "LOC")]}),
        _rated(nlp, {"a": [(0, 21, "PER")], "b": [(0, 21, "PER")]}),
    ]
    single = component.report(list(nlp.pipe([d.copy() for d in docs])))
    assert single == component.report() and single["kept"] == 2 and single["documents"] == 2
    component.reset()
    out = list(nlp.pipe([d.copy() for d in docs], n_process=2, batch_size=1))
    with pytest.raises(UsageError, match="2 documents were processed in other processes"):
        component.report()
    assert component.report(out) == single


@pytest.mark.filterwarnings("ignore:\\[W036\\]")  # an entity ruler with no pattern yet, on purpose
def test_training_loop_keeps_the_weights_when_nothing_was_predicted_yet():
    """spaCy's evaluation callback drops for good a weight whose score was None once; an early
    evaluation with no prediction must give 0.0, so a later one is weighted in full."""
    from spacy.training import Example
    from spacy.training.loop import create_evaluation_callback

    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler", config={"scorer": {"@scorers": "spanagree.agreement_scorer.v1", "rule": "partial"}})
    gold = nlp.make_doc(TEXT)
    gold.set_ents([gold.char_span(0, 21, "PER")], default="outside")
    evaluate = create_evaluation_callback(nlp, lambda nlp: [Example(nlp.make_doc(TEXT), gold)], {"ents_f": 1.0, "ents_p": 0.0, "ents_r": 0.0})
    first, scores = evaluate()
    assert first == 0.0 and scores["ents_f"] == 0.0 and scores["ents_p"] == 0.0
    ruler.add_patterns([{"label": "PER", "pattern": "Maria Lopez"}])
    second, scores = evaluate()
    assert scores["ents_f"] == 0.5 and second == 0.5  # the weight of ents_f was kept
