"""RAG quality as pytest tests, with ragmeter's pytest plugin (installed with ragmeter).

    pytest examples/ci                                   # the bundled judge, offline
    pytest examples/ci --ragmeter-judge openai:gpt-4o-mini

Judge replies are cached, so re-running with unchanged rows and prompts calls no judge: the
last line of pytest's output says how many calls were made.
"""

from __future__ import annotations

import json
from pathlib import Path

DATASET = Path(__file__).resolve().parents[1] / "dataset.jsonl"
ROWS = {r["id"]: r for r in map(json.loads, DATASET.read_text(encoding="utf-8").splitlines()) if r}


def rows(*ids: str) -> list[dict]:
    return [ROWS[i] for i in ids]


def test_grounded_answers_pass_the_faithfulness_bar(ragmeter_eval):
    result = ragmeter_eval(rows("q01", "q03", "q07", "q09"), metrics=["faithfulness"])
    assert result.passes(faithfulness=0.7)


def test_hallucinated_answers_score_below_grounded_ones(ragmeter_eval):
    grounded, hallucinated = ("q01", "q03", "q07", "q09"), ("q02", "q06", "q15")
    result = ragmeter_eval(rows(*grounded, *hallucinated), metrics=["faithfulness"])  # q01..q09: cached above
    score = {r["id"]: r["faithfulness"] for r in result.rows}
    assert max(score[i] for i in hallucinated) < min(score[i] for i in grounded), score


def test_answers_overlap_their_references(ragmeter_eval):
    # lexical metrics need no judge: a cheap check that runs on every push
    result = ragmeter_eval(list(ROWS.values()), metrics=["rouge"])
    assert result.passes(rouge=0.3)
