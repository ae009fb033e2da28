"""Optional dependencies, the extras of ``pyproject.toml``: imported where they are needed, or a
UsageError that names what is missing here and the extra that installs it."""
from __future__ import annotations

import importlib
import importlib.util
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


def have(extra: str, purpose: str, *modules: str) -> None:
    """:func:`need` without importing: a UsageError unless every one of ``modules`` (top-level
    packages) is installed, for a check made before the work that will import them."""
    missing = [module for module in modules if importlib.util.find_spec(module) is None]
    if missing:
        raise UsageError(f"{purpose} ({' and '.join(missing)} missing here): pip install 'spanagree[{extra}]'")
