"""Annotator models: whom to trust, what the crowd most probably meant, and what to adjudicate next.

Every rater counts the same in a vote; these models weigh each rater by a model of their errors,
fitted on the corpus itself (no gold needed):

- :mod:`.items`: the items the models see. Within a document every distinct boundary any rater
  marked is an item; the aligner's clusters (the same as the vote's,
  :mod:`spanagree.diagnostics.consensus`) group them. Each rater who submitted the document gives
  each item a label, "other boundaries" (a span in the item's cluster at other boundaries) or
  "nothing"; a rater who did not submit it gives nothing at all (missing, not a vote).
- :mod:`.dawid_skene`: Dawid & Skene (1979), a confusion matrix per rater over the labels and
  "nothing", with Dirichlet priors (variational Bayes, as IBCC: Kim & Ghahramani 2012).
- :mod:`.mace`: a competence and a spamming distribution per rater (MACE: Hovy et al. 2013).
- :mod:`.decode`: the consensus (the non-overlapping spans of most posterior mass, or the most
  probable tag of each token in the token view), competence tables with intervals, and the
  adjudication list. A gold rater, files and the CLI are in :mod:`spanagree.diagnostics.annotators`.
- Token items (:func:`.items.token_items`, each token's BIO tag) are a second view of the same models.

Definitions and choices: docs/annotators.md.
"""
