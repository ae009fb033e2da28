"""The engines (issue 7): jobs=N, streaming and Dask give the serial path's report, errors included.

Chunks are made tiny here (a few kilobytes) so that small corpora are cut in many places: through
documents' neighbourhoods, across files, and far from where a document's other lines are.
"""
from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import pytest

import spanagree
from spanagree.engine import EngineFallbackWarning, NotGroupedWarning, plan
from spanagree.errors import InputError, UsageError
from spanagree.io.synthetic import generate_corpus
from records import line
from locations import real_export

BOOT = dict(bootstrap=60, seed=7)


@pytest.fixture(autouse=True)
def tiny_chunks(monkeypatch):
    monkeypatch.setattr(plan, "CHUNK_BYTES", 6000)
    monkeypatch.setattr(plan, "MIN_CHUNK_BYTES", 1)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """A grouped corpus: 120 documents, 3 raters, some documents skipped by one rater."""
    path = tmp_path_factory.mktemp("gen") / "gen.jsonl"
    write(path, generate_corpus(120, n_raters=3, seed=3, p_skip_document=0.15))
    return path


def write(path: Path, records) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for r in records:
            f.write(r if isinstance(r, str) else json.dumps(r))
            f.write("\n")
    return path


def serial(paths, **options) -> dict:
    return spanagree.score(paths, **options).to_dict()


