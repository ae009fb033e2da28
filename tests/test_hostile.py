"""Hostile and careless input: streams read to the end, every item read accounted for, and text
from the data neutralised in CSV, Markdown, terminal and HTML output."""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

import spanagree
from spanagree.app.cli import app

from locations import FIXTURES, real_export

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()

FORMULA = '=HYPERLINK("http://x.test","y")'
IMAGE = "![i](http://x.test/a.png)<img src=x>"
ESCAPE = "b\x1b[2J\u202e"


def _records(n_docs: int = 4) -> bytes:
    rows = []
    for d in range(n_docs):
        for rater, spans in (("a", [(0, 5, FORMULA)]), (ESCAPE, [(0, 4, FORMULA), (10, 13, IMAGE)])):
            rows.append({"doc_id": f"d{d}", "text": "Alice met Bob", "annotator": rater,
                         "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in spans]})
    return b"".join(json.dumps(r).encode("utf-8") + b"\n" for r in rows)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")
def test_a_named_pipe_is_read_to_the_end(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(_records(4)))
    writer.start()
    report = spanagree.score(fifo).to_dict()
    writer.join()
    assert report["documents"]["read"] == report["documents"]["scored"] == 4


def test_stdin_is_read_to_the_end_and_errors_name_the_right_line():
    run = [sys.executable, "-m", "spanagree.app.cli", "score", "/dev/stdin", "--output", "json"]
    done = subprocess.run(run, input=_records(4), cwd=ROOT, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["documents"]["read"] == 4
    broken = _records(2) + b'{"doc_id": "d9", "text": \n'
    done = subprocess.run(run, input=broken, cwd=ROOT, capture_output=True)
    assert done.returncode == 2 and b"/dev/stdin:5:" in done.stderr, done.stderr


@pytest.mark.parametrize("path, format", [
    ("brat_news/tutorial", "brat"),  # relations, events, attributes, notes
    ("labelstudio/textcat.json", "labelstudio"),  # choices results
    ("labelstudio/ner.json", "labelstudio"),  # cancelled, predictions, repeated annotations
    ("prodigy/reddit-INSULT-textcat.teach.subset.jsonl", "prodigy"),  # textcat: document labels only
    ("prodigy/news_headlines-ner.manual.subset.jsonl", "prodigy"),
    ("doccano/textcat-all", "doccano"),
])
def test_read_is_scored_plus_excluded(path, format, tmp_path):
    source = FIXTURES / path if (FIXTURES / path).exists() else real_export(path)
    if format == "brat":  # a project root: the tutorial's documents by two annotators
        import shutil

        for rater in ("ann1", "ann2"):
            shutil.copytree(source, tmp_path / rater)
        source = tmp_path
    report = spanagree.score(source, format=format).to_dict()
    for what in ("documents", "annotations", "spans"):
        section = report[what]
        assert section["read"] == section["scored"] + sum(section["excluded"].values()), (what, section)
        assert all(n > 0 for n in section["excluded"].values())


def test_prodigy_textcat_documents_are_excluded_with_a_reason():
    report = spanagree.score(real_export("prodigy/reddit-INSULT-textcat.teach.subset.jsonl")).to_dict()
    assert report["documents"]["scored"] == 0
    assert any("document labels only" in reason for reason in report["documents"]["excluded"])


def test_csv_cells_cannot_run_formulas(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(_records(2))
    out = tmp_path / "cases.csv"
    assert runner.invoke(app, ["disagreements", str(path), "-o", str(out)]).exit_code == 0
    cells = [cell for row in csv.reader(out.open(encoding="utf-8")) for cell in row]
    assert cells and not any(cell.startswith(("=", "+", "-", "@")) for cell in cells)
    assert "'" + FORMULA in cells  # shown as text, whole


def test_terminal_and_markdown_output_are_neutralised(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(_records(2))
    text = runner.invoke(app, ["score", str(path)]).stdout
    assert "\x1b" not in text and "\u202e" not in text and "\\u001b[2J\\u202e" in text
    markdown = runner.invoke(app, ["score", str(path), "--output", "markdown"]).stdout
    assert "![i]" not in markdown and "<img" not in markdown and "&lt;img src=x&gt;" in markdown


def test_gate_step_summary_is_escaped(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(_records(2))
    summary = tmp_path / "summary.md"
    result = runner.invoke(app, ["gate", str(path), "--min", f"label:{IMAGE}=0.9"], env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.exit_code == 1, result.output
    written = summary.read_text(encoding="utf-8")
    rows = [line for line in written.splitlines() if line.startswith("| `label:")]
    assert len(rows) == 1
    code, rest = rows[0][3:].split("` |", 1)  # the name stays inside its code span, shown as text
    assert code == "label:" + IMAGE and "`" not in code
    assert "<img" not in rest and "![i]" not in rest


def test_bidi_controls_shown_in_the_html_report(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "in.jsonl"
    path.write_bytes(_records(3))
    out = tmp_path / "report.html"
    result = runner.invoke(app, ["report", str(path), "-o", str(out), "--bootstrap", "20"])
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert "\u202e" not in html and "\\u202e" in html
    assert "<img src=x>" not in html


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="needs a file system that keeps non-UTF-8 names")
@pytest.mark.parametrize("extra", [[], ["--jobs", "2"], ["--stream"], ["--output", "json"]])
def test_a_rater_named_by_a_file_name_that_is_not_utf8_is_an_input_error(tmp_path, extra):
    """A rater name taken from a file name whose bytes are not UTF-8 holds lone surrogates: an
    input error naming the file, not a traceback when the JSON or HTML output is written."""
    rows = b"".join(
        json.dumps({"text": "Alice met Bob", "meta": {"id": d}, "answer": "accept",
                    "spans": [{"start": 0, "end": 5, "label": "PER"}]}).encode() + b"\n"
        for d in range(3)
    )
    folder = os.fsencode(tmp_path)
    for name in (b"\xffann.jsonl", b"bob.jsonl"):
        with open(os.path.join(folder, name), "wb") as handle:
            handle.write(rows)
    paths = sorted(os.fsdecode(os.path.join(folder, n)) for n in os.listdir(folder))
    result = runner.invoke(app, ["score", *paths, "--format", "prodigy", "--rater", "file", *extra])
    assert result.exit_code == 2, result.output
    assert "rater name" in result.output and "not Unicode text" in result.output
    assert "Traceback" not in result.output


class _FailingHandle:
    """A file whose second line cannot be read (as an I/O error or a device that is not a file)."""

    def __init__(self, first: bytes) -> None:
        self.first = first

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None

    def __iter__(self):
        yield self.first
        raise OSError(5, "Input/output error")

    def read(self, size: int = -1) -> bytes:  # block by block: the first read ends with line 1
        if self.first is None:
            raise OSError(5, "Input/output error")
        first, self.first = self.first, None
        return first


def test_a_read_the_system_refuses_is_an_input_error_naming_file_and_line(tmp_path, monkeypatch):
    from spanagree.io import common

    path = tmp_path / "a.jsonl"
    path.write_bytes(_records(2))
    first = _records(2).splitlines(keepends=True)[0]
    monkeypatch.setattr(common, "open_binary", lambda p, name=None: _FailingHandle(first))
    with pytest.raises(spanagree.InputError) as caught:
        list(common.json_lines(path))
    assert "cannot be read (Input/output error)" in str(caught.value) and f"{path}:2" in str(caught.value)


def test_a_read_the_system_refuses_in_an_engine_is_an_input_error(tmp_path, monkeypatch):
    from spanagree.engine import chunks

    path = tmp_path / "a.jsonl"
    path.write_bytes(_records(4))

    def refuse(self):
        raise OSError(5, "Input/output error")
        yield  # a generator, as the real one

    monkeypatch.setattr(chunks._Source, "_ranges", refuse)  # where a worker reads its byte ranges
    with pytest.raises(spanagree.InputError) as caught:
        spanagree.score(path, stream=True)
    assert "cannot be read (Input/output error)" in str(caught.value) and str(path) in str(caught.value)
