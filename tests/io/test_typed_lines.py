"""The two ways of reading spanagree JSONL give the same corpus, the same report and the same error.

A file is read whole blocks at a time (:mod:`spanagree.io.typed_lines` decodes the common lines
of a block at once, the rest go line by line) or line by line only, as the engines feed it
(``lines=``). Random files mix common lines with every kind of line the typed path must leave to
the line-by-line reader: tokens, document labels, relations, span ids and attributes, bad spans,
blank lines, two values on a line, repeated lines, texts that differ, odd names, offsets as floats
or beyond 64 bits. Blocks are made a few lines long so that runs start and stop mid-block.
"""
from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import spanagree
from spanagree.core.builder import CorpusBuilder
from spanagree.errors import InputError
from spanagree.engine import plan
from spanagree.io import common, jsonl, note_silent_raters

TEXTS = ["Alice met Bob in Paris.", "Carol went to Rome.", "Zoë lives in Kraków now."]  # spans end by 18
SETTINGS = settings(max_examples=300, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def _common_line(doc: int, rater: str, spans: list[dict], text: str | None = None) -> dict:
    line = {"doc_id": f"d{doc}", "text": text if text is not None else TEXTS[doc % len(TEXTS)], "spans": spans}
    if rater:
        line["annotator"] = rater
    return line


span = st.builds(
    lambda start, width, label: {"start": start, "end": start + width, "label": label},
    st.integers(0, 12), st.integers(1, 6), st.sampled_from(["PER", "LOC", "ORG"]),
)
common_line = st.builds(
    _common_line, st.integers(0, 29), st.sampled_from(["a", "b", "c", ""]), st.lists(span, max_size=4),
    st.sampled_from([None] * 8 + ["Alice met Bob in Paris!"]),  # now and then a text another rater did not see
)


def _raw(line: dict) -> bytes:
    return json.dumps(line, ensure_ascii=False).encode("utf-8")


#: Lines only the line-by-line reader takes, made from a common line, as bytes.
ACCEPTED = [
    lambda l: _raw({**l, "tokens": [{"start": 0, "end": 5}, {"start": 6, "end": 9}]}),
    lambda l: _raw({**l, "labels": ["pos"]}),
    lambda l: _raw({**l, "tokens": [{"start": 0, "end": 5, "text": "x", "id": 0}, {"start": 6, "end": 9}]}),
    lambda l: _raw({**l, "tokens": [{"start": 0, "end": 9}]}),  # another rater's tokens may differ
    lambda l: _raw({**l, "tokens": []}),
    lambda l: _raw({**l, "tokens": None}),  # read as no tokens
    lambda l: _raw({**l, "tokens": [{"start": 0, "end": 22}]}),  # beyond the shortest text only
    lambda l: _raw({**l, "spans": [{**s, "id": f"s{i}"} for i, s in enumerate(l["spans"])],
                    "relations": [{"head": "s0", "child": "s0", "label": "r"}] if l["spans"] else []}),
    lambda l: _raw({**l, "spans": [{**s, "attributes": {"neg": True}} for s in l["spans"]]}),
    lambda l: _raw({**l, "annotator": "Zoë"}),
    lambda l: _raw({**l, "doc_id": l["doc_id"] + "é"}),
    lambda l: b"",
    lambda l: b"  ",
]
#: Lines the line-by-line reader refuses (or a file of which it refuses).
REFUSED = [
    lambda l: _raw({**l, "tokens": [{"start": 6, "end": 9}, {"start": 0, "end": 5}]}),
    lambda l: _raw({**l, "tokens": [{"start": 0, "end": 999}]}),
    lambda l: _raw({**l, "tokens": [{"start": 0.0, "end": 5}]}),
    lambda l: _raw({**l, "tokens": [{"start": 0}]}),
    lambda l: _raw({**l, "spans": l["spans"] + [{"start": 3, "end": 2, "label": "PER"}]}),
    lambda l: _raw({**l, "spans": l["spans"] + [{"start": 0, "end": 999, "label": "PER"}]}),
    lambda l: _raw({**l, "spans": [{"start": 1.0, "end": 3, "label": "PER"}]}),
    lambda l: _raw({**l, "spans": [{"start": 0, "end": 2**64, "label": "PER"}]}),
    lambda l: _raw({**l, "spans": [{"start": 0, "end": 2, "label": " "}]}),
    lambda l: _raw({**l, "annotator": " "}),
    lambda l: _raw({**l, "doc_id": ""}),
    lambda l: _raw({**l, "spans": None}),
    lambda l: _raw(l) + b" " + _raw(l),
    lambda l: b"\r",
    lambda l: b"[1]",
    lambda l: b"{not json",
    lambda l: b'{"doc_id": "d1", "text": "\\ud800", "spans": []}',
    lambda l: b'\xef\xbb\xbf' + _raw(l),
]
ODD = ACCEPTED + REFUSED
odd_line = st.builds(lambda make, l: make(l), st.sampled_from(ODD), common_line)
line = st.one_of(
    common_line.map(lambda l: {**l, "tokens": [{"start": 0, "end": 5}, {"start": 6, "end": 9}]}).map(_raw),
    common_line.map(lambda l: {**l, "labels": ["pos"]}).map(_raw),
    common_line.map(lambda l: {**l, "spans": [{**s, "id": f"s{i}"} for i, s in enumerate(l["spans"])],
                               "relations": [{"head": "s0", "child": "s0", "label": "r"}] if l["spans"] else []}).map(_raw),
    common_line.map(lambda l: {**l, "spans": [{**s, "attributes": {"neg": True}} for s in l["spans"]]}).map(_raw),
    common_line.map(lambda l: {**l, "spans": l["spans"] + [{"start": 3, "end": 2, "label": "PER"}]}).map(_raw),
    common_line.map(lambda l: {**l, "spans": l["spans"] + [{"start": 0, "end": 999, "label": "PER"}]}).map(_raw),
    common_line.map(lambda l: {**l, "spans": [{"start": 1.0, "end": 3, "label": "PER"}]}).map(_raw),
    common_line.map(lambda l: {**l, "spans": [{"start": 0, "end": 2**64, "label": "PER"}]}).map(_raw),
    common_line.map(lambda l: {**l, "spans": [{"start": 0, "end": 2, "label": " "}]}).map(_raw),
    common_line.map(lambda l: {**l, "annotator": "Zoë"}).map(_raw),
    common_line.map(lambda l: {**l, "annotator": " "}).map(_raw),
    common_line.map(lambda l: {**l, "doc_id": ""}).map(_raw),
    common_line.map(lambda l: {**l, "doc_id": "dé"}).map(_raw),
    common_line.map(lambda l: {**l, "spans": None}).map(_raw),
    common_line.map(lambda l: _raw(l) + b" " + _raw(l)),
    st.sampled_from([b"", b"  ", b"\r", b"[1]", b"{not json", b'{"doc_id": "d1", "text": "\\ud800", "spans": []}',
                     b'\xef\xbb\xbf{"doc_id": "d9", "text": "x", "spans": []}']),
)
line = st.one_of(*[common_line.map(_raw)] * 9, odd_line)  # mostly common lines: long typed runs


def _line_by_line(path: Path) -> spanagree.Corpus:
    builder = CorpusBuilder()
    jsonl.read_spanagree(path, builder, lines=common.json_lines(path))
    corpus = builder.build()
    note_silent_raters(corpus)  # as spanagree.read does
    return corpus


def _by_blocks(path: Path) -> spanagree.Corpus:
    builder = CorpusBuilder()
    jsonl.read_spanagree(path, builder)
    corpus = builder.build()
    note_silent_raters(corpus)
    return corpus


def _outcome(read, path: Path):
    try:
        return read(path)
    except InputError as error:
        return str(error)


def _same_corpus(first, second) -> None:
    for name in ("doc_ids", "texts", "raters", "labels", "n_documents_read", "n_annotations_read", "n_spans_read",
                 "doc_label_names", "extra_parts", "token_conflicts"):
        assert getattr(first, name) == getattr(second, name), name
    for name in ("ann_doc", "ann_rater", "ann_ptr", "span_start", "span_end", "span_label",
                 "dl_doc", "dl_rater", "dl_label", "dl_value"):
        assert np.array_equal(getattr(first, name), getattr(second, name)), name
    assert [None if t is None else t.tolist() for t in first.doc_tokens] == \
        [None if t is None else t.tolist() for t in second.doc_tokens]
    assert first.exclusions == second.exclusions
    if first.structure is None or second.structure is None:
        assert first.structure is second.structure
    else:
        assert first.structure.relations == second.structure.relations
        assert first.structure.attributes == second.structure.attributes


@SETTINGS
@given(lines=st.lists(line, min_size=1, max_size=40), block=st.sampled_from([1, 60, 200, 1 << 20]),
       newline_at_end=st.booleans())
def test_blocks_and_lines_read_alike(tmp_path_factory, monkeypatch, lines, block, newline_at_end):
    path = tmp_path_factory.mktemp("typed") / "r.jsonl"
    path.write_bytes(b"\n".join(lines) + (b"\n" if newline_at_end else b""))
    monkeypatch.setattr(common, "BLOCK_BYTES", block)
    expected, got = _outcome(_line_by_line, path), _outcome(_by_blocks, path)
    if isinstance(expected, str) or isinstance(got, str):
        assert got == expected
        return
    _same_corpus(got, expected)
    assert spanagree.score(got).to_dict() == spanagree.score(expected).to_dict()


def _random_common_line(rng: random.Random) -> dict:
    spans = []
    for _ in range(rng.randrange(5)):
        start = rng.randrange(13)
        spans.append({"start": start, "end": start + rng.randrange(1, 7), "label": rng.choice(["PER", "LOC", "ORG"])})
    text = "Alice met Bob in Paris!" if rng.random() < 0.01 else None
    return _common_line(rng.randrange(60), rng.choice(["a", "b", "c", "d", ""]), spans, text)


@pytest.mark.parametrize("seed", range(40))
def test_long_files_read_alike(tmp_path, monkeypatch, seed):
    """Files of a few hundred lines, one odd line in fifty: long typed runs, stopped now and then."""
    rng = random.Random(seed)
    lines = [
        rng.choice(ODD)(_random_common_line(rng)) if rng.random() < 0.02 else _raw(_random_common_line(rng))
        for _ in range(rng.randrange(50, 400))
    ]
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    monkeypatch.setattr(common, "BLOCK_BYTES", rng.choice([100, 1000, 5000, 1 << 20]))
    expected, got = _outcome(_line_by_line, path), _outcome(_by_blocks, path)
    if isinstance(expected, str) or isinstance(got, str):
        assert got == expected
        return
    _same_corpus(got, expected)
    report = spanagree.score(expected).to_dict()
    assert spanagree.score(got).to_dict() == report
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an engine falling back says so
        assert spanagree.score(path, stream=True, jobs=1).to_dict() == report


@pytest.mark.parametrize("seed", range(12))
def test_the_engines_read_blocks_alike(tmp_path, monkeypatch, seed):
    """The engines read byte ranges of a file in blocks too: the same report, or the same error."""
    _engines_read_alike(tmp_path, monkeypatch, seed)


def _engines_read_alike(tmp_path, monkeypatch, seed: int) -> list[int]:
    """Score a random file of ``seed`` line by line and by the engines (1 and 2 jobs), assert the
    reports (or errors) are the same; the engines' task counts."""
    rng = random.Random(1000 + seed)
    lines = []
    for doc in range(rng.randrange(60, 200)):  # grouped by document, as the engines want
        for rater in rng.sample("abcd", rng.randrange(1, 5)):
            line = {**_random_common_line(rng), "doc_id": f"d{doc}", "annotator": rater}
            line["text"] = TEXTS[doc % len(TEXTS)]
            odd = rng.random()
            lines.append(rng.choice(ACCEPTED)(line) if odd < 0.05 else rng.choice(REFUSED)(line) if odd < 0.0508 else _raw(line))
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    monkeypatch.setattr(common, "BLOCK_BYTES", rng.choice([100, 1000, 1 << 20]))
    monkeypatch.setattr(plan, "CHUNK_BYTES", 3000)  # many tasks
    monkeypatch.setattr(plan, "MIN_CHUNK_BYTES", 1)
    try:
        expected = spanagree.score(_line_by_line(path)).to_dict()
    except InputError as error:
        expected = str(error)
    tasks = []
    for jobs in (1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an engine falling back says so
            try:
                report = spanagree.score(path, stream=True, jobs=jobs)
                got = report.to_dict()
                tasks.append(report.corpus.engine["tasks"] if report.corpus.engine else 0)
            except InputError as error:
                got = str(error)
        assert got == expected
    return tasks


def test_common_lines_take_the_typed_path(tmp_path, monkeypatch):
    """A file of common lines is read without a dict per line (the line-by-line reader never runs)."""
    lines = [_common_line(d, r, [{"start": 0, "end": 5, "label": "PER"}]) for d in range(50) for r in "ab"]
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join(_raw(l) + b"\n" for l in lines))
    monkeypatch.setattr(common, "BLOCK_BYTES", 512)  # several blocks
    monkeypatch.setattr(jsonl, "_read_lines", lambda *a: pytest.fail("read line by line"))
    corpus = spanagree.read(path)
    assert corpus.n_documents == 50 and corpus.n_annotations == 100 and corpus.n_spans == 100


def test_an_odd_line_mid_block_goes_line_by_line_and_the_next_block_is_typed_again(tmp_path, monkeypatch):
    lines = [_raw(_common_line(d, "a", [])) for d in range(40)]
    lines[5] = _raw({**_common_line(5, "a", []), "labels": ["pos"]})
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    monkeypatch.setattr(common, "BLOCK_BYTES", 400)
    by_line = []
    read_lines = jsonl._read_lines

    def counting(stem, builder, source):
        for where, obj in source:
            by_line.append(where.line)
            read_lines(stem, builder, [(where, obj)])

    monkeypatch.setattr(jsonl, "_read_lines", counting)
    corpus = spanagree.read(path)
    assert corpus.n_annotations == 40 and corpus.doc_label_names == ["pos"]
    assert 6 in by_line and len(by_line) < 20 and 40 not in by_line


@pytest.mark.parametrize(
    "lines, message",
    [
        ([_common_line(0, "a", []), _common_line(0, "b", [], text="other")], "r.jsonl:2"),
        ([_common_line(0, "a", []), _common_line(1, "a", [{"start": 0, "end": 99, "label": "X"}])], "r.jsonl:2"),
        ([_common_line(0, "a", [{"start": 0, "end": 1, "label": "X"}]), _common_line(0, "a", [])], "(the other at"),
    ],
)
def test_errors_name_the_line(tmp_path, lines, message):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join(_raw(l) + b"\n" for l in lines))
    with pytest.raises(InputError) as caught:
        spanagree.read(path)
    assert message in str(caught.value)
    assert str(caught.value) == _outcome(_line_by_line, path)


