"""The chance-corrected coefficients on ratings, at their public address ``spanagree.stats``.

They are defined in :mod:`spanagree.measures.stats` (formulas and sources there and in
``docs/chance-corrected.md``); importing this name gives that very module, loaded only when asked
for, as before.
"""
import sys

from .measures import stats

sys.modules[__name__] = stats
