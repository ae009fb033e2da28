"""The chance-corrected coefficients on ratings, at their public address ``spanagree.stats``.

They are defined in :mod:`spanagree.measures.chance.coefficients` (formulas and sources there and in
``docs/chance-corrected.md``); importing this name gives that very module, loaded only when asked
for, as before.
"""
import sys

from .measures.chance import coefficients as stats

sys.modules[__name__] = stats
