"""Planning a round on real corpora: does ``plan``'s number give the half-width it promises, and
does ``next`` spend a budget of extra annotations better than chance?

    python bench/bench_planning.py [--data ../shared/corpora-real] [--seeds 3] [--write-results]

**Plan.** For toxic_spans, the CoNLL-2003 MTurk crowd and potts: a seeded 10 % of the documents is
the pilot; ``spanagree.plan`` gives the documents needed for the pairwise mean PSA's 95 % interval
to have half the pilot's half-width. Then rounds of that many documents are drawn at random, without
replacement, from the other 90 % (400 times); the half-width of their pairwise mean PSA's central
95 % spread, corrected for drawing without replacement (divided by sqrt((N − n)/(N − 1))), is
held against the target: it should be within [0.8, 1.25] of it.

**Next.** CoNLL-2003 MTurk from two crowd annotations per sentence (a seeded draw among the
sentence's workers); a budget of half an annotation per sentence, each chosen sentence getting one
more real annotation (the next of its workers in the seeded order; a sentence with none left is
skipped), spent (a) on random sentences, (b) as ``spanagree.next_tasks`` ranks them, in one round,
(c) in two rounds of half the budget, ``next`` run again on the annotations of the first, (d) as
``next`` ranks them, each chosen sentence's annotation from the most accurate (Dawid–Skene on the
first two annotations) of its workers not yet used: ``next``'s "who", within the workers the data
has for that sentence. Then the
Dawid–Skene consensus with the settings chosen on val/ (``--rule overlap --unit token --threshold
0.2``, bench/bench_annotators.py) against the expert gold: strict span F1 over all sentences; and
the same with one more annotation for every sentence (full coverage).
"""
from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import spanagree  # noqa: E402
from bench_annotators import gold_spans, of_corpus, strict  # noqa: E402
from bench_core import write_results  # noqa: E402
from spanagree.core.builder import CorpusBuilder  # noqa: E402
from spanagree.diagnostics.annotators import fit_model, model_consensus  # noqa: E402
from spanagree.measures.annotators.decode import competence  # noqa: E402
from spanagree.io import read  # noqa: E402
from spanagree.measures.psa.intervals import DocumentCounts  # noqa: E402

SECTION = "## Planning a round: plan and next on real corpora"
DS = {"method": "dawid-skene", "rule": "overlap", "unit": "token", "threshold": 0.2, "adjudicate": 0}


def build(corpus, annotations) -> "spanagree.Corpus":
    """A corpus of the given annotations (indices into ``corpus``), in order."""
    builder = CorpusBuilder()
    for a in sorted(annotations):
        d, r = int(corpus.ann_doc[a]), int(corpus.ann_rater[a])
        lo, hi = int(corpus.ann_ptr[a]), int(corpus.ann_ptr[a + 1])
        spans = [(int(s), int(e), corpus.labels[k]) for s, e, k in
                 zip(corpus.span_start[lo:hi], corpus.span_end[lo:hi], corpus.span_label[lo:hi])]
        builder.add(corpus.doc_ids[d], corpus.doc_ids[d], corpus.texts[d], corpus.raters[r], spans, None,
                    corpus.doc_tokens[d])
    return builder.build()


