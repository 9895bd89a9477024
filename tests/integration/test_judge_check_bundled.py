"""The judge check on the default bundled judge (Qwen, in-process): copied answers read high,
unrelated ones low, among other rows' contexts, and no reason is a few-shot example's."""

from __future__ import annotations

import statistics

import pytest

from ragmeter.judge_check import judge_check
from ragmeter.prompts.template import builtin_prompt
from tests.unit.test_judge_check import ROWS

pytestmark = pytest.mark.integration


def test_the_default_judge_reads_copied_answers_high_and_unrelated_ones_low(tmp_path):
    result = judge_check(ROWS[:4], ["faithfulness"], judge="llamacpp", sizes=(3,), out=tmp_path / "jc",
                         cache=tmp_path / "c.sqlite", progress=False)
    checks = {c.check: c for c in result.metrics["faithfulness"].checks}
    assert checks["verbatim_sentence"].n == 4 and checks["unrelated_sentence"].n == 4
    assert checks["verbatim_sentence"].median >= 0.9
    assert checks["unrelated_sentence"].median <= 0.2
    assert result.metrics["faithfulness"].roc_auc >= 0.8
    examples = {v["reason"] for e in builtin_prompt("faithfulness", "verdicts").examples
                for v in e.output["verdicts"]}
    import json

    rows = [json.loads(line) for line in (tmp_path / "jc" / "runs" / "faithfulness" / "results.jsonl").open()]
    reasons = [s["reason"] for r in rows for s in r["faithfulness_evidence"]["statements"]]
    assert len(reasons) == sum(c.n for c in checks.values())
    assert not set(reasons) & examples
    assert statistics.median(r["faithfulness"] for r in rows if "/whole_context/" in r["id"]) >= 0.5
