"""Readers: formats, validation, and errors that name file, line, document and field."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spanagree
from spanagree.errors import InputError, UsageError
from records import line

GOOD = [
    line("d1", "x", [(0, 5, "PER"), (10, 13, "PER")]),
    line("d1", "y", [(0, 5, "PER")]),
    line("d2", "x", []),
    line("d2", "y", [(17, 22, "LOC")]),
]


def prodigy(text, annotator, spans, answer="accept", input_hash=1, **extra):
    return {"text": text, "_input_hash": input_hash, "_task_hash": 7, "answer": answer,
            "_annotator_id": annotator, "_session_id": annotator,
            "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in spans], **extra}


@pytest.mark.parametrize(
    "bad, field, words",
    [
        ("{not json", None, "not valid JSON"),
        ('["a", "list"]', None, "JSON object"),
        ({**GOOD[0], "spans": [{"start": 0, "end": 99, "label": "PER"}]}, "spans[0].end", "out of range"),
        ({**GOOD[0], "spans": [{"start": -1, "end": 3, "label": "PER"}]}, "spans[0].start", "out of range"),
        ({**GOOD[0], "spans": [{"start": 4, "end": 4, "label": "PER"}]}, "spans[0].end", "start < end"),
        ({**GOOD[0], "spans": [{"start": "0", "end": 3, "label": "PER"}]}, "spans[0].start", "integer"),
        ({**GOOD[0], "spans": [{"start": 0.0, "end": 3, "label": "PER"}]}, "spans[0].start", "integer"),
        ({**GOOD[0], "spans": [{"start": 0, "end": 3, "label": ""}]}, "spans[0].label", "non-empty"),
        ({**GOOD[0], "spans": [{"start": 0, "end": 3}]}, "spans[0].label", "missing"),
        ({**GOOD[0], "spans": [[0, 3, "PER"]]}, "spans[0]", "span object"),
        ({**GOOD[0], "spans": None}, "spans", "list"),
        ({k: v for k, v in GOOD[0].items() if k != "spans"}, "spans", "missing"),
        ({k: v for k, v in GOOD[0].items() if k != "text"}, "text", "missing"),
        ({k: v for k, v in GOOD[0].items() if k != "doc_id"}, "doc_id", "missing"),
        ({**GOOD[0], "text": 5}, "text", "string"),
        ({**GOOD[0], "doc_id": [1]}, "doc_id", "string"),
        ({**GOOD[0], "annotator": 3}, "annotator", "string"),
        ({**GOOD[0], "text": "Alice met Bob in Paris on Sunday."}, "text", "first differs at character offset 26"),
        ({**GOOD[0], "spans": [{"start": 0, "end": 3, "label": "X"}]}, "spans", "two different annotations"),
    ],
)
@pytest.mark.parametrize("position", ["first", "last"])
def test_bad_line_is_named_wherever_it_is(write_jsonl, bad, field, words, position):
    # the text-mismatch and conflicting-duplicate cases need the good lines read first
    needs_context = words.startswith(("first differs", "two different"))
    if needs_context and position == "first":
        records, line_no = [GOOD[0], bad, *GOOD[1:]], 2
    elif position == "first":
        records, line_no = [bad, *GOOD], 1
    else:
        records, line_no = [*GOOD, bad], len(GOOD) + 1
    path = write_jsonl(records)
    with pytest.raises(InputError) as err:
        spanagree.read(path)
    message = str(err.value)
    assert message.startswith(f"{path}:{line_no}:")
    assert words in message
    if field is not None:
        assert f"field {field!r}" in message


def test_invalid_utf8_and_empty_files(write_jsonl, tmp_path):
    path = write_jsonl([GOOD[0], b'{"doc_id": "d\xff", "text": "x"}'])
    with pytest.raises(InputError, match=r":2: not valid UTF-8"):
        spanagree.read(path)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(InputError, match="empty.jsonl: the file is empty"):
        spanagree.read(empty)
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes(b"\n  \n")
    with pytest.raises(InputError, match="the file is empty"):
        spanagree.read(blank)
    with pytest.raises(InputError, match="no such file"):
        spanagree.read(tmp_path / "missing.jsonl")


def test_duplicates_are_kept_once_and_counted(write_jsonl):
    dup_span = {**GOOD[0], "spans": GOOD[0]["spans"] + GOOD[0]["spans"][:1]}
    corpus = spanagree.read(write_jsonl([dup_span, GOOD[1], GOOD[1]]))
    assert corpus.exclusions.spans["duplicate span of the same rater (kept once)"] == 1
    assert corpus.exclusions.annotations["repeated identical annotation line (kept once)"] == 1
    assert corpus.n_spans == 3


def test_a_repeated_line_with_a_duplicate_span_is_counted_once(write_jsonl):
    # the repeated line's spans are all counted as on a repeated line, none of them also as a
    # duplicate: read = scored + excluded
    dup_span = {**GOOD[0], "spans": GOOD[0]["spans"] + GOOD[0]["spans"][:1]}
    corpus = spanagree.read(write_jsonl([dup_span, dup_span, GOOD[1]]))
    excluded = corpus.exclusions.spans
    assert excluded["duplicate span of the same rater (kept once)"] == 1
    assert excluded["on a repeated annotation line"] == len(dup_span["spans"])
    assert corpus.n_spans_read == corpus.n_spans + sum(excluded.values())


def test_blank_lines_and_bom_are_fine(tmp_path):
    path = tmp_path / "bom.jsonl"
    body = "\n\n".join(json.dumps(r) for r in GOOD)
    path.write_bytes("\ufeff".encode() + body.encode() + b"\n\n")
    assert spanagree.read(path).n_annotations == 4


def test_files_per_rater_take_the_file_stem(tmp_path):
    for rater in ("maria", "omar"):
        records = [{k: v for k, v in r.items() if k != "annotator"} for r in GOOD if r["annotator"] == "x"]
        (tmp_path / f"{rater}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    corpus = spanagree.read([tmp_path / "maria.jsonl", tmp_path / "omar.jsonl"])
    assert corpus.raters == ["maria", "omar"]
    assert spanagree.score(corpus).to_dict()["overall"]["pooled_psa"] == 1.0
    assert spanagree.read(tmp_path).raters == ["maria", "omar"]  # a directory stands for its files


def test_prodigy_answers_raters_and_documents(write_jsonl):
    text = "Alice met Bob in Paris on Monday."
    records = [
        prodigy(text, "ner-ann", [(0, 5, "PER")]),
        prodigy(text, "ner-bob", [(0, 5, "PER")]),
        prodigy(text, "ner-cy", [(0, 5, "PER")], answer="ignore"),
        prodigy(text, "ner-dee", [(0, 5, "ORG")], answer="reject"),
        prodigy("Another text.", "ner-ann", [], input_hash=2),
    ]
    corpus = spanagree.read(write_jsonl(records))
    assert corpus.raters == ["ner-ann", "ner-bob"]
    assert dict(corpus.exclusions.annotations) == {"Prodigy answer 'ignore'": 1, "Prodigy answer 'reject'": 1}
    assert sum(corpus.exclusions.spans.values()) == 2
    report = spanagree.score(corpus).to_dict()
    assert report["documents"]["read"] == 2 and report["documents"]["scored"] == 1
    with_reject = spanagree.read(write_jsonl(records, "again.jsonl"), answers=("accept", "reject"))
    assert "ner-dee" in with_reject.raters


def test_prodigy_without_annotator_ids_uses_file_stems(tmp_path):
    text = "Alice met Bob."
    for rater in ("ann", "bob"):
        record = {"text": text, "_input_hash": 5, "answer": "accept", "spans": [{"start": 0, "end": 5, "label": "PER"}]}
        (tmp_path / f"{rater}.jsonl").write_text(json.dumps(record) + "\n")
    corpus = spanagree.read(sorted(tmp_path.glob("*.jsonl")))
    assert corpus.raters == ["ann", "bob"]


def test_prodigy_token_indices_are_checked(write_jsonl):
    text = "Alice met Bob"
    tokens = [{"text": "Alice", "start": 0, "end": 5, "id": 0}, {"text": "met", "start": 6, "end": 9, "id": 1},
              {"text": "Bob", "start": 10, "end": 13, "id": 2}]
    good = prodigy(text, "a", [], tokens=tokens)
    good["spans"] = [{"start": 6, "end": 13, "label": "X", "token_start": 1, "token_end": 2}]
    spanagree.read(write_jsonl([good]))
    bad = {**good, "spans": [{"start": 6, "end": 13, "label": "X", "token_start": 1, "token_end": 3}]}
    with pytest.raises(InputError, match=r"field 'spans\[0\]\.token_end'"):
        spanagree.read(write_jsonl([good, bad], "bad.jsonl"))


def test_prodigy_bad_answer(write_jsonl):
    with pytest.raises(InputError, match="field 'answer'.*accept, reject, ignore"):
        spanagree.read(write_jsonl([prodigy("t", "a", [], answer="maybe")]))


def test_format_option(write_jsonl):
    path = write_jsonl(GOOD)
    assert spanagree.read(path, format="spanagree").n_annotations == 4
    with pytest.raises(UsageError, match="format='smoke-signals': unknown format; expected 'auto' or one of"):
        spanagree.read(path, format="smoke-signals")
    with pytest.raises(InputError, match="field 'answer'"):
        spanagree.read(path, format="prodigy")
    with pytest.raises(UsageError, match="unknown reader option"):
        spanagree.read(path, colour="blue")


# --- the readers never crash, whatever they are fed ----------------------------------------------

json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 80) | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
        ["doc_id", "text", "annotator", "spans", "start", "end", "label", "answer", "_input_hash", "tokens"]), inner, max_size=4),
    max_leaves=12,
)


def _mutate(record: dict, key: str, value) -> dict:
    out = json.loads(json.dumps(record))
    if key.startswith("span."):
        if out["spans"]:
            out["spans"][0][key[5:]] = value
    else:
        out[key] = value
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    key=st.sampled_from(["doc_id", "text", "annotator", "spans", "span.start", "span.end", "span.label", "tokens", "answer"]),
    value=json_value,
    position=st.integers(0, 4),
)
def test_mutated_records_give_input_errors_not_tracebacks(tmp_path, key, value, position):
    records = list(GOOD)
    records.insert(position, _mutate(GOOD[0], key, value))
    path = tmp_path / "mutated.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    for fmt in ("auto", "prodigy"):
        try:
            spanagree.score(spanagree.read(path, format=fmt))
        except (InputError, UsageError) as err:
            assert str(path) in str(err) or isinstance(err, UsageError)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.lists(st.binary(max_size=40) | json_value.map(lambda v: json.dumps(v).encode()), min_size=1, max_size=4))
def test_random_bytes_give_input_errors_not_tracebacks(tmp_path, raw):
    path = tmp_path / "random.jsonl"
    path.write_bytes(b"\n".join(r.replace(b"\n", b" ") for r in raw))
    try:
        spanagree.score(spanagree.read(path))
    except InputError as err:
        assert str(path) in str(err)


TOKENS = [{"start": 0, "end": 2}, {"start": 3, "end": 5}, {"start": 6, "end": 8}]


def _token_lines(*token_lists):
    raters = "cab"  # not in alphabetical order: the raters a conflict names are the first by name
    return [{"doc_id": "d", "text": "ab cd ef", "annotator": raters[i % 3] + str(i // 3),
             "spans": [{"start": 0, "end": 2, "label": "X"}], "tokens": tokens}
            for i, tokens in enumerate(token_lists)]


@pytest.mark.parametrize("bad", [{"start": 0.0, "end": 2}, {"start": True, "end": 2}, {"start": 0, "end": 2.0}])
def test_tokens_repeated_by_each_rater_are_still_checked(write_jsonl, bad):
    # the reader reuses the offsets of a token list written exactly as on the line before;
    # a list that is equal in Python (0 == 0.0 == False) but not the same JSON is checked
    path = write_jsonl(_token_lines(TOKENS, TOKENS, [bad] + TOKENS[1:]))
    with pytest.raises(InputError, match=r"data.jsonl:3: document 'd', field 'tokens\[0\]'"):
        spanagree.read(path)


def test_tokens_repeated_by_each_rater_same_corpus_and_conflicts(write_jsonl):
    same = spanagree.read(write_jsonl(_token_lines(TOKENS, TOKENS, TOKENS), "same.jsonl"))
    assert same.doc_tokens[0].tolist() == [[0, 2], [3, 5], [6, 8]] and not same.token_conflicts
    other = [{"start": 0, "end": 5}, {"start": 6, "end": 8}]
    # c0 and a0 give one version, b0 another, c1 the first again: the first rater of each
    # version by name is named, whatever the order of the lines
    conflict = spanagree.read(write_jsonl(_token_lines(TOKENS, TOKENS, other, TOKENS), "conflict.jsonl"))
    assert conflict.token_conflicts == {"d": ("a0", "b0")}
