"""``python -m spanagree``: the same command line as ``spanagree``."""
from .app.cli import main

if __name__ == "__main__":
    main()
