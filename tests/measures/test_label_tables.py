"""Per-label 2×2 tables of the chance-corrected path, against a count row by row and label by label."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest

import spanagree
from spanagree.core.align import AlignmentRule
from spanagree.io.candidates import document_tokens, read_candidates
from spanagree.measures.chance.candidates import build_items, set_bits
from spanagree.measures.chance.section import _label_tables, rating_pair_rows


def _brute_force(items, pair_index, first, second, n_pairs):
    """Row by row, label by label: a rating "has" label l when bit l of its words is set; a
    multi-label item counts in its own label's table only, where "has" is "chosen"."""
    n_labels = len(items.labels)
    out = np.zeros((n_pairs, n_labels, 2, 2), dtype=np.int64)
    words = items.rating_labels.tolist()

    def has(rating, label):
        if items.item_label is not None:
            return items.rating_code[rating] == 1
        return (int(words[rating][label // 64]) >> (label % 64)) & 1 == 1

    for j, (p, i, k) in enumerate(zip(pair_index.tolist(), first.tolist(), second.tolist())):
        for label in range(n_labels):
            if items.item_label is not None and items.item_label[items.rating_item[i]] != label:
                continue
            out[p, label, 0 if has(i, label) else 1, 0 if has(k, label) else 1] += 1
    return out


def _tables(corpus, candidates):
    read = ({} if candidates == "documents" else {"tokens": document_tokens(corpus, "en")} if candidates == "tokens"
            else {"spans": read_candidates(candidates, corpus)})
    items = build_items(corpus, candidates, AlignmentRule(), **read)
    pairs, pair_index, first, second = rating_pair_rows(items, len(corpus.raters))
    return items, pair_index, first, second, len(pairs)


def _write(path, records):
    with open(path, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record) + "\n")
    return spanagree.read(path)


@pytest.mark.parametrize("seed", range(4))
def test_token_items_with_stacked_labels_across_words(tmp_path, seed):
    """70 labels (two 64-bit words), spans that stack and nest, three or four raters."""
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(40)]
    text = " ".join(words)
    offsets, at = [], 0
    for w in words:
        offsets.append((at, at + len(w)))
        at += len(w) + 1
    records = []
    for d in range(6):
        for r in range(rng.choice((3, 4))):
            spans = []
            if d == r == 0:  # every label is seen
                spans = [{"start": offsets[k % 40][0], "end": offsets[k % 40][1], "label": f"L{k:02d}"} for k in range(70)]
            for _ in range(rng.randrange(0, 10)):
                i = rng.randrange(36)
                j = i + rng.randrange(0, 4)
                spans.append({"start": offsets[i][0], "end": offsets[j][1], "label": f"L{rng.randrange(70):02d}"})
            records.append({"doc_id": f"d{d}", "text": text, "annotator": f"r{r}", "spans": spans,
                            "tokens": [{"start": s, "end": e} for s, e in offsets]})
    corpus = _write(tmp_path / "t.jsonl", records)
    args = _tables(corpus, "tokens")
    assert len(args[0].labels) > 64
    assert np.array_equal(_label_tables(*args), _brute_force(*args))


@pytest.mark.parametrize("seed", range(4))
def test_multilabel_document_items(tmp_path, seed):
    rng = random.Random(seed)
    labels = [f"T{i}" for i in range(90)]
    records = []
    for d in range(25):
        common = rng.sample(labels, 3)
        for r in range(3):
            chosen = [x for x in common if rng.random() < 0.7] + rng.sample(labels, rng.randrange(0, 2))
            records.append({"doc_id": f"d{d}", "text": f"document {d}", "annotator": f"r{r}", "labels": sorted(set(chosen))})
    corpus = _write(tmp_path / "m.jsonl", records)
    args = _tables(corpus, "documents")
    items = args[0]
    assert items.item_label is not None
    assert np.array_equal(_label_tables(*args), _brute_force(*args))
    for label in range(len(items.labels)):  # has_label: chosen, on the label's own items
        expected = [items.item_label[i] == label and c == 1 for i, c in zip(items.rating_item, items.rating_code)]
        assert items.has_label(label).tolist() == expected


def test_multilabel_fleiss_per_label_counts_the_labels_items_only(tmp_path):
    """Each label's κ is on that label's (document, label) items: other labels' items are neither
    used nor counted as skipped."""
    records = []
    for d in range(12):
        for r in range(3):
            chosen = ["A"] if (d + r) % 4 else ["A", "B"]
            if d % 3 == 0:
                chosen.append("C")
            records.append({"doc_id": f"d{d}", "text": f"document {d}", "annotator": f"r{r}", "labels": chosen})
    per_label = spanagree.score(_write(tmp_path / "k.jsonl", records), candidates="documents").to_dict()[
        "chance_corrected"]["all_raters"]["fleiss_kappa_per_category"]
    for name, entry in per_label.items():
        assert entry["n_items"] == 12, name  # every document judged every label
        assert entry["n_skipped"] == sum(entry["skipped"].values()) == 0, name


def test_set_bits():
    words = np.array([[0, 0], [1 | (1 << 63), 0], [0, 1 << 5]], dtype=np.uint64)
    row, bit = set_bits(words)
    assert sorted(zip(row.tolist(), bit.tolist())) == [(1, 0), (1, 63), (2, 69)]
    row, bit = set_bits(np.zeros((3, 1), dtype=np.uint64))
    assert len(row) == len(bit) == 0
