"""The corpus builder: what readers add, checked across raters."""
from __future__ import annotations

import pytest

from spanagree.core.builder import CorpusBuilder
from spanagree.errors import InputError


def test_a_text_that_differs_is_an_error_when_the_reader_gave_no_location():
    """A reader may add lines without a location: the error still says what differs, with no
    place to name."""
    builder = CorpusBuilder()
    builder.add("d1", "d1", "Alice met Bob.", "a", [(0, 5, "PER")], None)
    with pytest.raises(InputError) as caught:
        builder.add("d1", "d1", "Alice met Bob!", "b", [], None)
    assert "differs" in str(caught.value) and "'a'" in str(caught.value)


def test_a_second_different_line_of_a_rater_names_the_first_without_a_location():
    builder = CorpusBuilder()
    builder.add("d1", "d1", "Alice met Bob.", "a", [(0, 5, "PER")], None)
    with pytest.raises(InputError) as caught:
        builder.add("d1", "d1", "Alice met Bob.", "a", [], None)
    assert "two different annotations" in str(caught.value)
