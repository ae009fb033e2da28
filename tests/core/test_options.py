"""The declaration of every option (spanagree.core.options): its checks and the keyword helper."""
from __future__ import annotations

import math

import numpy as np
import pytest

from spanagree.core import options
from spanagree.core.validate import MAX_REPLICATES
from spanagree.errors import UsageError


def test_names_are_unique_and_flags_follow_names():
    assert len(options.BY_NAME) == len(options.OPTIONS)
    dotted = [o.dotted for o in options.OPTIONS if o.config]
    assert len(dotted) == len(set(dotted))
    for option in options.OPTIONS:
        if option.flag is not None:
            assert option.flag == "--" + option.name.replace("_", "-")
        assert option.check(option.default), option.dotted  # every default is allowed
    flags = [o.flag for o in options.flags("score")]
    assert len(flags) == len(set(flags))


@pytest.mark.parametrize("name, good, bad", [
    ("partial_credit", [1, 0.25, np.float64(0.5)], [0, 1.5, math.nan, math.inf, True, "0.5", None]),
    ("min_overlap", [1, 7], [0, 1.0, True, "2"]),
    ("bootstrap", [None, 2, MAX_REPLICATES], [1, MAX_REPLICATES + 1, 2.0]),
    ("ci", [0.5, 0.99], [0, 1, math.nan]),
    ("seed", [0, 2**64 - 1], [-1, 2**64]),
    ("rule", ["exact", "proportional"], ["Exact", "fuzzy", None, 1]),
    ("per_rater", [True, False], [1, "true", None]),
    ("jobs", [0, 1, 8], [-1, 1.5]),
    ("candidates", [None, "tokens", "cands.jsonl"], ["", 3]),
])
def test_checks_accept_and_refuse(name, good, bad):
    option = options.BY_NAME[name]
    assert all(option.check(value) for value in good)
    assert not any(option.check(value) for value in bad)


def test_keywords_fill_defaults_check_values_and_refuse_unknown_names():
    assert options.keywords({}, ["rule", "partial_credit"]) == {"rule": "exact", "partial_credit": 0.5}
    assert options.keywords({"rule": "partial"}, ["rule"]) == {"rule": "partial"}
    with pytest.raises(UsageError, match=r"partial_credit must be a number in \(0, 1\], got 2"):
        options.keywords({"partial_credit": 2}, ["partial_credit"])
    with pytest.raises(UsageError, match="span_agreement: unknown option"):
        options.keywords({"rulez": "exact"}, ["rule"], where="span_agreement")
    # values checked where they came in are only completed with the defaults
    assert options.keywords({"rule": "anything"}, ["rule", "unit"], check=False) == {"rule": "anything", "unit": "char"}


def test_lists_are_read_from_comma_separated_strings_and_defaults_are_fresh_copies():
    answers = options.BY_NAME["answers"]
    assert answers.value("accept, ignore", options.in_config) == ["accept", "ignore"]
    with pytest.raises(UsageError, match=r"\[input\] answers: got \[\]"):
        answers.value("", options.in_config)
    first = options.default("answers")
    first.append("reject")
    assert options.default("answers") == ["accept"]
    assert options.sections()["gate"]["min"] == {} and options.sections() is not options.sections()
