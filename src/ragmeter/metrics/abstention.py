"""Abstention as an outcome: did the answer decline, and should it have?

Two judgments per row, both read as a probability: the answer *declines* (the judge reads
the answer, in the run's language; not a phrase list, which misses most declines and every
language it was not written in), and the contexts *hold an answer* to the question
(`answerability: verdict`, a judge verdict; or `likelihood`, context_relevance's fitted
question-likelihood line, in-process llama.cpp judges only). Each row then falls in one
of four outcomes, and each metric here is one outcome's share of the run's rows:

| metric | the answer | its contexts | better |
|---|---|---|---|
| `abstention` | declined exactly when | could not answer | higher |
| `correct_abstention` | declined | could not answer | (a share, not a target) |
| `false_confidence` | answered | could not answer | lower |
| `over_refusal` | declined | could answer | lower |

With `judgment: probability` a row counts by the product of its two probabilities (a row
80% sure to decline over contexts 90% sure to answer adds 0.72 to over-refusal), so the
four shares sum to 1 on every row. Every row is scored in all four: the means are rates
over the whole run, with the run's bootstrap intervals, and `compare` pairs them by row
like any metric. A rate among only the unanswerable rows is `false_confidence /
(false_confidence + correct_abstention)`. Measured in docs/judge-check.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable
from ragmeter.metrics.judgment import BINARY, JudgedOptions, Weighed, weigh
from ragmeter.samples import Sample

#: the outcome of a row, by (declined, answerable) read at probability 0.5
OUTCOMES = {(True, False): "correct abstention", (False, False): "false confidence",
            (True, True): "over-refusal", (False, True): "answered"}


class Decision(BaseModel):
    """A bare verdict: the probability of the label is the judgment, no reason is needed."""

    model_config = ConfigDict(extra="forbid")
    verdict: Literal[0, 1]


class AbstentionOptions(JudgedOptions):
    #: `verdict`: the judge says whether the contexts hold the answer (any judge);
    #: `likelihood`: context_relevance's question-likelihood line (in-process llama.cpp judges)
    answerability: Literal["verdict", "likelihood"] = "verdict"


@dataclass(frozen=True)
class Reading:
    """P(the answer declines) and P(the contexts hold an answer), with what the judge said."""

    declined: float
    answerable: float
    evidence: dict[str, Any]

    @property
    def outcome(self) -> str:
        return OUTCOMES[(self.declined >= 0.5, self.answerable >= 0.5)]


class Abstention(Metric[AbstentionOptions]):
    """The share of rows whose answer declined exactly when its contexts could not answer."""

    name = "abstention"
    prompts_of = "abstention"
    description = ("Did the answer decline exactly when its contexts hold no answer? Both read by the judge "
                   "(English, Spanish); also correct_abstention, false_confidence, over_refusal.")
    #: retrieved_contexts is needed in the data, not on every row: a row whose retriever found
    #: nothing has contexts that cannot answer (missing_fields; issue 65 item 11: it was unscored)
    required = ("user_input", "response")
    prompt_names = ("declines", "answerable")
    #: the outcomes, as (declined, answerable), that this metric counts
    counts: ClassVar[frozenset[tuple[bool, bool]]] = frozenset({(True, False), (False, True)})

    def __init__(self, label: str | None = None, **options: Any) -> None:
        super().__init__(label, **options)
        if self.options.answerability == "likelihood":
            self.borrowed_prompts = (("context_relevance", "likelihood"),)

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return Decision

    def missing_fields(self, present: set[str]) -> list[str]:
        return [*super().missing_fields(present), *(["retrieved_contexts"] if "retrieved_contexts" not in present
                                                    else [])]

    def needs_text(self) -> str:
        return f"{super().needs_text()}, retrieved_contexts"

    def value(self, reading: Reading) -> float:
        d, a = reading.declined, reading.answerable
        parts = {(True, False): d * (1 - a), (False, False): (1 - d) * (1 - a),
                 (True, True): d * a, (False, True): (1 - d) * a}
        return sum(p for key, p in parts.items() if key in self.counts)

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        reading = await self.reading(sample, ctx)
        value = round(self.value(reading), 6)
        return Score(value, f"{reading.outcome}: the answer {_declined_text(reading)}; the contexts "
                            f"{_answerable_text(reading)}", {**reading.evidence, "outcome": reading.outcome})

    async def reading(self, sample: Sample, ctx: MetricContext) -> Reading:
        question, answer = (sample.user_input or "").strip(), (sample.response or "").strip()
        if not answer:
            raise Unscorable("the response is empty: neither an answer nor a decline")
        if sample.retrieved_contexts is None:
            raise Unscorable("no retrieved_contexts on this row: whether they could answer is unknown")
        declined = await self.verdict(ctx, "declines", {"question": question, "answer": answer})
        context = "\n\n".join(c for c in sample.retrieved_contexts if c.strip())
        if not context:  # the retriever found nothing: nothing to answer from, no call needed
            answerable, how = Weighed(0.0, 0, None), {"answerability": "no contexts retrieved"}
        elif self.options.answerability == "likelihood":
            answerable, how = await self.likely(question, context, ctx)
        else:
            answerable, how = await self.verdict(ctx, "answerable", {"context": context, "question": question}), {}
        evidence = {"declined": round(declined.value, 4), "answerable": round(answerable.value, 4),
                    "declined_probs": declined.probs, "answerable_probs": answerable.probs, **how,
                    "judgment": declined.mode}
        return Reading(declined.value, answerable.value, evidence)

    async def verdict(self, ctx: MetricContext, prompt_name: str, inputs: Mapping[str, object]) -> Weighed:
        answer = await self.answer(ctx, prompt_name, inputs, max_tokens=8)
        return weigh(answer, "verdict", answer.parsed.verdict, BINARY, self.options.judgment)

    async def likely(self, question: str, context: str, ctx: MetricContext) -> tuple[Weighed, dict[str, Any]]:
        from ragmeter.metrics.context_relevance import ContextRelevance

        found = await ContextRelevance(signal="likelihood").likelihood(question, context, ctx)
        value = float(found.value or 0.0)
        return Weighed(value, int(value >= 0.5), None), {"answerability": "likelihood",
                                                         "token_pmi": found.evidence.get("token_pmi")}


class CorrectAbstention(Abstention):
    """The share of rows that declined where the contexts hold no answer."""

    name = "correct_abstention"
    description = "Share of rows whose answer declined where its contexts hold no answer (judge-read)."
    counts = frozenset({(True, False)})


class FalseConfidence(Abstention):
    """The share of rows answered although the contexts hold no answer; lower is better."""

    name = "false_confidence"
    description = ("Share of rows answered although their contexts hold no answer (judge-read); lower is "
                   "better.")
    higher_is_better = False
    counts = frozenset({(False, False)})


class OverRefusal(Abstention):
    """The share of rows that declined although the contexts hold an answer; lower is better."""

    name = "over_refusal"
    description = "Share of rows that declined although their contexts hold an answer (judge-read); lower is better."
    higher_is_better = False
    counts = frozenset({(True, True)})


def _declined_text(reading: Reading) -> str:
    word = "declines" if reading.declined >= 0.5 else "answers"
    return f"{word} (P(declines) {reading.declined:.2f})"


def _answerable_text(reading: Reading) -> str:
    word = "hold an answer" if reading.answerable >= 0.5 else "hold no answer"
    return f"{word} (P {reading.answerable:.2f})"
