"""Planning a round: the published sample sizes, the resampled documents for a half-width checked
by simulation, plan and the gate giving one number, next's ranking, and bad input (exit 2)."""
from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app
from spanagree.core.builder import CorpusBuilder
from spanagree.errors import PlanWarning, UsageError
from spanagree.measures.chance.two_raters import cohen_kappa_array
from spanagree.measures.psa.deciding import documents_to_decide
from spanagree.measures.psa.planning import agreement_items, alpha_items, kappa_items, largest_kappa_variance
from spanagree.measures.psa.specific import psa
from spanagree.measures.student_t import normal_quantile
from locations import ROOT

EXAMPLE = str(ROOT / "corpora" / "news_ner.jsonl")
runner = CliRunner()


# --- the published designs -----------------------------------------------------------------------

def test_cantor_reproduces_irr():
    # R irr: N.cohen.kappa(0.5, 0.5, 0.7, 0.85) = 96 (Cantor 1996)
    assert kappa_items(0.5, 0.5, 0.7, 0.85) == 96


@pytest.mark.parametrize("rate, kappa, null", [(0.5, 0.7, 0.85), (0.3, 0.5, 0.7), (0.2, 0.8, 0.6), (0.45, 0.4, 0.2)])
@pytest.mark.parametrize("two_sided", [False, True])
def test_cantor_agrees_with_pyirr_for_equal_rates(rate, kappa, null, two_sided):
    # pyirr transcribes irr's function; with equal rates its one asymmetric term (the null variance's
    # p21 term reads (1 - rate1) + rate1) does not matter
    from pyirr import N_cohen_kappa

    assert kappa_items(rate, rate, kappa, null, two_sided=two_sided) == N_cohen_kappa(rate, rate, kappa, null,
                                                                                      twosided=two_sided)


def test_cantor_has_the_asked_power_by_simulation():
    # draw 2x2 tables of N items with true κ = 0.7; the one-sided test of κ = 0.85 (null variance)
    # rejects in about 80 % of them
    rate, kappa, null = 0.5, 0.7, 0.85
    n = kappa_items(rate, rate, kappa, null)
    agree = kappa * 0.5 + 0.5
    shares = [agree / 2, (1 - agree) / 2, (1 - agree) / 2, agree / 2]
    tables = np.random.default_rng(1).multinomial(n, shares, size=20000).reshape(-1, 2, 2).astype(float)
    agree0 = null * 0.5 + 0.5
    p_null = np.array([[agree0 / 2, (1 - agree0) / 2], [(1 - agree0) / 2, agree0 / 2]])
    from spanagree.measures.chance.kappa_variance import cohen_kappa_uncertainty

    se0 = cohen_kappa_uncertainty(p_null)["standard_error"] / np.sqrt(n)
    rejected = cohen_kappa_array(tables) < null - normal_quantile(0.95) * se0
    assert 0.77 < rejected.mean() < 0.84


def test_flacks_largest_variance_is_cantors_table_with_two_categories():
    from spanagree.measures.chance.kappa_variance import cohen_kappa_uncertainty

    rng = np.random.default_rng(7)
    for _ in range(50):
        r1, r2 = rng.uniform(0.1, 0.9, 2)
        chance = r1 * r2 + (1 - r1) * (1 - r2)
        both = r1 * r2 + rng.uniform(0, 1) * (min(r1, r2) - r1 * r2)  # a 2x2 table that exists
        table = np.array([[both, r1 - both], [r2 - both, 1 - r1 - r2 + both]])
        kappa = (both + table[1, 1] - chance) / (1 - chance)
        assert largest_kappa_variance([r1, 1 - r1], [r2, 1 - r2], kappa) == pytest.approx(
            cohen_kappa_uncertainty(table * 1000)["standard_error"] ** 2 * 1000, rel=1e-6)


