"""Ragas LLMContextPrecisionWithoutReference and LLMContextPrecisionWithReference.

One usefulness verdict per retrieved chunk, then average precision over the ranking:
sum_k (precision@k * v_k) / (number of useful chunks). Verdicts [0, 1, 1] -> 0.5833.
All chunks judged in one call with exactly one verdict per chunk (Ragas makes one call
per chunk; the arithmetic is the same, the question and answer are sent once).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from ragmeter.metrics.base import Metric, MetricContext, Score, count
from ragmeter.metrics.judgment import JudgedOptions, mode_of, p_one, weigh_verdicts
from ragmeter.metrics.schemas import verdicts
from ragmeter.samples import Sample


def average_precision(flags: Sequence[float]) -> float:
    """Ragas's context precision; 0.0 when no chunk is useful (a real score, not a gap).
    With probabilities for flags, the same formula over expected usefulness."""
    relevant = sum(flags)
    if relevant <= 0:
        return 0.0
    hits, total = 0.0, 0.0
    for k, flag in enumerate(flags, start=1):
        hits += flag
        total += flag * hits / k
    return total / relevant


class ContextPrecision(Metric[JudgedOptions]):
    name = "context_precision"
    description = ("Are the useful retrieved chunks ranked first? Judge marks each chunk useful for the "
                   "response; average precision over the ranking (Ragas, without reference).")
    required = ("user_input", "response", "retrieved_contexts")
    prompt_names = ("usefulness",)
    aligned_prompts = ("usefulness",)
    row_first_prompts = ("usefulness",)
    answer_field = "response"
    answer_key = "answer"

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return verdicts(count(inputs["contexts"]))

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        contexts = sample.retrieved_contexts or []
        inputs = {"question": sample.user_input, self.answer_key: getattr(sample, self.answer_field),
                  "contexts": contexts}
        out = await self.answer(ctx, "usefulness", inputs)
        weighed = weigh_verdicts(out, out.parsed.verdicts, self.options.judgment)
        flags = [v.verdict for v in out.parsed.verdicts]
        evidence = {"verdicts": [{"context": i, "verdict": v.verdict, "p_useful": p_one(w), "reason": v.reason}
                                 for i, (v, w) in enumerate(zip(out.parsed.verdicts, weighed), start=1)],
                    "judgment": mode_of(weighed)}
        return Score(average_precision([w.value for w in weighed]),
                     f"{sum(flags)} of {len(flags)} chunks useful; ranks {flags}", evidence)


class ContextPrecisionWithReference(ContextPrecision):
    name = "context_precision_with_reference"
    description = ("Are the chunks useful for the reference answer ranked first? Average precision of "
                   "per-chunk verdicts against the reference (Ragas, with reference).")
    required = ("user_input", "reference", "retrieved_contexts")
    answer_field = "reference"
    answer_key = "reference"
