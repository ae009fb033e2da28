"""Diagnostics built on the counts: the per-rater view, the disagreements and the consensus vote."""