def test_flacks_largest_variance_bounds_every_table_with_the_margins_and_kappa():
    # any 3x3 or 4x4 table: the largest variance over tables with its margins and κ is at least its own
    from spanagree.measures.chance.kappa_variance import cohen_kappa_uncertainty

    rng = np.random.default_rng(8)
    for k in (3, 4):
        for _ in range(60):
            table = rng.dirichlet(np.full(k * k, 0.7)).reshape(k, k) + np.diag(rng.uniform(0, 0.5, k))
            table /= table.sum()
            own = cohen_kappa_uncertainty(table * 10_000)
            largest = largest_kappa_variance(table.sum(axis=1), table.sum(axis=0), own["value"])
            assert largest >= own["standard_error"] ** 2 * 10_000 * (1 - 1e-9)


@pytest.mark.parametrize("shares", [(0.5, 0.3, 0.2), (0.25, 0.25, 0.25, 0.25)])
def test_flacks_sample_sizes_hold_their_power_and_half_width_by_simulation(shares):
    # items from a table with the shares on both margins and κ = λ: (1 − λ)·m mᵀ + λ·diag(m)
    m = np.array(shares)
    rng = np.random.default_rng(9)

    def kappas(kappa: float, n: int) -> np.ndarray:
        cells = ((1 - kappa) * np.outer(m, m) + kappa * np.diag(m)).ravel()
        return cohen_kappa_array(rng.multinomial(n, cells, size=4000).reshape(-1, len(m), len(m)).astype(float))

    kappa, null = 0.6, 0.75
    n = kappa_items(shares, shares, kappa, null)
    se0 = np.sqrt(largest_kappa_variance(m, m, null) / n)
    assert (kappas(kappa, n) < null - normal_quantile(0.95) * se0).mean() > 0.78  # power 0.8, or more
    n = kappa_items(shares, shares, kappa, half_width=0.05)
    low, high = np.quantile(kappas(kappa, n), [0.025, 0.975])
    assert (high - low) / 2 < 0.05 * 1.05


def test_krippendorff_minimum_sample():
    # Krippendorff (2004): 139 units for α_min = .800 at p_c = .25 and p = .05; 81 for α_min = .667
    assert alpha_items(0.8, 0.25) == 139
    assert alpha_items(0.667, 0.25) == 81
    assert alpha_items(0.8, 0.1) > alpha_items(0.8, 0.25)  # a rarer category needs more units
    assert alpha_items(0.9, 0.25) > alpha_items(0.8, 0.25)


def test_gwet_percent_agreement():
    assert (agreement_items(0.1), agreement_items(0.05), agreement_items(0.2)) == (100, 400, 25)


@pytest.mark.parametrize("call", [lambda: kappa_items(0.5, 0.5, 0.7, 0.7), lambda: kappa_items(0.1, 0.9, 0.9, 0.5),
                                  lambda: kappa_items([0.5, 0.5], [0.6, 0.3], 0.5, half_width=0.1),
                                  lambda: kappa_items(0.5, 0.5, 0.7), lambda: kappa_items(0.5, 0.5, 0.7, 0.8, half_width=0.1),
                                  lambda: alpha_items(1.0, 0.25), lambda: alpha_items(0.8, 0.7),
                                  lambda: agreement_items(0)])
def test_impossible_designs_are_usage_errors(call):
    with pytest.raises(UsageError):
        call()


# --- the gate's documents to decide, with a power -------------------------------------------------

def test_documents_to_decide_grows_with_power_and_is_the_gates_at_half():
    assert documents_to_decide(0.80, 0.74, 0.86, 0.77, 100) == (400, "pass")
    assert documents_to_decide(0.80, 0.74, 0.86, 0.83, 100) == (400, "fail")
    assert documents_to_decide(0.80, 0.74, 0.86, 0.80, 100) == (None, None)
    n80, _ = documents_to_decide(0.80, 0.74, 0.86, 0.77, 100, power=0.8)
    # (1 + z_0.8 / z_0.975)² = 1.43² ≈ 2.04 times the power-0.5 number
    assert n80 == int(np.ceil(400 * (1 + normal_quantile(0.8) / normal_quantile(0.975)) ** 2))


