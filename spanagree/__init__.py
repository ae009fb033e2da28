"""spanagree: how far raters agree on span markup.

Read multi-rater span annotations, align the raters under an exact, overlap or partial-credit
rule, and report positive specific agreement (the pairwise-average F-measure) per rater pair,
label and document.

>>> import spanagree
>>> spanagree.psa(227, 31, 50) > 0.84
True
"""
from __future__ import annotations

from .app.api import alt_test, compare, consensus, gate, next_tasks, plan, raters, score
from .report import AgreementReport
from .measures.psa.specific import f_beta, psa
from .core.align import AlignmentRule, align_spans
from .errors import InputError, SpanagreeError, UsageError
from .io import read
from .measures.alt_test.procedure import AltTestResult
from .core.model import Corpus
from .core.version import __version__

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
    "compare",
    "consensus",
    "f_beta",
    "gate",
    "next_tasks",
    "plan",
    "psa",
    "raters",
    "read",
    "score",
]
