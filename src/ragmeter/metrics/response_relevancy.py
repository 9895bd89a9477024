"""Ragas ResponseRelevancy: mean cosine between the question and questions generated from
the response; 0 when the judge marks the response noncommittal.

`strictness` questions come from one call whose schema demands exactly that many, so
all of them arrive (Ragas asks for n generations and gets 1 from most backends; with
deterministic decoding n identical calls would return n identical questions anyway).
A negative mean cosine is reported as 0 so every score lies in [0, 1]; the raw mean is
kept in the evidence.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from ragmeter.embeddings.base import cosine
from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable
from ragmeter.metrics.schemas import questions
from ragmeter.samples import Sample

STRICTNESS = 3


def relevancy(similarities: list[float], noncommittal: bool) -> float:
    if not similarities:
        raise Unscorable("the judge generated no questions")
    if noncommittal:
        return 0.0
    return min(1.0, max(0.0, sum(similarities) / len(similarities)))


class ResponseRelevancy(Metric):
    name = "response_relevancy"
    description = ("Does the response address the question? Questions generated from the response, "
                   "compared with the real one by embedding cosine; 0 if noncommittal (Ragas).")
    required = ("user_input", "response")
    prompt_names = ("questions",)
    uses_embeddings = True

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return questions(STRICTNESS)

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        out = await self.ask(ctx, "questions", {"answer": sample.response})
        generated = [q.strip() for q in out.questions if q.strip()]
        if not generated:
            raise Unscorable("the judge generated only empty questions")
        vectors = await ctx.embed([sample.user_input or "", *generated])
        sims = [cosine(vectors[0], v) for v in vectors[1:]]
        value = relevancy(sims, bool(out.noncommittal))
        evidence = {"generated_questions": generated, "similarities": [round(s, 6) for s in sims],
                    "noncommittal": out.noncommittal, "mean_cosine": round(sum(sims) / len(sims), 6)}
        why = "noncommittal response" if out.noncommittal else f"mean cosine over {len(sims)} generated questions"
        return Score(value, why, evidence)
