"""Candidate items and the chance-corrected family on them (κ, π, S, Fleiss, Conger, Gwet, α, ...).

From the aligned spans and a candidate set (every token, candidate spans, the documents):

- ``candidates``: the items × raters ratings (each rater's label of the span matched to a
  candidate, or NONE); ``section``: the report's chance-corrected section from them;
- ``coefficients``: the public functions, one per coefficient (``spanagree.stats``), taking
  items × raters ratings or a k×k table and returning one result type (``result.Agreement``);
- ``family`` (Gwet's family on ratings and on tables, with standard errors), ``kappa_variance``
  (Cohen's κ), ``krippendorff`` (his metrics), ``two_raters`` (specific agreement),
  ``fixed_group`` (Shah's S): the computations, one per coefficient;
- ``ratings`` (coding labels, tables ↔ ratings), ``weights`` (the weight families),
  ``benchmark`` (probabilistic benchmark bands).
"""
