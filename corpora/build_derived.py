"""Build the small files the documentation's examples run on, all derived from ``news_ner.jsonl``.

Every example in the README and ``docs/`` runs on files this repository ships; these are the ones
``news_ner.jsonl`` alone cannot stand in for (corpora/README.md says what each holds):

- ``crowd_ner.jsonl``: a crowd of six workers beside an ``expert`` (alice's spans), for the
  annotator models (``--method dawid-skene``, ``--gold expert``);
- ``news_ner_round2.jsonl``: a second round of the same 50 documents by the same raters, for
  ``spanagree compare``;
- ``news_ner_candidates.jsonl``: candidate spans per document, for ``--candidates FILE``;
- ``news_topics.jsonl``: a topic per document from three raters (document labels), for
  ``--candidates documents``;
- ``brat_news/alice/`` and ``brat_news/bob/``: 14 documents as brat standoff with relations and
  attributes, for ``--structure``.

Deterministic (``random.Random`` with fixed seeds, texts and spans from ``news_ner.jsonl``).
Regenerate with::

    python corpora/build_derived.py
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from build_example import stable_hash  # noqa: E402
from build_model_rater import perturb  # noqa: E402

SOURCE = HERE / "news_ner.jsonl"
RATERS = ("news_ner-alice", "news_ner-bob", "news_ner-carol")

#: crowd workers: (name, probability of answering a document, miss, shift, relabel, spurious)
WORKERS = (
    ("w1", 0.8, 0.05, 0.05, 0.03, 0.05),  # careful
    ("w2", 0.8, 0.10, 0.10, 0.05, 0.10),
    ("w3", 0.7, 0.35, 0.05, 0.05, 0.05),  # misses a third
    ("w4", 0.7, 0.05, 0.45, 0.05, 0.05),  # sloppy boundaries
    ("w5", 0.7, 0.05, 0.05, 0.35, 0.05),  # confuses labels
    ("w6", 0.6, 0.60, 0.30, 0.50, 1.00),  # a spammer
)

#: each document's topic, and a second topic a reader could defend (None: clear-cut), in the
#: order of the documents in news_ner.jsonl
TOPICS = (
    ("POLITICS", "BUSINESS"), ("BUSINESS", None), ("POLITICS", "BUSINESS"), ("POLITICS", None),
    ("BUSINESS", None), ("SAFETY", None), ("COMMUNITY", None), ("POLITICS", None),
    ("BUSINESS", None), ("SAFETY", "COMMUNITY"), ("SPORTS", None), ("COMMUNITY", None),
    ("BUSINESS", None), ("POLITICS", None), ("BUSINESS", None), ("BUSINESS", None),
    ("SAFETY", "POLITICS"), ("SAFETY", None), ("COMMUNITY", "SAFETY"), ("BUSINESS", None),
    ("COMMUNITY", None), ("COMMUNITY", "BUSINESS"), ("BUSINESS", "SAFETY"), ("SPORTS", None),
    ("BUSINESS", None), ("COMMUNITY", "POLITICS"), ("BUSINESS", "POLITICS"), ("COMMUNITY", None),
    ("POLITICS", "SAFETY"), ("BUSINESS", None), ("BUSINESS", None), ("BUSINESS", None),
    ("BUSINESS", "POLITICS"), ("COMMUNITY", None), ("POLITICS", None), ("SPORTS", None),
    ("SAFETY", None), ("BUSINESS", "POLITICS"), ("COMMUNITY", None), ("BUSINESS", None),
    ("SAFETY", "COMMUNITY"), ("BUSINESS", "SAFETY"), ("SPORTS", None), ("POLITICS", None),
    ("BUSINESS", None), ("COMMUNITY", "BUSINESS"), ("BUSINESS", None), ("COMMUNITY", None),
    ("SAFETY", None), ("SPORTS", None),
)
#: per topic rater: (probability of the second topic where there is one, of a slip elsewhere)
TOPIC_RATERS = (("alice", 0.3, 0.04), ("bob", 0.4, 0.08), ("carol", 0.5, 0.06))

#: the brat documents (indices into news_ner.jsonl) and who annotates them
BRAT_DOCUMENTS = (0, 1, 4, 7, 8, 11, 12, 14, 20, 24, 26, 44, 45, 46)
BRAT_RATERS = (("alice", "news_ner-alice", 0.05, 0.85), ("bob", "news_ner-bob", 0.15, 0.6))
CONFIDENCE = ("Low", "Medium", "High")


def tasks() -> list[dict]:
    return [json.loads(line) for line in SOURCE.read_text(encoding="utf-8").splitlines() if line.strip()]


def documents(lines: list[dict]) -> list[dict]:
    """One task per document (the first rater's), in the file's order of documents."""
    first: dict[int, dict] = {}
    for task in lines:
        first.setdefault(task["_input_hash"], task)
    return list(first.values())


def accepted(lines: list[dict], rater: str) -> dict[int, dict]:
    return {t["_input_hash"]: t for t in lines if t["_annotator_id"] == rater and t["answer"] == "accept"}


def plain(spans: list[dict]) -> list[dict]:
    return [{"start": s["start"], "end": s["end"], "label": s["label"]} for s in spans]


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    print(f"wrote {len(records)} lines to {path.name}", file=sys.stderr)


def crowd(lines: list[dict]) -> list[dict]:
    """The expert (alice's accepted spans) and six workers, each alice's spans with a worker's noise."""
    rng = random.Random(36)
    alice = accepted(lines, "news_ner-alice")
    out = []
    for k, task in enumerate(alice.values()):
        doc = {"doc_id": f"news-{k:02d}", "text": task["text"]}
        out.append({**doc, "annotator": "expert", "spans": plain(task["spans"])})
        for name, answers, miss, shift, relabel, spurious in WORKERS:
            if rng.random() < answers:
                spans = perturb(task, rng, miss, shift, relabel, spurious)
                out.append({**doc, "annotator": name, "spans": plain(spans)})
    return out


def round_two(lines: list[dict]) -> list[dict]:
    """The same raters after a guideline round: bob and carol take alice's boundaries on most
    spans that overlap one of hers with the same label, and carol now reads a city named as an
    actor as an organisation more often."""
    rng = random.Random(2)
    alice = accepted(lines, "news_ner-alice")
    out = []
    for k, task in enumerate(lines):
        spans = task["spans"]
        if task["_annotator_id"] != "news_ner-alice" and task["answer"] == "accept":
            theirs = alice[task["_input_hash"]]["spans"]
            spans = []
            for span in task["spans"]:
                near = [s for s in theirs if s["label"] == span["label"] and s["start"] < span["end"] and span["start"] < s["end"]]
                if near and rng.random() < 0.7:
                    span = dict(near[0])
                if task["_annotator_id"] == "news_ner-carol" and span["label"] == "GPE" and rng.random() < 0.6:
                    span = {**span, "label": "ORG"}
                if all(s["end"] <= span["start"] or span["end"] <= s["start"] for s in spans):
                    spans.append(span)
        out.append({**task, "spans": spans, "_timestamp": task["_timestamp"] + 2_000_000 + k,
                    "_task_hash": stable_hash({"input": task["_input_hash"], "spans": [[s["start"], s["end"], s["label"]] for s in spans]})})
    return out


def candidates(lines: list[dict]) -> list[dict]:
    """Per document: every span a rater marked, every run of capitalised tokens and every token
    with a digit (with a ``$`` before it)."""
    found: dict[int, set] = {}
    for task in lines:
        found.setdefault(task["_input_hash"], set()).update((s["start"], s["end"]) for s in task["spans"])
    out = []
    for task in documents(lines):
        spans, tokens, run = found[task["_input_hash"]], task["tokens"], []
        for token in tokens + [{"text": "."}]:
            if token["text"][:1].isupper():
                run.append(token)
                continue
            if run:
                spans.add((run[0]["start"], run[-1]["end"]))
                run = []
        for i, token in enumerate(tokens):
            if any(c.isdigit() for c in token["text"]):
                start = tokens[i - 1]["start"] if i and tokens[i - 1]["text"] == "$" else token["start"]
                spans.add((start, token["end"]))
        out.append({"doc_id": str(task["_input_hash"]), "spans": [{"start": s, "end": e} for s, e in sorted(spans)]})
    return out


def topics(lines: list[dict]) -> list[dict]:
    """Three raters' topic for each document (one label each, from TOPICS)."""
    rng = random.Random(7)
    labels = sorted({topic for topic, _ in TOPICS})
    out = []
    for k, (task, (topic, second)) in enumerate(zip(documents(lines), TOPICS)):
        for name, p_second, p_slip in TOPIC_RATERS:
            u = rng.random()
            chosen = second if second and u < p_second else topic
            if not second and u < p_slip:
                chosen = rng.choice([label for label in labels if label != topic])
            out.append({"doc_id": f"news-{k:02d}", "text": task["text"], "annotator": name, "labels": [chosen]})
    return out


def brat(lines: list[dict], root: Path) -> None:
    """Two raters' entities (their news_ner spans) with relations and attributes, as brat standoff:
    Works_for from each PERSON to the nearest ORG, Located_in from each ORG to the nearest GPE
    (each kept with the rater's probability), a Confidence on every entity (bob's agrees with
    alice's on a shared span with the rater's probability, else is one step off) and the flag
    Source on a person in a document that says who "said" it (kept with that probability + 0.1)."""
    rng = random.Random(5)
    docs = documents(lines)
    shared_confidence: dict[tuple, str] = {}
    for name, rater, p_drop, p_same in BRAT_RATERS:
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        theirs = accepted(lines, rater)
        for k in BRAT_DOCUMENTS:
            text = docs[k]["text"]
            task = theirs[docs[k]["_input_hash"]]
            spans = sorted(task["spans"], key=lambda s: s["start"])
            rows = [f"T{i + 1}\t{s['label']} {s['start']} {s['end']}\t{text[s['start']:s['end']]}" for i, s in enumerate(spans)]
            relations = []
            for head, child, label in (("PERSON", "ORG", "Works_for"), ("ORG", "GPE", "Located_in")):
                ends = [j for j, s in enumerate(spans) if s["label"] == child]
                for i, s in enumerate(spans):
                    if s["label"] == head and ends and rng.random() >= p_drop:
                        j = min(ends, key=lambda j: abs(spans[j]["start"] - s["start"]))
                        relations.append(f"{label} Arg1:T{i + 1} Arg2:T{j + 1}")
            rows += [f"R{i + 1}\t{r}" for i, r in enumerate(relations)]
            attributes = []
            for i, s in enumerate(spans):
                key = (k, s["start"], s["end"])
                value = shared_confidence.get(key)
                if value is None or rng.random() >= p_same:
                    value = rng.choices(CONFIDENCE, weights=(1, 3, 6))[0] if value is None else \
                        CONFIDENCE[max(0, min(2, CONFIDENCE.index(value) + rng.choice((-1, 1))))]
                shared_confidence.setdefault(key, value)
                attributes.append(f"Confidence T{i + 1} {value}")
                if s["label"] == "PERSON" and " said" in text and rng.random() < p_same + 0.1:
                    attributes.append(f"Source T{i + 1}")
            rows += [f"A{i + 1}\t{a}" for i, a in enumerate(attributes)]
            (folder / f"news-{k:02d}.txt").write_text(text, encoding="utf-8")
            (folder / f"news-{k:02d}.ann").write_text("\n".join(rows) + "\n", encoding="utf-8")
        print(f"wrote {len(BRAT_DOCUMENTS)} documents to {root.name}/{name}/", file=sys.stderr)


def main(folder: Path = HERE) -> None:
    lines = tasks()
    write_jsonl(folder / "crowd_ner.jsonl", crowd(lines))
    write_jsonl(folder / "news_ner_round2.jsonl", round_two(lines))
    write_jsonl(folder / "news_ner_candidates.jsonl", candidates(lines))
    write_jsonl(folder / "news_topics.jsonl", topics(lines))
    brat(lines, folder / "brat_news")


if __name__ == "__main__":
    main()
