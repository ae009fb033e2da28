"""spanagree: how far raters agree on span markup.

Read multi-rater span annotations, align the raters under an exact, overlap or partial-credit
rule, and report positive specific agreement (the pairwise-average F-measure) per rater pair,
label and document.

>>> import spanagree
>>> spanagree.psa(227, 31, 50) > 0.84
True
"""
from __future__ import annotations

from .agreement import AgreementReport, f_beta, psa, score
from .align import AlignmentRule, align_spans
from .errors import InputError, SpanagreeError, UsageError
from .io import read
from .measures.alt_test import AltTestResult, alt_test
from .model import Corpus

__all__ = [
    "AgreementReport",
    "AlignmentRule",
    "AltTestResult",
    "Corpus",
    "InputError",
    "SpanagreeError",
    "UsageError",
    "align_spans",
    "alt_test",
    "f_beta",
    "psa",
    "read",
    "score",
]
__version__ = "0.1.0"
