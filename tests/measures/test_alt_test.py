"""The alternative annotator test (spanagree.measures.alt_test.procedure).

Checked three ways: against a plain re-implementation of the procedure written here from the
paper's description (loops, exact fractions, SciPy's t-test, a hand-written Benjamini–Yekutieli)
on random per-document scores; the t distribution against SciPy and the correction against
statsmodels; and on synthetic span corpora where the answer is known (a good, a bad and a
borderline candidate; a candidate equal to the human consensus; renamed and reordered input).
"""
from __future__ import annotations

import json
import math
import random
from fractions import Fraction

import numpy as np
import pytest

import spanagree
from spanagree.errors import UsageError
from spanagree.measures.alt_test import procedure as at
from records import line

scipy_stats = pytest.importorskip("scipy.stats")
multitest = pytest.importorskip("statsmodels.stats.multitest")


# --- the correction -------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_benjamini_yekutieli_matches_statsmodels(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 12))
    p = rng.uniform(0, 0.08, size=m) if seed % 2 else rng.uniform(0, 1, size=m) ** 3
    if seed % 3 == 0 and m > 1:
        p[1] = p[0]  # ties among p-values
    alpha = [0.05, 0.1, 0.01][seed % 3]
    rejected, adjusted = at.benjamini_yekutieli(p.tolist(), alpha)
    want_reject, want_adjusted, _, _ = multitest.multipletests(p, alpha=alpha, method="fdr_by")
    assert rejected == want_reject.tolist()
    assert adjusted == pytest.approx(want_adjusted.tolist(), rel=1e-12)


def test_t_test_constant_differences():
    assert at.one_sided_t_test([1] * 40, 0.2) == (None, 1.0)
    assert at.one_sided_t_test([-1] * 40, 0.2) == (None, 0.0)
    assert at.one_sided_t_test([0] * 40, 0.0) == (None, 1.0)  # mean(d) = ε: not below it


def test_t_test_matches_scipy():
    rng = np.random.default_rng(11)
    for _ in range(50):
        d = rng.choice([-1, 0, 1], size=int(rng.integers(30, 90)), p=rng.dirichlet([1, 1, 1])).tolist()
        if len(set(d)) == 1:
            continue
        t, p = at.one_sided_t_test(d, 0.15)
        want = scipy_stats.ttest_1samp(d, 0.15, alternative="less")
        assert t == pytest.approx(want.statistic, rel=1e-9)
        assert p == pytest.approx(want.pvalue, rel=1e-9, abs=1e-300)


# --- the procedure against a plain re-implementation -------------------------------------------------


def reference_procedure(scores, candidate, epsilon, alpha, min_documents=30):
    """The procedure as the paper states it, written with loops and exact fractions; a score of
    None is undefined (PSA where both raters marked nothing) and leaves its g out of both means."""
    value = {}
    docs = {}
    for (d, a, b), v in scores.items():
        value[d, a, b] = value[d, b, a] = None if v is None else Fraction(v)
        docs.setdefault(d, set()).update((a, b))
    raters = sorted({r for rs in docs.values() for r in rs})
    humans = [r for r in raters if r != candidate]
    per_human = {}
    for h in humans:
        w_c, w_h = [], []
        for d in sorted(docs, key=str):
            present = docs[d]
            if candidate not in present or h not in present:
                continue
            group = [g for g in humans if g != h and g in present
                     and value[d, h, g] is not None and value[d, candidate, g] is not None]
            if not group:
                continue
            s_h = sum(value[d, h, g] for g in group) / len(group)
            s_c = sum(value[d, candidate, g] for g in group) / len(group)
            w_c.append(1 if s_c >= s_h else 0)
            w_h.append(1 if s_h >= s_c else 0)
        per_human[h] = (w_c, w_h)
    tested = [h for h in humans if len(per_human[h][0]) >= min_documents]
    p_values = {}
    for h in tested:
        w_c, w_h = per_human[h]
        d = [x - y for x, y in zip(w_h, w_c)]
        with np.errstate(divide="ignore", invalid="ignore"):
            p = float(scipy_stats.ttest_1samp(d, epsilon, alternative="less").pvalue)
        # SciPy gives 0 or 1 for a constant d away from ε, and NaN (never rejected) at mean(d) = ε
        p_values[h] = 1.0 if math.isnan(p) else p
    # Benjamini–Yekutieli, step-up, by hand
    m = len(tested)
    c_m = sum(1 / i for i in range(1, m + 1))
    ordered = sorted(tested, key=lambda h: p_values[h])
    k = 0
    for i, h in enumerate(ordered, start=1):
        if p_values[h] <= i * alpha / (m * c_m):
            k = i
    rejected = {h: h in ordered[:k] for h in tested}
    winning_rate = sum(rejected.values()) / m if m else None
    rho = sum(Fraction(sum(per_human[h][0]), len(per_human[h][0])) for h in tested) / m if m else None
    return per_human, p_values, rejected, winning_rate, rho


