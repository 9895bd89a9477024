"""The faithfulness metric's package: `metric.py` runs a list of steps (`steps.py`, `claims.py`,
`shortcuts.py`, `views.py`), each set by its options model (`options.py`) and returning what it
decided (`decisions.py`)."""

from ragmeter.metrics.faithfulness.metric import NO_CLAIM, NO_STATEMENTS, Faithfulness, faithfulness, is_short
from ragmeter.metrics.faithfulness.options import FaithfulnessOptions

__all__ = ["NO_CLAIM", "NO_STATEMENTS", "Faithfulness", "FaithfulnessOptions", "faithfulness", "is_short"]
