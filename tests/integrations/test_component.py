"""spaCy integration: the span_agreement component, the registered scorer, the corpus reader."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points

import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app
from spanagree.errors import UsageError
from spanagree.io.docbin import write_docbin
from conftest import EXAMPLE

spacy = pytest.importorskip("spacy")
from spacy.scorer import Scorer  # noqa: E402
from spacy.tokens import DocBin  # noqa: E402
from spacy.training import Example  # noqa: E402

RATERS = ["news_ner-alice", "news_ner-bob", "news_ner-carol"]
TEXT = "President Maria Lopez met growers in Kellsbridge."
REGISTRIES = {"spacy_factories": "factories", "spacy_scorers": "scorers", "spacy_readers": "readers"}


def advertised():
    """Every (entry point group, name) that the installed spanagree advertises to spaCy."""
    found = []
    for group in REGISTRIES:
        for ep in entry_points(group=group):
            if ep.value.startswith("spanagree."):
                found.append((group, ep.name))
    return sorted(found)


@pytest.fixture(scope="module")
def news_docbin(tmp_path_factory):
    """The example corpus written as one DocBin, a span group per rater."""
    path = tmp_path_factory.mktemp("bin") / "news.spacy"
    write_docbin(spanagree.read(EXAMPLE), path)
    return path


def example(nlp, reference, predicted, text=TEXT):
    ref, pred = nlp.make_doc(text), nlp.make_doc(text)
    ref.set_ents([ref.char_span(s, e, lab) for s, e, lab in reference], default="outside")
    pred.set_ents([pred.char_span(s, e, lab) for s, e, lab in predicted], default="outside")
    return Example(pred, ref)


# --- entry points and registries -----------------------------------------------------------------


def test_every_registry_is_advertised():
    assert {group for group, _ in advertised()} == set(REGISTRIES)
    assert ("spacy_factories", "span_agreement") in advertised()
    assert ("spacy_factories", "span_consensus") in advertised()


@pytest.mark.parametrize("group,name", advertised())
def test_advertised_name_resolves(group, name):
    registry = REGISTRIES[group]
    if registry == "factories":
        nlp = spacy.blank("en")  # loads every factory entry point
        assert nlp.has_factory(name)
        assert spacy.registry._entry_point_factories.get(name) is not None
    else:
        assert callable(spacy.registry.get(registry, name))


def test_add_pipe_by_name_in_a_fresh_process_reproduces_the_cli(news_docbin, example_path):
    script = textwrap.dedent(
        """
        import json, sys
        import spacy
        from spacy.tokens import DocBin
        assert "spanagree" not in sys.modules
        nlp = spacy.blank("en")
        component = nlp.add_pipe("span_agreement", config={"rater_keys": %r, "rule": "partial"})
        docs = DocBin().from_disk(sys.argv[1]).get_docs(nlp.vocab)
        first = None
        for doc in nlp.pipe(docs):
            first = first or doc._.agreement
        print(json.dumps({"report": component.report(), "first": first}))
        """
    ) % (RATERS,)
    proc = subprocess.run([sys.executable, "-c", script, str(news_docbin)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    piped = json.loads(proc.stdout)
    cli = CliRunner().invoke(app, ["score", str(example_path), "--rule", "partial", "--output", "json"])
    expected = json.loads(cli.stdout)
    for key in ("documents", "raters", "labels_seen", "rule", "overall", "macro", "pairs", "labels", "per_document"):
        assert piped["report"][key] == expected[key], key
    # Prodigy's ignored and rejected lines are not in the Docs, so only the scored spans compare
    assert piped["report"]["spans"]["scored"] == expected["spans"]["scored"]
    first = piped["first"]
    row = next(r for r in expected["per_document"] if r["doc_id"] == first["doc_id"])
    assert (first["a"], first["b"], first["c"], first["pairwise_mean_psa"]) == (row["a"], row["b"], row["c"], row["pairwise_mean_psa"])


# --- the span_agreement component ------------------------------------------------------------


def rated_doc(nlp, groups, text=TEXT, doc_id=None):
    doc = nlp.make_doc(text)
    for key, spans in groups.items():
        doc.spans[key] = [doc.char_span(s, e, lab) for s, e, lab in spans]
    if doc_id:
        doc.user_data["doc_id"] = doc_id
    return doc


def test_doc_agreement_and_report_and_reset():
    nlp = spacy.blank("en")
    component = nlp.add_pipe("span_agreement", config={"rater_prefix": "rater_", "rule": "overlap"})
    docs = [
        rated_doc(nlp, {"rater_a": [(0, 21, "PERSON"), (37, 48, "GPE")], "rater_b": [(10, 21, "PERSON")], "other": [(0, 9, "X")]}),
        rated_doc(nlp, {"rater_a": [], "rater_b": []}, doc_id="empty"),
    ]
    first, second = list(nlp.pipe(docs))
    info = first._.agreement
    assert info["doc_id"] == "doc-0001" and info["raters"] == ["a", "b"]
    assert (info["a"], info["b"], info["c"]) == (1.0, 1.0, 0.0)
    assert info["pairs"][0]["raters"] == ["a", "b"] and info["pairs"][0]["psa"] == pytest.approx(2 / 3)
    assert info["pairs"][0]["labels"]["GPE"] == {"a": 0.0, "b": 1.0, "c": 0.0, "psa": 0.0}
    assert second._.agreement["doc_id"] == "empty" and second._.agreement["pooled_psa"] is None  # undefined, not 0
    report = component.report()
    assert report["raters"] == ["a", "b"] and report["documents"]["scored"] == 2
    assert report["overall"]["pooled_psa"] == pytest.approx(2 / 3)
    assert component.report(reference="a")["reference"]["raters"]["b"]["recall"] == 0.5
    component.reset()
    assert component.report()["documents"]["read"] == 0
    nlp(rated_doc(nlp, {"rater_a": [], "rater_b": []}))
    assert component.report()["per_document"][0]["doc_id"] == "doc-0001"


def test_token_unit_and_rater_keys():
    nlp = spacy.blank("en")
    nlp.add_pipe("span_agreement", config={"rater_keys": ["a", "b", "c"], "rule": "proportional", "unit": "token"})
    doc = nlp(rated_doc(nlp, {"a": [(0, 21, "PERSON")], "b": [(10, 21, "PERSON")]}))
    assert doc._.agreement["raters"] == ["a", "b"]  # c did not submit
    assert doc._.agreement["a"] == pytest.approx(2 / 3)  # 2 of 3 tokens


def test_bad_component_config():
    nlp = spacy.blank("en")
    with pytest.raises(UsageError, match="not both"):
        nlp.add_pipe("span_agreement", config={"rater_keys": ["a"], "rater_prefix": "r"})
    with pytest.raises(UsageError, match="rule must be one of"):
        nlp.add_pipe("span_agreement", config={"rule": "fuzzy"})
    with pytest.raises(Exception, match="rater_keys"):  # spaCy validates the types from the factory
        nlp.add_pipe("span_agreement", config={"rater_keys": 3})


# --- the scorer ---------------------------------------------------------------------------------


def test_spacy_exact_scorer_gives_0_where_partial_gives_credit():
    nlp = spacy.blank("en")
    eg = example(nlp, reference=[(0, 21, "PERSON")], predicted=[(10, 21, "PERSON")])
    exact = Scorer.score_spans([eg], "ents")
    assert (exact["ents_p"], exact["ents_r"], exact["ents_f"]) == (0.0, 0.0, 0.0)
    partial = spacy.registry.get("scorers", "spanagree.agreement_scorer.v1")(rule="partial")([eg])
    assert (partial["ents_p"], partial["ents_r"], partial["ents_f"]) == (0.5, 0.5, 0.5)
    assert partial["ents_psa"] == 0.5 and (partial["ents_a"], partial["ents_b"], partial["ents_c"]) == (0.5, 0.5, 0.5)
    assert partial["ents_per_type"] == {"PERSON": {"p": 0.5, "r": 0.5, "f": 0.5}}
    assert partial["ents_rule"] == "partial/strict/char"
    proportional = spacy.registry.get("scorers", "spanagree.agreement_scorer.v1")(rule="proportional")([eg])
    assert proportional["ents_f"] == pytest.approx(11 / 21)  # "Maria Lopez" / "President Maria Lopez"


def test_scorer_reference_is_side_a_and_undefined_is_none():
    nlp = spacy.blank("en")
    make = spacy.registry.get("scorers", "spanagree.agreement_scorer.v1")
    eg = example(nlp, reference=[(0, 21, "PERSON"), (37, 48, "GPE")], predicted=[(0, 21, "PERSON")])
    scores = make()([eg])
    assert scores["ents_r"] == 0.5 and scores["ents_p"] == 1.0
    # spaCy's convention for the keys spaCy reads: no predicted GPE gives precision 0.0, as PRFScore
    assert scores["ents_per_type"]["GPE"] == {"p": 0.0, "r": 0.0, "f": 0.0}
    assert scores["ents_per_type"] == Scorer.score_spans([eg], "ents")["ents_per_type"]
    only_missed = make()([example(nlp, [(0, 21, "PERSON")], [])])
    assert (only_missed["ents_p"], only_missed["ents_r"], only_missed["ents_f"]) == (0.0, 0.0, 0.0)
    assert only_missed["ents_psa"] == 0.0
    # nothing to score at all: None, as spaCy's own scorer gives
    nothing = make()([example(nlp, [], [])])
    assert all(nothing[f"ents_{k}"] is None for k in ("p", "r", "f", "psa", "per_type"))
    assert Scorer.score_spans([example(nlp, [], [])], "ents")["ents_f"] is None
    assert make()([]) == {**{f"ents_{k}": None for k in ("p", "r", "f", "per_type", "psa", "a", "b", "c")}, "ents_rule": "exact/strict/char"}
    # a reference with no entity annotation at all is skipped, as spaCy's own scorer does
    unannotated = Example(nlp.make_doc(TEXT), nlp.make_doc(TEXT))
    assert make()([unannotated, eg]) == scores


def test_scorer_on_span_groups():
    nlp = spacy.blank("en")
    make = spacy.registry.get("scorers", "spanagree.agreement_scorer.v1")
    ref = rated_doc(nlp, {"sc": [(0, 21, "PERSON"), (10, 21, "PERSON")]})
    pred = rated_doc(nlp, {"sc": [(10, 21, "PERSON")]})
    scores = make(spans_key="sc", rule="overlap")([Example(pred, ref)])
    assert scores["spans_sc_r"] == 0.5 and scores["spans_sc_p"] == 1.0
    assert set(make(spans_key="sc", attr="markup")([Example(pred, ref)])) >= {"markup_f"}
    with pytest.raises(UsageError):
        make(rule="fuzzy")


def test_a_spans_key_in_no_doc_is_warned_about_naming_the_groups_there_are():
    """The scorer given a span group that no reference Doc has returns None scores, as spaCy's
    own scorers do, and says so loudly instead of in silence."""
    import warnings

    from spanagree.integrations.component import SpanGroupNotFoundWarning

    nlp = spacy.blank("en")
    make = spacy.registry.get("scorers", "spanagree.agreement_scorer.v1")
    ref = rated_doc(nlp, {"ner_a": [(10, 21, "PERSON")], "ner_b": []})
    with pytest.warns(SpanGroupNotFoundWarning, match=r"spanagree.agreement_scorer.v1: spans_key 'sc': no span group "
                                                      r"of the 1 Docs scored matches, so every score is None; the span "
                                                      r"groups they have: ner_a, ner_b"):
        scores = make(spans_key="sc")([Example(rated_doc(nlp, {}), ref)])
    assert scores["spans_sc_f"] is None
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpanGroupNotFoundWarning)
        assert make(spans_key="ner_a")([Example(rated_doc(nlp, {"ner_a": []}), ref)])["spans_ner_a_r"] == 0.0
        assert make()([Example(nlp.make_doc(TEXT), nlp.make_doc(TEXT))])["ents_f"] is None  # doc.ents: as spaCy
        assert make(spans_key="sc")([]) == make(spans_key="sc")([])  # nothing scored: nothing to warn about
    component = nlp.add_pipe("span_agreement", config={"rater_keys": ["alice", "bob"]})
    component(rated_doc(nlp, {"ann_alice": [(10, 21, "PERSON")], "ann_bob": []}))
    with pytest.warns(SpanGroupNotFoundWarning, match=r"span_agreement: rater_keys \['alice', 'bob'\]: no span group "
                                                      r"of the 1 Docs .* the span groups they have: ann_alice, ann_bob"):
        assert component.report()["overall"]["pairwise_mean_psa"] is None


@pytest.mark.parametrize("factory,config,name", [
    ("scorer", {"spans_key": "null   # null: doc.ents"}, "spans_key"),
    ("scorer", {"rule": '"partial"  # or "overlap"'}, "rule"),
    ("span_agreement", {"rater_prefix": "ann_  # every annotator"}, "rater_prefix"),
    ("span_agreement", {"rater_keys": ["a", "b # the second"]}, "rater_keys"),
    ("span_consensus", {"spans_key": "gold # the vote"}, "spans_key"),
])
def test_a_string_setting_with_an_inline_comment_is_refused(factory, config, name):
    """spaCy's configs have no inline comments: the comment would be read into the value."""
    nlp = spacy.blank("en")
    with pytest.raises(UsageError, match=rf"{name} = .*#.*: inline comments are not read in spaCy configs: put the "
                                         r"comment on its own line"):
        if factory == "scorer":
            spacy.registry.get("scorers", "spanagree.agreement_scorer.v1")(**config)
        else:
            nlp.add_pipe(factory, config=config)
    assert spacy.registry.get("scorers", "spanagree.agreement_scorer.v1")(spans_key="team#1").spans_key == "team#1"


