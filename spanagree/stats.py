"""The chance-corrected coefficients, one public function each, at their public address.

``spanagree.stats`` is :mod:`spanagree.measures.chance.coefficients` (formulas and sources there
and in ``docs/chance-corrected.md``), loaded only when asked for.
"""
import sys

from .measures.chance import coefficients

sys.modules[__name__] = coefficients
