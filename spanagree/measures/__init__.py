"""Measures computed from aligned spans beyond the a/b/c counts.

One module per measure:

- ``unitizing``: Krippendorff's unitizing alpha and Mathet et al.'s gamma (spans without candidates);
- ``alt_test``: the alternative annotator test (can a model replace a human rater?).

Each module documents its formula and its source; ``docs/`` holds the definitions in full.
"""
