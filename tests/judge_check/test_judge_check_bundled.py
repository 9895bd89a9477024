"""The judge check on the default bundled judge (Qwen, in-process) over the example documents:
copied answers read high and unrelated ones low among other chunks, and no reason is a
few-shot example's (measured: medians 0.998 and 0.110, 22 cases; 2026-11-27, with block excerpts: the whole
context's median 0.947; with the short-answer checks, 2026-11-25:
another row's short answer fails 4 of 4 at a median of 0.05, a copied one passes only 1 of 4 with its
fill-in question, median 0.33, and the ROC-AUC over all 30 cases is 0.893)."""

from __future__ import annotations

import json

import pytest

from ragmeter.judge_check import judge_check
from ragmeter.prompts.template import builtin_prompt
from tests.conftest import EXAMPLES

pytestmark = pytest.mark.model


def test_the_default_judge_reads_copied_answers_high_and_unrelated_ones_low(tmp_path):
    result = judge_check(EXAMPLES / "docs", ["faithfulness"], judge="llamacpp", chunk_size=500, limit=4, sizes=(3,),
                         out=tmp_path / "jc", cache=tmp_path / "c.sqlite", progress=False)
    faith = result.metrics["faithfulness"]
    checks = {c.check: c for c in faith.checks}
    # four sources of the six (measured 2026-11-29: medians 0.953 and 0.086, ROC-AUC 0.895 over 34
    # cases, 83 s; six sources took 189 s, the suite's slowest test)
    for name in ("verbatim_sentence", "whole_context"):
        assert checks[name].n == 4 and checks[name].pass_rate == 1.0 and checks[name].median >= 0.93
    assert checks["unrelated_sentence"].n == 4 and checks["unrelated_sentence"].pass_rate == 1.0
    assert checks["unrelated_sentence"].median <= 0.2
    assert checks["short_other"].n == 4 and checks["short_other"].pass_rate == 1.0
    assert faith.roc_auc >= 0.85
    rows = [json.loads(line) for line in (tmp_path / "jc" / "runs" / "faithfulness" / "results.jsonl").open()]
    reasons = [s["reason"] for r in rows for s in r["faithfulness_evidence"]["statements"]]
    assert len(reasons) >= faith.cases  # a case's answer may be several parts, each judged (issue 72)
    examples = {v["reason"] for e in builtin_prompt("faithfulness", "verdicts").examples
                for v in e.output["verdicts"]}
    assert not set(reasons) & examples
