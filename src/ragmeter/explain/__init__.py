"""`ragmeter explain RUN`: write the reasons a run left out (`reasons: failing|none`) for the
rows a user wants to read, in place. The work is in `reasons.py`."""

from ragmeter.explain.reasons import Explained, explain  # noqa: F401 - the package's public face

__all__ = ["Explained", "explain"]
