"""Production traces: a sample pulled from Phoenix as a dataset file, and a run's scores
published back onto the traces (files of traces are read by io/traces.py)."""

from ragmeter.traces.publish import Published, publish_run
from ragmeter.traces.pull import Pulled, Window, pull_traces

__all__ = ["Published", "Pulled", "Window", "publish_run", "pull_traces"]
