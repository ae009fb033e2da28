"""The application: the public entry points that read (:func:`spanagree.score`), the settings,
and the command line."""
