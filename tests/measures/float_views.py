"""Float views of the one coefficient API (``spanagree.stats``), under the names the published
values and the peers' functions use, so that every reference value and every random comparison
runs through the public functions. Each view is a one-liner over the API: it adds no arithmetic.

``*_parts`` views return the :class:`spanagree.stats.Agreement` itself.
"""
from __future__ import annotations

import numpy as np

from spanagree import stats
from spanagree.stats import (  # noqa: F401  (re-exported for the tests)
    Agreement, CodedRatings, UndefinedAgreementWarning, check_ratings, code_ratings, counts_to_ratings,
    ratings_to_table, table_to_ratings,
)
from spanagree.measures.chance.two_raters import cohen_kappa_array  # noqa: F401
from spanagree.measures.chance.krippendorff import alpha_array, coincidences  # noqa: F401


def percent_agreement_parts(table):
    return stats.percent_agreement(table=table)


def bennett_s_parts(table):
    return stats.brennan_prediger(table=table)


def scott_pi_parts(table):
    return stats.fleiss_kappa(table=table)


def cohen_kappa_parts(table):
    return stats.cohen_kappa(table)


def weighted_kappa_parts(table, *, weights="linear"):
    """Cohen's weighted κ; a matrix is read as disagreement weights (statsmodels' convention)."""
    if not isinstance(weights, str):
        v = np.asarray(weights, dtype=float)
        weights = 1.0 - v / max(float(v.max()), 1.0)  # κ_w is invariant to rescaling v
    return stats.cohen_kappa(table, weights=weights)


def positive_agreement_parts(table, *, positive=0):
    return stats.positive_agreement(table, positive=positive)


def negative_agreement_parts(table, *, positive=0):
    return stats.negative_agreement(table, positive=positive)


def fleiss_kappa_parts(ratings, *, categories=None):
    """The textbook form: complete items only."""
    return stats.fleiss_kappa(ratings, categories=categories, missing="complete")


def davies_fleiss_kappa_parts(ratings, *, categories=None):
    return stats.conger_kappa(ratings, categories=categories, missing="complete")


kappa_s_parts = davies_fleiss_kappa_parts


def gwet_ac1_parts(ratings, *, categories=None):
    return stats.gwet_ac(ratings, categories=categories)


def krippendorff_alpha_parts(ratings, *, distance="nominal", categories=None):
    return stats.krippendorff_alpha(ratings, metric=distance, categories=categories)


def s_against_group_parts(outsider, ratings, *, categories=None):
    return stats.s_against_group(outsider, ratings, categories=categories)


def _value(parts_view):
    def view(*args, **kwargs):
        return parts_view(*args, **kwargs).value

    view.__name__ = parts_view.__name__.removesuffix("_parts")
    return view


percent_agreement = _value(percent_agreement_parts)
bennett_s = _value(bennett_s_parts)
scott_pi = _value(scott_pi_parts)
cohen_kappa = _value(cohen_kappa_parts)
weighted_kappa = _value(weighted_kappa_parts)
positive_agreement = _value(positive_agreement_parts)
negative_agreement = _value(negative_agreement_parts)
fleiss_kappa = _value(fleiss_kappa_parts)
davies_fleiss_kappa = _value(davies_fleiss_kappa_parts)
kappa_s = _value(kappa_s_parts)
gwet_ac1 = _value(gwet_ac1_parts)
krippendorff_alpha = _value(krippendorff_alpha_parts)
s_against_group = _value(s_against_group_parts)
AgreementParts = Agreement
DISTANCES = stats.METRICS
