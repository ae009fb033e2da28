"""The peers doing the work of ``spanagree score FILE --candidates tokens``, as one process.

    python bench/peer_candidates_tokens.py FILE.jsonl

FILE is spanagree JSONL whose records carry their tokens (``"tokens": [{"start", "end"}]``), one
line per rater and document, as ``bench/bench_limits.py --candidates-documents N`` writes it. The
script reads it with orjson, builds the items × raters matrix of token labels with NumPy (a
token takes the label of the rater's span that covers it, "no span" otherwise; missing where the
rater did not submit the document), and computes what spanagree's chance-corrected section
reports on it with the peer libraries: Krippendorff's α (nominal, the ``krippendorff`` package),
Fleiss' κ on the items every rater rated and Cohen's κ of every rater pair with its standard
error (statsmodels' ``fleiss_kappa`` and ``cohens_kappa``; statsmodels gives no standard error
for Fleiss' κ). It prints the values.
"""
from __future__ import annotations

import itertools
import sys

import krippendorff
import numpy as np
import orjson
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa


def token_matrix(path: str) -> tuple[np.ndarray, list[str], list[str]]:
    """The items (tokens) × raters matrix of label codes (0: no span; NaN: not submitted)."""
    documents: dict[str, int] = {}
    raters: dict[str, int] = {}
    labels: dict[str, int] = {"": 0}
    doc_tokens: dict[int, list] = {}
    submitted_doc, submitted_rater = [], []
    span_doc, span_rater, span_start, span_end, span_label = [], [], [], [], []
    with open(path, "rb") as lines:
        for line in lines:
            record = orjson.loads(line)
            doc = documents.setdefault(record["doc_id"], len(documents))
            rater = raters.setdefault(record["annotator"], len(raters))
            if doc not in doc_tokens:
                doc_tokens[doc] = [(t["start"], t["end"]) for t in record["tokens"]]
            submitted_doc.append(doc)
            submitted_rater.append(rater)
            for span in record["spans"]:
                span_doc.append(doc)
                span_rater.append(rater)
                span_start.append(span["start"])
                span_end.append(span["end"])
                span_label.append(labels.setdefault(span["label"], len(labels)))
    n_tokens = np.array([len(doc_tokens[d]) for d in range(len(documents))], dtype=np.int64)
    first_token = np.concatenate([[0], np.cumsum(n_tokens)])
    tokens = np.array([t for d in range(len(documents)) for t in doc_tokens[d]], dtype=np.int64).reshape(-1, 2)
    token_doc = np.repeat(np.arange(len(documents)), n_tokens)
    matrix = np.full((len(tokens), len(raters)), np.nan)
    submitted_doc, submitted_rater = np.array(submitted_doc), np.array(submitted_rater)
    rows = np.concatenate([np.arange(first_token[d], first_token[d + 1]) for d in submitted_doc.tolist()])
    matrix[rows, np.repeat(submitted_rater, n_tokens[submitted_doc])] = 0.0
    # the tokens a span covers: ending after its start and starting before its end, in its document
    span_doc, span_rater = np.array(span_doc, dtype=np.int64), np.array(span_rater, dtype=np.int64)
    width = int(max(tokens[:, 1].max(initial=0), max(span_end, default=0))) + 1
    lo = np.searchsorted(token_doc * width + tokens[:, 1], span_doc * width + np.array(span_start), side="right")
    hi = np.searchsorted(token_doc * width + tokens[:, 0], span_doc * width + np.array(span_end), side="left")
    covered = np.maximum(hi - lo, 0)
    which = np.repeat(np.arange(len(lo)), covered)
    token = np.concatenate([np.arange(a, b) for a, b in zip(lo.tolist(), hi.tolist()) if b > a] or [np.zeros(0, int)])
    order = np.argsort(-which, kind="stable")  # the first span by position is written last, and wins
    matrix[token[order], span_rater[which[order]]] = np.array(span_label, dtype=float)[which[order]]
    return matrix, list(raters), list(labels)


def main(path: str) -> None:
    matrix, raters, labels = token_matrix(path)
    k = len(labels)
    alpha = krippendorff.alpha(reliability_data=matrix.T, level_of_measurement="nominal")
    complete = matrix[~np.isnan(matrix).any(axis=1)].astype(np.int64)
    fleiss = fleiss_kappa(aggregate_raters(complete, n_cat=k)[0])
    print(f"{len(matrix):,} tokens × {len(raters)} raters, {k} categories")
    print(f"krippendorff_alpha {alpha:.6f}")
    print(f"fleiss_kappa (complete items) {fleiss:.6f}")
    for i, j in itertools.combinations(range(len(raters)), 2):
        both = matrix[:, [i, j]]
        both = both[~np.isnan(both).any(axis=1)].astype(np.int64)
        table = np.bincount(both[:, 0] * k + both[:, 1], minlength=k * k).reshape(k, k)
        kappa = cohens_kappa(table)
        print(f"cohen_kappa {raters[i]} {raters[j]} {kappa.kappa:.6f} (SE {kappa.std_kappa:.6f})")


if __name__ == "__main__":
    main(sys.argv[1])
