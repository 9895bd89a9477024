"""Ragas LLMContextRecall: share of the reference's sentences the retrieved context supports.

Ragas's prompt asks the judge to "analyze each sentence in the answer and classify if the
sentence can be attributed to the given context". Here the reference is split into
sentences first (text.py) and the judge gives exactly one verdict per sentence:
the same definition, but the judge cannot invent, merge or repeat claims, and does not
spend tokens echoing them. 3 of 4 sentences supported -> 0.75.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable, count, supported_share
from ragmeter.metrics.judgment import JudgedOptions, mode_of, p_one, weigh_verdicts
from ragmeter.metrics.schemas import verdicts
from ragmeter.reading.sentences import split_sentences
from ragmeter.samples import Sample

NO_SENTENCES = "the reference has no sentences"


def recall(flags: list[float]) -> float:
    return supported_share(flags, NO_SENTENCES)


class ContextRecall(Metric[JudgedOptions]):
    name = "context_recall"
    description = ("Did retrieval find everything needed? Share of the reference's sentences that the "
                   "retrieved contexts support (Ragas LLMContextRecall).")
    required = ("user_input", "retrieved_contexts", "reference")
    prompt_names = ("attribution",)
    aligned_prompts = ("attribution",)
    row_first_prompts = ("attribution",)

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return verdicts(count(inputs["sentences"]))

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        sentences = split_sentences(sample.reference or "")
        if not sentences:
            raise Unscorable(NO_SENTENCES)
        inputs = {"question": sample.user_input, "contexts": sample.retrieved_contexts, "sentences": sentences}
        out = await self.answer(ctx, "attribution", inputs)
        weighed = weigh_verdicts(out, out.parsed.verdicts, self.options.judgment)
        evidence = {"claims": [{"statement": s, "attributed": v.verdict, "p_attributed": p_one(w), "reason": v.reason}
                               for s, v, w in zip(sentences, out.parsed.verdicts, weighed)],
                    "judgment": mode_of(weighed)}
        labels = sum(v.verdict for v in out.parsed.verdicts)
        return Score(recall([w.value for w in weighed]),
                     f"{labels} of {len(weighed)} reference sentences supported by the contexts", evidence)
