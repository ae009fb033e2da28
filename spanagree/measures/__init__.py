"""The measures, one subpackage per family, each computed from what the layers below hold.

- ``psa``: positive specific agreement from the aligner's a/b/c counts (per pair, label,
  document; pooled, pairwise mean, macro) and its intervals (bootstrap, jackknife, analytic).
- ``chance``: candidate items (tokens, candidate spans, documents) built from the aligned spans,
  and the chance-corrected family on them; its public functions are ``spanagree.stats``.
- ``unitizing``: agreement on the spans' positions themselves, without candidates: Krippendorff's
  unitizing α (α_U) and Mathet et al.'s γ.
- ``alt_test``: the alternative annotator test (can a model replace a human rater?).
- ``student_t``: the t and normal distributions the intervals and tests use.

Each module documents its formula and its source; ``docs/`` holds the definitions in full.
"""
