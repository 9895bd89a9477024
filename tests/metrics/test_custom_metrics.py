"""Users add their own metrics: a Metric instance passed to evaluate, or a class registered
under the `ragmeter.metrics` entry-point group of their package."""

from __future__ import annotations

import importlib.metadata

import pytest

import ragmeter
from ragmeter.errors import ConfigError
from ragmeter.metrics import Metric, Score, get_metric


class AnswerLength(Metric):
    """Share of the answer's words up to a budget: 1.0 when within it."""

    name = "answer_length"
    description = "1.0 when the response has at most 5 words, less the longer it is."
    required = ("response",)
    uses_judge = False

    async def score(self, sample, ctx):
        words = len((sample.response or "").split())
        return Score(min(1.0, 5 / words) if words else 1.0, f"{words} words", {"words": words})


ROWS = [{"id": "a", "response": "Paris.", "reference": "Paris."},
        {"id": "b", "response": "It is Paris, the capital city of France.", "reference": "Paris."}]


def test_a_metric_instance_runs_beside_built_in_ones():
    result = ragmeter.evaluate(ROWS, [AnswerLength(), "exact_match"], progress=False, cache=False)
    assert [r["answer_length"] for r in result.rows] == [1.0, 5 / 8]
    assert result.manifest["metrics"]["answer_length"]["mean"] == pytest.approx((1 + 5 / 8) / 2)
    assert result.manifest["config"]["metrics"][0].endswith("AnswerLength as answer_length")


def test_a_metric_registered_by_entry_point_is_found_by_name(monkeypatch):
    point = importlib.metadata.EntryPoint(name="answer_length", value=f"{__name__}:AnswerLength",
                                          group="ragmeter.metrics")
    taken = importlib.metadata.EntryPoint(name="faithfulness", value=f"{__name__}:AnswerLength",
                                          group="ragmeter.metrics")

    def entry_points(group: str):
        return [point, taken] if group == "ragmeter.metrics" else []

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    assert isinstance(get_metric("answer_length"), AnswerLength)
    assert type(get_metric("faithfulness")).__name__ == "Faithfulness"  # built-ins cannot be taken over
    result = ragmeter.evaluate(ROWS, ["answer_length"], progress=False, cache=False)
    assert result.rows[1]["answer_length"] == 5 / 8
    with pytest.raises(ConfigError, match="unknown metric 'answer_lenght'; did you mean 'answer_length'"):
        get_metric("answer_lenght")
