"""Ragas SemanticSimilarity: cosine of the response's and the reference's embeddings,
optionally turned into pass/fail at a threshold. A negative cosine is reported as 0."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from ragmeter.embeddings.base import cosine
from ragmeter.metrics.base import Metric, MetricContext, Score
from ragmeter.samples import Sample


class SimilarityOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    threshold: float | None = Field(default=None, ge=-1.0, le=1.0)


async def embedding_similarity(ctx: MetricContext, a: str, b: str) -> float:
    first, second = await ctx.embed([a, b])
    return cosine(first, second)


class SemanticSimilarity(Metric[SimilarityOptions]):
    name = "semantic_similarity"
    description = "Embedding cosine between response and reference; 1/0 at `threshold` if set (Ragas)."
    required = ("response", "reference")
    uses_judge = False
    uses_embeddings = True

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        raw = await embedding_similarity(ctx, sample.response or "", sample.reference or "")
        evidence = {"cosine": round(raw, 6)}
        if self.options.threshold is not None:
            passed = raw >= self.options.threshold
            return Score(float(passed), f"cosine {raw:.3f} {'>=' if passed else '<'} {self.options.threshold}",
                         evidence)
        return Score(min(1.0, max(0.0, raw)), f"cosine {raw:.3f}", evidence)
