"""The alternative annotator test (Calderon et al. 2025): can a model replace a human rater?

From the report's per-document agreement of the model and of each human with the other humans:
``procedure`` runs the one-sided paired t-tests per human with the Benjamini–Yekutieli
correction and gives the winning rate and the advantage probability.
"""