def random_scores(seed, n_docs=60, n_humans=4, p_absent=0.15, exact_values=True):
    rng = random.Random(seed)
    raters = [f"h{i}" for i in range(n_humans)] + ["model"]
    grid = [Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(2, 3), Fraction(4, 5), Fraction(1)]
    scores = {}
    for d in range(n_docs):
        present = [r for r in raters if rng.random() >= p_absent]
        for i, a in enumerate(present):
            for b in present[i + 1:]:
                pair = (a, b) if rng.random() < 0.5 else (b, a)
                scores[f"doc{d}", *pair] = rng.choice(grid) if exact_values else rng.random()
    return scores


@pytest.mark.parametrize("seed", range(16))
def test_procedure_matches_reference(seed):
    scores = random_scores(seed, n_docs=45 + seed * 3, p_absent=0.1 + 0.02 * (seed % 5), exact_values=seed % 4 != 3)
    epsilon, alpha = [0.2, 0.15, 0.1, 0.0][seed % 4], [0.05, 0.1][seed % 2]
    result = at.alt_test_scores(scores, "model", epsilon=epsilon, alpha=alpha)
    per_human, p_values, rejected, winning_rate, rho = reference_procedure(scores, "model", epsilon, alpha)
    rows = {row["rater"]: row for row in result.per_human}
    assert set(rows) == set(per_human)
    for h, (w_c, w_h) in per_human.items():
        row = rows[h]
        assert row["documents"] == len(w_c)
        assert row["mean_w_candidate"] == pytest.approx(sum(w_c) / len(w_c))
        assert row["mean_w_human"] == pytest.approx(sum(w_h) / len(w_h))
        assert row["tested"] == (h in p_values)
        if h in p_values:
            assert row["p_value"] == pytest.approx(p_values[h], rel=1e-9, abs=1e-300)
            assert row["rejected"] == rejected[h]
    assert result.winning_rate == pytest.approx(winning_rate)
    assert result.advantage_probability == pytest.approx(float(rho))


def test_ties_are_exact():
    """1/3 + 1/3 + 1/3 and 1 tie exactly, although their float sums differ by one ulp."""
    third = Fraction(1, 3)
    scores = {}
    for d in range(40):
        doc = f"d{d}"
        # h0 agrees (1/3, 1/3, 1/3) with the others; the model (1, 0, 0): the same sum, 1
        for g in ("h1", "h2", "h3"):
            scores[doc, "h0", g] = third
        scores[doc, "model", "h1"], scores[doc, "model", "h2"], scores[doc, "model", "h3"] = 1, 0, 0
        scores[doc, "h1", "h2"] = scores[doc, "h1", "h3"] = scores[doc, "h2", "h3"] = 1
        scores[doc, "model", "h0"] = Fraction(1, 2)
    result = at.alt_test_scores(scores, "model")
    row = next(r for r in result.per_human if r["rater"] == "h0")
    assert row["ties"] == 40 and row["mean_w_candidate"] == 1.0 and row["mean_w_human"] == 1.0
    assert row["p_value"] == 0.0 and row["t"] is None  # d = 0 everywhere, 0 < ε


