"""The core path, NumPy only: the corpus model, the aligner, the counts and their outcomes.

Everything above reads its input through :mod:`spanagree.io` into a :class:`~spanagree.core.model.Corpus`,
and every figure is a sum over the rows :func:`~spanagree.core.counts.count` makes here.
"""
