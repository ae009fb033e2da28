"""Measures computed from aligned spans beyond the a/b/c counts.

One module per measure:

- ``unitizing``: Krippendorff's unitizing alpha and Mathet et al.'s gamma (spans without candidates);
- ``alt_test``: the alternative annotator test (can a model replace a human rater?);
- ``cac``: the chance-corrected family on raw ratings with missing ratings, weights and Gwet's
  standard errors; ``weights``: the weight families; ``benchmark``: probabilistic bands;
  ``kappa_variance``: the standard error of Cohen's κ; ``student_t``: the t distribution they use.

Each module documents its formula and its source; ``docs/`` holds the definitions in full.
"""