def test_too_few_humans_or_documents_is_inconclusive():
    scores = random_scores(5, n_docs=80, n_humans=2)
    result = at.alt_test_scores(scores, "model")
    assert result.verdict == "inconclusive" and "only 2 humans besides the candidate" in result.reason
    one = at.alt_test_scores({k: v for k, v in scores.items() if "h1" not in k[1:]}, "model")
    assert one.verdict == "inconclusive" and one.per_human[0]["documents"] == 0 and one.winning_rate is None
    scores = random_scores(6, n_docs=25, n_humans=5, p_absent=0.0)
    result = at.alt_test_scores(scores, "model")
    assert result.verdict == "inconclusive" and result.winning_rate is None and result.advantage_probability is None
    assert all(not r["tested"] and "fewer than 30" in r["reason"] for r in result.per_human)


def test_bad_parameters():
    scores = random_scores(1)
    for kwargs in ({"epsilon": 1.5}, {"epsilon": -0.1}, {"alpha": 0}, {"alpha": 1.0}, {"min_documents": 1}):
        with pytest.raises(UsageError):
            at.alt_test_scores(scores, "model", **kwargs)
    with pytest.raises(UsageError, match="not found"):
        at.alt_test_scores(scores, "gpt")
    with pytest.raises(UsageError, match="every rater is a candidate"):
        at.alt_test_scores(scores, ["model", "h0", "h1", "h2", "h3"])
    with pytest.raises(UsageError, match="twice"):
        at.alt_test_scores(scores, ["model", "model"])
    with pytest.raises(UsageError, match="finite number"):
        at.alt_test_scores({("d", "a", "b"): None, ("d", "a", "c"): 1, ("d", "b", "c"): 1}, "a")


# --- on span corpora ------------------------------------------------------------------------------

WORDS = [f"w{i:02d}" for i in range(24)]
TEXT = " ".join(WORDS)
LABELS = ("A", "B")


def _word_span(i: int, label: str) -> tuple[int, int, str]:
    return (4 * i, 4 * i + 3, label)


def synthetic_lines(n_docs: int, noise: dict[str, float], seed: int, *, empty_share: float = 0.1) -> list[dict]:
    """Documents of 24 words with a few true one-word entities; each rater misses a true entity,
    relabels it or adds a spurious one, each with its probability ``noise[rater]``."""
    rng = random.Random(seed)
    out = []
    for d in range(n_docs):
        truth = [] if rng.random() < empty_share else [
            (i, rng.choice(LABELS)) for i in sorted(rng.sample(range(24), rng.randint(2, 6)))
        ]
        for rater, p in noise.items():
            spans = []
            for i, label in truth:
                u = rng.random()
                if u < p / 2:
                    continue
                if u < p:
                    label = "B" if label == "A" else "A"
                spans.append(_word_span(i, label))
            taken = {s[0] for s in spans}
            if rng.random() < p:
                i = rng.randrange(24)
                if 4 * i not in taken:
                    spans.append(_word_span(i, rng.choice(LABELS)))
            out.append(line(f"doc{d:03d}", rater, sorted(spans), text=TEXT))
    return out


HUMANS = {"ann": 0.3, "ben": 0.3, "cat": 0.3, "dan": 0.3}


def _corpus(write_jsonl, lines, name="data.jsonl"):
    return spanagree.read(write_jsonl(lines, name))


def test_good_candidate_is_trusted(write_jsonl):
    corpus = _corpus(write_jsonl, synthetic_lines(80, {**HUMANS, "model": 0.05}, seed=1))
    result = spanagree.alt_test(corpus, "model")
    assert result.verdict == "trusted" and result.winning_rate == 1.0
    assert result.advantage_probability > 0.8
    assert result.both_empty_pairs > 0  # comparisons where both marked nothing: PSA undefined, left out


