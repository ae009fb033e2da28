"""Annotator models (Dawid–Skene, MACE) on span items: simulation with known raters, an
independent re-computation of the fixed point and the likelihood, properties, bad input."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from spanagree.core.builder import CorpusBuilder
from spanagree.diagnostics.annotators import model_consensus
from spanagree.diagnostics.consensus import consensus
from spanagree.errors import UsageError
from spanagree.measures.annotators.dawid_skene import dawid_skene, diagonal_prior, log_likelihood
from spanagree.measures.annotators.decode import choose_spans, competence
from spanagree.measures.annotators.items import span_items
from spanagree.measures.annotators.mace import mace

LABELS = ("A", "B")
SLOTS = [(0, 4), (10, 14), (20, 24), (30, 34)]
TEXT = "x" * 40


def confusion(right: float) -> np.ndarray:
    """(3, 3) over A, B, nothing: the true class with probability ``right``, else the others evenly."""
    out = np.full((3, 3), (1 - right) / 2)
    np.fill_diagonal(out, right)
    return out


RATERS = {
    "expert1": confusion(0.95),
    "expert2": confusion(0.95),
    "noisy1": confusion(0.7),
    "noisy2": confusion(0.7),
    "noisy3": confusion(0.7),
    "spammer": np.full((3, 3), 1 / 3),
    "never_b": np.array([[0.9, 0.05, 0.05], [0.05, 0.0, 0.95], [0.05, 0.0, 0.95]]),
    "marks_nothing": np.array([[0.0, 0.0, 1.0]] * 3),
}
TRUTH_PRIOR = np.array([0.35, 0.35, 0.3])


def simulate(seed: int, n_docs: int = 300, raters=RATERS, missing: float = 0.0):
    """A corpus of ``n_docs`` documents with four slots each: the truth, and each rater's answers
    drawn from their confusion (a rater skips a document with probability ``missing``)."""
    rng = np.random.default_rng(seed)
    builder = CorpusBuilder()
    truth = {}
    for d in range(n_docs):
        doc_id = f"d{d:04d}"
        classes = rng.choice(3, size=len(SLOTS), p=TRUTH_PRIOR)
        truth[doc_id] = {(s, e, LABELS[c]) for (s, e), c in zip(SLOTS, classes) if c < 2}
        for name, matrix in raters.items():
            if missing and rng.random() < missing:
                continue
            spans = []
            for (s, e), c in zip(SLOTS, classes):
                answer = rng.choice(3, p=matrix[c])
                if answer < 2:
                    spans.append((s, e, LABELS[answer]))
            builder.add(doc_id, doc_id, TEXT, name, spans, None)
    return builder.build(), truth


def f1(found: dict, truth: dict) -> float:
    tp = sum(len(found.get(d, set()) & t) for d, t in truth.items())
    fp = sum(len(found.get(d, set()) - truth.get(d, set())) for d in found)
    fn = sum(len(t - found.get(d, set())) for d, t in truth.items())
    return 2 * tp / (2 * tp + fp + fn)


def spans_of(corpus) -> dict:
    return {d: set(corpus.spans_of(d, corpus.raters[0])) for d in corpus.doc_ids}


# --- simulation --------------------------------------------------------------------------------


@pytest.mark.parametrize("pooling, rate", [(0.0, 0.9), (10.0, 0.85)])
def test_recovered_competences_lie_in_their_intervals_at_the_stated_rate(pooling, rate):
    """95 % intervals of ``marks_present``, 6 simulations × 13 rater-labels whose true value is
    inside (0, 1): without pooling they cover at the stated rate (a binomial 2 s.d. margin); the
    pooled prior shrinks towards the crowd, which costs some coverage at the extremes (docs).
    A true 0 lies just below its interval (the prior keeps every share above 0): within 0.05."""
    inside = total = 0
    for seed in range(6):
        corpus, _ = simulate(seed)
        fit = dawid_skene(span_items(corpus), pooling=pooling)
        table = {row["rater"]: row for row in competence(fit, level=0.95)}
        for name, matrix in RATERS.items():
            for k, label in enumerate(LABELS):
                low, high = table[name]["labels"][label]["marks_present_interval"]
                if matrix[k, k] == 0:
                    assert high < 0.05
                    continue
                inside += low <= matrix[k, k] <= high
                total += 1
    assert total == 78 and inside / total >= rate, (inside, total)


def test_the_spammer_and_the_silent_rater_are_found():
    corpus, _ = simulate(1)
    items = span_items(corpus)
    ds = {row["rater"]: row for row in competence(dawid_skene(items))}
    # the spammer marks labels where nothing is: the most of anyone
    absent = {name: np.mean([ds[name]["labels"][k]["marks_absent"] for k in LABELS]) for name in RATERS}
    assert max(absent, key=absent.get) == "spammer"
    assert ds["never_b"]["labels"]["B"]["marks_present_interval"][1] < 0.15
    assert ds["marks_nothing"]["labels"]["A"]["marks_present"] < 0.05
    ranking = [row["rater"] for row in competence(dawid_skene(items))]
    assert set(ranking[:2]) == {"expert1", "expert2"}
    assert set(ranking[-2:]) == {"spammer", "marks_nothing"}
    fit = mace(items)
    theta = dict(zip(items.raters, fit.extra["competence"]))
    assert theta["spammer"] < 0.2 and theta["marks_nothing"] < 0.2
    assert min(theta["expert1"], theta["expert2"]) > max(theta[n] for n in ("noisy1", "noisy2", "noisy3"))
    spam = dict(zip(items.raters, fit.extra["spamming"]))
    assert spam["marks_nothing"][items.nothing] > 0.9


@pytest.mark.parametrize("method", ["dawid-skene", "mace"])
def test_the_model_consensus_beats_the_vote_when_raters_differ(method):
    corpus, truth = simulate(2, missing=0.3)
    best_vote = max(f1(spans_of(consensus(corpus, min_raters=k)[0]), truth) for k in range(1, 6))
    gold, report, _, _ = model_consensus(corpus, method=method)
    assert f1(spans_of(gold), truth) > best_vote + 0.03
    assert report["model"]["convergence"]["converged"]


# --- an independent re-computation ---------------------------------------------------------------


def _digamma(x: float) -> float:
    """ψ(x) by recurrence and the asymptotic series (independent of scipy)."""
    result = 0.0
    while x < 6:
        result -= 1 / x
        x += 1
    return result + math.log(x) - 1 / (2 * x) - 1 / (12 * x**2) + 1 / (120 * x**4) - 1 / (252 * x**6)


def test_the_fit_is_a_fixed_point_of_the_variational_update_computed_item_by_item():
    corpus, _ = simulate(3, n_docs=60, missing=0.2)
    items = span_items(corpus)
    fit = dawid_skene(items, tol=1e-10, max_iter=5000)
    assert fit.converged
    C = items.n_classes
    answers = {}
    for i, r, j in zip(items.obs_item.tolist(), items.obs_rater.tolist(), items.obs_response.tolist()):
        answers.setdefault(i, []).append((r, j))
    counts = [[[0.0] * C for _ in range(C)] for _ in items.raters]
    for i, given in answers.items():
        for r, j in given:
            for c in range(C):
                counts[r][c][j] += fit.posterior[i, c]
    base = diagonal_prior(C, fit.settings["competence_prior"], fit.settings["prior_strength"])
    pooled = [[sum(counts[r][c][j] for r in range(len(items.raters))) + base[c, j] for j in range(C)] for c in range(C)]
    pooled = [[v / sum(row) for v in row] for row in pooled]
    alpha = [[[counts[r][c][j] + base[c, j] + fit.settings["pooling"] * pooled[c][j] for j in range(C)] for c in range(C)]
             for r in range(len(items.raters))]
    prior = [sum(fit.posterior[i, c] for i in range(items.n_items)) + fit.settings["class_prior"] for c in range(C)]
    for i, given in answers.items():
        scores = []
        for c in range(C):
            score = _digamma(prior[c]) - _digamma(sum(prior))
            for r, j in given:
                score += _digamma(alpha[r][c][j]) - _digamma(sum(alpha[r][c]))
            scores.append(score)
        top = max(scores)
        weights = [math.exp(s - top) for s in scores]
        expected = [w / sum(weights) for w in weights]
        assert np.allclose(fit.posterior[i], expected, atol=1e-6)


def test_log_likelihood_by_enumeration():
    corpus, _ = simulate(4, n_docs=15)
    items = span_items(corpus)
    fit = dawid_skene(items)
    total = 0.0
    for i in range(items.n_items):
        rows = [(r, j) for it, r, j in zip(items.obs_item, items.obs_rater, items.obs_response) if it == i]
        total += math.log(sum(fit.class_prior[c] * math.prod(fit.confusion[r, c, j] for r, j in rows) for c in range(items.n_classes)))
    assert log_likelihood(items, fit.confusion, fit.class_prior) == pytest.approx(total)
    assert fit.log_likelihood == pytest.approx(total)


# --- properties ------------------------------------------------------------------------------------


def _rebuild(corpus, rename=lambda name: name, order=None):
    builder = CorpusBuilder()
    anns = list(range(corpus.n_annotations)) if order is None else order
    for ann in anns:
        d, r = int(corpus.ann_doc[ann]), int(corpus.ann_rater[ann])
        lo, hi = corpus.ann_ptr[ann], corpus.ann_ptr[ann + 1]
        spans = [(int(s), int(e), corpus.labels[k]) for s, e, k in zip(corpus.span_start[lo:hi], corpus.span_end[lo:hi], corpus.span_label[lo:hi])]
        builder.add(corpus.doc_ids[d], corpus.doc_ids[d], corpus.texts[d], rename(corpus.raters[r]), spans, None)
    return builder.build()


@pytest.mark.parametrize("method", ["dawid-skene", "mace"])
def test_invariant_to_rater_names_and_input_order(method):
    corpus, _ = simulate(5, n_docs=80, missing=0.2)
    gold, report, _, _ = model_consensus(corpus, method=method)
    names = {name: f"z{len(RATERS) - i}" for i, name in enumerate(sorted(RATERS))}
    order = np.random.default_rng(0).permutation(corpus.n_annotations).tolist()
    other = _rebuild(corpus, rename=names.get, order=order)
    gold2, report2, _, _ = model_consensus(other, method=method)
    assert spans_of(gold) == spans_of(gold2)
    by_name = {row["rater"]: row["accuracy"] for row in report["competence"]}
    by_name2 = {row["rater"]: row["accuracy"] for row in report2["competence"]}
    for name, renamed in names.items():
        assert by_name[name] == pytest.approx(by_name2[renamed], abs=1e-9)


def test_identical_raters_get_identical_competence():
    corpus, _ = simulate(6, n_docs=60, raters={"a": confusion(0.8), "b": confusion(0.6), "c": confusion(0.9)})
    twin = _rebuild(corpus, rename=lambda name: name)
    builder = CorpusBuilder()
    for ann in range(twin.n_annotations):
        d, r = int(twin.ann_doc[ann]), int(twin.ann_rater[ann])
        lo, hi = twin.ann_ptr[ann], twin.ann_ptr[ann + 1]
        spans = [(int(s), int(e), twin.labels[k]) for s, e, k in zip(twin.span_start[lo:hi], twin.span_end[lo:hi], twin.span_label[lo:hi])]
        for name in ([twin.raters[r], "a_twin"] if twin.raters[r] == "a" else [twin.raters[r]]):
            builder.add(twin.doc_ids[d], twin.doc_ids[d], TEXT, name, spans, None)
    fit = dawid_skene(span_items(builder.build()))
    a, b = fit.items.raters.index("a"), fit.items.raters.index("a_twin")
    assert np.allclose(fit.confusion[a], fit.confusion[b])


def test_documents_with_one_rater_are_read_and_decoded():
    corpus, _ = simulate(7, n_docs=40, missing=0.0)
    builder = CorpusBuilder()
    for ann in range(corpus.n_annotations):
        d, r = int(corpus.ann_doc[ann]), int(corpus.ann_rater[ann])
        if d % 4 == 0 and corpus.raters[r] != "expert1":
            continue  # every fourth document: expert1 alone
        lo, hi = corpus.ann_ptr[ann], corpus.ann_ptr[ann + 1]
        spans = [(int(s), int(e), corpus.labels[k]) for s, e, k in zip(corpus.span_start[lo:hi], corpus.span_end[lo:hi], corpus.span_label[lo:hi])]
        builder.add(corpus.doc_ids[d], corpus.doc_ids[d], TEXT, corpus.raters[r], spans, None)
    gold, report, _, fit = model_consensus(builder.build())
    alone = [d for d in gold.doc_ids if int(d[1:]) % 4 == 0]
    assert alone and all(gold.spans_of(d, "consensus") == corpus.spans_of(d, "expert1") for d in alone)
    assert fit.converged


@pytest.mark.parametrize("fitter", [dawid_skene, mace])
def test_all_raters_agreeing_converges_at_once_and_says_so(fitter):
    corpus, _ = simulate(8, n_docs=20, raters={"a": confusion(1.0), "b": confusion(1.0), "c": confusion(1.0)})
    fit = fitter(span_items(corpus))
    assert fit.iterations == 0 and fit.converged
    assert "same answer" in fit.note
    assert np.array_equal(fit.posterior.max(1), np.ones(fit.items.n_items))


def test_a_fit_that_stops_early_says_it_did_not_converge():
    corpus, _ = simulate(9, n_docs=60)
    fit = dawid_skene(span_items(corpus), max_iter=2)
    assert not fit.converged and "did not converge" in fit.note


def test_decoding_keeps_the_heaviest_non_overlapping_spans():
    builder = CorpusBuilder()
    for d in range(12):
        for rater, spans in [("a", [(0, 10, "A")]), ("b", [(0, 10, "A")]), ("c", [(0, 4, "A"), (6, 10, "A")])]:
            builder.add(f"d{d}", f"d{d}", TEXT, rater, spans, None)
    fit = dawid_skene(span_items(builder.build(), rule="overlap"))
    chosen = choose_spans(fit, threshold=0.0)
    # brute force over every subset of the three candidates without overlap
    items = fit.items
    best = max(
        (subset for n in range(4) for subset in itertools.combinations(range(3), n)
         if all(items.item_end[i] <= items.item_start[j] or items.item_end[j] <= items.item_start[i]
                for i, j in itertools.combinations(subset, 2))),
        key=lambda subset: sum(fit.posterior[items.item_doc == 0][i, 0] for i in subset),
    )
    assert [(s, e) for s, e, _, _ in chosen[0]] == sorted((int(items.item_start[i]), int(items.item_end[i])) for i in best)


# --- bad input -------------------------------------------------------------------------------------


def test_bad_input_is_a_clear_error():
    corpus, _ = simulate(10, n_docs=30)
    with pytest.raises(UsageError, match="unknown method 'glad'"):
        model_consensus(corpus, method="glad")
    with pytest.raises(UsageError, match="unknown gold rater 'nobody'.*expert1"):
        model_consensus(corpus, gold_rater="nobody")
    with pytest.raises(UsageError, match="threshold"):
        model_consensus(corpus, threshold=1.5)
    with pytest.raises(UsageError, match="competence_prior"):
        dawid_skene(span_items(corpus), competence_prior=1.0)
    with pytest.raises(UsageError, match="pooling"):
        dawid_skene(span_items(corpus), pooling=-1)
    tiny, _ = simulate(11, n_docs=1)
    with pytest.raises(UsageError, match="too few items.*--method vote"):
        dawid_skene(span_items(tiny))
    alone, _ = simulate(12, n_docs=20, raters={"g": confusion(0.9)})
    with pytest.raises(UsageError, match="only rater"):
        model_consensus(alone, gold_rater="g")


def test_the_gold_rater_is_left_out_of_the_model_and_scores_everyone():
    corpus, truth = simulate(13, n_docs=60, raters={**RATERS, "gold": np.eye(3)})
    gold, report, _, _ = model_consensus(corpus, gold_rater="gold")
    assert "gold" not in report["raters"] and "gold" not in report["ranking"]
    assert set(report["gold"]["raters"]) == set(RATERS)
    assert report["gold"]["consensus"]["f"] == pytest.approx(f1(spans_of(gold), truth))
    assert report["gold"]["consensus"]["f"] > report["gold"]["raters"]["noisy1"]["f"]


# --- the token view ----------------------------------------------------------------------------------


def test_token_items_give_each_rater_the_bio_tag_of_each_token():
    from spanagree.measures.annotators.items import token_items

    tokens = np.array([[0, 4], [5, 9], [10, 14], [15, 19]])
    builder = CorpusBuilder()
    text = "aaaa bbbb cccc dddd"
    builder.add("d", "d", text, "r1", [(0, 9, "A"), (15, 19, "B")], None, tokens)
    builder.add("d", "d", text, "r2", [(5, 14, "B")], None, tokens)
    items = token_items(builder.build())
    names = items.class_names
    answers = {(items.raters[r], int(items.item_start[i])): names[j]
               for i, r, j in zip(items.obs_item, items.obs_rater, items.obs_response)}
    assert [answers["r1", t] for t in range(4)] == ["B-A", "I-A", "(nothing)", "B-B"]
    assert [answers["r2", t] for t in range(4)] == ["(nothing)", "B-B", "I-B", "(nothing)"]


def test_token_view_of_agreeing_raters_is_their_spans_with_probability_one():
    tokens = np.array([[0, 4], [5, 9], [10, 14], [15, 19]])
    builder = CorpusBuilder()
    for d in range(6):
        for rater in "abc":
            builder.add(f"d{d}", f"d{d}", "aaaa bbbb cccc dddd", rater, [(0, 9, "A"), (15, 19, "B")], None, tokens)
    gold, report, probability, fit = model_consensus(builder.build(), view="tokens")
    assert fit.iterations == 0
    assert all(gold.spans_of(f"d{d}", "consensus") == [(0, 9, "A"), (15, 19, "B")] for d in range(6))
    assert set(probability.values()) == {1.0}
    with pytest.raises(UsageError, match="token items need the raters' tokens"):
        model_consensus(simulate(0, n_docs=20)[0], view="tokens")


def test_the_accelerated_fit_reaches_the_plain_fixed_point():
    corpus, _ = simulate(14, n_docs=120, missing=0.4)
    items = span_items(corpus)
    fast = dawid_skene(items, tol=1e-9, max_iter=20000)
    slow = dawid_skene(items, tol=1e-9, max_iter=20000, accelerate=False)
    assert fast.converged and slow.converged and fast.iterations < slow.iterations
    assert np.abs(fast.posterior - slow.posterior).max() < 1e-6
    assert fast.log_likelihood == pytest.approx(slow.log_likelihood, rel=1e-8)


def test_the_accelerated_mace_reaches_the_plain_fixed_point():
    corpus, _ = simulate(15, n_docs=120, missing=0.4)
    items = span_items(corpus)
    fast = mace(items, tol=1e-9, max_iter=20000)
    slow = mace(items, tol=1e-9, max_iter=20000, accelerate=False)
    assert fast.converged and slow.converged
    assert np.abs(fast.posterior - slow.posterior).max() < 1e-5
    assert np.abs(fast.extra["competence"] - slow.extra["competence"]).max() < 1e-5
