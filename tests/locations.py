"""Where the tests find the project's files, whatever folder a test module sits in."""
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
FIXTURES = TESTS / "fixtures"
#: Real third-party exports (INCEpTION, dkpro-cassis, BioC, ...), read in place, never copied.
REAL_EXPORTS = ROOT.parent / "shared" / "real-exports"


def real_export(*parts: str) -> Path:
    """A file or folder of ``../shared/real-exports``; the test is skipped when it is absent."""
    import pytest

    path = REAL_EXPORTS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"../shared/real-exports/{'/'.join(parts)} is not beside this checkout")
    return path