def test_bad_candidate_is_untrusted(write_jsonl):
    corpus = _corpus(write_jsonl, synthetic_lines(80, {**HUMANS, "model": 0.9}, seed=2))
    result = spanagree.alt_test(corpus, "model")
    assert result.verdict == "untrusted" and result.winning_rate == 0.0
    assert result.advantage_probability < 0.4


def test_borderline_candidate_is_a_close_call(write_jsonl):
    """A candidate a little noisier than the humans: mean(W_h - W_c) lies near ε, so the verdict
    turns on ε (trusted at a generous margin, untrusted at a strict one), and p-values at the
    paper's ε sit away from both 0 and 1."""
    corpus = _corpus(write_jsonl, synthetic_lines(80, {**HUMANS, "model": 0.4}, seed=3))
    report = spanagree.score(corpus)
    middle = spanagree.alt_test(report, "model", epsilon=0.2)
    generous = spanagree.alt_test(report, "model", epsilon=0.4)
    strict = spanagree.alt_test(report, "model", epsilon=0.05)
    assert generous.verdict == "trusted" and strict.verdict == "untrusted"
    mean_d = [r["mean_w_human"] - r["mean_w_candidate"] for r in middle.per_human]
    assert all(0.05 < m < 0.35 for m in mean_d)
    assert all(0.05 < r["p_value"] < 0.95 for r in middle.per_human)
    assert middle.verdict == "untrusted" and 0.4 < middle.advantage_probability < 0.6


def test_candidate_equal_to_consensus_is_trusted(write_jsonl):
    """A candidate that marks exactly the spans most humans marked represents the group at
    least as well as any one of them."""
    lines = synthetic_lines(60, {"ann": 0.3, "ben": 0.3, "cat": 0.3}, seed=4)
    by_doc: dict[str, list[dict]] = {}
    for rec in lines:
        by_doc.setdefault(rec["doc_id"], []).append(rec)
    for doc_id, recs in by_doc.items():
        votes: dict[tuple, int] = {}
        for rec in recs:
            for s in rec["spans"]:
                key = (s["start"], s["end"], s["label"])
                votes[key] = votes.get(key, 0) + 1
        consensus = sorted(k for k, v in votes.items() if v >= 2)
        lines.append(line(doc_id, "consensus", consensus, text=TEXT))
    result = spanagree.alt_test(_corpus(write_jsonl, lines), "consensus")
    assert result.verdict == "trusted"
    assert result.advantage_probability > 0.8


def test_invariant_to_names_and_order(write_jsonl):
    lines = synthetic_lines(70, {**HUMANS, "model": 0.35}, seed=5)
    base = spanagree.alt_test(_corpus(write_jsonl, lines, "a.jsonl"), "model").to_dict()
    rename = {"ann": "zed", "ben": "amy", "cat": "kim", "dan": "bob", "model": "llm"}
    shuffled = [dict(rec, annotator=rename[rec["annotator"]]) for rec in lines]
    random.Random(9).shuffle(shuffled)
    other = spanagree.alt_test(_corpus(write_jsonl, shuffled, "b.jsonl"), "llm").to_dict()
    for key in ("verdict", "winning_rate", "advantage_probability", "ties", "both_empty_pairs"):
        assert other[key] == base[key], key
    rows = {rename[r["rater"]]: r for r in base["per_human"]}
    for row in other["per_human"]:
        want = rows[row["rater"]]
        for key in ("documents", "mean_w_candidate", "mean_w_human", "p_value", "rejected"):
            assert row[key] == want[key], key


def test_several_candidates_ranked_by_advantage(write_jsonl):
    lines = synthetic_lines(60, {**HUMANS, "bad": 0.9, "good": 0.05}, seed=6)
    results = spanagree.alt_test(_corpus(write_jsonl, lines), ["bad", "good"])
    assert [r.candidate for r in results] == ["good", "bad"]
    assert all(r.humans == ["ann", "ben", "cat", "dan"] for r in results)  # candidates are never humans


