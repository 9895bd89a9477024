"""Criterion and rubric judges: Ragas AspectCritic and RubricScore, and the Hugging Face
cookbook's Prometheus-style answer accuracy rubric.

AspectCritic's `strictness` N really asks N times and takes the majority: with
deterministic decoding N identical calls would return one answer N times, so call k
shows the few-shot examples in its own order (a different prompt, a different cache key).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from ragmeter.errors import UnparseableReply
from ragmeter.judges.replies import prometheus_result
from ragmeter.metrics.base import Metric, MetricContext, Score
from ragmeter.samples import Sample

FEEDBACK_MAX = 300
NO_REFERENCE = "(no reference answer given)"


class CriticVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = Field(max_length=150)
    verdict: Literal[0, 1]


class CriticOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(default="correctness", pattern=r"^[A-Za-z0-9_\-]+$")
    definition: str = Field(default="Is the answer factually correct and does it address the question?",
                            min_length=5)
    strictness: int = Field(default=1, ge=1, le=9)

    @field_validator("strictness")
    @classmethod
    def _odd(cls, value: int) -> int:
        if value % 2 == 0:
            raise ValueError("strictness must be odd, so the majority is never a tie")
        return value


class AspectCritic(Metric[CriticOptions]):
    name = "aspect_critic"
    description = ("Yes/no against a named criterion you define; strictness N asks N times (examples in "
                   "different orders) and takes the majority (Ragas AspectCritic).")
    required = ("user_input", "response")
    prompt_names = ("verdict",)

    def default_label(self) -> str:
        return f"aspect_critic_{self.options.name}"

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return CriticVerdict

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        base = ctx.prompt(self.prompt_metric, "verdict")
        orders = list(itertools.permutations(base.examples)) or [()]
        inputs = {"criterion": f"{self.options.name}: {self.options.definition}",
                  "question": sample.user_input, "answer": sample.response}
        votes = []
        for k in range(self.options.strictness):
            prompt = base.model_copy(update={"examples": tuple(orders[k % len(orders)])})
            votes.append(await ctx.ask(prompt, inputs, CriticVerdict))
        yes = sum(v.verdict for v in votes)
        value = float(yes * 2 > len(votes))
        return Score(value, f"{yes} of {len(votes)} judgements say the answer meets '{self.options.name}'",
                     {"votes": [{"verdict": v.verdict, "reason": v.reason} for v in votes],
                      "distinct_prompts": min(len(votes), len(orders))})


def from_five(score: float) -> float:
    """A 1-5 judge score on the [0, 1] scale every metric reports: (s - 1) / 4."""
    return (score - 1) / 4


def scored(limit: int, score_field: str, text_field: str) -> type[BaseModel]:
    """A 1-5 score, then the text that explains it: the score first so that its
    probabilities come from the inputs, not from the judge's own reasoning (as Verdict)."""
    fields: dict[str, Any] = {score_field: (Literal[1, 2, 3, 4, 5], ...), text_field: (str, Field(max_length=limit))}
    return create_model(f"Scored_{text_field}_{score_field}", __config__=ConfigDict(extra="forbid"), **fields)


RubricReply = scored(FEEDBACK_MAX, "score", "feedback")

DEFAULT_RUBRIC = {
    "1": "The answer is incorrect, irrelevant, or contradicts the reference.",
    "2": "The answer is mostly incorrect; a small part is relevant or right.",
    "3": "The answer is partly correct but misses or misstates important points.",
    "4": "The answer is mostly correct and relevant, with minor gaps.",
    "5": "The answer is fully correct, relevant and complete.",
}


class RubricOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rubric: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_RUBRIC))

    @field_validator("rubric")
    @classmethod
    def _five_levels(cls, value: dict[str, str]) -> dict[str, str]:
        if sorted(value) != ["1", "2", "3", "4", "5"]:
            raise ValueError("the rubric describes each score 1 to 5: keys '1' ... '5'")
        return value


class RubricScore(Metric[RubricOptions]):
    name = "rubric_score"
    description = "1-5 score against a rubric (yours or the default), normalised (s-1)/4; raw score kept (Ragas)."
    required = ("user_input", "response")
    prompt_names = ("score",)

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return RubricReply

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        rubric = " ".join(f"{k}: {v}" for k, v in sorted(self.options.rubric.items()))
        out = await self.ask(ctx, "score", {"rubric": rubric, "question": sample.user_input,
                                            "answer": sample.response, "reference": sample.reference or NO_REFERENCE})
        return Score(from_five(out.score), f"rubric score {out.score} of 5",
                     {"raw_score": out.score, "feedback": out.feedback})


class AccuracyReply(scored(FEEDBACK_MAX, "result", "feedback")):  # type: ignore[misc]
    """JSON, or the Prometheus text format `Feedback: ... [RESULT] n` from judges trained on it."""

    @classmethod
    def from_text(cls, text: str) -> AccuracyReply:
        found = prometheus_result(text)
        if found is None:
            raise UnparseableReply("no JSON object and no '[RESULT] n' in the reply", text)
        feedback, result = found
        return cls(feedback=feedback[:FEEDBACK_MAX], result=result)


class AnswerAccuracyRubric(Metric):
    name = "answer_accuracy_rubric"
    description = ("Prometheus-style 1-5 accuracy against the reference, feedback before score, normalised "
                   "(s-1)/4; an unparseable reply is unscored, never 1 (Hugging Face cookbook).")
    required = ("user_input", "response", "reference")
    prompt_names = ("score",)

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return AccuracyReply

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        out = await self.ask(ctx, "score", {"instruction": sample.user_input, "response": sample.response,
                                            "reference": sample.reference})
        return Score(from_five(out.result), f"[RESULT] {out.result}", {"raw_score": out.result,
                                                                     "feedback": out.feedback})
