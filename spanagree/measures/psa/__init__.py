"""Positive specific agreement (PSA = 2a / (2a + b + c); Hripcsak & Rothschild 2005) and its intervals.

From the a/b/c counts the aligner gives per rater pair, label and document:

- ``specific``: PSA, F-beta, precision and recall of arrays of counts;
- ``summary``: every PSA statistic of a report (pooled, pairwise mean, macro, per pair, label,
  document) from one function of summed counts;
- ``intervals``: bootstrap (documents resampled), jackknife and analytic intervals of them.
- ``deciding``: the documents likely to decide a check whose interval straddles its bound, and
  the paired bootstrap of a change between two rounds (docs/deciding.md);
- ``planning``: the documents a round needs for a target half-width, by resampling a pilot's
  documents, and the published sample sizes of κ, α and percent agreement (docs/planning.md).
"""