def test_report_extras(write_jsonl, tmp_path):
    lines = synthetic_lines(40, {**HUMANS, "model": 0.2}, seed=7)
    path = write_jsonl(lines)
    result = spanagree.alt_test(path, "model", candidates="tokens", rule="overlap").to_dict()
    assert result["rule"]["rule"] == "overlap"
    assert result["shah_s"]["coefficient"] == "s_against_group" and result["shah_s"]["n_raters"] == 4
    psa_rows = {r["rater"]: r for r in result["psa_with_humans"]}
    report = spanagree.score(path, rule="overlap").to_dict()
    pair = next(p for p in report["pairs"] if sorted(p["raters"]) == ["ann", "model"])
    assert psa_rows["ann"]["psa"] == pytest.approx(pair["psa"])
    assert set(psa_rows["ann"]["labels"]) <= set(LABELS)
    without = spanagree.alt_test(path, "model").to_dict()
    assert without["shah_s"]["value"] is None and "candidate items" in without["shah_s"]["undefined"]
    json.dumps(result)  # plain JSON types


def test_documents_without_the_candidate_are_counted(write_jsonl):
    lines = [rec for rec in synthetic_lines(45, {**HUMANS, "model": 0.2}, seed=8)
             if not (rec["annotator"] == "model" and rec["doc_id"] < "doc005")]
    result = spanagree.alt_test(_corpus(write_jsonl, lines), "model").to_dict()
    assert result["documents"] == {"tested": 37, "excluded": {"the candidate did not submit it": 5, at.UNDEFINED: 3}}


# --- the command line -----------------------------------------------------------------------------


def _cli(*args):
    from click.testing import CliRunner

    from spanagree.app.cli import app

    return CliRunner().invoke(app, [str(a) for a in args])


