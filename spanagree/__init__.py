"""spanagree: how far raters agree on span markup.

Read multi-rater span annotations, align the raters under an exact, overlap or partial-credit
rule, and report positive specific agreement (the pairwise-average F-measure) per rater pair,
label and document.

>>> import spanagree
>>> spanagree.psa(227, 31, 50) > 0.84
True

The names below are loaded when first used (PEP 562): ``import spanagree`` and the command line's
start-up import only what they run (bench/RESULTS.md, start-up).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .core.version import __version__

if TYPE_CHECKING:  # what a type checker sees (the same names as _HOME): the typed entry points
    from .app.api import alt_test, compare, consensus, gate, next_tasks, plan, raters, score
    from .core.align import AlignmentRule, align_spans
    from .core.model import Corpus
    from .errors import InputError, SpanagreeError, UsageError
    from .io import read
    from .measures.alt_test.procedure import AltTestResult
    from .measures.psa.specific import f_beta, psa
    from .report import AgreementReport

#: Each public name and the module that defines it.
_HOME = {
    "AgreementReport": "report",
    "AlignmentRule": "core.align",
    "AltTestResult": "measures.alt_test.procedure",
    "Corpus": "core.model",
    "InputError": "errors",
    "SpanagreeError": "errors",
    "UsageError": "errors",
    "align_spans": "core.align",
    "alt_test": "app.api",
    "compare": "app.api",
    "consensus": "app.api",
    "f_beta": "measures.psa.specific",
    "gate": "app.api",
    "next_tasks": "app.api",
    "plan": "app.api",
    "psa": "measures.psa.specific",
    "raters": "app.api",
    "read": "io",
    "score": "app.api",
}

__all__ = sorted(_HOME)


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'spanagree' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value  # found once; later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOME})
