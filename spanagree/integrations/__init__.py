"""spaCy integration: the pipeline components and scorer, and the corpus reader for training."""