def test_cli_exit_codes_and_json(write_jsonl):
    good = write_jsonl(synthetic_lines(60, {**HUMANS, "model": 0.05}, seed=1), "good.jsonl")
    bad = write_jsonl(synthetic_lines(60, {**HUMANS, "model": 0.9}, seed=2), "bad.jsonl")
    result = _cli("alt-test", good, "--candidate", "model", "--output", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    for key in ("candidate", "humans", "epsilon", "alpha", "winning_rate", "advantage_probability", "per_human",
                "verdict", "reason"):
        assert key in data
    for key in ("rater", "documents", "p_value", "rejected", "mean_w_candidate", "mean_w_human"):
        assert key in data["per_human"][0]
    assert data == spanagree.alt_test(good, "model").to_dict()
    assert _cli("alt-test", bad, "--candidate", "model").exit_code == 1
    few = _cli("alt-test", good, "--candidate", "model", "--min-documents-per-human", "100")
    assert few.exit_code == 1 and "INCONCLUSIVE" in few.output
    assert _cli("alt-test", good, "--candidate", "nobody").exit_code == 2
    assert _cli("alt-test", good, "--candidate", "model", "--epsilon", "2").exit_code == 2


def test_cli_score_options_and_several_candidates(write_jsonl):
    path = write_jsonl(synthetic_lines(50, {**HUMANS, "bad": 0.9, "good": 0.05}, seed=6))
    result = _cli("alt-test", path, "--candidate", "bad", "--candidate", "good", "--rule", "overlap",
                  "--output", "json")
    assert result.exit_code == 1  # one of the two is not trusted
    data = json.loads(result.output)
    assert [r["candidate"] for r in data] == ["good", "bad"] and data[0]["rule"]["rule"] == "overlap"
    markdown = _cli("alt-test", path, "--candidate", "bad", "--candidate", "good", "--output", "markdown")
    assert "### Candidates ranked by advantage probability ρ" in markdown.output
    assert "| ann |" in markdown.output


# --- the example corpus's model rater -------------------------------------------------------------


def test_example_model_rater_is_reproducible(example_path, tmp_path):
    import importlib.util

    script = example_path.parent / "build_model_rater.py"
    spec = importlib.util.spec_from_file_location("build_model_rater", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "model.jsonl"
    module.main(out)
    assert out.read_bytes() == (example_path.parent / "news_ner_model.jsonl").read_bytes()


def test_example_numbers_in_the_readme(example_path):
    result = spanagree.alt_test([example_path, example_path.parent / "news_ner_model.jsonl"], "news_ner-model",
                                candidates="tokens")
    assert result.verdict == "untrusted" and result.winning_rate == 0.0
    assert round(result.advantage_probability, 3) == 0.533 and round(result.shah_s["value"], 3) == 0.911
    rows = {r["rater"]: r for r in result.per_human}
    assert rows["news_ner-alice"]["mean_w_human"] == 1.0
    assert (round(rows["news_ner-bob"]["p_value"], 4), round(rows["news_ner-bob"]["p_adjusted"], 4)) == (0.2113, 0.5810)
    assert (result.documents, result.both_empty_pairs, result.ties) == (49, 4, 45)
    assert result.excluded == {at.UNDEFINED: 1}  # the document nobody marked: every PSA undefined


def test_same_result_with_workers(write_jsonl):
    lines = synthetic_lines(40, {**HUMANS, "model": 0.3}, seed=12)
    lines = [rec for rec in lines if not (rec["annotator"] in ("ann", "ben", "cat") and rec["doc_id"] == "doc003")]
    path = write_jsonl(lines)
    serial = spanagree.alt_test(path, "model").to_dict()
    assert serial["documents"]["excluded"] == {"fewer than two humans submitted it": 1, at.UNDEFINED: 1}
    assert spanagree.alt_test(path, "model", jobs=2).to_dict() == serial


@pytest.mark.parametrize("seed, noise", [(21, 0.1), (22, 0.35), (23, 0.7)])
def test_corpus_path_matches_reference_on_set_psa(write_jsonl, seed, noise):
    """End to end under the exact rule: per-document PSA from span sets, 2|A ∩ B| / (|A| + |B|)
    (undefined when both are empty), through the plain procedure, equals alt_test on the file."""
    lines = synthetic_lines(50, {**HUMANS, "model": noise}, seed=seed)
    rng = random.Random(seed)
    lines = [rec for rec in lines if rng.random() > 0.1]  # some raters skip some documents
    spans = {(rec["doc_id"], rec["annotator"]): {(s["start"], s["end"], s["label"]) for s in rec["spans"]} for rec in lines}
    scores = {}
    for (doc, a), sa in spans.items():
        for (doc_b, b), sb in spans.items():
            if doc_b == doc and a < b:
                scores[doc, a, b] = None if not sa and not sb else Fraction(2 * len(sa & sb), len(sa) + len(sb))
    per_human, p_values, rejected, winning_rate, rho = reference_procedure(scores, "model", 0.2, 0.05)
    result = spanagree.alt_test(write_jsonl(lines), "model")
    rows = {r["rater"]: r for r in result.per_human}
    for h, (w_c, w_h) in per_human.items():
        assert rows[h]["documents"] == len(w_c)
        assert rows[h]["mean_w_candidate"] == pytest.approx(sum(w_c) / len(w_c))
        if h in p_values:
            assert rows[h]["p_value"] == pytest.approx(p_values[h], rel=1e-9, abs=1e-300)
            assert rows[h]["rejected"] == rejected[h]
    assert result.winning_rate == pytest.approx(winning_rate)
    assert result.advantage_probability == pytest.approx(float(rho))
    empty_pairs = sum(1 for (doc, a, b) in scores if not spans[doc, a] and not spans[doc, b])
    assert result.both_empty_pairs <= empty_pairs


def test_incomplete_scores_name_the_document():
    scores = random_scores(2, n_docs=35, n_humans=3, p_absent=0.0)
    del scores[next(k for k in scores if k[0] == "doc7" and "model" in k[1:] and "h0" not in k[1:])]
    with pytest.raises(UsageError, match="document 'doc7'"):
        at.alt_test_scores(scores, "model")
