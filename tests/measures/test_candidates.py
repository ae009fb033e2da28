"""Candidate sets and the chance-corrected report (SPEC §4-5)."""
from __future__ import annotations

import json
import math
import zlib

import numpy as np
import pytest

import spanagree
import float_views as stats
from spanagree.measures.chance.section import kappa_curve
from records import line

TEXT = "Alice met Bob in Paris on Monday."
# tokens:  Alice(0,5) met(6,9) Bob(10,13) in(14,16) Paris(17,22) on(23,25) Monday(26,32) .(32,33)


def corpus_from(tmp_path, records, name="c.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return spanagree.read(path)


def test_token_items_hand_computed(tmp_path):
    corpus = corpus_from(tmp_path, [
        line("d", "x", [(0, 5, "PER"), (10, 13, "PER"), (17, 22, "LOC")]),
        line("d", "y", [(0, 5, "PER"), (17, 32, "LOC")]),
    ])
    chance = spanagree.score(corpus, candidates="tokens").to_dict()["chance_corrected"]
    assert chance["items"] == {"total": 8, "candidates": 8, "extra": 0, "ratings": 16, "notes": {}}
    pair = chance["pairs"][0]
    # categories NONE, LOC, PER; x: PER NONE PER NONE LOC NONE NONE NONE; y: PER NONE NONE NONE LOC LOC LOC NONE
    assert pair["table"] == [[3, 2, 0], [0, 1, 0], [1, 0, 1]]
    assert pair["marked"]["a"] == 2 and pair["marked"]["b"] == 1 and pair["marked"]["c"] == 2 and pair["marked"]["d"] == 3
    expected = stats.cohen_kappa(np.array([[3, 2, 0], [0, 1, 0], [1, 0, 1]]))
    assert pair["coefficients"]["cohen_kappa"]["value"] == pytest.approx(expected)
    assert pair["labels"]["LOC"]["a"] == 1 and pair["labels"]["LOC"]["c"] == 2
    assert pair["marked"]["positive_agreement"] == pytest.approx(4 / 7)


def test_candidate_span_file_and_extra_items(tmp_path):
    corpus = corpus_from(tmp_path, [
        line("d", "x", [(0, 5, "PER"), (10, 13, "PER"), (26, 32, "DATE")]),
        line("d", "y", [(0, 5, "PER"), (10, 13, "ORG")]),
    ])
    candidates = tmp_path / "cands.jsonl"
    candidates.write_text(json.dumps({"doc_id": "d", "spans": [{"start": 0, "end": 5}, {"start": 10, "end": 13},
                                                                {"start": 17, "end": 22}]}) + "\n")
    chance = spanagree.score(corpus, candidates=candidates).to_dict()["chance_corrected"]
    assert chance["items"]["candidates"] == 3 and chance["items"]["extra"] == 1  # Monday matched no candidate
    assert chance["items"]["notes"]["spans matching no candidate (added as extra items)"] == 1
    # categories NONE, DATE, ORG, PER; items: Alice (PER, PER), Bob (PER, ORG), Paris (NONE, NONE), Monday (DATE, NONE)
    table = np.array(chance["pairs"][0]["table"])
    assert table[3, 3] == 1 and table[3, 2] == 1 and table[0, 0] == 1 and table[1, 0] == 1
    with pytest.raises(spanagree.InputError, match="match no candidate"):
        spanagree.score(corpus, candidates=candidates, strict_candidates=True)
    # the overlap rule lets a boundary-shifted span take its candidate
    shifted = corpus_from(tmp_path, [line("d", "x", [(0, 4, "PER")]), line("d", "y", [(0, 5, "PER")])], "s.jsonl")
    exact = spanagree.score(shifted, candidates=candidates).to_dict()["chance_corrected"]["items"]["extra"]
    overlap = spanagree.score(shifted, rule="overlap", candidates=candidates).to_dict()["chance_corrected"]["items"]["extra"]
    assert (exact, overlap) == (1, 0)


def test_documents_multiclass_and_multilabel(tmp_path):
    def doc(doc_id, rater, labels):
        return {"doc_id": doc_id, "text": f"text {doc_id}", "annotator": rater, "labels": labels}

    multiclass = corpus_from(tmp_path, [doc("1", "x", ["POS"]), doc("1", "y", ["POS"]), doc("2", "x", ["NEG"]),
                                        doc("2", "y", ["POS"]), doc("3", "x", ["NEG"]), doc("3", "y", ["NEG"])], "m.jsonl")
    chance = spanagree.score(multiclass, candidates="documents").to_dict()["chance_corrected"]
    # single-label classification: the labels are the categories, no NONE (nobody can choose it)
    assert chance["items"]["total"] == 3 and chance["categories"] == ["NEG", "POS"]
    assert chance["pairs"][0]["table"] == [[1, 1], [0, 1]]  # rows x, columns y
    assert chance["scheme"] == "multiclass" and "marked" not in chance["pairs"][0]
    multilabel = corpus_from(tmp_path, [doc("1", "x", ["A", "B"]), doc("1", "y", ["A"]), doc("2", "x", []),
                                        doc("2", "y", ["B"])], "ml.jsonl")
    chance = spanagree.score(multilabel, candidates="documents").to_dict()["chance_corrected"]
    assert chance["items"]["total"] == 4  # (document, label) items
    assert chance["categories"] == ["not chosen", "chosen"] and chance["scheme"] == "multilabel"
    assert chance["pairs"][0]["labels"]["A"]["a"] == 1 and chance["pairs"][0]["labels"]["B"]["b"] == 1
    with pytest.raises(spanagree.UsageError, match="document labels"):
        spanagree.score(corpus_from(tmp_path, [line("d", "x", [])], "n.jsonl"), candidates="documents")


def test_prodigy_textcat_binary_and_choice(tmp_path):
    def task(text, rater, **fields):
        return {"text": text, "_input_hash": zlib.crc32(text.encode()), "_annotator_id": rater, **fields}

    records = [
        task("good film", "x", label="POSITIVE", answer="accept"),
        task("good film", "y", label="POSITIVE", answer="accept"),
        task("bad film", "x", label="POSITIVE", answer="reject"),
        task("bad film", "y", label="POSITIVE", answer="accept"),
        task("odd film", "y", label="POSITIVE", answer="ignore"),
    ]
    corpus = corpus_from(tmp_path, records, "binary.jsonl")
    chance = spanagree.score(corpus, candidates="documents").to_dict()["chance_corrected"]
    assert chance["pairs"][0]["labels"]["POSITIVE"]["a"] == 1 and chance["pairs"][0]["labels"]["POSITIVE"]["c"] == 1
    options = [{"id": "SPORT", "text": "Sport"}, {"id": "NEWS", "text": "News"}]
    choice = [task("t1", "x", options=options, accept=["SPORT"], answer="accept"),
              task("t1", "y", options=options, accept=["SPORT"], answer="accept"),
              task("t2", "x", options=options, accept=["NEWS"], answer="accept"),
              task("t2", "y", options=options, accept=["SPORT"], answer="accept")]
    chance = spanagree.score(corpus_from(tmp_path, choice, "choice.jsonl"), candidates="documents").to_dict()
    assert chance["chance_corrected"]["pairs"][0]["coefficients"]["percent_agreement"]["value"] == 0.5


def test_kappa_curve_rises_to_psa():
    curve = kappa_curve(227, 31, 50, 192)
    assert curve["kappa"][0] == pytest.approx(0.675, abs=5e-4)
    values = curve["kappa"]
    assert all(x <= y + 1e-12 for x, y in zip(values, values[1:]))
    assert values[-1] < curve["psa"] and curve["psa"] - values[-1] < 1e-3
    assert curve["psa"] == pytest.approx(454 / 535)


def test_identical_raters_and_rater_order(tmp_path):
    spans = [(0, 5, "PER"), (17, 22, "LOC")]
    same = corpus_from(tmp_path, [line("d", "x", spans), line("d", "y", spans), line("e", "x", []),
                                  line("e", "y", [(0, 5, "PER")])])
    chance = spanagree.score(same, candidates="tokens").to_dict()["chance_corrected"]
    forward = chance["all_raters"]["krippendorff_alpha"]["value"]
    renamed = corpus_from(tmp_path, [{**r, "annotator": {"x": "z", "y": "a"}[r["annotator"]]}
                                     for r in [line("d", "x", spans), line("d", "y", spans), line("e", "x", []),
                                               line("e", "y", [(0, 5, "PER")])]], "r.jsonl")
    backward = spanagree.score(renamed, candidates="tokens").to_dict()["chance_corrected"]["all_raters"]
    assert backward["krippendorff_alpha"]["value"] == pytest.approx(forward)
    assert backward["davies_fleiss_kappa"]["value"] == pytest.approx(chance["all_raters"]["davies_fleiss_kappa"]["value"])
    identical = corpus_from(tmp_path, [line("d", "x", spans), line("d", "y", spans)], "i.jsonl")
    chance = spanagree.score(identical, candidates="tokens").to_dict()["chance_corrected"]
    assert chance["pairs"][0]["coefficients"]["cohen_kappa"]["value"] == 1.0
    assert chance["all_raters"]["krippendorff_alpha"]["value"] == 1.0


def test_all_raters_agree_with_independent_implementations(example_path):
    krippendorff = pytest.importorskip("krippendorff")
    from spanagree.io.candidates import document_tokens
    from spanagree.measures.chance.candidates import build_items

    corpus = spanagree.read(example_path)
    items = build_items(corpus, "tokens", spanagree.AlignmentRule(), tokens=document_tokens(corpus, "en"))
    chance = spanagree.score(corpus, candidates="tokens").to_dict()["chance_corrected"]
    dense = np.full((items.n_items, len(corpus.raters)), np.nan)
    dense[items.rating_item, items.rating_rater] = items.rating_code
    alpha = krippendorff.alpha(reliability_data=dense.T, level_of_measurement="nominal")
    assert chance["all_raters"]["krippendorff_alpha"]["value"] == pytest.approx(alpha, abs=1e-9)
    for pair in chance["pairs"]:
        i, j = (corpus.raters.index(name) for name in pair["raters"])
        both = ~np.isnan(dense[:, i]) & ~np.isnan(dense[:, j])
        table = np.zeros((6, 6), dtype=int)
        np.add.at(table, (dense[both, i].astype(int), dense[both, j].astype(int)), 1)
        assert pair["table"] == table.tolist()
        nltk_agreement = pytest.importorskip("nltk.metrics.agreement")
        task = nltk_agreement.AnnotationTask(
            data=[(r, str(t), int(v)) for t in np.flatnonzero(both) for r, v in (("a", dense[t, i]), ("b", dense[t, j]))]
        )
        assert pair["coefficients"]["cohen_kappa"]["value"] == pytest.approx(task.kappa(), abs=1e-9)
        assert pair["coefficients"]["scott_pi"]["value"] == pytest.approx(task.pi(), abs=1e-9)


def test_potts_with_token_candidates(real_dir):
    report = spanagree.score(spanagree.read(real_dir / "potts.jsonl"), candidates="tokens", language="de").summary()
    chance = report["chance_corrected"]
    assert chance["items"]["total"] > 100_000
    kappa = chance["pooled"]["cohen_kappa"]["value"]
    psa = chance["pooled"]["positive_agreement"]
    assert 0 < kappa < psa < 1
    assert not math.isnan(chance["all_raters"]["krippendorff_alpha"]["value"])
