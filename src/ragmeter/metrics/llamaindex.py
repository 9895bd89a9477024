"""The LlamaIndex judge family (prompts from its evaluators, replies as JSON labels).

- faithfulness / relevancy: YES/NO for the first context chunk, then the refine prompt
  for each next chunk with the existing answer. The refine prompt keeps a YES, so the
  loop stops at the first YES (LlamaIndex packs chunks into as few calls as fit; the
  verdict rule is the same). With `judgment: probability` the value is P(YES) of the
  call that decided.
- correctness: 1-5 with reasoning; passing at `threshold` (default 4.0); value (s-1)/4,
  of the expected score with `judgment: probability`.
- guideline_adherence: your guidelines (LlamaIndex's defaults otherwise); feedback + pass.
- pairwise: both orders asked (balanced position calibration); if the two disagree the
  result is a tie. 1.0 = `response` better, 0.0 = `response_b` better, 0.5 = tie.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ragmeter.metrics.base import Metric, MetricContext, Score
from ragmeter.metrics.judgment import JudgedOptions, weigh
from ragmeter.metrics.rubrics import from_five, scored
from ragmeter.samples import Sample


class YesNo(BaseModel):
    model_config = ConfigDict(extra="forbid")
    answer: Literal["YES", "NO"]


YES = {"YES": 1.0, "NO": 0.0}


class RefineMetric(Metric[JudgedOptions]):
    prompt_names = ("eval", "refine")
    input_key = "information"

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return YesNo

    def subject(self, sample: Sample) -> str:
        raise NotImplementedError

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        subject = self.subject(sample)
        trail: list[str] = []
        for chunk in sample.retrieved_contexts or []:
            if not trail:
                out = await self.answer(ctx, "eval", {self.input_key: subject, "context": chunk}, max_tokens=16)
            else:
                out = await self.answer(ctx, "refine", {self.input_key: subject, "existing_answer": trail[-1],
                                                        "context": chunk}, max_tokens=16)
            trail.append(out.parsed.answer)
            if out.parsed.answer == "YES":
                break
        decided = weigh(out, "answer", out.parsed.answer, YES, self.options.judgment)
        passing = trail[-1] == "YES"
        return Score(decided.value, f"{trail[-1]} after {len(trail)} chunk(s)",
                     {"passing": passing, "feedback": trail[-1], "answers_by_chunk": trail,
                      "p_yes": decided.value if decided.probs else None, "judgment": decided.mode})


class LlamaIndexFaithfulness(RefineMetric):
    name = "llamaindex_faithfulness"
    description = "Is the response supported by the contexts? YES/NO with refine over chunks (LlamaIndex)."
    required = ("response", "retrieved_contexts")

    def subject(self, sample: Sample) -> str:
        return sample.response or ""


class LlamaIndexRelevancy(RefineMetric):
    name = "llamaindex_relevancy"
    description = ("Are query and response in line with the contexts? YES/NO with refine over chunks "
                   "(LlamaIndex).")
    required = ("user_input", "response", "retrieved_contexts")
    input_key = "query_and_response"

    def subject(self, sample: Sample) -> str:
        return f"Query: {sample.user_input} Response: {sample.response}"


CorrectnessReply = scored(300, "score", "reasoning")


FIVE = {s: float(s) for s in range(1, 6)}


class CorrectnessOptions(JudgedOptions):
    threshold: float = Field(default=4.0, ge=1.0, le=5.0)


class Correctness(Metric[CorrectnessOptions]):
    name = "correctness"
    description = ("1-5 holistic correctness against the reference with reasoning; passing at the threshold "
                   "(default 4.0); value (s-1)/4 (LlamaIndex CorrectnessEvaluator).")
    required = ("user_input", "response", "reference")
    prompt_names = ("score",)

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return CorrectnessReply

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        answer = await self.answer(ctx, "score", {"query": sample.user_input, "reference": sample.reference,
                                                  "answer": sample.response})
        out = answer.parsed
        expected = weigh(answer, "score", out.score, FIVE, self.options.judgment)
        passing = expected.value >= self.options.threshold
        return Score(from_five(expected.value),
                     f"score {out.score} of 5 (expected {expected.value:.2f}), "
                     f"{'passing' if passing else 'not passing'}",
                     {"raw_score": out.score, "expected_score": round(expected.value, 4), "score_probs": expected.probs,
                      "passing": passing, "feedback": out.reasoning, "judgment": expected.mode})


DEFAULT_GUIDELINES = ("The response should fully answer the query. The response should avoid being vague or "
                      "ambiguous. The response should be specific and use statistics or numbers when possible.")


class GuidelineReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    feedback: str = Field(max_length=300)
    passing: Literal[0, 1]


class GuidelineOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    guidelines: str = Field(default=DEFAULT_GUIDELINES, min_length=5)


class GuidelineAdherence(Metric[GuidelineOptions]):
    name = "guideline_adherence"
    description = "Does the response follow your guidelines? Feedback and pass/fail (LlamaIndex GuidelineEvaluator)."
    required = ("user_input", "response")
    prompt_names = ("verdict",)

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return GuidelineReply

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        out = await self.ask(ctx, "verdict", {"query": sample.user_input, "response": sample.response,
                                              "guidelines": self.options.guidelines})
        return Score(float(out.passing), "passing" if out.passing else "not passing",
                     {"passing": bool(out.passing), "feedback": out.feedback})


class PairwiseReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = Field(max_length=200)
    winner: Literal["1", "2", "TIE"]


def consensus(first: str, second_swapped: str) -> float:
    """First call: 1 = response. Second call (swapped): 1 = response_b. Disagreement is a tie."""
    a = {"1": 1.0, "2": 0.0, "TIE": 0.5}[first]
    b = {"1": 0.0, "2": 1.0, "TIE": 0.5}[second_swapped]
    return a if a == b else 0.5


class Pairwise(Metric):
    name = "pairwise"
    description = ("Which of two answers is better? Both orders asked; disagreement is a tie. 1 = response, "
                   "0 = response_b, 0.5 = tie (LlamaIndex PairwiseComparisonEvaluator).")
    required = ("user_input", "response", "response_b")
    prompt_names = ("compare",)

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return PairwiseReply

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        first = await self.ask(ctx, "compare", {"query": sample.user_input, "answer_1": sample.response,
                                                "answer_2": sample.response_b})
        second = await self.ask(ctx, "compare", {"query": sample.user_input, "answer_1": sample.response_b,
                                                 "answer_2": sample.response})
        value = consensus(first.winner, second.winner)
        verdict = {1.0: "response better", 0.0: "response_b better", 0.5: "tie"}[value]
        return Score(value, f"{verdict} (orders: {first.winner}, {second.winner} swapped)",
                     {"original_order": first.model_dump(), "swapped_order": second.model_dump(),
                      "consistent": first.winner == {"1": "2", "2": "1", "TIE": "TIE"}[second.winner]})
