"""Where the tests find the project's files, whatever folder a test module sits in."""
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
#: Files that annotation tools or their users committed to public repositories, kept beside the
#: checkout (never in it) with their sources and licences; see its README.md.
REAL_EXPORTS = ROOT.parent / "shared" / "real-exports"


def real_export(relative: str) -> Path:
    """The path of a third party's export under ``../shared/real-exports``; skips the test when
    that folder is not beside the checkout."""
    path = REAL_EXPORTS / relative
    if not path.exists():
        pytest.skip(f"{relative} of ../shared/real-exports is not beside this checkout")
    return path
