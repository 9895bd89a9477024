"""Faithfulness as decisions (issue 74 item 5): each step returns what it decided, the metric
runs the steps in order, and the score, the reason and the evidence are loops over the
decisions; a step added to the list reaches all three without a line elsewhere."""

from __future__ import annotations

from dataclasses import dataclass

import ragmeter
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.metrics.base import MetricContext
from ragmeter.metrics.faithfulness import Faithfulness
from ragmeter.metrics.faithfulness.decisions import Decision
from ragmeter.metrics.faithfulness.steps import Grounding, Step

ROW = {"id": "r", "user_input": "How much does the kettle boil?", "retrieved_contexts": ["It boils 1.7 litres."],
       "response": "The kettle boils 1.7 litres of water."}
SUPPORTED = {"faithfulness.verdicts": {"verdicts": [{"reason": "said", "verdict": 1}]}}


@dataclass(frozen=True)
class LongAnswer:
    """A step that only flags: answers over `words` words."""

    words: int
    name: str = "long_answer"
    after_settled: bool = True  # it flags, never scores: it reads rows whose verdicts are settled too

    async def run(self, row: Grounding, ctx: MetricContext) -> Decision | None:
        n = len((row.sample.response or "").split())
        if n <= self.words:
            return None
        return Decision(self.name, clause=f"{n} words", section={"long_answer": n}, flags=("long_answer",))


@dataclass(frozen=True)
class Refuses:
    """A step that settles the score before any claim is cut."""

    name: str = "refuses"
    after_settled: bool = False

    async def run(self, row: Grounding, ctx: MetricContext) -> Decision | None:
        return Decision(self.name, "score", "refused before any claim", 0.25)


class WithSteps(Faithfulness):
    def __init__(self, first: list[Step], last: list[Step]) -> None:
        super().__init__()
        self.first, self.last = first, last

    def steps(self) -> list[Step]:
        return [*self.first, *super().steps(), *self.last]


def run(metric: Faithfulness) -> tuple[dict[str, object], ScriptedJudge]:
    judge = ScriptedJudge(SUPPORTED)
    result = ragmeter.evaluate([ROW], [metric], judge=judge, cache=False, progress=False)
    return result.rows[0], judge


def test_a_step_added_to_the_list_reaches_the_reason_and_the_evidence():
    plain, _ = run(Faithfulness())
    flagged, _ = run(WithSteps([], [LongAnswer(3)]))
    assert flagged["faithfulness"] == plain["faithfulness"] == 1.0
    assert flagged["faithfulness_reason"] == plain["faithfulness_reason"] + "; 7 words"
    assert flagged["faithfulness_evidence"] == {**plain["faithfulness_evidence"], "long_answer": 7,
                                                "flags": ["long_answer"]}
    assert run(WithSteps([], [LongAnswer(30)]))[0]["faithfulness_evidence"] == plain["faithfulness_evidence"]


def test_a_decision_that_settles_the_score_ends_the_row():
    out, judge = run(WithSteps([Refuses()], [LongAnswer(3)]))
    assert judge.calls() == 0  # no claim cut, no verdict asked, and not even a flag read after it
    assert (out["faithfulness"], out["faithfulness_reason"]) == (0.25, "refused before any claim")
    assert "long_answer" not in out["faithfulness_evidence"]


def test_a_copy_settles_the_verdicts_and_a_step_that_only_flags_still_reads_it():
    row = {**ROW, "response": "It boils 1.7 litres."}  # copied from the context as written
    judge = ScriptedJudge(SUPPORTED)
    result = ragmeter.evaluate([row], [WithSteps([], [LongAnswer(3)])], judge=judge, cache=False, progress=False)
    copied = result.rows[0]
    assert judge.calls() == 0 and copied["faithfulness"] == 1.0
    assert copied["faithfulness_reason"] == "copied from the contexts as written (1 run(s)), no judge call; 4 words"
    assert list(copied["faithfulness_evidence"])[-3:] == ["copied", "long_answer", "flags"]
