"""The command line, one module per command group (evaluate, results, judges, testset, rag,
prompts); `app.py` puts them together. Commands parse flags and call the library."""

from ragmeter.cli.app import app, main

__all__ = ["app", "main"]
