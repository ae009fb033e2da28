"""The package's version (as in ``pyproject.toml``)."""

__version__ = "0.1.0"
