"""Ragas ContextEntityRecall: share of the reference's named entities that also appear in
the retrieved contexts. The judge lists entities of each text (bounded lists); matching
ignores case and spacing. No entity in the reference is unscored."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable
from ragmeter.metrics.schemas import entities
from ragmeter.samples import Sample


def norm(entity: str) -> str:
    return " ".join(entity.casefold().split())


class ContextEntityRecall(Metric):
    name = "context_entity_recall"
    description = "Share of the reference's entities found among the retrieved contexts' entities (Ragas)."
    required = ("reference", "retrieved_contexts")
    prompt_names = ("entities",)

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return entities()

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        ref = await self.ask(ctx, "entities", {"text": sample.reference})
        wanted = {norm(e): e for e in ref.entities if e.strip()}
        if not wanted:
            raise Unscorable("the judge found no entities in the reference")
        found = await self.ask(ctx, "entities", {"text": "\n".join(sample.retrieved_contexts or [])})
        have = {norm(e) for e in found.entities}
        hits = [wanted[k] for k in wanted if k in have]
        return Score(len(hits) / len(wanted), f"{len(hits)} of {len(wanted)} reference entities in the contexts",
                     {"reference_entities": list(wanted.values()), "context_entities": found.entities,
                      "found": hits})
