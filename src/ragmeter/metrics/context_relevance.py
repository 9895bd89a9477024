"""Ragas ContextRelevance (NVIDIA): two judge templates rate the joined contexts 0/1/2 for
the question; each rating / 2, averaged; if only one rating is valid, that one is used.
A context identical to the question scores 0 without a call, as in Ragas.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ragmeter.errors import UnparseableReply
from ragmeter.metrics.base import Metric, MetricContext, Score
from ragmeter.metrics.judgment import JudgedOptions, Weighed, mode_of, weigh
from ragmeter.metrics.schemas import Rating
from ragmeter.samples import Sample

TEMPLATES = ("rating1", "rating2")
RATING = {0: 0.0, 1: 1.0, 2: 2.0}


def relevance(ratings: list[float | None]) -> float:
    """Each (expected) rating / 2, averaged over the valid ones."""
    valid = [r / 2 for r in ratings if r is not None]
    return sum(valid) / len(valid)


class ContextRelevance(Metric):
    name = "context_relevance"
    description = ("Are the retrieved contexts relevant to the question? Two judge templates rate 0/1/2, "
                   "normalised and averaged (Ragas/NVIDIA).")
    required = ("user_input", "retrieved_contexts")
    prompt_names = TEMPLATES
    Options = JudgedOptions

    def output_model(self, prompt_name: str, inputs: dict[str, Any]) -> type[BaseModel]:
        return Rating

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        question = (sample.user_input or "").strip()
        context = "\n".join(sample.retrieved_contexts or [])
        if context.strip() == question:
            return Score(0.0, "context is identical to the question (0, as Ragas)", {"ratings": []})
        ratings: list[int | None] = []
        weighed: list[Weighed | None] = []
        failures: list[str] = []
        for template in TEMPLATES:
            try:
                out = await self.judged(ctx, template, {"question": question, "context": context}, max_tokens=16)
                ratings.append(out.parsed.rating)
                weighed.append(weigh(out, "rating", out.parsed.rating, RATING, self.options.judgment))
            except UnparseableReply as exc:
                ratings.append(None)
                weighed.append(None)
                failures.append(f"{template}: {exc}")
        if all(r is None for r in ratings):
            raise UnparseableReply("; ".join(failures))
        value = relevance([w.value if w else None for w in weighed])
        valid = [w for w in weighed if w]
        return Score(value, f"ratings {ratings} (0-2 each)",
                     {"ratings": ratings, "expected_ratings": [round(w.value, 4) if w else None for w in weighed],
                      "rating_probs": [w.probs if w else None for w in weighed], "failures": failures,
                      "judgment": mode_of(valid)})