def engine(paths, expect=None, **options):
    """Score with an engine; fail on any warning other than ``expect``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = spanagree.score(paths, **options)
    kinds = {type(w.message) for w in caught}
    assert kinds <= ({expect} if expect else set()), [str(w.message) for w in caught]
    if expect is not None:
        assert expect in kinds
    return report


def input_error(call) -> str:
    with pytest.raises(InputError) as err:
        call()
    return str(err.value)


# --- same numbers ----------------------------------------------------------------------------


@pytest.mark.parametrize("options", [
    dict(rule="overlap", **BOOT),
    dict(rule="proportional", unit="token", **BOOT),
    dict(rule="partial", labels="ignore", reference="news_ner-alice"),
])
def test_example_corpus_same_report_with_two_jobs_and_streaming(example_path, options):
    expected = serial(example_path, **options)
    # the example is ordered by rater session: not grouped by document
    two = engine(example_path, NotGroupedWarning, jobs=2, **options)
    streamed = engine(example_path, NotGroupedWarning, stream=True, **options)
    assert two.to_dict() == expected
    assert streamed.to_dict() == expected
    assert two.corpus.engine["grouped"] is False and two.corpus.engine["documents_split"] > 0


@pytest.mark.parametrize("options", [
    dict(rule="exact", **BOOT),
    dict(rule="overlap", min_overlap=2, reference="rater_0"),
    dict(rule="proportional", proportional="dice", **BOOT),
    dict(rule="partial", partial_credit=0.25, labels="ignore"),
])
def test_generated_grouped_corpus_same_report(generated, options):
    expected = serial(generated, **options)
    for jobs in (1, 2):
        report = engine(generated, jobs=jobs, stream=True, **options)
        assert report.to_dict() == expected
        assert report.summary() == spanagree.score(generated, **options).summary()
        info = report.corpus.engine
        assert info["grouped"] is True and info["tasks"] > 10


def _per_rater(records, root: Path, order=None) -> list[Path]:
    root.mkdir(exist_ok=True)
    paths = []
    for rater in ("rater_0", "rater_1", "rater_2"):
        mine = [r for r in records if r["annotator"] == rater]
        if order is not None and rater == "rater_2":
            mine = order(mine)
        paths.append(write(root / f"{rater}.jsonl", mine))
    return paths


def test_one_file_per_rater_is_cut_at_the_same_documents(generated, tmp_path, monkeypatch):
    records = [json.loads(x) for x in generated.read_text().splitlines()]
    expected = serial(generated, rule="overlap", **BOOT)
    per_rater = _per_rater(records, tmp_path / "aligned")
    report = engine(per_rater, jobs=2, rule="overlap", **BOOT)
    assert report.to_dict() == expected
    assert report.corpus.engine["grouped"] is True and report.corpus.engine["files_aligned"] == 3
    # with small windows the planner has to walk to the documents; the numbers stay the same
    monkeypatch.setattr(plan, "ALIGN_BYTES", 1500)
    report = engine(per_rater, stream=True, rule="overlap", **BOOT)
    assert report.to_dict() == expected and report.corpus.engine["grouped"] is True


def test_files_in_another_order_and_shuffled_lines_fall_back_to_the_index(generated, tmp_path):
    records = [json.loads(x) for x in generated.read_text().splitlines()]
    expected = serial(generated, rule="overlap", **BOOT)
    reversed_one = _per_rater(records, tmp_path / "reversed", order=lambda rows: rows[::-1])
    report = engine(reversed_one, NotGroupedWarning, jobs=2, rule="overlap", **BOOT)
    assert report.to_dict() == expected
    assert report.corpus.engine["documents_split"] > 0
    random.Random(1).shuffle(records)
    shuffled = write(tmp_path / "shuffled.jsonl", records)
    assert engine(shuffled, NotGroupedWarning, jobs=2, rule="overlap", **BOOT).to_dict() == expected
    # raters named by file stems, a directory standing for its files, a glob
    stems = []
    for rater in ("r0", "r1", "r2"):
        (tmp_path / "stems").mkdir(exist_ok=True)
        stems.append(write(tmp_path / "stems" / f"{rater}.jsonl", [
            {k: v for k, v in r.items() if k != "annotator"} for r in records if r["annotator"] == f"rater_{rater[1]}"
        ]))
    by_stem = serial(stems, rule="overlap")
    assert engine(tmp_path / "stems", NotGroupedWarning, jobs=2, rule="overlap").to_dict() == by_stem
    assert engine(str(tmp_path / "stems" / "r*.jsonl"), NotGroupedWarning, stream=True, rule="overlap").to_dict() == by_stem


def test_prodigy_answers_option_and_counters(example_path):
    options = dict(rule="exact", read_options={"answers": ("accept", "reject")})
    expected = serial(example_path, **options)
    assert expected != serial(example_path, rule="exact")
    assert engine(example_path, NotGroupedWarning, jobs=2, **options).to_dict() == expected
    with pytest.raises(UsageError, match="unknown reader option"):
        spanagree.score(example_path, jobs=2, read_options={"colour": "red"})


def test_duplicates_document_labels_and_lone_raters_are_counted_the_same(tmp_path):
    text = "Alice met Bob in Paris on Monday."
    records = []
    for k in range(40):
        records.append(line(f"d{k:02}", "ann", [(0, 5, "PER"), (17, 22, "LOC")]))
        if k % 3:
            records.append(line(f"d{k:02}", "bob", [(0, 5, "PER"), (10, 13, "PER")]))
        if k % 5 == 0:
            records.append(line(f"d{k:02}", "ann", [(0, 5, "PER"), (17, 22, "LOC")]))  # repeated line
        if k % 7 == 0:
            records.append({"doc_id": f"d{k:02}", "text": text, "annotator": "cat", "labels": ["news"]})
    path = write(tmp_path / "mixed.jsonl", records)
    expected = serial(path, rule="overlap")
    assert expected["annotations"]["excluded"] and expected["documents"]["excluded"]
    assert engine(path, jobs=2, rule="overlap").to_dict() == expected


def test_prodigy_text_classification_and_ignored_answers_are_counted_the_same(tmp_path):
    options = [{"id": "SPORT", "text": "Sport"}, {"id": "NEWS", "text": "News"}]
    records = []
    for k in range(60):
        text = f"Alice met Bob in Paris, story {k}."
        for rater in ("x", "y"):
            base = {"text": text, "_input_hash": 1000 + k, "_annotator_id": rater}
            spans = [{"start": 0, "end": 5, "label": "PER"}] + ([{"start": 10, "end": 13, "label": "PER"}] if rater == "x" else [])
            records.append({**base, "spans": spans, "answer": "ignore" if k % 11 == 0 and rater == "y" else "accept"})
        for rater in ("x", "y"):
            answer = "reject" if k % 4 == 0 else "accept"  # a rejected choice registers no document
            records.append({"text": text, "_input_hash": 5000 + k, "_annotator_id": rater, "options": options,
                            "accept": ["SPORT"], "answer": answer})
    path = write(tmp_path / "prodigy.jsonl", records)
    expected = serial(path, rule="exact")
    assert expected["annotations"]["excluded"]
    assert engine(path, jobs=2, rule="exact").to_dict() == expected
    random.Random(2).shuffle(records)
    shuffled = write(tmp_path / "shuffled.jsonl", records)
    assert engine(shuffled, NotGroupedWarning, stream=True, rule="exact").to_dict() == serial(shuffled, rule="exact")


def test_prodigy_answers_over_sessions_are_the_same_in_chunks(tmp_path):
    # Prodigy's PyData Amsterdam 2023 dataset: 42 annotators, one answering a task in two sessions
    path = real_export("prodigy/pydata-ams-2023.subset.jsonl")
    lines = path.read_text(encoding="utf-8").splitlines()
    grouped = write(tmp_path / "grouped.jsonl", sorted(lines, key=lambda text: json.loads(text)["_input_hash"]))
    expected = serial(path)
    again = "Prodigy answer by a rater who answered the input again (the latest kept)"
    assert expected["annotations"]["excluded"][again] > 0
    assert serial(grouped) == expected
    assert engine(grouped, jobs=2).to_dict() == expected
    random.Random(5).shuffle(lines)  # not grouped by input: documents read again, whole
    shuffled = write(tmp_path / "shuffled.jsonl", lines)
    assert engine(shuffled, NotGroupedWarning, jobs=2, stream=True).to_dict() == serial(shuffled)


def test_prodigy_later_answers_replace_earlier_ones_the_same_in_chunks(tmp_path):
    records = []
    for k in range(80):
        text = f"Alice met Bob in Paris, story {k}."
        base = {"text": text, "_input_hash": 1000 + k}
        records.append({**base, "_annotator_id": "x", "spans": [{"start": 0, "end": 5, "label": "PER"}],
                        "answer": "accept", "_timestamp": 10})
        # y answers in two sessions: accept, then (for some inputs) reject or ignore, later
        second = ("reject", "ignore", "accept")[k % 3]
        records.append({**base, "_annotator_id": "y", "_session_id": "y-1", "answer": "accept", "_timestamp": 20,
                        "spans": [{"start": 0, "end": 5, "label": "PER"}, {"start": 10, "end": 13, "label": "PER"}]})
        records.append({**base, "_annotator_id": "y", "_session_id": "y-2", "answer": second, "_timestamp": 30,
                        "spans": [{"start": 0, "end": 5, "label": "PER"}]})
    path = write(tmp_path / "sessions.jsonl", records)
    expected = serial(path)
    excluded = expected["annotations"]["excluded"]
    assert excluded["Prodigy answer by a rater who answered the input again (the latest kept)"] == 80
    assert excluded["Prodigy answer 'reject'"] == 27 and excluded["Prodigy answer 'ignore'"] == 27
    assert engine(path, jobs=2).to_dict() == expected


# --- errors ----------------------------------------------------------------------------------


def _lines(generated: Path) -> list[str]:
    return generated.read_text().splitlines()


@pytest.mark.parametrize("case", ["json", "span", "text", "conflict", "two errors", "span, then json", "span, then field"])
def test_errors_in_a_worker_name_the_file_and_the_right_line(generated, tmp_path, case):
    lines = _lines(generated)
    far = 200  # far beyond the first chunk: its line numbers are not known when it is read
    record = json.loads(lines[far])
    if case == "json":
        lines[far] = lines[far][:-5]
    elif case.startswith("span"):
        record["spans"] = [{"start": 0, "end": 10**6, "label": "PER"}]
        lines[far] = json.dumps(record)
        # spans are checked a block of lines at a time: a later line's error must not come first
        if case == "span, then json":
            lines[far + 40] = "{broken"
        elif case == "span, then field":
            lines[far + 2] = json.dumps({**json.loads(lines[far + 2]), "text": 7})
    else:
        # a line for a document read much earlier: a conflict across chunks (not grouped)
        early = json.loads(lines[4])
        if case == "text":
            early["text"] = early["text"][:-1] + "!"
        else:
            early["spans"] = early["spans"][1:]
        lines.insert(far, json.dumps(early))
        if case == "two errors":
            lines[far + 40] = "{broken"
    path = write(tmp_path / "bad.jsonl", lines)
    expected = input_error(lambda: spanagree.read(path))
    assert f"{path}:{far + 1}:" in expected
    for options in (dict(jobs=2), dict(stream=True)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NotGroupedWarning)
            assert input_error(lambda: spanagree.score(path, **options)) == expected


def test_file_level_errors_are_the_serial_readers(generated, tmp_path):
    good = generated
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n \n")
    missing = tmp_path / "missing.jsonl"
    unknown = write(tmp_path / "unknown.jsonl", [{"what": 1}])
    for paths in ([good, empty], [good, missing], [good, unknown]):
        expected = input_error(lambda: spanagree.read(paths))
        assert input_error(lambda: spanagree.score(paths, jobs=2)) == expected
    expected = input_error(lambda: spanagree.read([good, empty], format="spanagree"))
    assert input_error(lambda: spanagree.score([good, empty], format="spanagree", stream=True)) == expected
    with pytest.raises(UsageError, match="no file matches"):
        spanagree.score(str(tmp_path / "nothing*.jsonl"), jobs=2)
    with pytest.raises(UsageError, match="jobs must be"):
        spanagree.score(good, jobs=-1)
    with pytest.raises(UsageError, match="engine must be"):
        spanagree.score(good, engine="spark")


# --- fallbacks -------------------------------------------------------------------------------


def test_other_formats_and_candidates_are_read_serially_and_said_so(example_path, tmp_path):
    doccano = write(tmp_path / "ann.jsonl", [
        {"id": 1, "text": "Alice met Bob.", "label": [[0, 5, "PER"], [10, 13, "PER"]]},
        {"id": 2, "text": "Paris.", "label": [[0, 5, "LOC"]]},
    ])
    other = write(tmp_path / "bob.jsonl", [
        {"id": 1, "text": "Alice met Bob.", "label": [[0, 5, "PER"]]},
        {"id": 2, "text": "Paris.", "label": [[0, 5, "LOC"]]},
    ])
    report = engine([doccano, other], EngineFallbackWarning, jobs=2)
    assert report.to_dict() == serial([doccano, other])
    options = dict(rule="overlap", candidates="tokens")
    report = engine(example_path, EngineFallbackWarning, jobs=2, **options)
    assert report.to_dict() == serial(example_path, **options)


def test_in_memory_corpus_and_default_call_are_unchanged(example_path):
    corpus = spanagree.read(example_path)
    assert isinstance(spanagree.score(example_path).corpus, spanagree.Corpus)
    assert spanagree.score(corpus, jobs=2).to_dict() == spanagree.score(corpus).to_dict()


# --- Dask ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dask_client():
    pytest.importorskip("dask.bag")
    distributed = pytest.importorskip("distributed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def test_dask_same_report_on_the_example_and_generated_shards(dask_client, example_path, generated, tmp_path):
    options = dict(rule="overlap", **BOOT)
    report = engine(example_path, NotGroupedWarning, engine="dask", client=dask_client, **options)
    assert report.to_dict() == serial(example_path, **options)
    assert report.corpus.engine["engine"] == "dask" and report.corpus.engine["workers"] == 2
    # shards of the generated corpus, cut between documents, read by a glob
    documents: dict[str, list[str]] = {}
    for text in _lines(generated):
        documents.setdefault(json.loads(text)["doc_id"], []).append(text)
    shards = tmp_path / "shards"
    shards.mkdir()
    ids = sorted(documents)
    for k in range(4):
        write(shards / f"part-{k}.jsonl", [x for d in ids[k * 30 : (k + 1) * 30] for x in documents[d]])
    expected = serial(sorted(shards.glob("*.jsonl")), rule="proportional", **BOOT)
    by_glob = engine(str(shards / "part-*.jsonl"), engine="dask", client=dask_client, rule="proportional", **BOOT)
    assert by_glob.to_dict() == expected
    # the scheduler's address works as well as the client
    by_address = engine(generated, engine="dask", client=dask_client.scheduler.address, rule="exact")
    assert by_address.to_dict() == serial(generated, rule="exact")


def test_dask_errors_name_the_file_and_line(dask_client, generated, tmp_path):
    lines = _lines(generated)
    lines[250] = lines[250].replace('"spans": [', '"spans": [7, ', 1)
    path = write(tmp_path / "bad.jsonl", lines)
    expected = input_error(lambda: spanagree.read(path))
    assert f"{path}:251:" in expected
    assert input_error(lambda: spanagree.score(path, engine="dask", client=dask_client)) == expected


@pytest.mark.parametrize("shuffled", [False, True])
def test_per_document_rows_in_pieces_are_the_whole_rows(generated, tmp_path, shuffled):
    """The per-document rows are made a piece of documents at a time (JSON output, the documents
    table): the same bytes as all at once, when the engine's annotations are in document order
    (grouped input) and when they are not (shuffled lines, read again from the index)."""
    import orjson

    path = generated
    if shuffled:
        records = [json.loads(x) for x in generated.read_text().splitlines()]
        random.Random(2).shuffle(records)
        path = write(tmp_path / "shuffled.jsonl", records)
    report = engine(path, NotGroupedWarning if shuffled else None, jobs=2, rule="overlap")
    ann_doc = report.corpus.ann_doc
    assert bool((ann_doc[1:] >= ann_doc[:-1]).all()) is not shuffled
    whole = orjson.dumps(report.to_dict(), option=orjson.OPT_INDENT_2)
    for size in (1, 7, 50, 10_000):
        assert b"".join(report.json_chunks(size)) == whole
    in_memory = spanagree.score(path, rule="overlap")
    assert b"".join(in_memory.json_chunks(7)) == orjson.dumps(in_memory.to_dict(), option=orjson.OPT_INDENT_2)
