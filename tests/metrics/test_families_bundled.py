"""Every judge-based metric family once on the real bundled model: each row scored, or
unscored with a reason, and no reply unparseable under the grammar."""

from __future__ import annotations

import json

import pytest

import ragmeter
from tests.bundled import DATASET, GEMMA, ROOT

pytestmark = pytest.mark.model


def check(result) -> None:
    for name, stats in result.manifest["metrics"].items():
        assert stats["unparseable"] == 0, name
        # the manifest's count against the rows themselves (n + unscored is the row count by construction)
        assert stats["n"] == sum(row[name] is not None for row in result.rows), name
        for row in result.rows:
            value = row[name]
            assert (value is not None and 0.0 <= value <= 1.0) or row[f"{name}_reason"], (row["id"], name)
        assert stats["ci95"] is None or stats["ci95"][0] <= stats["mean"] <= stats["ci95"][1], name


def test_ragas_llamaindex_and_rubric_families(tmp_path):
    rows = [json.loads(line) for line in DATASET.read_text().splitlines()][:2]
    rows[0]["response_b"], rows[1]["response_b"] = rows[1]["response"], rows[0]["response"]
    metrics = ["factual_correctness", "context_entity_recall", {"aspect_critic": {"strictness": 3}}, "rubric_score",
               "llamaindex_faithfulness", "correctness", "guideline_adherence", "pairwise", "answer_accuracy_rubric"]
    result = ragmeter.evaluate(rows, metrics, judge=GEMMA, cache=tmp_path / "c.sqlite", progress=False)
    check(result)
    assert result.manifest["metrics"]["aspect_critic_correctness"]["judge_calls"] == 6  # 3 per row, really asked
    pair = result.rows[0]["pairwise_evidence"]
    assert set(pair) == {"original_order", "swapped_order", "consistent"}


def test_agent_family(tmp_path):
    metrics = ["agent_goal_accuracy", "agent_goal_accuracy_without_reference", "tool_call_accuracy",
               "topic_adherence"]
    result = ragmeter.evaluate(ROOT / "examples" / "agents.jsonl", metrics, judge=GEMMA,
                               cache=tmp_path / "c.sqlite", progress=False)
    check(result)
    # no judge involved: exact values (a02 asked for today's weather instead of tomorrow's)
    assert [r["tool_call_accuracy"] for r in result.rows] == [1.0, 0.5]
