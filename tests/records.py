"""Building blocks for test input."""
from __future__ import annotations


def line(doc_id: str, annotator: str, spans, text: str = "Alice met Bob in Paris on Monday.") -> dict:
    """One spanagree JSONL record; spans as (start, end, label) tuples."""
    return {
        "doc_id": doc_id,
        "text": text,
        "annotator": annotator,
        "spans": [{"start": s, "end": e, "label": lab} for s, e, lab in spans],
    }


def brat_dir(root, name: str, files: dict):
    """A brat annotator's folder ``root/name`` holding ``files`` (name -> content, written as is)."""
    folder = root / name
    folder.mkdir(parents=True)
    for file, content in files.items():
        (folder / file).write_text(content, encoding="utf-8", newline="")
    return folder
