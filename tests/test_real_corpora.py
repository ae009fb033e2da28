"""The three real multi-rater corpora score without error, with the figures their README gives.

Skipped when ``../shared/corpora-real`` is not beside the checkout.
"""
from __future__ import annotations

import pytest

import spanagree

# pooled exact-match PSA over all rater pairs, from the corpora's README
EXPECTED_POOLED_EXACT = {"toxic_spans.jsonl": 0.228, "potts.jsonl": 0.645, "btc_crowd.jsonl": 0.452}


@pytest.mark.parametrize("name", sorted(EXPECTED_POOLED_EXACT))
def test_real_corpus_scores(real_dir, name):
    corpus = spanagree.read(real_dir / name)
    exact = spanagree.score(corpus, rule="exact").summary()
    assert round(exact["overall"]["pooled_psa"], 3) == EXPECTED_POOLED_EXACT[name]
    assert exact["documents"]["scored"] == exact["documents"]["read"]  # every document has >= 2 raters
    overlap = spanagree.score(corpus, rule="overlap").summary()
    assert overlap["overall"]["pooled_psa"] > exact["overall"]["pooled_psa"]
    assert overlap["overall"]["a"] >= exact["overall"]["a"]
