"""Ragas Faithfulness: share of the response's statements the retrieved context supports.

Two calls: statements from the response (bounded list, repeats dropped), then exactly
one verdict per statement. Zero statements is unscored with a reason (Ragas gives NaN).
Einstein example: 1 of 2 statements inferable -> 0.5.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable, supported_share
from ragmeter.metrics.schemas import claim_limit, statements, unique, verdicts
from ragmeter.samples import Sample


def faithfulness(flags: list[int]) -> float:
    return supported_share(flags, "the judge found no statements in the response")


class Faithfulness(Metric):
    name = "faithfulness"
    description = ("Is the response grounded? Share of the response's statements that can be inferred "
                   "from the retrieved contexts (Ragas Faithfulness).")
    required = ("user_input", "response", "retrieved_contexts")
    prompt_names = ("statements", "verdicts")

    def output_model(self, prompt_name: str, inputs: dict[str, Any]) -> type[BaseModel]:
        if prompt_name == "statements":
            return statements(claim_limit(inputs["answer"]))
        return verdicts(len(inputs["statements"]))

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        response = sample.response or ""
        found = await self.ask(ctx, "statements", {"question": sample.user_input, "answer": response})
        claims = unique(found.statements)
        if not claims:
            raise Unscorable("the judge found no statements in the response")
        judged = await self.ask(ctx, "verdicts", {"contexts": sample.retrieved_contexts, "statements": claims})
        flags = [v.verdict for v in judged.verdicts]
        evidence = {"statements": [{"statement": s, "verdict": v.verdict, "reason": v.reason}
                                   for s, v in zip(claims, judged.verdicts)],
                    "repeats_dropped": len(found.statements) - len(claims)}
        return Score(faithfulness(flags), f"{sum(flags)} of {len(flags)} statements supported by the contexts",
                     evidence)