def test_nlp_evaluate_returns_the_spanagree_keys():
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler", config={"scorer": {"@scorers": "spanagree.agreement_scorer.v1", "rule": "partial"}})
    ruler.add_patterns([{"label": "PERSON", "pattern": "Maria Lopez"}])
    eg = example(nlp, reference=[(0, 21, "PERSON")], predicted=[])
    scores = nlp.evaluate([eg])
    assert {"ents_p", "ents_r", "ents_f", "ents_psa", "ents_per_type"} <= set(scores)
    assert scores["ents_f"] == 0.5  # the ruler's own (exact) scorer was swapped out: it gives 0


def test_swap_the_span_agreement_scorer_through_config():
    config = textwrap.dedent(
        """
        [nlp]
        lang = "en"
        pipeline = ["ruler", "agreement"]

        [components]

        [components.ruler]
        factory = "entity_ruler"

        [components.agreement]
        factory = "span_agreement"

        [components.agreement.scorer]
        @scorers = "spanagree.agreement_scorer.v1"
        rule = "overlap"
        attr = "loose"
        """
    )
    from thinc.api import Config

    nlp = spacy.util.load_model_from_config(Config().from_str(config), auto_fill=True)
    nlp.get_pipe("ruler").add_patterns([{"label": "PERSON", "pattern": "Maria Lopez"}])
    scores = nlp.evaluate([example(nlp, reference=[(0, 21, "PERSON")], predicted=[])])
    assert scores["loose_f"] == 1.0  # overlap: "Maria Lopez" matches "President Maria Lopez"
    assert scores["ents_f"] == 0.0  # the entity ruler's own exact scorer
    default = spacy.blank("en")
    default.add_pipe("entity_ruler").add_patterns([{"label": "PERSON", "pattern": "Maria Lopez"}])
    default.add_pipe("span_agreement")
    assert default.evaluate([example(default, [(0, 21, "PERSON")], [])])["ents_f"] == 0.0  # exact by default
    assert default.get_pipe_meta("span_agreement").default_score_weights["ents_f"] == 1.0
    # the component's scorer, given no rule of its own, uses the component's rule
    partial = spacy.blank("en")
    partial.add_pipe("entity_ruler").add_patterns([{"label": "PERSON", "pattern": "Maria Lopez"}])
    partial.add_pipe("span_agreement", config={"rule": "partial"})
    scores = partial.evaluate([example(partial, [(0, 21, "PERSON")], [])])
    assert scores["ents_f"] == 0.5 and scores["ents_rule"] == "partial/strict/char"


