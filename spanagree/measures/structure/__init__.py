"""Agreement beyond spans: relations, events and span attributes (docs/structure.md).

- ``spans``: the spans relations and attributes hang on, per annotation, and their alignment per
  comparison with the span aligner (:func:`spanagree.core.align.align`), under the rule of the
  span scores;
- ``relations``: relation PSA from a/b/c on that alignment, per pair, label and document, pooled
  and pairwise mean, with the span scores' intervals; beside it the same on the relations whose
  two spans both raters marked;
- ``attributes``: per attribute, percent agreement, Cohen's κ and Krippendorff's α on the matched
  span pairs, and α over all raters on the clusters of matched spans;
- ``means``: an attribute's κ averaged over its rater pairs;
- ``section``: both as one report section.
"""
