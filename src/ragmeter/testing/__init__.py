"""Test doubles for code built on ragmeter: a judge that answers from a script (metric
arithmetic checked exactly, no model) and run folders with chosen scores (compare, gates and
reports checked without a judge)."""

from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.testing.runs import metric_record, write_run

__all__ = ["ScriptedJudge", "metric_record", "write_run"]
