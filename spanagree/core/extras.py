"""Optional dependencies, the extras of ``pyproject.toml``: imported where they are needed, or a
UsageError that names what is missing here and the extra that installs it."""
from __future__ import annotations

import importlib
from types import ModuleType

from ..errors import UsageError


def need(extra: str, purpose: str, *modules: str) -> ModuleType:
    """The first of ``modules`` once all are imported, else a UsageError: ``{purpose} (pyarrow
    missing here): pip install 'spanagree[{extra}]'``."""
    missing = []
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(module.split(".")[0])
    if missing:
        raise UsageError(f"{purpose} ({' and '.join(dict.fromkeys(missing))} missing here): pip install "
                         f"'spanagree[{extra}]'")
    return importlib.import_module(modules[0])
