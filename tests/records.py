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
