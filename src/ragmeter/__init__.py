"""ragmeter: evaluate retrieval-augmented generation with numbers you can repeat.

`ragmeter.evaluate(data, metrics, judge=..., embeddings=...)` is the library entry point;
the `ragmeter` command wraps the same function. Imports are lazy: nothing heavy loads
until a judge or embedder is actually used.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["Comparison", "EvaluationResult", "Run", "__version__", "aevaluate", "compare", "estimate", "evaluate",
           "load_run"]
#: public name -> the module that defines it
_HOMES = {"evaluate": "api", "aevaluate": "api", "estimate": "api", "EvaluationResult": "run.result",
          "compare": "results.compare",
          "Comparison": "results.compare", "load_run": "results.runs", "Run": "results.runs"}
_LAZY = tuple(_HOMES)


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        from importlib import import_module

        return getattr(import_module(f"ragmeter.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'ragmeter' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The API shows in dir() and tab completion although it loads lazily."""
    return sorted({*globals(), *_LAZY})
