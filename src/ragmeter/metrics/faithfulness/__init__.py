"""Faithfulness (Ragas's, judged part by part): whether the retrieved contexts support the response
(metric.py), scored in steps (steps.py, claims.py, decided.py, views.py) set by options.py."""

from ragmeter.metrics.faithfulness.metric import NO_CLAIM, NO_STATEMENTS, Faithfulness, faithfulness, is_short
from ragmeter.metrics.faithfulness.options import FaithfulnessOptions

__all__ = ["NO_CLAIM", "NO_STATEMENTS", "Faithfulness", "FaithfulnessOptions", "faithfulness", "is_short"]