def test_plan_and_the_gate_give_the_same_number():
    gate = runner.invoke(app, ["gate", EXAMPLE, "--min", "pairwise_mean_psa=0.8", "--on", "lower"])
    row = spanagree.gate(EXAMPLE, {"pairwise_mean_psa": 0.8}, on="lower")["checks"][0]
    assert gate.exit_code == 1 and f"{row['documents_to_decide']} in all" in gate.output
    plan = spanagree.plan(EXAMPLE, min={"pairwise_mean_psa": 0.8}, power=0.5)
    assert plan["documents_needed"] == row["documents_to_decide"]
    assert plan["questions"][0]["likely"] == row["likely"]


# --- the documents for a half-width, from a pilot ---------------------------------------------------

def _population(n: int, seed: int) -> np.ndarray:
    """Per document a, b, c of two raters: entities per document vary, agreement about 0.8."""
    rng = np.random.default_rng(seed)
    spans = rng.poisson(rng.gamma(2.0, 2.0, n))
    a = rng.binomial(spans, 0.7)
    return np.stack([a, rng.binomial(spans - a, 0.5), spans - a - rng.binomial(spans - a, 0.5)], axis=1)


def _corpus(abc: np.ndarray, crowd: int = 0, seed: int = 0):
    """Two raters' spans with the counts ``abc`` per document: raters A and B, or, with ``crowd``
    workers, a pair of them drawn for each document."""
    rng = np.random.default_rng(seed)
    builder = CorpusBuilder()
    for d, (a, b, c) in enumerate(abc.tolist()):
        text = "x" * (4 * (a + b + c) + 1)
        spans = [[(4 * k, 4 * k + 3, "E") for k in range(a)] for _ in range(2)]
        spans[0] += [(4 * k, 4 * k + 3, "E") for k in range(a, a + b)]
        spans[1] += [(4 * k, 4 * k + 3, "E") for k in range(a + b, a + b + c)]
        raters = [f"w{r}" for r in rng.choice(crowd, 2, replace=False).tolist()] if crowd else ["A", "B"]
        for rater, own in zip(raters, spans):
            builder.add(f"d{d}", f"d{d}", text, rater, own, None)
    return builder.build()


def test_the_planned_documents_give_the_target_half_width_by_simulation():
    population = _population(20000, 0)
    pilot = population[np.random.default_rng(1).choice(len(population), 150, replace=False)]
    target = 0.015
    result = spanagree.plan(_corpus(pilot), "pooled_psa", half_width=target, bootstrap=1000)
    n = result["documents_needed"]
    assert n > 150 and result["questions"][0]["curve"][0]["documents"] == 150
    # rounds of n documents drawn from the population: the spread of their pooled PSA
    rng = np.random.default_rng(2)
    values = []
    for _ in range(1000):
        a, b, c = population[rng.integers(0, len(population), n)].sum(axis=0)
        values.append(psa(a, b, c))
    low, high = np.quantile(values, [0.025, 0.975])
    assert 0.8 < (high - low) / 2 / target < 1.25


def test_a_tighter_target_needs_about_the_square_more_documents():
    corpus = _corpus(_population(120, 3))
    wide = spanagree.plan(corpus, "pooled_psa", half_width=0.04)["documents_needed"]
    narrow = spanagree.plan(corpus, "pooled_psa", half_width=0.02)["documents_needed"]
    assert 3.4 < narrow / wide < 4.6