def test_spacy_evaluate_command_runs_the_scorer(tmp_path):
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("entity_ruler", config={"scorer": {"@scorers": "spanagree.agreement_scorer.v1", "rule": "partial"}})
    ruler.add_patterns([{"label": "PERSON", "pattern": "Maria Lopez"}])
    nlp.to_disk(tmp_path / "model")
    gold = nlp.make_doc(TEXT)
    gold.set_ents([gold.char_span(0, 21, "PERSON")], default="outside")
    DocBin(docs=[gold]).to_disk(tmp_path / "dev.spacy")
    out = tmp_path / "scores.json"
    proc = subprocess.run(
        [sys.executable, "-m", "spacy", "evaluate", str(tmp_path / "model"), str(tmp_path / "dev.spacy"),
         "--per-component", "--output", str(out)],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout
    assert json.loads(out.read_text())["entity_ruler"]["ents_f"] == 0.5


# --- the corpus reader --------------------------------------------------------------------------


def test_rater_corpus_examples_score_like_the_reference_report(example_path):
    reader = spacy.registry.resolve(
        {"r": {"@readers": "spanagree.RaterCorpus.v1", "path": str(example_path), "reference": RATERS[0], "predicted": RATERS[2]}}
    )["r"]
    nlp = spacy.blank("en")
    with pytest.warns(UserWarning, match="9 documents the predicted rater did not submit"):
        examples = list(reader(nlp))
    assert len(examples) == 41  # carol submitted 41 documents
    assert reader.notes["documents the predicted rater did not submit (skipped)"] == 9
    scores = spacy.registry.get("scorers", "spanagree.agreement_scorer.v1")(rule="partial")(examples)
    against = spanagree.score(example_path, rule="partial", reference=RATERS[0]).to_dict()["reference"]["raters"][RATERS[2]]
    assert scores["ents_p"] == pytest.approx(against["precision"])
    assert scores["ents_r"] == pytest.approx(against["recall"])
    assert scores["ents_f"] == pytest.approx(against["f"])


def test_rater_corpus_without_predicted_rater_feeds_nlp_evaluate(example_path, tmp_path):
    from spanagree.integrations.corpus import make_rater_corpus

    nlp = spacy.blank("en")
    nlp.add_pipe("span_agreement")
    examples = list(make_rater_corpus(example_path, reference=RATERS[1], limit=5)(nlp))
    assert len(examples) == 5 and all(not eg.predicted.ents and eg.reference.has_annotation("ENT_IOB") for eg in examples)
    scores = nlp.evaluate(examples)
    assert scores["ents_r"] == 0.0 and scores["ents_p"] == 0.0  # nothing predicted: 0.0, as spaCy reports it
    grouped = list(make_rater_corpus(example_path, reference=RATERS[1], predicted=RATERS[0], spans_key="sc")(nlp))
    assert all("sc" in eg.reference.spans and not eg.reference.ents for eg in grouped)
    with pytest.raises(UsageError, match="not found"):
        list(make_rater_corpus(example_path, reference="nobody")(nlp))


def test_the_scorers_figures_are_the_reports(example_path):
    """The scorer and the report read the same summary: P, R, F, PSA and the counts, overall
    and per label, with the reference rater as side A."""
    reader = spacy.registry.resolve(
        {"r": {"@readers": "spanagree.RaterCorpus.v1", "path": str(example_path), "reference": RATERS[0], "predicted": RATERS[2]}}
    )["r"]
    with pytest.warns(UserWarning):
        examples = list(reader(spacy.blank("en")))
    scores = spacy.registry.get("scorers", "spanagree.agreement_scorer.v1")(rule="partial")(examples)
    report = spanagree.score(example_path, rule="partial", reference=RATERS[0]).to_dict()
    against = report["reference"]["raters"][RATERS[2]]
    for key, name in (("p", "precision"), ("r", "recall"), ("f", "f"), ("a", "a"), ("b", "b"), ("c", "c")):
        assert scores[f"ents_{key}"] == pytest.approx(against[name], abs=1e-12)
    # the pair with the reference is in the pairs of a report without one (a reference is no rater)
    pairs = spanagree.score(example_path, rule="partial").to_dict()["pairs"]
    pair = next(row for row in pairs if row["raters"] == [RATERS[0], RATERS[2]])
    assert scores["ents_psa"] == pytest.approx(pair["psa"], abs=1e-12)
    assert set(scores["ents_per_type"]) == set(pair["labels"])
    for label, row in pair["labels"].items():
        a, b, c = row["a"], row["b"], row["c"]
        expected = {"p": a / (a + c) if a + c else 0.0, "r": a / (a + b) if a + b else 0.0, "f": row["psa"] or 0.0}
        assert scores["ents_per_type"][label] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("own, expected_rule", [
    ({}, "overlap/strict/token"),
    ({"unit": "token"}, "overlap/strict/token"),
    ({"labels": "strict"}, "overlap/strict/token"),
    ({"unit": "char"}, "overlap/strict/char"),
    ({"rule": "exact"}, "exact/strict/token"),
])
def test_the_scorer_inherits_each_option_it_leaves_unset(own, expected_rule):
    import spacy
    from spacy.tokens import Span
    from spacy.training import Example

    nlp = spacy.blank("en")
    text = "Alice Smith met Bob in Paris ."
    reference, predicted = nlp.make_doc(text), nlp.make_doc(text)
    reference.ents = [Span(reference, 0, 2, label="PER")]  # 'Alice Smith'
    predicted.ents = [Span(predicted, 0, 1, label="PER")]  # 'Alice': overlaps, not exact
    scorer = {"@scorers": "spanagree.agreement_scorer.v1", **own}
    component = nlp.add_pipe("span_agreement", config={"rule": "overlap", "unit": "token", "scorer": scorer})
    scores = component.score([Example(predicted, reference)])
    assert scores["ents_rule"] == expected_rule
    assert scores["ents_f"] == (0.0 if expected_rule.startswith("exact") else 1.0)


def test_the_consensus_group_may_not_be_a_raters_group():
    import spacy

    from spanagree.errors import UsageError

    nlp = spacy.blank("en")
    with pytest.raises(UsageError, match="is one of rater_keys"):
        nlp.add_pipe("span_consensus", config={"rater_keys": ["a", "b"], "spans_key": "a"})


def test_a_doc_processed_again_counts_once_with_its_latest_spans():
    import spacy

    nlp = spacy.blank("en")
    component = nlp.add_pipe("span_agreement")
    doc = nlp.make_doc("Alice met Bob")
    doc.user_data["doc_id"] = "x"
    doc.spans["a"] = [doc.char_span(0, 5, label="PER")]
    doc.spans["b"] = [doc.char_span(10, 13, label="PER")]
    component(doc)
    doc.spans["b"] = [doc.char_span(0, 5, label="PER")]  # corrected, then run again
    component(doc)
    report = component.report()
    assert report["documents"]["scored"] == 1 and report["overall"]["pooled_psa"] == 1.0