def test_the_engine_test_runs_the_engines(tmp_path, monkeypatch):
    """Most of the files above are read by an engine in many tasks (not a fallback to memory)."""
    runs = [_engines_read_alike(tmp_path / str(seed), monkeypatch, seed) for seed in range(12)
            if not (tmp_path / str(seed)).mkdir()]
    assert sum(1 for tasks in runs if tasks and min(tasks) > 5) >= 6, runs


def test_tokens_shared_only_within_a_document(tmp_path):
    """The same token list on the next line of another document is checked against that text."""
    tokens = [{"start": 0, "end": 22}]
    lines = [{**_common_line(0, "a", []), "tokens": tokens}, {**_common_line(1, "a", []), "tokens": tokens}]
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join(_raw(l) + b"\n" for l in lines))
    with pytest.raises(InputError) as caught:
        spanagree.read(path)
    assert "r.jsonl:2" in str(caught.value) and "tokens" in str(caught.value)
    assert str(caught.value) == _outcome(_line_by_line, path)


def test_a_blank_line_and_a_line_of_two_objects_in_one_block(tmp_path):
    """decode_lines passes over a blank line and reads two values from one line: together the
    records would match the lines in number but not in place. The line by line reader's verdict
    stands (the second value on line 2 is an error)."""
    one, two = _raw(_common_line(0, "a", [])), _raw(_common_line(1, "a", []))
    path = tmp_path / "r.jsonl"
    path.write_bytes(one + b"\n" + two + b" " + one + b"\n\n" + two + b"\n")
    with pytest.raises(InputError) as caught:
        spanagree.read(path)
    assert "r.jsonl:2" in str(caught.value)
    assert str(caught.value) == _outcome(_line_by_line, path)


