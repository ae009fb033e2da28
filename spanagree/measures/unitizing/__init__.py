"""Unitizing agreement: how far raters agree on where the units are, without candidates.

From each rater's spans laid on the text (a continuum):

- ``alpha_u``: Krippendorff's unitizing α (α_U; Krippendorff 1995, 2004);
- ``gamma``: Mathet, Widlöcher & Métivier's γ (2015), the alignment-based agreement with a
  chance term sampled from the corpus (``samplers``: the random continua);
- ``section``: the report's unitizing section from both.
"""
