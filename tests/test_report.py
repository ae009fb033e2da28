"""Counts and PSA aggregations (SPEC §3) on small corpora with hand-computed answers."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest

import spanagree
from click.testing import CliRunner
from spanagree import f_beta, psa
from spanagree.app.cli import app
from records import line

RULES = ["exact", "overlap", "partial", "proportional"]
TEXT = "Alice met Bob in Paris on Monday."
#        0    5   9  13 17    23 26    33


def corpus_from(tmp_path, records, name="c.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return spanagree.read(path)


def test_psa_and_f_beta_worked_example():
    # SPEC §5: a = 227, b = 31, c = 50 gives PSA = 0.849
    assert psa(227, 31, 50) == pytest.approx(454 / 535)
    assert round(psa(227, 31, 50), 3) == 0.849
    assert f_beta(227, 31, 50) == pytest.approx(psa(227, 31, 50))
    # P = 8/8, R = 8/10: F2 = 5PR/(4P+R) = 5*0.8/(4.8)
    assert f_beta(8, 2, 0, beta=2) == pytest.approx(5 * 0.8 / 4.8)
    assert psa(0, 0, 0) is None and f_beta(0, 0, 0) is None
    assert psa(0, 3, 1) == 0.0


def test_hand_computed_pair_counts(tmp_path):
    records = [
        line("d1", "ann", [(0, 5, "PER"), (10, 13, "PER"), (17, 22, "LOC")]),
        line("d1", "bob", [(0, 5, "PER"), (10, 13, "ORG"), (17, 22, "LOC"), (26, 32, "DATE")]),
        line("d2", "ann", [(0, 5, "PER")]),
        line("d2", "bob", [(0, 9, "PER")]),
    ]
    corpus = corpus_from(tmp_path, records)
    exact = spanagree.score(corpus, rule="exact").to_dict()
    # d1: PER and LOC match; ann's Bob/PER and bob's Bob/ORG and Monday are unmatched; d2: nothing
    overall = exact["overall"]
    assert (overall["a"], overall["b"], overall["c"]) == (2.0, 2.0, 3.0)
    assert overall["pooled_psa"] == pytest.approx(4 / 9) and overall["pairwise_mean_psa"] == pytest.approx(4 / 9)
    assert exact["labels"]["PER"]["a"] == 1 and exact["labels"]["PER"]["b"] == 2
    assert exact["labels"]["DATE"]["pooled_psa"] == 0.0
    assert exact["pairs"][0]["outcomes"] == {"correct": 2, "wrong_label": 1, "partial": 1, "missed": 0, "spurious": 1}
    ignore = spanagree.score(corpus, rule="exact", labels="ignore").to_dict()
    assert ignore["overall"]["a"] == 3.0
    partial = spanagree.score(corpus, rule="partial", partial_credit=0.5).to_dict()
    assert partial["overall"]["a"] == 2.5
    jaccard = spanagree.score(corpus, rule="proportional").to_dict()
    assert jaccard["overall"]["a"] == pytest.approx(2 + 5 / 9)
    per_doc = {d["doc_id"]: d for d in exact["per_document"]}
    assert per_doc["d2"]["pooled_psa"] == 0.0 and per_doc["d1"]["pooled_psa"] == pytest.approx(4 / 7)


@pytest.mark.parametrize("rule", RULES)
def test_identical_raters_give_one_and_disjoint_give_zero(tmp_path, rule):
    spans = [(0, 5, "PER"), (10, 13, "PER"), (17, 22, "LOC")]
    same = corpus_from(tmp_path, [line("d", "x", spans), line("d", "y", spans)], "same.jsonl")
    report = spanagree.score(same, rule=rule).to_dict()
    assert report["overall"]["pairwise_mean_psa"] == 1.0 and report["overall"]["pooled_psa"] == 1.0
    apart = corpus_from(tmp_path, [line("d", "x", spans[:1]), line("d", "y", spans[1:])], "apart.jsonl")
    report = spanagree.score(apart, rule=rule).to_dict()
    assert report["overall"]["pairwise_mean_psa"] == 0.0


def test_no_spans_at_all_is_undefined_not_zero(tmp_path):
    corpus = corpus_from(tmp_path, [line("d", "x", []), line("d", "y", []), line("e", "x", [(0, 5, "PER")]),
                                    line("e", "z", [(0, 5, "PER")])])
    report = spanagree.score(corpus).to_dict()
    pairs = {tuple(p["raters"]): p for p in report["pairs"]}
    assert pairs[("x", "y")]["psa"] is None
    assert pairs[("x", "z")]["psa"] == 1.0
    assert report["overall"]["pairs_undefined"] == 1
    assert report["overall"]["pairwise_mean_psa"] == 1.0  # the undefined pair is left out, not counted as 0
    empty = corpus_from(tmp_path, [line("d", "x", []), line("d", "y", [])], "empty.jsonl")
    overall = spanagree.score(empty).to_dict()["overall"]
    assert overall["pairwise_mean_psa"] is None and overall["pooled_psa"] is None


def _random_records(rng: random.Random, n_docs=12, raters=("r1", "r2", "r3", "r4")):
    records = []
    for d in range(n_docs):
        for r in raters:
            if rng.random() < 0.15:
                continue
            spans = set()
            for _ in range(rng.randint(0, 5)):
                s = rng.randint(0, 28)
                spans.add((s, min(33, s + rng.randint(1, 6)), rng.choice("AB")))
            records.append(line(f"doc{d}", r, sorted(spans)))
    return records


@pytest.mark.parametrize("rule", RULES)
def test_shuffling_lines_and_renaming_raters_changes_nothing(tmp_path, rule):
    rng = random.Random(3)
    records = _random_records(rng)
    base = spanagree.score(corpus_from(tmp_path, records, "a.jsonl"), rule=rule).to_dict()
    shuffled = records[:]
    rng.shuffle(shuffled)
    for r in shuffled:
        rng.shuffle(r["spans"])
    again = spanagree.score(corpus_from(tmp_path, shuffled, "b.jsonl"), rule=rule).to_dict()
    assert again == base
    # reversing the rater order (names sort the other way) swaps b and c, nothing else
    rename = {"r1": "z1", "r2": "y2", "r3": "x3", "r4": "w4"}
    renamed = [{**r, "annotator": rename[r["annotator"]]} for r in records]
    swapped = spanagree.score(corpus_from(tmp_path, renamed, "c.jsonl"), rule=rule).to_dict()
    assert swapped["overall"]["pairwise_mean_psa"] == pytest.approx(base["overall"]["pairwise_mean_psa"])
    assert swapped["overall"]["a"] == pytest.approx(base["overall"]["a"])
    assert swapped["overall"]["b"] + swapped["overall"]["c"] == pytest.approx(base["overall"]["b"] + base["overall"]["c"])
    by_pair = {frozenset(p["raters"]): p["psa"] for p in base["pairs"]}
    for p in swapped["pairs"]:
        original = frozenset({k for k, v in rename.items() if v in p["raters"]})
        assert p["psa"] == pytest.approx(by_pair[original])


@pytest.mark.parametrize("rule", RULES)
def test_aggregations_are_consistent(tmp_path, rule):
    report = spanagree.score(corpus_from(tmp_path, _random_records(random.Random(5))), rule=rule).to_dict()
    pairs = report["pairs"]
    for key in "abc":
        assert sum(p[key] for p in pairs) == pytest.approx(report["overall"][key])
        assert sum(v[key] for v in report["labels"].values()) == pytest.approx(report["overall"][key])
        assert sum(d[key] for d in report["per_document"]) == pytest.approx(report["overall"][key])
    defined = [p["psa"] for p in pairs if p["psa"] is not None]
    assert report["overall"]["pairwise_mean_psa"] == pytest.approx(sum(defined) / len(defined))
    labels = [v["pairwise_mean_psa"] for v in report["labels"].values() if v["pairwise_mean_psa"] is not None]
    assert report["macro"]["pairwise_mean_psa"] == pytest.approx(sum(labels) / len(labels))
    assert len(pairs) == 6  # four raters


def test_documents_with_one_rater_are_excluded_and_counted(tmp_path):
    corpus = corpus_from(tmp_path, [line("d", "x", [(0, 5, "PER")]), line("d", "y", [(0, 5, "PER")]),
                                    line("solo", "x", [(0, 5, "PER"), (10, 13, "PER")])])
    report = spanagree.score(corpus).to_dict()
    assert report["documents"] == {"read": 2, "scored": 1, "excluded": {"fewer than two raters submitted it": 1}}
    assert report["spans"]["read"] == 4 and report["spans"]["scored"] == 2
    assert report["spans"]["excluded"] == {"in a document no other rater submitted": 2}


def test_reference_rater_precision_recall(tmp_path):
    gold = [(0, 5, "PER"), (10, 13, "PER"), (17, 22, "LOC"), (26, 32, "DATE")]
    corpus = corpus_from(tmp_path, [line("d", "gold", gold), line("d", "sys", gold[:3] + [(6, 9, "X")])])
    ref = spanagree.score(corpus, reference="gold").to_dict()["reference"]
    assert ref["raters"]["sys"]["recall"] == 0.75 and ref["raters"]["sys"]["precision"] == 0.75
    # the reference's name sorting after the rater's must not swap precision and recall
    corpus = corpus_from(tmp_path, [line("d", "a_gold", gold), line("d", "sys", gold[:2])], "r.jsonl")
    ref = spanagree.score(corpus, reference="a_gold").to_dict()["reference"]["raters"]["sys"]
    assert (ref["precision"], ref["recall"]) == (1.0, 0.5)
    corpus = corpus_from(tmp_path, [line("d", "z_gold", gold), line("d", "sys", gold[:2])], "s.jsonl")
    ref = spanagree.score(corpus, reference="z_gold").to_dict()["reference"]["raters"]["sys"]
    assert (ref["precision"], ref["recall"]) == (1.0, 0.5)
    with pytest.raises(spanagree.UsageError, match="nobody"):
        spanagree.score(corpus, reference="nobody")


def test_a_reference_is_left_out_of_every_section_but_its_own(example_path, tmp_path):
    """A reference (here the raters' own consensus) is a standard, not a rater: with it, every
    section but ``reference`` is what the other raters alone give, and ``reference`` holds each
    rater against it (the pair PSA with it, F being PSA)."""
    gold = tmp_path / "gold.jsonl"
    made = CliRunner().invoke(app, ["consensus", str(example_path), "--min-raters", "2", "-o", str(gold)])
    assert made.exit_code == 0, made.output
    options = dict(candidates="tokens", unitizing=True, per_rater=True, bootstrap=50)
    alone = spanagree.score(example_path, **options).to_dict()
    both = spanagree.score([example_path, gold], reference="consensus", **options)
    scored = both.to_dict()
    for section in ("overall", "macro", "labels", "pairs", "per_document", "intervals", "unitizing", "per_rater"):
        assert scored[section] == alone[section], section
    scored["chance_corrected"]["all_raters"].pop("s_against_group")  # the reference against the others
    assert scored["chance_corrected"] == alone["chance_corrected"]
    assert both.pairwise_mean_psa == alone["overall"]["pairwise_mean_psa"]
    reference = scored["reference"]
    assert reference["rater"] == "consensus" and reference["headline_raters"] == alone["raters"]
    with_gold = spanagree.score([example_path, gold]).to_dict()  # no reference: the consensus is a rater
    for rater, row in reference["raters"].items():
        pair = next(p for p in with_gold["pairs"] if set(p["raters"]) == {rater, "consensus"})
        assert row["f"] == pytest.approx(pair["psa"])
    # the reference's annotations are scored (against it), not left out
    assert scored["annotations"]["scored"] == alone["annotations"]["scored"] + 50


def test_example_corpus_token_unit_equals_char_unit_for_token_aligned_spans(example_path):
    corpus = spanagree.read(example_path)
    for rule in ("exact", "overlap"):
        chars = spanagree.score(corpus, rule=rule).to_dict()["overall"]
        tokens = spanagree.score(corpus, rule=rule, unit="token").to_dict()["overall"]
        assert chars["a"] == tokens["a"] and chars["pairwise_mean_psa"] == tokens["pairwise_mean_psa"]
    # proportional credit differs: the unit of the overlap changes
    assert spanagree.score(corpus, rule="proportional", unit="token").to_dict()["rule"]["unit"] == "token"


def test_token_unit_without_tokens_is_a_usage_error(tmp_path):
    corpus = corpus_from(tmp_path, [line("d", "x", [(0, 5, "PER")]), line("d", "y", [])])
    with pytest.raises(spanagree.UsageError, match="tokens"):
        spanagree.score(corpus, unit="token")


def test_example_corpus_outline(example_path):
    report = spanagree.score(spanagree.read(example_path), rule="exact").to_dict()
    assert len(report["raters"]) == 3 and len(report["pairs"]) == 3
    assert report["documents"]["read"] >= 40 and len(report["labels"]) >= 4
    assert report["annotations"]["excluded"]  # ignore/reject answers are counted
    assert 0.5 < report["overall"]["pairwise_mean_psa"] < 0.95


def test_changing_the_dict_returned_leaves_the_report_as_it_was(example_path):
    """to_dict() hands out a copy of the chance-corrected and unitizing sections."""
    report = spanagree.score(example_path, candidates="tokens", unitizing={"samples": 20}, seed=1)
    before = report.to_dict()
    changed = report.to_dict()
    changed["chance_corrected"]["pairs"][0]["coefficients"]["cohen_kappa"]["value"] = 5.0
    changed["chance_corrected"]["all_raters"].clear()
    changed["unitizing"]["gamma"]["value"] = -1.0
    changed["unitizing"].pop("alpha_u", None)
    assert report.to_dict() == before


@pytest.mark.parametrize("seed", range(30))
def test_lowest_documents_are_those_of_a_stable_sort(seed):
    """The lowest-agreement documents (a partial sort) are the first of a stable sort of every
    mean, NaN never among them, ties in document order."""
    from spanagree.report import _lowest

    rng = np.random.default_rng(seed)
    values = rng.integers(0, 4, int(rng.integers(0, 40))) / 3.0
    values[rng.random(len(values)) < 0.3] = np.nan
    for limit in (0, 1, 3, 10, 50):
        expected = np.argsort(np.where(np.isnan(values), np.inf, values), kind="stable")[:limit]
        expected = expected[~np.isnan(values[expected])]
        assert _lowest(values, limit).tolist() == expected.tolist()