def test_a_line_without_tokens_between_two_with_the_same_tokens(tmp_path):
    """The third line shares the first line's tokens across a line that has none: who saw which
    tokens, and so the message when raters' tokens differ, is the same either way."""
    same, other = [{"start": 0, "end": 5}], [{"start": 0, "end": 9}]
    lines = [{**_common_line(0, "b", []), "tokens": same}, _common_line(0, "x", []),
             {**_common_line(0, "a", []), "tokens": same}, {**_common_line(0, "d", []), "tokens": other}]
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"".join(_raw(l) + b"\n" for l in lines))
    messages = []
    for corpus in (_by_blocks(path), _line_by_line(path)):
        with pytest.raises(InputError) as caught:
            spanagree.score(corpus, unit="token")
        messages.append(str(caught.value))
    assert messages[0] == messages[1] and "'a'" in messages[0] and "'d'" in messages[0]


TOKEN_LISTS = [[{"start": 0, "end": 5}], [{"start": 0, "end": 9}], [{"start": 0, "end": 5}, {"start": 6, "end": 9}], []]


@pytest.mark.parametrize("seed", range(60))
def test_token_heavy_files_score_alike_in_tokens(tmp_path, monkeypatch, seed):
    """Raters who see the same or other tokens, lines with and without them: the token-unit
    report (or its error naming the raters whose tokens differ) is the same from both readers."""
    rng = random.Random(seed)
    lines = []
    for _ in range(rng.randrange(2, 14)):
        line = _common_line(rng.randrange(3), rng.choice("abcdx"), [{"start": 0, "end": 5, "label": "X"}] * rng.randrange(2))
        if rng.random() < 0.7:
            line["tokens"] = rng.choice(TOKEN_LISTS)
        lines.append(_raw(line))
    path = tmp_path / "r.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    monkeypatch.setattr(common, "BLOCK_BYTES", rng.choice([1, 60, 1 << 20]))
    outcomes = []
    for read in (_line_by_line, _by_blocks):
        try:
            outcomes.append(spanagree.score(read(path), unit="token").to_dict())
        except (InputError, spanagree.UsageError) as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b""])
@pytest.mark.parametrize("read", [_by_blocks, _line_by_line])
def test_a_cut_line_names_the_column_where_the_json_stops(tmp_path, read, ending):
    """A line cut short (a truncated file) is named with the column Python's json names for that
    line alone, not "column 1" of the line break after it; by blocks (msgspec, then the line) and
    line by line (orjson, then the line) alike."""
    good = _raw(_common_line(0, "a", [{"start": 0, "end": 4, "label": "PER"}]))
    cut = _raw(_common_line(0, "b", [{"start": 0, "end": 4, "label": "PER"}]))[:73]
    try:
        json.loads(cut)
    except json.JSONDecodeError as err:
        expected = f"r.jsonl:3: not valid JSON ({err.msg} at column {err.colno});"
    path = tmp_path / "r.jsonl"
    path.write_bytes(good + b"\n" + good.replace(b'"a"', b'"c"') + b"\n" + cut + ending)
    assert expected in _outcome(read, path) and "column 1)" not in expected
    path.write_bytes(good + b"\n" + b'{"doc_id": "d0", "text": "Anna' + ending)  # cut inside a string
    assert "r.jsonl:2: not valid JSON (Unterminated string starting at column 26);" in _outcome(read, path)