def plan_check(path: Path, statistic: str = "pairwise_mean_psa", draws: int = 400) -> dict:
    corpus = read([path])
    full = spanagree.score(corpus)
    counts = DocumentCounts(full, pairs=np.empty(0, dtype=np.int64))
    n_all = counts.n_documents
    rng = np.random.default_rng(0)
    pilot_rows = np.sort(rng.choice(n_all, n_all // 10, replace=False))
    rest = np.setdiff1d(np.arange(n_all), pilot_rows)
    pilot_docs = set(np.asarray(full.corpus.doc_ids, dtype=object)[counts.docs[pilot_rows]].tolist())
    pilot = build(corpus, [a for a in range(corpus.n_annotations) if corpus.doc_ids[corpus.ann_doc[a]] in pilot_docs])
    first = spanagree.plan(pilot, statistic, half_width=0.5, bootstrap=1000)  # only the pilot's own interval
    low, high = first["questions"][0]["interval"].values()
    target = (high - low) / 4
    started = time.perf_counter()
    result = spanagree.plan(pilot, statistic, half_width=target, bootstrap=1000)
    seconds = time.perf_counter() - started
    n = result["documents_needed"]
    found = {"statistic": statistic, "corpus": path.name, "pilot": len(pilot_rows), "target": target, "needed": n,
             "rest": len(rest), "warned": bool(result["warnings"])}
    if n >= len(rest):
        return found
    weights = np.zeros((draws, n_all))
    for row in range(draws):
        weights[row, rng.choice(rest, n, replace=False)] = 1
    values = counts.statistics(counts.sums(weights))[("overall", statistic)]
    lo, hi = np.nanquantile(values, [0.025, 0.975])
    corrected = (hi - lo) / 2 / np.sqrt((len(rest) - n) / (len(rest) - 1))
    return found | {"observed": (hi - lo) / 2, "corrected": corrected, "ratio": corrected / target, "seconds": seconds}


def next_experiment(data: Path, seeds: int, fractions: tuple[float, ...]) -> dict:
    crowd = read([data / "conll_crowd.jsonl"])
    gold = gold_spans(data / "conll_gold.jsonl")
    by_doc: dict[int, list[int]] = {}
    for a, d in enumerate(crowd.ann_doc.tolist()):
        by_doc.setdefault(d, []).append(a)
    position = {doc_id: d for d, doc_id in enumerate(crowd.doc_ids)}

    def f1(annotations) -> float:
        found, _, _, _ = model_consensus(build(crowd, annotations), **DS)
        return strict(of_corpus(found), gold)["f"]

    def spend(chosen, left, order, budget, accuracy=None) -> None:
        for doc_id in order:
            if budget == 0:
                return
            free = left[position[doc_id]]
            if free:
                # next's "who": the most accurate of the sentence's workers not yet used (else the seeded next one)
                pick = 0 if accuracy is None else max(range(len(free)), key=lambda i: (
                    accuracy.get(crowd.raters[int(crowd.ann_rater[free[i]])], -1.0), -i))
                chosen.append(free.pop(pick))
                budget -= 1

    def accuracies(annotations) -> dict[str, float]:
        fit = fit_model(build(crowd, annotations), method="dawid-skene", rule="overlap", unit="token")
        return {row["rater"]: row["accuracy"] for row in competence(fit)}

    def ranked(annotations) -> list[str]:
        base = build(crowd, annotations)
        return [t["doc_id"] for t in spanagree.next_tasks(base, base.n_documents, rule="overlap", unit="token")["tasks"]]

    rows = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        order = {d: rng.permutation(a).tolist() for d, a in by_doc.items()}
        start = [a for d in order for a in order[d][:2]]
        row = {"seed": seed, "start": f1(start)}
        first, accuracy = ranked(start), accuracies(start)
        random_order = [crowd.doc_ids[d] for d in rng.permutation(crowd.n_documents).tolist()]
        for fraction in fractions:
            budget = int(fraction * crowd.n_documents)
            for name in ("random", "next", "next, 2 rounds", "next and who"):
                chosen, left = list(start), {d: a[2:] for d, a in order.items()}
                if name == "random":
                    spend(chosen, left, random_order, budget)
                elif name == "next":
                    spend(chosen, left, first, budget)
                elif name == "next and who":
                    spend(chosen, left, first, budget, accuracy)
                else:
                    spend(chosen, left, first, budget // 2)
                    spend(chosen, left, ranked(chosen), budget - budget // 2)
                row[name, fraction] = f1(chosen)
        row["full"] = f1(start + [a[2] for a in order.values() if len(a) > 2])
        rows.append(row)
        print(row, flush=True)
    return {"rows": rows, "sentences": crowd.n_documents,
            "open": sum(len(a) > 2 for a in by_doc.values())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "corpora-real")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--fractions", default="0.25,0.5,0.75")
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args()
    fractions = tuple(float(x) for x in args.fractions.split(","))
    plans = [plan_check(args.data / name, statistic) for statistic in ("pairwise_mean_psa", "pooled_psa")
             for name in ("toxic_spans.jsonl", "conll_crowd.jsonl", "potts.jsonl")]
    for p in plans:
        print(p, flush=True)
    nxt = next_experiment(args.data, args.seeds, fractions)
    command = "nice -n 10 python bench/bench_planning.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    lines = [f"Command: `{command}` (definitions: bench/bench_planning.py, docs/planning.md).", "",
             "### plan: the documents asked for, drawn from the rest of the corpus", "",
             "Pilot: a seeded 10 % of the documents; target: half the pilot's 95 % half-width of the statistic "
             "(exact rule); 400 rounds of the planned size drawn without replacement from the other 90 %.", "",
             "| statistic | corpus | pilot documents | crowd warning | target half-width | documents needed | spread's "
             "half-width (drawn) | corrected for drawing without replacement | ratio to target | plan s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for p in plans:
        head = f"| {p['statistic']} | {p['corpus']} | {p['pilot']:,} | {'yes' if p['warned'] else 'no'} | {p['target']:.4f} "
        if "ratio" in p:
            lines.append(head + f"| {p['needed']:,} | {p['observed']:.4f} | {p['corrected']:.4f} | **{p['ratio']:.2f}** | "
                         f"{p['seconds']:.1f} |")
        else:
            lines.append(head + f"| {p['needed']:,} | more than the {p['rest']:,} left | - | - | - |")
    rows = nxt["rows"]
    lines += ["", "### next: CoNLL-2003 MTurk, from two crowd annotations per sentence", "",
              f"{nxt['sentences']:,} sentences ({nxt['open']:,} with a third annotation to give); Dawid–Skene "
              "`--rule overlap --unit token --threshold 0.2`; strict span F1 (%) against the expert gold, over all "
              f"sentences; mean of {len(rows)} seeds (each seed: its own draw of the first two annotations).", "",
              "| budget (extra annotations per sentence) | random | next | next, 2 rounds | next and who | next − random | "
              "2 rounds − random | who − next |", "|---|---|---|---|---|---|---|---|"]
    mean = lambda key: float(np.mean([r[key] for r in rows]))  # noqa: E731
    for fraction in fractions:
        r, n, n2, w = (mean((k, fraction)) for k in ("random", "next", "next, 2 rounds", "next and who"))
        lines.append(f"| {fraction:g} | {r:.2f} | {n:.2f} | {n2:.2f} | {w:.2f} | {n - r:+.2f} | **{n2 - r:+.2f}** | "
                     f"{w - n:+.2f} |")
    lines += ["", f"Two annotations per sentence: {mean('start'):.2f}; full coverage (a third annotation for every "
              f"sentence that has one, a budget of {nxt['open'] / nxt['sentences']:.2f}): {mean('full'):.2f}.", "",
              "Per seed: " + "; ".join(
                  f"seed {r['seed']}: " + ", ".join(f"{k[0]} {k[1]:g} {v:.2f}" for k, v in r.items() if isinstance(k, tuple))
                  for r in rows), ""]
    body = "\n".join(lines)
    print(body)
    if args.write_results:
        write_results(body, ROOT / "bench" / "RESULTS.md", SECTION)


if __name__ == "__main__":
    main()
