"""Retrieval ranking metrics from ids, no judge: hit rate, MRR, precision, recall and NDCG
at a cut-off k (all retrieved when k is not set).

Relevant ids come from `reference_context_ids` and/or `relevance_grades` (id -> grade,
grade > 0 is relevant; ids listed without a grade count 1). NDCG uses linear gains and
the ideal ranking of *all* relevant ids truncated at k, so a perfect ranking scores 1
(LlamaIndex builds the ideal from the retrieved list's length, which can stay below 1).
A repeated retrieved id counts once, at its first rank. Precision@k divides by k.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, Field

from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable
from ragmeter.samples import Sample


class RankOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    k: int | None = Field(default=None, ge=1)


def grades(sample: Sample) -> dict[str, float]:
    out = {i: 1.0 for i in sample.reference_context_ids or []}
    out.update(sample.relevance_grades or {})
    relevant = {i: g for i, g in out.items() if g > 0}
    if not relevant:
        raise Unscorable("no relevant context ids for this row")
    return relevant


def ranked(sample: Sample, k: int | None) -> list[str]:
    seen: list[str] = []
    for i in sample.retrieved_context_ids or []:
        if i not in seen:
            seen.append(i)
    return seen[:k] if k else seen


def dcg(gains: list[float]) -> float:
    return sum(g / math.log2(rank + 1) for rank, g in enumerate(gains, start=1))


class RankingMetric(Metric[RankOptions]):
    required = ("retrieved_context_ids",)
    needs_one_of = ("reference_context_ids", "relevance_grades")
    uses_judge = False
    base: str = ""

    def default_label(self) -> str:
        return f"{self.base}@{self.options.k}" if self.options.k else self.base

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        relevant = grades(sample)
        top = ranked(sample, self.options.k)
        value = self.compute(top, relevant)
        hits = [i for i in top if i in relevant]
        return Score(value, f"{len(hits)} relevant in the top {len(top)} of {len(relevant)} relevant",
                     {"ranked": top, "relevant": sorted(relevant), "hits": hits})

    def compute(self, top: list[str], relevant: dict[str, float]) -> float:
        raise NotImplementedError


class HitRate(RankingMetric):
    name, base = "hit_rate@k", "hit_rate"
    description = "1 if any relevant context is in the top k retrieved, else 0."

    def compute(self, top: list[str], relevant: dict[str, float]) -> float:
        return float(any(i in relevant for i in top))


class MRR(RankingMetric):
    name, base = "mrr@k", "mrr"
    description = "1 / rank of the first relevant context in the top k (0 if none)."

    def compute(self, top: list[str], relevant: dict[str, float]) -> float:
        return next((1.0 / rank for rank, i in enumerate(top, start=1) if i in relevant), 0.0)


class PrecisionAtK(RankingMetric):
    name, base = "precision@k", "precision"
    description = "Relevant contexts among the top k, divided by k (by the number retrieved when k is unset)."

    def compute(self, top: list[str], relevant: dict[str, float]) -> float:
        k = self.options.k or len(top)
        return sum(i in relevant for i in top) / k if k else 0.0


class RecallAtK(RankingMetric):
    name, base = "recall@k", "recall"
    description = "Share of the relevant contexts found in the top k."

    def compute(self, top: list[str], relevant: dict[str, float]) -> float:
        return sum(i in relevant for i in top) / len(relevant)


class NDCG(RankingMetric):
    name, base = "ndcg@k", "ndcg"
    description = "Normalised DCG at k with graded relevance; the ideal ranks all relevant contexts."
    required = ("retrieved_context_ids",)

    def compute(self, top: list[str], relevant: dict[str, float]) -> float:
        ideal = sorted(relevant.values(), reverse=True)[: self.options.k or len(relevant)]
        return dcg([relevant.get(i, 0.0) for i in top]) / dcg(ideal)
