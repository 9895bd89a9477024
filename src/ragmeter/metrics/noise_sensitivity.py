"""Ragas NoiseSensitivity: how often the response states something incorrect that the
retrieved contexts support. Lower is better.

Claims of the response and of the reference; a context is relevant when it supports some
reference claim; a response claim is incorrect when the reference does not support it.
mode "relevant": share of response claims that are incorrect and supported by a relevant
context; mode "irrelevant": incorrect and supported only by irrelevant contexts.
Calls: 2 (claims) + 2 per context + 1. A count of wrong claims, so 0/1 labels only.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ragmeter.metrics.base import MetricContext, Score, Unscorable
from ragmeter.metrics.factual_correctness import ClaimMetric
from ragmeter.samples import Sample


class NoiseOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: Literal["relevant", "irrelevant"] = "relevant"


def noise(answer_by_context: list[list[int]], relevant: list[bool], correct: list[int], mode: str) -> float:
    """answer_by_context[j][i]: context j supports response claim i."""
    n = len(correct)
    by_relevant = [any(col[i] and rel for col, rel in zip(answer_by_context, relevant)) for i in range(n)]
    if mode == "relevant":
        flagged = [by_relevant[i] and not correct[i] for i in range(n)]
    else:
        by_irrelevant = [any(col[i] and not rel for col, rel in zip(answer_by_context, relevant)) for i in range(n)]
        flagged = [by_irrelevant[i] and not by_relevant[i] and not correct[i] for i in range(n)]
    return sum(flagged) / n


class NoiseSensitivity(ClaimMetric[NoiseOptions]):
    name = "noise_sensitivity"
    description = ("Share of the response's claims that are wrong (not supported by the reference) yet "
                   "supported by relevant (or, mode irrelevant, only irrelevant) contexts; lower is better (Ragas).")
    required = ("response", "reference", "retrieved_contexts")
    higher_is_better = False

    def default_label(self) -> str:
        return f"{self.name}_{self.options.mode}"

    async def flags(self, ctx: MetricContext, premise: str, claims: list[str]) -> list[int]:
        return [w.label for w in await self.supported(ctx, premise, claims)]

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        answer = await self.claims(ctx, sample.response or "")
        if not answer:
            raise Unscorable("the judge found no claims in the response")
        truth = await self.claims(ctx, sample.reference or "")
        contexts = sample.retrieved_contexts or []
        answer_by_context = [await self.flags(ctx, c, answer) for c in contexts]
        relevant = [any(await self.flags(ctx, c, truth)) if truth else False for c in contexts]
        correct = await self.flags(ctx, sample.reference or "", answer)
        value = noise(answer_by_context, relevant, correct, self.options.mode)
        evidence: dict[str, Any] = {"response_claims": [{"claim": a, "correct": c} for a, c in zip(answer, correct)],
                                    "relevant_contexts": relevant, "support_by_context": answer_by_context}
        return Score(value, f"{value:.3f} of the response's claims are wrong and context-supported "
                            f"({self.options.mode} contexts)", evidence)
