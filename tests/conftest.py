"""Shared fixtures: paths to the example corpus and the real corpora (skipped when absent)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "corpora" / "news_ner.jsonl"
REAL = ROOT.parent / "shared" / "corpora-real"

#: The scripts that made the fixtures need the tools themselves; they are not tests.
collect_ignore_glob = ["fixtures/*"]


@pytest.fixture
def example_path() -> Path:
    return EXAMPLE


@pytest.fixture
def real_dir() -> Path:
    if not (REAL / "potts.jsonl").exists():
        pytest.skip("the real corpora (../shared/corpora-real) are not beside this checkout")
    return REAL


@pytest.fixture
def write_jsonl(tmp_path):
    """Write records (dicts, or raw strings/bytes for broken lines) as a JSONL file."""

    def write(records, name: str = "data.jsonl") -> Path:
        path = tmp_path / name
        with open(path, "wb") as f:
            for record in records:
                if isinstance(record, bytes):
                    f.write(record + b"\n")
                elif isinstance(record, str):
                    f.write(record.encode("utf-8") + b"\n")
                else:
                    f.write(json.dumps(record).encode("utf-8") + b"\n")
        return path

    return write


@pytest.fixture(scope="session")
def synthetic_corpus(tmp_path_factory) -> Path:
    """A generated corpus (8,000 documents, 3 raters, spanagree JSONL) large enough that a run
    is still reading or writing when a test interrupts it; made once per test session."""
    from spanagree.io.synthetic import generate_corpus, write_jsonl

    path = tmp_path_factory.mktemp("synthetic") / "corpus.jsonl"
    write_jsonl(generate_corpus(8_000, 3, seed=1), path)
    return path
