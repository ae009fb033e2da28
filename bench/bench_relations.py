"""Benchmark relation and attribute agreement (``spanagree score --structure``) as relations grow.

    python bench/bench_relations.py [--sizes 12500,25000,50000,100000] [--repeats 3] [--write-results]

Each corpus: 3 raters; per document about 10 spans and 4 relations per rater (raters copy one
random markup with changes), 2 attributes per span; ``--sizes`` are the total relations over
all raters. Timed, best of ``--repeats``: reading the JSONL (``spanagree.read``), the span
scores (``spanagree.score`` without the section) and the section alone
(:func:`~spanagree.measures.structure.section.structure_section`: span table, alignment,
relation counts and summaries, attribute coefficients), whose time per relation should stay
flat if the cost is linear. Also the span-only corpus with the same spans, read and scored, so
that the relations' cost to the reading path shows. ``--write-results`` writes the section
"## Relations and attributes" of ``bench/RESULTS.md``.
"""
from __future__ import annotations

import argparse
import datetime
import json
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import spanagree  # noqa: E402
from bench_core import best_of, machine, write_results  # noqa: E402
from spanagree.core.align import AlignmentRule  # noqa: E402
from spanagree.measures.structure.section import structure_section  # noqa: E402

SECTION = "## Relations and attributes"
RATERS = 3


def write_corpus(path: Path, plain: Path, n_relations: int, seed: int = 0) -> None:
    """About ``n_relations`` relations over all raters (4 per rater and document)."""
    rng = random.Random(seed)
    n_docs = max(1, n_relations // (4 * RATERS))
    with open(path, "w", encoding="utf-8") as out, open(plain, "w", encoding="utf-8") as bare:
        for d in range(n_docs):
            text = "x" * 200
            gold = sorted({(s, s + rng.randint(2, 8), rng.choice(["PER", "ORG", "LOC"])) for s in rng.sample(range(190), 10)})
            pairs = [rng.sample(range(len(gold)), 2) for _ in range(4)]
            for r in range(RATERS):
                spans = []
                for i, (s, e, label) in enumerate(gold):
                    if rng.random() < 0.1:
                        e = min(200, e + 1)
                    spans.append({"start": s, "end": e, "label": label, "id": f"s{i}",
                                  "attributes": {"negated": rng.random() < 0.2, "kind": rng.choice("abc")}})
                relations = [{"head": f"s{h}", "child": f"s{c}", "label": rng.choice(["works_for", "knows"])}
                             for h, c in pairs]
                line = {"doc_id": f"d{d}", "text": text, "annotator": f"r{r}", "spans": spans, "relations": relations}
                out.write(json.dumps(line) + "\n")
                bare.write(json.dumps({"doc_id": f"d{d}", "text": text, "annotator": f"r{r}",
                                       "spans": [{k: s[k] for k in ("start", "end", "label")} for s in spans]}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="12500,25000,50000,100000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args()
    rule = AlignmentRule(rule="overlap")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in map(int, args.sizes.split(",")):
            path, plain = Path(tmp) / f"rel_{size}.jsonl", Path(tmp) / f"plain_{size}.jsonl"
            write_corpus(path, plain, size)
            read_time, corpus = best_of(args.repeats, lambda: spanagree.read(path))
            plain_time, _ = best_of(args.repeats, lambda: spanagree.read(plain))
            score_time, _ = best_of(args.repeats, lambda: spanagree.score(corpus, rule="overlap"))
            section_time, section = best_of(args.repeats, lambda: structure_section(corpus, rule))
            n = len(corpus.structure.relations)
            overall = section["relations"]["overall"]
            rows.append((n, corpus.n_spans, read_time, plain_time, score_time, section_time, overall["pairwise_mean_psa"]))
            print(f"{n:,} relations: read {read_time:.2f} s (span-only {plain_time:.2f} s), span scores {score_time:.2f} s, "
                  f"section {section_time:.2f} s ({1e6 * section_time / n:.1f} µs per relation)", flush=True)
    # what a span-only corpus pays for the structure: one C-speed pass over its spans' key counts
    flat = [{"start": 0, "end": 1, "label": "X"}] * rows[-1][1]
    check_time, _ = best_of(args.repeats, lambda: max(map(len, flat)))
    info = machine()
    table = ["| relations | spans | read | read, span-only file | span scores | relations + attributes section | µs per relation | relation PSA |",
             "|---|---|---|---|---|---|---|---|"]
    for n, spans, read_time, plain_time, score_time, section_time, value in rows:
        table.append(f"| {n:,} | {spans:,} | {read_time:.2f} s | {plain_time:.2f} s | {score_time:.2f} s | "
                     f"{section_time:.2f} s | {1e6 * section_time / n:.1f} | {value:.4f} |")
    body = (
        f"Command: `python bench/bench_relations.py --sizes {args.sizes} --repeats {args.repeats} --write-results` "
        f"({info.get('cpu', '?')}; {datetime.date.today().isoformat()}); best of {args.repeats}.\n\n"
        "Synthetic corpora (`bench_relations.write_corpus`): 3 raters, about 10 spans and 4 relations per rater and "
        "document, two attributes per span, rule `overlap`. The section is `spanagree score --structure`'s extra work "
        "(span table, one alignment of every comparison, relation counts and summaries, the attributes' "
        "coefficients). From each size to the next (twice the relations) the section took "
        + ", ".join(f"{b[5] / a[5]:.2f}×" for a, b in zip(rows, rows[1:]))
        + " the time and the span scores "
        + ", ".join(f"{b[4] / a[4]:.2f}×" for a, b in zip(rows, rows[1:]))
        + " (the machine is shared: single runs vary by up to 2×).\n\n"
        + "\n".join(table) + "\n\n"
        f"A span-only file pays one check for spans with more than three keys when its block of lines is "
        f"checked (`max(map(len, spans))`): {1e3 * check_time:.1f} ms for {rows[-1][1]:,} spans, next to "
        f"{rows[-1][3]:.2f} s to read them; no structure is built. A file with relations reads more slowly "
        "(ids, attributes and relations go through Python per item, and endpoints are resolved when the corpus "
        "is built), linearly.\n"
    )
    print(body)
    if args.write_results:
        write_results(body, ROOT / "bench" / "RESULTS.md", SECTION)


if __name__ == "__main__":
    main()