def test_plan_json_gives_documents_needed_and_its_inputs():
    result = runner.invoke(app, ["plan", EXAMPLE, "--statistic", "label:PERSON", "--half-width", "0.05",
                                 "--output", "json", "--seed", "3", "--bootstrap", "200"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["seed"] == 3 and out["replicates"] == 200 and out["pilot"]["documents"] == 50
    assert out["documents_needed"] == out["questions"][0]["documents_needed"] > 0
    assert "pilot" in out["assumption"] and out["questions"][0]["target"] == {"half_width": 0.05}


def test_a_pairwise_mean_planned_on_a_crowd_is_warned_and_the_pooled_psa_is_not(tmp_path):
    crowd = _corpus(_population(200, 4), crowd=30, seed=5)
    with pytest.warns(PlanWarning, match=r"a crowd \(\d+ rater pairs; the median pair annotated 1 of its 200"):
        warned = spanagree.plan(crowd, half_width=0.05, bootstrap=200)
    assert "--statistic pooled_psa" in warned["warnings"][0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", PlanWarning)
        assert spanagree.plan(crowd, "pooled_psa", half_width=0.05, bootstrap=200)["warnings"] == []
        # raters who all annotate every document are no crowd
        assert spanagree.plan(EXAMPLE, half_width=0.05, bootstrap=200)["warnings"] == []
    path = tmp_path / "crowd.jsonl"
    path.write_text("".join(json.dumps({"doc_id": d, "text": t, "annotator": r, "spans": s}) + "\n"
                            for d, t, r, s in _lines(crowd)))
    done = subprocess.run([sys.executable, "-m", "spanagree", "plan", str(path), "--half-width", "0.05",
                           "--bootstrap", "200"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr.startswith("spanagree: note: the pilot's raters are a crowd")


def _lines(corpus):
    for a in range(corpus.n_annotations):
        d, lo, hi = int(corpus.ann_doc[a]), int(corpus.ann_ptr[a]), int(corpus.ann_ptr[a + 1])
        yield (corpus.doc_ids[d], corpus.texts[d], corpus.raters[int(corpus.ann_rater[a])],
               [{"start": int(s), "end": int(e), "label": "E"} for s, e in zip(corpus.span_start[lo:hi], corpus.span_end[lo:hi])])


def test_plan_resamples_kappa_with_candidates():
    result = spanagree.plan(EXAMPLE, "kappa", half_width=0.05, candidates="tokens", bootstrap=200)
    assert result["questions"][0]["statistic"] == "kappa" and result["documents_needed"] > 0


# --- next ---------------------------------------------------------------------------------------

def test_next_ranks_the_least_certain_documents_first():
    builder = CorpusBuilder()
    text = "Alice met Bob in Rome"
    for d in range(15):
        for rater in "abc" if d >= 12 else "ab":
            spans = [(0, 5, "PER")] if rater != "b" or d > 2 else []
            if d == 5 and rater == "a":
                spans.append((10, 13, "PER"))  # one rater alone: the least certain reading
            builder.add(f"d{d}", f"d{d}", text, rater, spans, None)
    corpus = builder.build()
    result = spanagree.next_tasks(corpus, 4)
    ranked = [t["doc_id"] for t in result["tasks"]]
    assert ranked[0] == "d5" and "'Bob'" in result["tasks"][0]["reason"]
    assert set(ranked[1:]) == {"d0", "d1", "d2"}  # then the documents where b missed Alice
    assert [t["rank"] for t in result["tasks"]] == [1, 2, 3, 4]
    priorities = [t["priority"] for t in result["tasks"]]
    assert priorities == sorted(priorities, reverse=True)
    # d12-d14 have every rater: twelve documents can take one more
    assert len(spanagree.next_tasks(corpus, 12)["tasks"]) == 12
    with pytest.raises(UsageError, match="from 1 to the 12 documents"):
        spanagree.next_tasks(corpus, 13)


def test_next_ranks_documents_by_their_candidate_spans_then_by_uncertainty():
    builder = CorpusBuilder()
    text = "Alice met Bob and Carol in Rome"
    agreed = [(0, 5, "PER"), (10, 13, "PER"), (18, 23, "PER")]
    for d in range(8):
        for rater in "abc" if d == 7 else "ab":  # c makes the other documents open
            if d == 0:
                spans = [(0, 5, "PER")] if rater == "a" else []  # one span, disputed
            else:
                spans = agreed if d == 1 else agreed[:1]  # three agreed spans, or one
            builder.add(f"d{d}", f"d{d}", text, rater, spans, None)
    tasks = spanagree.next_tasks(builder.build(), 3)["tasks"]
    assert [t["doc_id"] for t in tasks] == ["d1", "d0", "d2"]
    assert [t["priority"] for t in tasks] == [3, 1, 1] and "1 disputed" in tasks[1]["reason"]


def test_next_writes_a_task_file(tmp_path):
    out = tmp_path / "tasks.jsonl"
    result = runner.invoke(app, ["next", EXAMPLE, "--budget", "4", "--output", "jsonl", "-o", str(out)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 4 and all(list(line)[0] == "doc_id" and line["text"] for line in lines)
    assert [line["meta"]["rank"] for line in lines] == [1, 2, 3, 4] and all(line["meta"]["rater"] for line in lines)


def test_next_gives_the_least_certain_documents_to_the_most_accurate_free_raters():
    crowd = str(ROOT / "corpora" / "crowd_ner.jsonl")
    tasks = spanagree.next_tasks(crowd, 9)["tasks"]
    accuracy = {r["rater"]: r["accuracy"] for r in spanagree.raters(crowd, method="dawid-skene")["competence"]}
    done = {(d, r) for d, r in _annotated(crowd)}
    share = -(-9 // len(accuracy))
    load: dict[str, int] = {}
    for task in tasks:
        free = sorted((r for r in accuracy if (task["doc_id"], r) not in done), key=lambda r: (-accuracy[r], r))
        # the most accurate free rater with room in the even share of the budget
        expected = next(r for r in free if load.get(r, 0) < share)
        assert task["rater"] == expected and task["rater_accuracy"] == pytest.approx(accuracy[expected])
        assert task["reason"].endswith(f"take: {expected} (accuracy {accuracy[expected]:.2f})")
        load[expected] = load.get(expected, 0) + 1
    capped = spanagree.next_tasks(crowd, 9, max_per_rater=1)["tasks"]
    assert len({t["rater"] for t in capped if t["rater"]}) == sum(t["rater"] is not None for t in capped)
    assert all(t["rater"] is not None or "has room (--max-per-rater)" in t["reason"] for t in capped)


def test_next_gives_a_document_nobody_annotated_yet_its_most_accurate_rater():
    # a task of a live project that no one has annotated is a document with no annotation
    from spanagree.errors import Location

    builder = CorpusBuilder()
    for d in range(6):
        for rater in "abc":
            builder.add(f"d{d}", f"d{d}", "Alice met Bob", rater, [(0, 5, "PER")] + ([(10, 13, "PER")] if rater != "c" else []), None)
    builder.document("fresh", "fresh", "Carol met Dan", Location("tasks.json"), "a")
    corpus = builder.build()
    tasks = {t["doc_id"]: t for t in spanagree.next_tasks(corpus, 1, max_per_rater=None)["tasks"]}
    accuracy = {r["rater"]: r["accuracy"] for r in spanagree.raters(corpus, method="dawid-skene")["competence"]}
    assert tasks["fresh"]["raters"] == 0 and tasks["fresh"]["rater"] == max(accuracy, key=accuracy.get)


def _annotated(path):
    for line in open(path):
        record = json.loads(line)
        yield record["doc_id"], record["annotator"]


# --- bad input: exit 2 --------------------------------------------------------------------------

def _one_rater(tmp_path):
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"doc_id": "d", "text": "Alice", "annotator": "a",
                                "spans": [{"start": 0, "end": 5, "label": "PER"}]}) + "\n")
    return str(path)


def _no_shared(tmp_path):
    path = tmp_path / "apart.jsonl"
    path.write_text("".join(json.dumps({"doc_id": d, "text": "Alice", "annotator": r,
                                        "spans": [{"start": 0, "end": 5, "label": "PER"}]}) + "\n"
                            for d, r in (("d1", "a"), ("d2", "b"))))
    return str(path)


@pytest.mark.parametrize("args, message", [
    (["plan", "{one}", "--half-width", "0.05"], "1 rater(s)"),
    (["plan", "{apart}", "--half-width", "0.05"], "0 such documents"),
    (["plan", EXAMPLE], "plan needs a target"),
    (["plan", EXAMPLE, "--half-width", "1.5"], "half-width is a number in (0, 1)"),
    (["plan", EXAMPLE, "--statistic", "gamma", "--half-width", "0.05"], "not gamma"),
    (["plan", EXAMPLE, "--statistic", "pairwise_psa", "--half-width", "0.05"], "did you mean"),
    (["plan", EXAMPLE, "--statistic", "label:PER", "--half-width", "0.05"], "cannot support"),
    (["plan", EXAMPLE, "--min", "pairwise_mean_psa=0.8", "--power", "1"], "--power"),
    (["next", "{one}", "--budget", "1"], "1 rater(s)"),
    (["next", "{apart}", "--budget", "1"], "0 such documents"),
    (["next", EXAMPLE, "--budget", "0"], "--budget"),
    (["next", EXAMPLE, "--budget", "51"], "--budget"),
    (["next", EXAMPLE, "--budget", "2", "--max-per-rater", "0"], "--max-per-rater is a number of documents"),
])
def test_bad_input_is_a_clear_message_and_exit_2(tmp_path, args, message):
    paths = {"one": _one_rater(tmp_path), "apart": _no_shared(tmp_path)}
    result = runner.invoke(app, [a.format(**paths) for a in args])
    assert result.exit_code == 2, result.output
    assert message in result.output


# --- the planning chart (report and notebook) --------------------------------------------------------

def test_the_planning_chart_narrows_with_documents_and_marks_plans_number(tmp_path):
    from spanagree.plans import plan_curve

    scored = spanagree.score(EXAMPLE, bootstrap=500, seed=2)
    curve = plan_curve(scored, "pooled_psa", half_width=0.03)
    widths = [p["half_width"] for p in curve["points"]]
    assert [p["documents"] for p in curve["points"]] == [12, 25, 50, 100, 200, 400, 800]
    assert all(a > b for a, b in zip(widths, widths[1:]))
    # h(n) shrinks as 1/sqrt(n): 64 times the documents, about an eighth of the half-width
    assert 6 < widths[0] / widths[-1] < 11
    assert curve["documents_needed"] == spanagree.plan(EXAMPLE, "pooled_psa", half_width=0.03, bootstrap=500,
                                                       seed=2)["documents_needed"]
    out = tmp_path / "r.html"
    done = runner.invoke(app, ["report", EXAMPLE, "-o", str(out), "--statistic", "pooled_psa", "--half-width", "0.03",
                               "--bootstrap", "500", "--seed", "2"])
    assert done.exit_code == 0, done.output
    page = out.read_text()
    assert f"needs <strong>{curve['documents_needed']} documents</strong>" in page and 'id="chart-plan"' in page
    unknown = runner.invoke(app, ["report", EXAMPLE, "-o", str(out), "--statistic", "pooled_psaa"])
    assert unknown.exit_code == 2 and "did you mean" in unknown.output


def test_the_notebook_draws_the_planning_chart():
    pytest.importorskip("matplotlib")
    figure = spanagree.score(EXAMPLE).plot.plan(half_width=0.02)
    texts = [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert "target: ±0.02" in texts and any(t.startswith("needed: ") for t in texts)
    with pytest.raises(UsageError, match="plan resamples the statistics that are sums"):
        spanagree.score(EXAMPLE).plot.plan("alpha_u")
    with pytest.raises(UsageError, match="no planning chart for label:NOPE: .*label 'NOPE' is not in the corpus"):
        spanagree.score(EXAMPLE).plot.plan("label:NOPE")


def test_a_report_asked_for_the_chart_of_a_label_it_lacks_is_refused(tmp_path):
    done = runner.invoke(app, ["report", EXAMPLE, "-o", str(tmp_path / "r.html"), "--statistic", "label:NOPE"])
    assert done.exit_code == 2 and "label 'NOPE' is not in the corpus" in done.output
    assert not (tmp_path / "r.html").exists()
