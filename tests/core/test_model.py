"""The corpus builder's canonical order: the shortcut that skips sorting input already in order."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from spanagree.core.arrays import in_order


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 3).flatmap(lambda k: st.lists(st.tuples(*[st.integers(0, 3)] * k), max_size=12)))
def test_in_order_is_what_lexsort_leaves_in_place(rows):
    keys = [np.array([row[i] for row in rows], dtype=np.int64) for i in range(len(rows[0]))] if rows else [np.zeros(0, np.int64)]
    order = np.lexsort(keys[::-1])
    already = all(np.array_equal(key, key[order]) for key in keys)
    assert in_order(*keys) == already

