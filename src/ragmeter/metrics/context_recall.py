"""Ragas LLMContextRecall: share of the reference's claims the retrieved context supports.

One call: the judge splits the reference into claims and attributes each (1/0). The list
is bounded by the reference's length; exact repeats are dropped. 3 of 4 -> 0.75.
"""

from __future__ import annotations

from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable
from ragmeter.metrics.schemas import attributions, claim_limit, unique
from ragmeter.samples import Sample


def recall(flags: list[int]) -> float:
    if not flags:
        raise Unscorable("the judge found no claims in the reference")
    return sum(flags) / len(flags)


class ContextRecall(Metric):
    name = "context_recall"
    description = ("Did retrieval find everything needed? Share of the reference's claims that the "
                   "retrieved contexts support (Ragas LLMContextRecall).")
    required = ("user_input", "retrieved_contexts", "reference")
    prompt_names = ("attribution",)

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        reference = sample.reference or ""
        inputs = {"question": sample.user_input, "contexts": sample.retrieved_contexts, "reference": reference}
        out = await ctx.ask(ctx.prompt(self.name, "attribution"), inputs, attributions(claim_limit(reference)))
        claims = unique(out.classifications, key=lambda c: c.statement)
        flags = [c.attributed for c in claims]
        value = recall(flags)
        evidence = {"claims": [c.model_dump() for c in claims],
                    "repeats_dropped": len(out.classifications) - len(claims)}
        return Score(value, f"{sum(flags)} of {len(flags)} reference claims supported by the contexts", evidence)
