"""Where the tests find the project's files, whatever folder a test module sits in."""
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
#: Files that annotation tools or their users committed to public repositories (brat, Prodigy,
#: INCEpTION, dkpro-cassis, BioC, ...), kept beside the checkout (never in it) with their sources
#: and licences; see its README.md.
REAL_EXPORTS = ROOT.parent / "shared" / "real-exports"


def real_export(*parts: str) -> Path:
    """The path of a third party's export under ``../shared/real-exports`` (``"a/b"`` or
    ``"a", "b"``); skips the test when it is not beside the checkout."""
    path = REAL_EXPORTS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{'/'.join(parts)} of ../shared/real-exports is not beside this checkout")
    return path
