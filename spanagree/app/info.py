"""``spanagree info``: what a bug report needs, in one place.

The installed versions of spanagree, Python and the libraries it uses (required and optional),
the formats it reads and writes, and the entry points through which spaCy finds its components,
scorer and reader (a component that spaCy cannot find by name usually means a stale or a second
installation, which the entry points and the package location show). With ``--statistics``: the
catalogue of the statistics the report gives (:mod:`spanagree.catalogue`), the names ``gate`` and
``compare`` take.
"""
from __future__ import annotations

import platform
import re
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from .. import catalogue
from ..core.version import __version__
from ..io import formats
from ..outputs.tables import tables_as_text

#: Extras for developing spanagree, not for using it: their tools are not listed.
DEVELOPMENT_EXTRAS = ("test", "bench")
#: A requirement of the metadata: its distribution's name, and the extra its marker names if any.
_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)[^;]*(?:;.*extra\s*==\s*['\"]([^'\"]+)['\"])?")
#: The entry point groups spanagree installs: spaCy's registries and the console script.
GROUPS = ("spacy_factories", "spacy_scorers", "spacy_readers", "console_scripts")


def collect() -> dict[str, Any]:
    """The facts, as plain data."""

    return {
        "spanagree": __version__,
        "location": str(Path(__file__).resolve().parent),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "packages": _dependencies(extras=False),
        "optional": _dependencies(extras=True),
        "formats": [
            {"name": fmt.name, "write": fmt.write is not None, "description": fmt.description}
            for fmt in formats().values()
        ],
        "entry_points": _entry_points(),
    }


def as_text(facts: dict[str, Any]) -> str:
    """The facts as a few aligned lines, ready to paste into an issue."""
    lines = [
        f"spanagree   {facts['spanagree']}  ({facts['location']})",
        f"python      {facts['python']}  ({facts['platform']})",
        "packages    " + ", ".join(f"{k} {v or 'MISSING'}" for k, v in facts["packages"].items()),
        "optional    " + ", ".join(f"{k} {v or '-'}" for k, v in facts["optional"].items()),
        "formats (read; * also written):",
    ]
    width = max(len(f["name"]) for f in facts["formats"]) + 2
    for fmt in facts["formats"]:
        mark = "*" if fmt["write"] else " "
        lines.append(f"  {mark} {fmt['name']:<{width}}{fmt['description']}")
    lines.append("entry points:")
    for group, names in facts["entry_points"].items():
        lines.append(f"  {group}: {', '.join(names) if names else 'NONE (is spanagree installed?)'}")
    return "\n".join(lines)


def _dependencies(extras: bool) -> dict[str, str | None]:
    """The installed version (None: missing) of each distribution spanagree's installed metadata
    requires (``importlib.metadata.requires``): the required ones, or those of its extras but the
    development ones (``extras``)."""
    try:
        requirements = [_REQUIREMENT.match(r).groups() for r in metadata.requires("spanagree") or []]
    except metadata.PackageNotFoundError:
        return {}
    return {name: _version(name) for name, extra in requirements
            if (extra is not None) == extras and extra not in DEVELOPMENT_EXTRAS}


def statistics() -> list[dict[str, str]]:
    """The catalogue: one ``{"name", "family", "needs", "interval", "description"}`` per statistic."""
    return [statistic.as_dict() for statistic in catalogue.STATISTICS.values()]


def statistics_as_text(rows: list[dict[str, str]]) -> str:
    """The catalogue as a table, and the names compare takes."""
    table = tables_as_text([("Statistics (spanagree gate --min NAME=BOUND)", list(rows[0]), [list(r.values()) for r in rows])])
    return table.lstrip("\n") + "\ncompare --min takes " + ", ".join(s.name for s in catalogue.comparable())


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _entry_points() -> dict[str, list[str]]:
    """Every entry point of the spanagree distribution, by group (``name = module:object``)."""
    out: dict[str, list[str]] = {group: [] for group in GROUPS}
    for group in GROUPS:
        for ep in metadata.entry_points(group=group):
            if ep.value.startswith("spanagree."):
                out[group].append(f"{ep.name} = {ep.value}")
    return out

