"""Build ``corpora/news_ner_model.jsonl``: a made-up model rater for the example corpus.

The "model" is rater alice with seeded noise, standing in for a model that annotated the same
50 documents (an LLM through spacy-llm, a ``ner.model-annotate`` run, any pipeline). Each of
alice's accepted spans is, independently, dropped (probability ``P_MISS``), moved by one token at
one end (``P_SHIFT``; only when the moved span stays clear of the others) or relabelled
(``P_RELABEL``); and each document gets a spurious one-token span with probability
``P_SPURIOUS``. The lines are written in the same Prodigy ``db-out`` shape as ``news_ner.jsonl``,
with the annotator ``news_ner-model``; ``news_ner.jsonl`` itself is not changed.

Deterministic (``random.Random(SEED)``). Regenerate with::

    python corpora/build_model_rater.py
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "news_ner.jsonl"
OUTPUT = HERE / "news_ner_model.jsonl"
BASE_RATER = "news_ner-alice"
MODEL = "news_ner-model"
LABELS = ("PERSON", "ORG", "GPE", "DATE", "MONEY")
SEED = 2026
P_MISS, P_SHIFT, P_RELABEL, P_SPURIOUS = 0.08, 0.08, 0.05, 0.15
MODEL_TIME = 1_700_400_000  # after the human sessions


def perturb(task: dict, rng: random.Random, miss: float = P_MISS, shift: float = P_SHIFT,
            relabel: float = P_RELABEL, spurious: float = P_SPURIOUS) -> list[dict]:
    """The base rater's spans with noise (by default the model's: each span dropped with
    probability ``miss``, moved by a token with ``shift``, relabelled with ``relabel``; a spurious
    one-token span added with ``spurious``); sorted, non-overlapping, on tokens."""
    tokens = task["tokens"]
    kept = []
    for span in task["spans"]:
        u_miss, u_shift, u_relabel = rng.random(), rng.random(), rng.random()
        if u_miss < miss:
            continue
        first, last, label = span["token_start"], span["token_end"], span["label"]
        if u_shift < shift:
            moves = [(first - 1, last), (first, last + 1)] + ([(first + 1, last), (first, last - 1)] if last > first else [])
            first, last = rng.choice(moves)
        if u_relabel < relabel:
            label = rng.choice([other for other in LABELS if other != label])
        kept.append((first, last, label, span))
    if rng.random() < spurious:
        i = rng.randrange(len(tokens))
        kept.append((i, i, rng.choice(LABELS), None))
    out, taken = [], set()
    for first, last, label, original in sorted(kept, key=lambda k: (k[0], k[1])):
        if first < 0 or last >= len(tokens) or taken & set(range(first, last + 1)) or not tokens[first]["text"].strip("."):
            if original is None:
                continue  # a spurious span that would overlap: left out
            first, last = original["token_start"], original["token_end"]  # a move that would collide: undone
            if taken & set(range(first, last + 1)):
                continue
        taken |= set(range(first, last + 1))
        out.append({"start": tokens[first]["start"], "end": tokens[last]["end"], "token_start": first,
                    "token_end": last, "label": label})
    return out


def main(output: Path = OUTPUT) -> None:
    sys.path.insert(0, str(HERE))
    from build_example import stable_hash

    rng = random.Random(SEED)
    tasks = [json.loads(line) for line in SOURCE.read_text(encoding="utf-8").splitlines() if line.strip()]
    lines = []
    for k, task in enumerate(t for t in tasks if t["_annotator_id"] == BASE_RATER and t["answer"] == "accept"):
        spans = perturb(task, rng)
        model_task = {**task, "spans": spans, "_annotator_id": MODEL, "_session_id": MODEL,
                      "_timestamp": MODEL_TIME + 5 * k,
                      "_task_hash": stable_hash({"input": task["_input_hash"], "spans": [[s["start"], s["end"], s["label"]] for s in spans]})}
        lines.append(json.dumps(model_task, ensure_ascii=False))
    output.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} lines to {output.name}", file=sys.stderr)


if __name__ == "__main__":
    main()
