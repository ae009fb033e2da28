"""The other formats: brat, CoNLL, Label Studio, doccano and TREC qrels; writers and conversion.

Every fixture is written here, in tmp_path, from one set of annotations, so that the round-trip
test can check that each format, read back, gives exactly the pair counts of spanagree JSONL.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import spanagree
from spanagree.outputs.convert import convert
from spanagree.errors import InputError, UsageError
from spanagree.io import detect_format
from records import brat_dir, line

# --- one set of annotations, as token ranges [first, last) -------------------------------------

DOCS = {
    "d1": "Alice Smith met Bob in Paris on Monday .",
    "d2": "The Bank of England raised rates in London .",
    "d3": "Nothing to see here .",
}
ANNOTATIONS = {
    "ann1": {"d1": [(0, 2, "PER"), (3, 4, "PER"), (5, 6, "LOC")], "d2": [(1, 4, "ORG"), (7, 8, "LOC")], "d3": []},
    # two adjacent PER chunks: B-PER B-PER in IOB2, I-PER B-PER in IOB1, E-PER I-PER in IOE1 ...
    "ann2": {"d1": [(0, 1, "PER"), (1, 2, "PER"), (3, 4, "PER"), (5, 6, "ORG")], "d2": [(1, 4, "ORG")],
             "d3": [(0, 1, "MISC")]},
    "ann3": {"d1": [(0, 2, "PER"), (5, 6, "LOC"), (7, 8, "DATE")], "d2": [(1, 4, "ORG"), (6, 8, "LOC")], "d3": []},
}


def token_offsets(text):
    offsets, position = [], 0
    for token in text.split(" "):
        offsets.append((position, position + len(token)))
        position += len(token) + 1
    return offsets


def char_spans(doc_id, rater):
    offsets = token_offsets(DOCS[doc_id])
    return [(offsets[first][0], offsets[last - 1][1], label) for first, last, label in ANNOTATIONS[rater][doc_id]]


def pair_counts(corpus, unit="char"):
    """a, b, c per rater pair, overall and per label, and the documents each pair shares."""
    report = spanagree.score(corpus, unit=unit).to_dict()
    return sorted(
        (tuple(p["raters"]), p["documents"], p["a"], p["b"], p["c"],
         sorted((k, v["a"], v["b"], v["c"]) for k, v in p["labels"].items()))
        for p in report["pairs"]
    )


# --- the same annotations in every format ------------------------------------------------------

def write_spanagree(root: Path) -> list[Path]:
    path = root / "all.jsonl"
    path.write_text("".join(
        json.dumps(line(doc, rater, char_spans(doc, rater), text=DOCS[doc])) + "\n"
        for rater in ANNOTATIONS for doc in DOCS
    ))
    return [path]


def write_prodigy(root: Path) -> list[Path]:
    path = root / "prodigy.jsonl"
    records = []
    for rater in ANNOTATIONS:
        for k, doc in enumerate(DOCS, 1):
            records.append({"text": DOCS[doc], "_input_hash": k, "_task_hash": 100 + k, "answer": "accept",
                            "_annotator_id": rater, "_session_id": rater,
                            "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in char_spans(doc, rater)]})
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return [path]


def write_brat(root: Path) -> list[Path]:
    dirs = []
    for rater in ANNOTATIONS:
        folder = root / rater
        folder.mkdir()
        for doc, text in DOCS.items():
            (folder / f"{doc}.txt").write_text(text, encoding="utf-8")
            lines = [f"T{i}\t{lab} {s} {e}\t{text[s:e]}" for i, (s, e, lab) in enumerate(char_spans(doc, rater), 1)]
            (folder / f"{doc}.ann").write_text("".join(x + "\n" for x in lines), encoding="utf-8")
        dirs.append(folder)
    return dirs


def tags_for(n_tokens, chunks, scheme):
    """Write chunks (token ranges) as tags in a scheme."""
    tags = ["O"] * n_tokens
    ends = {last: label for _, last, label in chunks}
    starts = {first: label for first, _, label in chunks}
    for first, last, label in chunks:
        single = last - first == 1
        for i in range(first, last):
            inside = "I"
            if scheme == "IOB2":
                prefix = "B" if i == first else inside
            elif scheme == "IOB1":
                prefix = "B" if i == first and ends.get(first) == label else inside
            elif scheme == "IOE2":
                prefix = "E" if i == last - 1 else inside
            elif scheme == "IOE1":
                prefix = "E" if i == last - 1 and starts.get(last) == label else inside
            else:
                b, e, s = ("B", "E", "S") if scheme == "IOBES" else ("B", "L", "U")
                prefix = s if single else b if i == first else e if i == last - 1 else inside
            tags[i] = f"{prefix}-{label}"
    return tags


def write_conll(root: Path, scheme: str) -> list[Path]:
    paths = []
    for rater in ANNOTATIONS:
        out = []
        for doc, text in DOCS.items():
            tokens = text.split(" ")
            out += ["-DOCSTART- -X- O", ""]
            tags = tags_for(len(tokens), ANNOTATIONS[rater][doc], scheme)
            out += [f"{token} NN {tag}" for token, tag in zip(tokens, tags)] + [""]
        path = root / f"{rater}.conll"
        path.write_text("\n".join(out) + "\n")
        paths.append(path)
    return paths


def ls_region(s, e, lab, text):
    return {"from_name": "label", "to_name": "text", "type": "labels",
            "value": {"start": s, "end": e, "text": text[s:e], "labels": [lab]}}


def write_labelstudio(root: Path) -> list[Path]:
    tasks = []
    for k, (doc, text) in enumerate(DOCS.items(), 1):
        annotations = [
            {"id": 10 * k + j, "completed_by": {"id": j, "email": rater}, "was_cancelled": False,
             "result": [ls_region(s, e, lab, text) for s, e, lab in char_spans(doc, rater)]}
            for j, rater in enumerate(ANNOTATIONS)
        ]
        tasks.append({"id": k, "data": {"text": text}, "annotations": annotations, "predictions": []})
    path = root / "project-1.json"
    path.write_text(json.dumps(tasks))
    return [path]


def write_labelstudio_min(root: Path) -> list[Path]:
    rows = []
    for k, (doc, text) in enumerate(DOCS.items(), 1):
        for j, rater in enumerate(ANNOTATIONS):
            row = {"text": text, "id": k, "annotator": rater, "annotation_id": 10 * k + j, "lead_time": 3.5}
            regions = [{"start": s, "end": e, "text": text[s:e], "labels": [lab]} for s, e, lab in char_spans(doc, rater)]
            if regions:  # JSON-MIN leaves the field out when an annotation has no region
                row["ner"] = regions
            rows.append(row)
    path = root / "project-1-min.json"
    path.write_text(json.dumps(rows, indent=1))
    return [path]


def write_doccano(root: Path) -> list[Path]:
    paths = []
    for n, rater in enumerate(ANNOTATIONS):
        path = root / f"{rater}.jsonl"
        with open(path, "w") as f:
            for k, doc in enumerate(DOCS, 1):
                spans = char_spans(doc, rater)
                if n == 0:  # the older export
                    record = {"id": k, "text": DOCS[doc], "label": [[s, e, lab] for s, e, lab in spans]}
                else:
                    record = {"id": k, "text": DOCS[doc], "relations": [],
                              "entities": [{"id": i, "label": lab, "start_offset": s, "end_offset": e}
                                           for i, (s, e, lab) in enumerate(spans)]}
                f.write(json.dumps(record) + "\n")
        paths.append(path)
    return paths


WRITERS = {
    "spanagree": (write_spanagree, "spanagree"),
    "prodigy": (write_prodigy, "prodigy"),
    "brat": (write_brat, "brat"),
    **{f"conll-{s}": ((lambda root, s=s: write_conll(root, s)), "conll")
       for s in ("IOB1", "IOB2", "IOE1", "IOE2", "IOBES", "BILOU")},
    "labelstudio": (write_labelstudio, "labelstudio"),
    "labelstudio-min": (write_labelstudio_min, "labelstudio"),
    "doccano": (write_doccano, "doccano"),
}


@pytest.fixture
def reference(tmp_path):
    root = tmp_path / "reference"
    root.mkdir()
    return pair_counts(spanagree.read(write_spanagree(root)))


#: doccano cannot tell an example a member left empty from one the member never saw; these
#: files list every example for every rater, as the "confirmed only" export does.
READ_OPTIONS = {"doccano": {"empty": "nothing"}}


@pytest.mark.parametrize("name", list(WRITERS))
def test_every_format_gives_the_pair_counts_of_spanagree_jsonl(tmp_path, reference, name):
    write, format_name = WRITERS[name]
    paths = write(tmp_path)
    assert {detect_format(p) for p in paths} == {format_name}
    options = READ_OPTIONS.get(name, {})
    corpus = spanagree.read(paths, **options)
    assert corpus.raters == sorted(ANNOTATIONS)
    assert corpus.n_documents == len(DOCS) and corpus.n_spans == 16
    assert not any(corpus.exclusions.spans.values()) and not any(corpus.exclusions.annotations.values())
    assert pair_counts(corpus) == reference
    # ... and written back as spanagree JSONL and as Prodigy JSONL, read again, the same
    for to in ("spanagree", "prodigy"):
        out = tmp_path / f"out-{to}.jsonl"
        result = convert(paths, out, to=to, **options)
        assert result["written"] == {"documents": 3, "annotations": 9, "spans": 16}
        assert detect_format(out) == to
        assert pair_counts(spanagree.read(out)) == reference


def test_conll_has_tokens_so_the_token_unit_gives_the_same_counts(tmp_path, reference):
    paths = write_conll(tmp_path, "IOB2")
    corpus = spanagree.read(paths)
    assert corpus.texts == list(DOCS.values())  # documents in file order: doc-0001, doc-0002, ...
    assert pair_counts(corpus, unit="token") == reference
    # the tokens survive a conversion to both JSONL formats
    for to in ("spanagree", "prodigy"):
        out = tmp_path / f"tokens-{to}.jsonl"
        convert(paths, out, to=to)
        again = spanagree.read(out)
        assert again.has_tokens()
        assert pair_counts(again, unit="token") == reference


# --- brat ----------------------------------------------------------------------------------------

def test_brat_counts_what_it_ignores_and_splits_discontinuous_spans(tmp_path):
    text = "Alice met Bob in Paris.\r\nThen Bob left."  # \r\n is two characters, as brat counts
    a = brat_dir(tmp_path, "maria", {
        "doc.txt": text,
        "doc.ann": "T1\tPER 0 5\tAlice\nT2\tPER 10 13\tBob\nT3\tLOC 0 5;17 22\tAlice Paris\n"
                   "T4\tLeave 34 38\tleft\nE1\tLeave:T4 Agent:T5\nT5\tPER 30 33\tBob\n"
                   "R1\tKnows Arg1:T1 Arg2:T2\nA1\tNegated E1\nN1\tReference T1 Wiki:Alice\t\n#1\tAnnotatorNotes T1\tunsure\n"
                   "*\tEquiv T2 T5\n\n",
        "extra.txt": "A text nobody annotated here.",
    })
    b = brat_dir(tmp_path, "omar", {"doc.txt": text, "doc.ann": "T1\tPER 0 5\tAlice\nT2\tPER 30 33\tBob\n"})
    corpus = spanagree.read([a, b], discontinuous="fragments")
    assert corpus.raters == ["maria", "omar"]
    assert corpus.spans_of("doc", "maria") == [(0, 5, "LOC"), (0, 5, "PER"), (10, 13, "PER"), (17, 22, "LOC"), (30, 33, "PER")]
    assert dict(corpus.exclusions.notes) == {"discontinuous brat entity, scored as its 2 fragments": 1}
    assert dict(corpus.exclusions.spans) == {"brat event trigger (not an entity)": 1, "brat note (#) ignored": 1}
    # relations, events, attributes, normalizations and equivalences are read (the event's
    # attribute is on its trigger; T3 is scored as fragments, so nothing points at it)
    held = corpus.structure
    assert sorted((r.head, r.child, r.label, r.symmetric, r.kind) for r in held.relations) == [
        ((0, 5, "PER"), (10, 13, "PER"), "Knows", False, "relation"),
        ((10, 13, "PER"), (30, 33, "PER"), "Equiv", True, "equivalence"),
        ((34, 38, "Leave"), (30, 33, "PER"), "Agent", False, "event"),
    ]
    assert sorted((a.span, a.name, a.value) for a in held.attributes) == [
        ((0, 5, "PER"), "norm:Wiki", "Alice"), ((34, 38, "Leave"), "Negated", True),
    ]
    assert held.extra_spans == {0: [(34, 38, "Leave")]}
    assert dict(corpus.exclusions.annotations) == {"brat .txt without its .ann (not submitted)": 1}
    report = spanagree.score(corpus).to_dict()
    assert report["documents"]["excluded"] == {"no submitted annotation": 1}
    assert (report["overall"]["a"], report["overall"]["b"], report["overall"]["c"]) == (2.0, 3.0, 0.0)
    # one .ann file may also be given; its directory names the rater
    assert spanagree.read(b / "doc.ann").raters == ["omar"]


@pytest.mark.parametrize(
    "ann, line_no, field, words",
    [
        ("T1\tPER 0 5\tAlice\nT2\tPER 10 99\tBob\n", 2, "offsets", "out of range"),
        ("T1\tPER 5 5\t\n", 1, "offsets", "out of range"),
        ("T1\tPER 0 x\tAlice\n", 1, "offsets", "'START END'"),
        ("T1\tPER 0 5\tAlicia\n", 1, "text", "not the document's text"),
        ("T1\t 0 5\tAlice\n", 1, "type", "entity type"),
        ("X1\tPER 0 5\tAlice\n", 1, "id", "starting with T"),
        ("T1 PER 0 5 Alice\n", 1, "offsets", "expected 'T1<TAB>TYPE"),
    ],
)
def test_brat_errors_name_file_line_document_and_field(tmp_path, ann, line_no, field, words):
    folder = brat_dir(tmp_path, "ann1", {"doc.txt": "Alice met Bob.", "doc.ann": ann})
    with pytest.raises(InputError) as err:
        spanagree.read(folder)
    message = str(err.value)
    assert message.startswith(f"{folder / 'doc.ann'}:{line_no}: document 'doc', field '{field}'")
    assert words in message


def test_brat_text_check_can_be_skipped_and_a_missing_txt_is_an_error(tmp_path):
    folder = brat_dir(tmp_path, "ann1", {"doc.txt": "Alice met Bob.", "doc.ann": "T1\tPER 0 5\tAlicia\n"})
    assert spanagree.read(folder, check_text=False).n_spans == 1
    lone = brat_dir(tmp_path, "ann2", {"other.ann": "T1\tPER 0 5\tAlice\n"})
    with pytest.raises(InputError) as err:
        spanagree.read(lone)
    assert str(err.value).startswith(f"{lone / 'other.ann'}: document 'other':")
    assert "no other.txt beside it" in str(err.value)


def test_brat_texts_must_agree_across_annotators(tmp_path):
    a = brat_dir(tmp_path, "a", {"doc.txt": "Alice met Bob.", "doc.ann": ""})
    b = brat_dir(tmp_path, "b", {"doc.txt": "Alice met Rob.", "doc.ann": ""})
    with pytest.raises(InputError, match="first differs at character offset 10"):
        spanagree.read([a, b])


# --- CoNLL ---------------------------------------------------------------------------------------

ILL_FORMED_IOB2 = "Alice B-PER\nmet O\nBob I-PER\nin O\nParis B-LOC\nLondon I-ORG\n"


def test_conll_scheme_decides_what_adjacent_chunks_mean(tmp_path):
    path = tmp_path / "r.conll"
    path.write_text("Alice I-PER\nBob I-PER\nmet O\nCy B-PER\nDee B-PER\n")
    iob1 = spanagree.read(path).spans_of("doc-0001", "r")  # auto: B only after PER chunks: IOB1
    assert iob1 == [(0, 9, "PER"), (14, 16, "PER"), (17, 20, "PER")]
    iob2 = spanagree.read(path, scheme="IOB2").spans_of("doc-0001", "r")  # I-PER after O: repaired
    assert iob2 == [(0, 9, "PER"), (14, 16, "PER"), (17, 20, "PER")]
    path.write_text("Alice I-PER\nBob E-PER\nmet O\nCy E-PER\nDee E-PER\n")
    assert spanagree.read(path).spans_of("doc-0001", "r") == [(0, 9, "PER"), (14, 16, "PER"), (17, 20, "PER")]


@pytest.mark.parametrize(
    "repair, spans, counted",
    [
        ("begin", [(0, 5, "PER"), (10, 13, "PER"), (17, 22, "LOC"), (23, 29, "ORG")],
         {"ill-formed IOB2 chunk read as a chunk (repair='begin')": 2}),
        ("drop", [(0, 5, "PER"), (17, 22, "LOC")], {"ill-formed IOB2 chunk dropped (repair='drop')": 2}),
    ],
)
def test_conll_repair_policies(tmp_path, repair, spans, counted):
    path = tmp_path / "r.conll"
    path.write_text(ILL_FORMED_IOB2)
    corpus = spanagree.read(path, repair=repair)
    assert corpus.spans_of("doc-0001", "r") == spans
    # a repaired chunk is kept, so it is a note; a dropped one is an exclusion
    assert dict(corpus.exclusions.notes if repair == "begin" else corpus.exclusions.spans) == counted
    assert corpus.n_spans_read == 4


def test_conll_repair_error_names_file_line_document_and_tag(tmp_path):
    path = tmp_path / "r.conll"
    path.write_text(ILL_FORMED_IOB2)
    with pytest.raises(InputError) as err:
        spanagree.read(path, repair="error")
    assert str(err.value).startswith(f"{path}:3: document 'doc-0001', field 'tag': I-PER follows O")
    path.write_text("Alice B-PER\nmet O\nBob S-PER\nin O\nParis B-LOC\nLondon O\n")
    with pytest.raises(InputError) as err:
        spanagree.read(path, repair="error")
    assert str(err.value).startswith(
        f"{path}:1: document 'doc-0001', field 'tag': B-PER ends its chunk without an end tag (next: O)"
    )
    corpus = spanagree.read(path, repair="drop")  # IOBES: B-PER and B-LOC are never closed
    assert corpus.spans_of("doc-0001", "r") == [(10, 13, "PER")]
    assert dict(corpus.exclusions.spans) == {"ill-formed IOBES chunk dropped (repair='drop')": 2}


@pytest.mark.parametrize(
    "content, options, line_no, field, words",
    [
        ("Alice B-PER\nBob\n", {}, 2, "tag", "expected a token and a tag"),
        ("Alice PER\n", {}, 1, "tag", "expected O or a prefixed tag"),
        ("Alice B-\n", {}, 1, "tag", "expected O or a prefixed tag"),
        ("Alice S-PER\n", {"scheme": "IOB2"}, 1, "tag", "not a tag of the IOB2 scheme"),
        ("Alice B-PER O\nBob O\n", {"columns": "x,y"}, 2, "columns", "2 tag columns (x, y)"),
        ("Alice B-PER X-PER\n", {"columns": "x,y"}, 1, "tag of y", "expected O or a prefixed tag"),
    ],
)
def test_conll_bad_lines(tmp_path, content, options, line_no, field, words):
    path = tmp_path / "r.conll"
    path.write_text(content)
    with pytest.raises(InputError) as err:
        spanagree.read(path, **options)
    assert str(err.value).startswith(f"{path}:{line_no}: field '{field}'")
    assert words in str(err.value)


def test_conll_documents_are_paired_by_position_and_must_have_the_same_tokens(tmp_path):
    a, b = tmp_path / "a.conll", tmp_path / "b.conll"
    a.write_text("Alice B-PER\nmet O\n\nBob B-PER\nleft O\n")
    b.write_text("Alice B-PER\nmet O\n\nRob B-PER\nleft O\n")
    with pytest.raises(InputError) as err:
        spanagree.read([a, b])
    message = str(err.value)
    assert message.startswith(f"{b}:4: document 'doc-0002', field 'token': token 1 is 'Rob' here but 'Bob' in {a}:4")
    b.write_text("Alice B-PER\nmet O\n")
    with pytest.raises(InputError, match="ends before this document"):
        spanagree.read([a, b])
    b.write_text("Alice B-PER\nmet O\n\nBob B-PER\n")
    with pytest.raises(InputError, match="has 1 tokens in .*b.conll and more"):
        spanagree.read([a, b])
    a.write_text("-DOCSTART- O\nAlice B-PER\nmet O\n\nBob B-PER\nleft O\n")
    b.write_text("-DOCSTART- O\nAlice B-PER\n\nmet O\nBob B-PER\nleft O\n")
    with pytest.raises(InputError, match="field 'sentence': the same tokens as in .*a.conll, but the sentences"):
        spanagree.read([a, b])


def test_conll_without_docstart_each_sentence_is_a_document_and_columns_name_raters(tmp_path):
    path = tmp_path / "two.conll"
    path.write_text("# NN O O\nAlice NNP B-PER B-PER\nmet VBD O O\n\n\nBob NNP B-PER B-ORG\n\n")
    corpus = spanagree.read(path, columns="ann1,ann2")
    assert corpus.doc_ids == ["doc-0001", "doc-0002"] and corpus.raters == ["ann1", "ann2"]
    assert corpus.texts == ["# Alice met", "Bob"]
    assert corpus.spans_of("doc-0002", "ann2") == [(0, 3, "ORG")]
    assert spanagree.read(path, columns=["ann1", "ann2"]).n_spans == 4
    with pytest.raises(UsageError, match="one file"):
        spanagree.read([path, path.with_name("x.conll")], columns="a,b")
    with pytest.raises(UsageError, match="columns must name"):
        spanagree.read(path, columns="a,a")
    with pytest.raises(UsageError, match="repair must be"):
        spanagree.read(path, repair="fix")
    with pytest.raises(UsageError, match="scheme must be"):
        spanagree.read(path, scheme="IOB3")


def test_conll_docstart_groups_sentences_and_empty_documents_are_not_documents(tmp_path):
    path = tmp_path / "r.iob"
    path.write_text("-DOCSTART- -X- O\n\n-DOCSTART- -X- O\n\nAlice B-PER\n\nBob B-PER\n\n-DOCSTART- -X- O\nHi O\n")
    corpus = spanagree.read(path)
    assert corpus.doc_ids == ["doc-0001", "doc-0002"]
    assert corpus.texts == ["Alice\nBob", "Hi"]
    assert corpus.doc_tokens[0].tolist() == [[0, 5], [6, 9]]


# --- Label Studio -------------------------------------------------------------------------------

TEXT = "Alice met Bob in Paris."


def ls_task(task_id, annotations, **extra):
    return {"id": task_id, "data": {"text": TEXT, "meta": "x"}, "annotations": annotations, **extra}


def ls_annotation(rater, regions, cancelled=False, extra_results=()):
    return {"completed_by": rater, "was_cancelled": cancelled,
            "result": [ls_region(s, e, lab, TEXT) for s, e, lab in regions] + list(extra_results)}


def test_labelstudio_counts_cancelled_empty_tasks_predictions_and_other_results(tmp_path):
    tasks = [
        ls_task(1, [ls_annotation(1, [(0, 5, "PER")]), ls_annotation(2, [(0, 5, "PER"), (17, 22, "LOC")]),
                    ls_annotation(3, [(10, 13, "PER")], cancelled=True)],
                predictions=[{"result": [ls_region(0, 5, "PER", TEXT)]}]),
        ls_task(2, []),
        ls_task(3, [ls_annotation(1, [], extra_results=[{"type": "choices", "value": {"choices": ["ok"]}},
                                                        {"type": "relation", "from_id": "a", "to_id": "b"}]),
                    ls_annotation(2, [])]),
    ]
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks))
    corpus = spanagree.read(path)
    assert corpus.raters == ["1", "2"]
    assert dict(corpus.exclusions.annotations) == {
        "Label Studio annotation cancelled": 1,
        "Label Studio prediction (a model's, not a rater's)": 1,
    }
    assert dict(corpus.exclusions.spans) == {"on an excluded annotation (Label Studio annotation cancelled)": 1}
    # the relation's regions "a" and "b" are no labelled text spans: counted, not read
    assert dict(corpus.exclusions.relations) == {"Label Studio relation to a region that is not a labelled text span": 1}
    assert corpus.doc_label_names == ["ok"]  # a choices result: the rater's document label
    report = spanagree.score(corpus).to_dict()
    assert report["documents"] == {"read": 3, "scored": 2, "excluded": {"no submitted annotation": 1}}
    assert (report["overall"]["a"], report["overall"]["b"], report["overall"]["c"]) == (1.0, 0.0, 1.0)


@pytest.mark.parametrize(
    "region, field, words",
    [
        ({"start": 0, "end": 99, "labels": ["PER"]}, "[0].annotations[0].result[0].value.end", "fits in no unit"),
        ({"start": "0", "end": 5, "labels": ["PER"]}, "[0].annotations[0].result[0].value.start", "integer"),
        ({"start": 0, "end": 5, "labels": "PER"}, "[0].annotations[0].result[0].value.labels", "list of label"),
        ({"start": 0, "end": 5, "text": "Alicia", "labels": ["PER"]}, "[0].annotations[0].result[0].value.text",
         "not the task's text"),
    ],
)
def test_labelstudio_errors_name_file_task_and_field(tmp_path, region, field, words):
    path = tmp_path / "export.json"
    path.write_text(json.dumps([ls_task(7, [{"completed_by": 1, "result": [{"type": "labels", "value": region}]}])]))
    with pytest.raises(InputError) as err:
        spanagree.read(path)
    assert str(err.value).startswith(f"{path}: document '7', field '{field}'")
    assert words in str(err.value)


def test_labelstudio_bad_files(tmp_path):
    path = tmp_path / "export.json"
    path.write_text('{"id": 1}')
    with pytest.raises(InputError, match="expected a JSON array of tasks"):
        spanagree.read(path, format="labelstudio")
    path.write_text('[{"id": 1, "data": {"text": "x"}, "annotations": [}]')
    with pytest.raises(InputError, match=r"export.json:1: not valid JSON"):
        spanagree.read(path, format="labelstudio")
    path.write_text('[{"id": 1, "foo": "x"}]')
    with pytest.raises(InputError, match=r"field '\[0\]'.*neither"):
        spanagree.read(path, format="labelstudio")


def test_labelstudio_utf16_offsets_of_old_versions_are_converted_and_counted(tmp_path):
    text = "I \U0001F4A9 Paris and Rome"
    # 'Paris' is characters 4-9, but UTF-16 code units 5-10 (the emoji takes two)
    result = [{"type": "labels", "value": {"start": 5, "end": 10, "text": "Paris", "labels": ["LOC"]}},
              {"type": "labels", "value": {"start": 14, "end": 18, "text": "Rome", "labels": ["LOC"]}}]
    path = tmp_path / "old.json"
    path.write_text(json.dumps([{"id": 1, "data": {"text": text}, "annotations": [{"completed_by": 1, "result": result}]}]))
    corpus = spanagree.read(path)
    assert corpus.spans_of("1", "1") == [(4, 9, "LOC"), (14, 18, "LOC")]
    assert corpus.exclusions.notes["Label Studio offsets in UTF-16 code units (region text matched), converted"] == 1


def test_labelstudio_min_and_text_field(tmp_path):
    rows = [{"id": 3, "annotator": "a@x.org", "created_at": "2024-01-01", "body": TEXT,
             "entities": [{"start": 0, "end": 5, "text": "Alice", "labels": ["PER", "NAME"]}]},
            {"id": 3, "annotator": "b@x.org", "body": TEXT, "entities": {"start": 0, "end": 5, "labels": ["PER"]}}]
    path = tmp_path / "min.json"
    path.write_text(json.dumps(rows))
    assert detect_format(path) == "labelstudio"
    corpus = spanagree.read(path, text_field="body")
    assert corpus.spans_of("3", "a@x.org") == [(0, 5, "NAME"), (0, 5, "PER")]  # one span per label
    assert spanagree.read(path).texts == [TEXT]  # the first string that is not about the annotation


# --- doccano -------------------------------------------------------------------------------------

def test_doccano_rater_field_and_ids(tmp_path):
    path = tmp_path / "all.jsonl"
    records = [{"id": 1, "text": TEXT, "user": 5, "label": [[0, 5, "PER"]]},
               {"id": 1, "text": TEXT, "user": "bo", "label": [[0, 5, "PER"], [17, 22, "LOC"]]},
               {"text": "No id here.", "user": "bo", "entities": [[0, 2, "X"]]},
               {"id": 2, "text": TEXT, "user": "bo", "labels": [[0, 5, "PER"], {"start_offset": 6, "end_offset": 9,
                                                                               "label": "V"}],
                "relations": [{"from_id": 1, "to_id": 2, "type": "r"}]}]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    corpus = spanagree.read(path, rater_field="user")
    assert corpus.raters == ["5", "bo"]
    assert corpus.doc_ids[:2] == ["1", "2"] and corpus.doc_ids[2].startswith("text:")
    assert corpus.spans_of("2", "bo") == [(0, 5, "PER"), (6, 9, "V")]
    assert dict(corpus.exclusions.relations) == {"doccano relation beside spans without entity ids": 1}


@pytest.mark.parametrize(
    "record, field, words",
    [
        ({"id": 1, "text": TEXT, "label": [[0, 99, "PER"]]}, "label[0]", "fits in no unit"),
        ({"id": 1, "text": TEXT, "label": [[0, 5]]}, "label[0]", "[start, end, label]"),
        ({"id": 1, "text": TEXT, "entities": [{"start_offset": 0, "label": "PER"}]}, "entities[0].end_offset", "missing"),
        ({"id": 1, "text": TEXT, "entities": [{"start_offset": 0, "end_offset": 5}]}, "entities[0].label", "missing"),
        ({"id": 1, "text": TEXT, "label": [[0, 5, "PER"]], "user": None}, "user", "rater_field='user'"),
    ],
)
def test_doccano_errors(tmp_path, record, field, words):
    path = tmp_path / "ann.jsonl"
    record = {"user": "x", **record}
    path.write_text(json.dumps({"id": 0, "text": TEXT, "label": [], "user": "x"}) + "\n" + json.dumps(record) + "\n")
    with pytest.raises(InputError) as err:
        spanagree.read(path, rater_field="user")
    assert str(err.value).startswith(f"{path}:2: document '1', field '{field}'")
    assert words in str(err.value)


# --- TREC qrels ----------------------------------------------------------------------------------

QRELS = {
    # topic 401: graded; topic 402: carol judges it too; topic 403: only bob judged it
    "alice": "401 0 D1 2\n401 0 D2 1\n401 0 D3 0\n401 0 D4 2\n402 0 D7 1\n402 0 D8 0\n",
    "bob": "401 0 D1 1\n401 0 D2 1\n401 0 D5 2\n402 0 D7 0\n402 0 D8 2\n403 0 D9 1\n403 0 D9 1\n",
    "carol": "402 Q0 D7 1\n",
}


def write_qrels(root: Path, suffix=".qrels") -> list[Path]:
    paths = []
    for name, content in QRELS.items():
        path = root / f"{name}{suffix}"
        path.write_text(content)
        paths.append(path)
    return paths


def unit_counts(corpus):
    """a, b, c per (topic, pair of assessors)."""
    report = spanagree.score(corpus)
    comparisons, abc = report.counts.comparisons, report.counts.abc
    return {
        (corpus.doc_ids[d], corpus.raters[comparisons.pairs[p][0]], corpus.raters[comparisons.pairs[p][1]]): tuple(row)
        for d, p, row in zip(comparisons.doc.tolist(), comparisons.pair.tolist(), abc.tolist())
    }


@pytest.mark.parametrize("suffix", [".qrels", ".txt"])
def test_qrels_known_counts_per_topic(tmp_path, suffix):
    paths = write_qrels(tmp_path, suffix)
    assert {detect_format(p) for p in paths} == {"qrels"}
    corpus = spanagree.read(paths)
    assert corpus.doc_ids == ["401", "402", "403"] and corpus.labels == ["relevant"]
    assert corpus.texts[0] == "D1\nD2\nD3\nD4\nD5"
    assert corpus.exclusions.spans["repeated identical qrels judgment (kept once)"] == 1
    assert unit_counts(corpus) == {
        ("401", "alice", "bob"): (2.0, 1.0, 1.0),
        ("402", "alice", "bob"): (0.0, 1.0, 1.0),
        ("402", "alice", "carol"): (1.0, 0.0, 0.0),
        ("402", "bob", "carol"): (0.0, 1.0, 1.0),
    }
    report = spanagree.score(corpus).to_dict()
    per_topic = {d["doc_id"]: d for d in report["per_document"]}
    assert per_topic["401"]["pairwise_mean_psa"] == pytest.approx(4 / 6)
    assert per_topic["402"]["pairwise_mean_psa"] == pytest.approx(1 / 3)  # mean of 0, 1, 0
    assert "403" not in per_topic  # only bob judged it
    psa = {tuple(p["raters"]): p["psa"] for p in report["pairs"]}
    assert psa == pytest.approx({("alice", "bob"): 4 / 8, ("alice", "carol"): 1.0, ("bob", "carol"): 0.0})
    assert report["overall"]["pairwise_mean_psa"] == pytest.approx(0.5)
    assert spanagree.score(corpus, unit="token").to_dict()["overall"] == report["overall"]


def test_qrels_graded_relevance_threshold(tmp_path):
    corpus = spanagree.read(write_qrels(tmp_path), relevant_at=2)
    assert unit_counts(corpus) == {
        ("401", "alice", "bob"): (0.0, 2.0, 1.0),
        ("402", "alice", "bob"): (0.0, 0.0, 1.0),
        ("402", "alice", "carol"): (0.0, 0.0, 0.0),
        ("402", "bob", "carol"): (0.0, 1.0, 0.0),
    }
    report = spanagree.score(corpus).to_dict()
    assert {tuple(p["raters"]): p["psa"] for p in report["pairs"]}[("alice", "carol")] is None  # undefined


@pytest.mark.parametrize(
    "content, line_no, field, words",
    [
        ("401 0 D1 1\n401 0 D2\n", 2, "columns", "expected 4: topic iteration docno relevance"),
        ("401 0 D1 yes\n", 1, "relevance", "integer relevance grade (column 4)"),
        ("401 0 D1 1\n401 0 D1 0\n", 2, "docno", "judged 0 here and 1 at line 1"),
    ],
)
def test_qrels_malformed_lines(tmp_path, content, line_no, field, words):
    path = tmp_path / "x.qrels"
    path.write_text(content)
    with pytest.raises(InputError) as err:
        spanagree.read(path)
    message = str(err.value)
    assert message.startswith(f"{path}:{line_no}:") and f"field '{field}'" in message and words in message
    with pytest.raises(UsageError, match="relevant_at"):
        spanagree.read(path, relevant_at=1.5)


# --- detection, writers, conversion --------------------------------------------------------------

def test_detection_of_the_text_formats(tmp_path):
    conll = tmp_path / "train.txt"
    conll.write_text("-DOCSTART- -X- -X- O\n\nEU NNP B-NP B-ORG\nrejects VBZ B-VP O\n")
    assert detect_format(conll) == "conll"
    qrels = tmp_path / "qrels.adhoc.txt"
    qrels.write_text("51 0 AP880301-0271 1\n51 0 AP880302-0029 0\n")
    assert detect_format(qrels) == "qrels"
    (tmp_path / "brat").mkdir()
    (tmp_path / "brat" / "a.ann").write_text("")
    assert detect_format(tmp_path / "brat") == "brat"
    other = tmp_path / "notes.txt"
    other.write_text("just some words here\n")
    with pytest.raises(InputError, match=r"notes.txt: cannot tell the format of notes.txt: no format recognises it.*"
                                         r"seen: suffix '.txt', not JSON lines.*begins 'just some words here'"):
        detect_format(other)
    array = tmp_path / "plain.json"
    array.write_text('[{"text": "x"}]')
    assert all(f.sniff(array, None) is False for f in spanagree.io.formats().values() if not f.jsonl)


def test_an_unknown_file_is_told_no_format_reads_it_not_to_try_one_that_fails(tmp_path):
    """A .csv (or a folder of nothing known) was told to try format='spanagree', which then failed:
    the hint names no format that cannot read it, says none does, and lists the formats."""
    table = tmp_path / "spans.csv"
    table.write_text("doc,start,end,label\nd1,0,4,PER\n")
    folder = tmp_path / "empty"
    (folder / "sub").mkdir(parents=True)
    for path in (table, folder):
        with pytest.raises(InputError) as caught:
            spanagree.read(path)
        message = str(caught.value)
        assert "no format recognises it, so none reads it as it is" in message
        assert "The formats are " + ", ".join(spanagree.io.formats()) in message
        assert "format='NAME' if it is one" in message
        named = [name for name in spanagree.io.formats() if f"format={name!r}" in message]
        assert not named, named
    with pytest.raises(InputError):
        spanagree.read(table, format="spanagree")  # the format the hint used to name


def test_writers_keep_rater_document_text_and_tokens(tmp_path):
    records = [
        {"doc_id": "17", "text": "Alice met Bob", "annotator": "x", "spans": [{"start": 0, "end": 5, "label": "PER"}],
         "tokens": [{"start": 0, "end": 5}, {"start": 6, "end": 9}, {"start": 10, "end": 13}]},
        {"doc_id": "b", "text": "Other text", "annotator": "y", "spans": [{"start": 0, "end": 3, "label": "X"}]},
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "out.jsonl"
    assert convert(source, out)["format"] == "spanagree"
    assert [json.loads(x) for x in out.read_text().splitlines()] == records
    prodigy = tmp_path / "out.prodigy.jsonl"
    convert(source, prodigy, to="prodigy")
    tasks = [json.loads(x) for x in prodigy.read_text().splitlines()]
    assert tasks[0]["_input_hash"] == 17 and tasks[0]["meta"] == {"doc_id": "17"}
    assert tasks[0]["_annotator_id"] == tasks[0]["_session_id"] == "x" and tasks[0]["answer"] == "accept"
    assert tasks[0]["spans"] == [{"start": 0, "end": 5, "label": "PER", "token_start": 0, "token_end": 0}]
    assert [t["ws"] for t in tasks[0]["tokens"]] == [True, True, False]
    assert isinstance(tasks[1]["_input_hash"], int) and "tokens" not in tasks[1]
    again = spanagree.read(prodigy)
    assert sorted(again.texts) == ["Alice met Bob", "Other text"] and again.raters == ["x", "y"]


def test_convert_reports_exclusions_and_refuses_unknown_outputs(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps([ls_task(1, [ls_annotation(1, [(0, 5, "PER")]),
                                            ls_annotation(2, [(0, 5, "PER")], cancelled=True)])]))
    result = convert(path, tmp_path / "out.jsonl")
    assert result["written"] == {"documents": 1, "annotations": 1, "spans": 1}
    assert result["excluded"]["annotations"] == {"Label Studio annotation cancelled": 1}
    assert result["read"] == {"documents": 1, "annotations": 2, "spans": 2}
    with pytest.raises(UsageError, match="cannot tell the output format"):
        convert(path, tmp_path / "out.txt")
    with pytest.raises(UsageError, match=r"cannot write 'brat' \(it has no writer\)"):
        convert(path, tmp_path / "out.txt", to="brat")
    with pytest.raises(UsageError, match="cannot write"):
        convert(path, tmp_path / "missing" / "out.jsonl")
    with pytest.raises(UsageError, match="unknown reader option"):
        convert(path, tmp_path / "out.jsonl", scheme="IOB2")


def test_convert_writes_docbin_when_that_format_exists(tmp_path, reference):
    if "docbin" not in spanagree.io.formats():
        pytest.skip("no DocBin format in this checkout")
    out = tmp_path / "all.spacy"
    result = convert(write_brat(tmp_path), out)
    assert result["format"] == "docbin"
    assert pair_counts(spanagree.read(out)) == reference


def test_labelstudio_export_per_rater_takes_the_file_stem(tmp_path):
    for rater in ("maria", "omar"):
        task = {"id": 1, "data": {"text": TEXT}, "annotations": [{"result": [ls_region(0, 5, "PER", TEXT)]}]}
        (tmp_path / f"{rater}.json").write_text(json.dumps([task]))
    corpus = spanagree.read(sorted(tmp_path.glob("*.json")))
    assert corpus.raters == ["maria", "omar"]
    assert spanagree.score(corpus).pooled_psa == 1.0


def test_convert_command(tmp_path):
    from click.testing import CliRunner

    from spanagree.app.cli import app

    paths = write_conll(tmp_path, "IOBES")
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(app, ["convert", *map(str, paths), "-o", str(out), "--output", "prodigy", "--scheme", "IOBES"])
    assert result.exit_code == 0, result.output
    assert "wrote 9 annotations (16 spans, 3 documents, 3 raters)" in result.output
    assert detect_format(out) == "prodigy"
    bad = CliRunner().invoke(app, ["convert", str(paths[0]), "-o", str(out), "--repair", "mend"])
    assert bad.exit_code == 2 and "repair must be one of" in bad.output
