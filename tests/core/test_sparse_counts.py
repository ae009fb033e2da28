"""Per-label counts are sparse: their size follows the spans, not comparisons × labels, and every
figure built from them is the one a direct count gives, in every engine."""
from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import spanagree
from spanagree.diagnostics import disagreements
from spanagree.engine import plan
from spanagree.io.synthetic import generate_corpus

MANY = [f"L{i:05d}" for i in range(3000)]


def write(path: Path, records) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    return path


@pytest.fixture(scope="module")
def many_labels(tmp_path_factory) -> Path:
    """300 documents, 3 raters, labels drawn from 3,000: most (unit, label) cells are empty."""
    path = tmp_path_factory.mktemp("labels") / "many.jsonl"
    return write(path, generate_corpus(300, n_raters=3, seed=11, labels=MANY, p_skip_document=0.1))


def label_bytes(counts) -> int:
    return counts.label_comparison.nbytes + counts.label_code.nbytes + counts.label_abc.nbytes


@pytest.mark.parametrize("n_labels", [3, 3000])
def test_label_cells_grow_with_spans_not_units_times_labels(tmp_path, n_labels):
    labels = MANY[:n_labels]
    report = spanagree.score(write(tmp_path / "c.jsonl", generate_corpus(200, n_raters=2, seed=5, labels=labels)))
    counts, corpus = report.counts, report.corpus
    n_comparisons, n_spans = len(counts.comparisons), corpus.n_spans
    assert len(corpus.labels) > min(n_labels, 2)
    # a cell exists only where one of its comparison's two sides has a span with that label
    assert 0 < len(counts.label_comparison) <= n_spans
    assert counts.label_abc.shape == (len(counts.label_comparison), 3)
    assert label_bytes(counts) <= 40 * n_spans  # two codes and three float64 values per cell at most
    if n_labels == 3000:
        assert label_bytes(counts) * 50 < n_comparisons * len(corpus.labels) * 3 * 8  # a dense array's size
    # cells are sorted by comparison then label, each once, and none is all zero
    key = counts.label_comparison * len(corpus.labels) + counts.label_code
    assert np.all(np.diff(key) > 0)
    assert counts.label_abc.any(axis=1).all()


def _direct_pair_label(path: Path, report) -> np.ndarray:
    """a, b, c per rater pair and label under the exact rule, from the spans as sets."""
    spans: dict[tuple[str, str], Counter] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(raw)
        spans[rec["id"] if "id" in rec else rec["doc_id"], rec["annotator"]] = Counter(
            (s["start"], s["end"], s["label"]) for s in rec["spans"]
        )
    raters, labels = report.raters, report.corpus.labels
    code = {x: k for k, x in enumerate(labels)}
    out = np.zeros((len(report.counts.comparisons.pairs), len(labels), 3))
    docs = {d for d, _ in spans}
    for p, (ra, rb) in enumerate(report.counts.comparisons.pairs.tolist()):
        for d in docs:
            if (d, raters[ra]) not in spans or (d, raters[rb]) not in spans:
                continue
            sa, sb = set(spans[d, raters[ra]]), set(spans[d, raters[rb]])
            for s in sa | sb:
                k = code[s[2]]
                out[p, k] += [s in sa and s in sb, s in sa and s not in sb, s in sb and s not in sa]
    return out


def test_pair_label_sums_are_a_direct_count(many_labels):
    records = [json.loads(x) for x in many_labels.read_text(encoding="utf-8").splitlines()]
    assert {"annotator", "spans"} <= set(records[0])
    report = spanagree.score(many_labels, rule="exact")
    np.testing.assert_array_equal(report.pair_label_abc(), _direct_pair_label(many_labels, report))
    # the per-comparison totals are the sums of their cells
    np.testing.assert_array_equal(report.pair_abc(), report.pair_label_abc().sum(axis=1))


@pytest.mark.parametrize("options", [
    dict(rule="exact", bootstrap=40, seed=2),
    dict(rule="proportional", bootstrap=40, seed=2),
    dict(rule="partial", labels="ignore", reference="rater_1"),
])
def test_many_labels_same_report_in_every_engine(many_labels, monkeypatch, options):
    expected = spanagree.score(many_labels, **options).to_dict()
    assert len(expected["labels"]) > 500
    monkeypatch.setattr(plan, "CHUNK_BYTES", 20000)
    monkeypatch.setattr(plan, "MIN_CHUNK_BYTES", 1)
    for extra in (dict(jobs=2), dict(stream=True), dict(jobs=2, stream=True)):
        report = spanagree.score(many_labels, **options, **extra)
        assert report.corpus.engine["tasks"] > 3
        assert report.to_dict() == expected


def test_label_confusion_pairs_are_the_tables_cells(many_labels, example_path):
    for path in (example_path, many_labels):
        report = spanagree.score(spanagree.read(path))
        found = disagreements.from_report(report)
        high, low, n = disagreements.label_confusion_pairs(report.corpus, found)
        assert np.all(high >= low) and np.all(n > 0)
        assert n.sum() == len(found.match_a)
        if path == example_path:
            table = disagreements.label_confusion(report.corpus, found)
            assert list(zip(*np.nonzero(table))) == list(zip(high.tolist(), low.tolist()))
            assert table[high, low].tolist() == n.tolist()


def test_html_confusion_shows_the_top_labels_and_says_how_many_are_left_out(many_labels):
    from spanagree.outputs import html

    report = spanagree.score(many_labels, bootstrap=20)
    page = html.render(report)
    n_labels = len(report.corpus.labels)
    section = page[page.index("Label confusion"):page.index("</table>", page.index("Label confusion"))]
    assert f"{n_labels - html.MAX_CONFUSION_LABELS} more labels are left out" in section
    assert section.count("<strong>") == html.MAX_CONFUSION_LABELS


def test_html_page_with_many_raters_builds_only_the_pairs_it_shows(tmp_path):
    from spanagree.outputs import html

    rng = random.Random(4)
    text = "word " * 60
    records = []
    for r in range(70):
        spans = []
        for _ in range(5):
            start = rng.randrange(0, 250)
            spans.append({"start": start, "end": start + rng.randrange(1, 20), "label": rng.choice("ABC")})
        records.append({"doc_id": "d0", "text": text, "annotator": f"r{r:03d}", "spans": spans})
    report = spanagree.score(write(tmp_path / "raters.jsonl", records), bootstrap=20)
    page_report, data = html.page_data(report)
    n_pairs = 70 * 69 // 2
    assert data["overall"]["pairs"] == n_pairs
    assert html.MAX_PAIR_ROWS <= len(data["pairs"]) < n_pairs
    # every pair shown has its interval, and only those pairs were bootstrapped
    assert all("psa_interval" in p for p in data["pairs"])
    assert len(page_report.interval_pairs) == len(data["pairs"])
    assert report.interval_pairs is None  # the caller's report is left as it was
    # the figures of the pairs shown are the full report's
    full = {tuple(p["raters"]): p for p in report.to_dict()["pairs"]}
    for p in data["pairs"]:
        q = full[tuple(p["raters"])]
        assert (p["a"], p["b"], p["c"], p["psa"]) == (q["a"], q["b"], q["c"], q["psa"])
    page = html.render(report)
    assert f"of {n_pairs}.</p>" in page
