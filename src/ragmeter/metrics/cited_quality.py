"""Pleias LLM-judged metrics for cited answers, with structured replies.

The original evaluator asks a fine-tuned model for free text with `### Section ###`
headers and counts a missing section as a failure. Here each metric asks for one JSON
object whose label comes from a fixed set, so a reply is either a label or unscored
(counted as unparseable), never a silent 0. The judge sees the answer without its
`<ref>` quotes, as in the original; `grounded_statement` sees each cited statement beside
its quotation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from pydantic import BaseModel

from ragmeter.citations.parse import REF, strip_citations
from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable, count
from ragmeter.metrics.citations import NO_CITATIONS
from ragmeter.metrics.schemas import labelled, verdicts
from ragmeter.reading.sentences import split_sentences
from ragmeter.samples import Sample

MAX_CITED = 12


class LabelMetric(Metric):
    """One call; the label maps to 1, 0, or None (excluded from the mean, with the reason)."""

    labels: ClassVar[dict[str, float | None]]
    prompt_names = ("label",)

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return labelled(tuple(self.labels))

    def inputs(self, sample: Sample) -> dict[str, object]:
        return {"query": sample.user_input, "answer": _answer(sample)}

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        out = await self.ask(ctx, "label", self.inputs(sample), max_tokens=160)
        value = self.labels[out.label]
        evidence = {"label": out.label, "analysis": out.analysis}
        if value is None:
            raise Unscorable(f"judge label '{out.label}': excluded from the mean, as in Pleias", evidence)
        return Score(value, f"judge label: {out.label}", evidence)


def _answer(sample: Sample) -> str:
    return strip_citations(sample.cited_response) if sample.cited_response else (sample.response or "")


class QueryAdherence(LabelMetric):
    name = "query_adherence"
    description = ("Does the answer fit the query, fully or partially? Actual/partial answer = 1, "
                   "off-topic = 0, refusal = excluded from the mean (Pleias).")
    required = ("user_input", "response")
    labels = {"Actual answer": 1.0, "Partial answer": 1.0, "Off-topic answer": 0.0, "Refusal": None}


class LanguageQuality(LabelMetric):
    name = "language_quality"
    description = "Is the answer's language correct and fluent? High/correct = 1, flawed/poor = 0 (Pleias)."
    required = ("response",)
    labels = {"High": 1.0, "Correct": 1.0, "Flawed": 0.0, "Poor": 0.0}

    def inputs(self, sample: Sample) -> dict[str, object]:
        return {"answer": _answer(sample)}


class ReasoningQuality(LabelMetric):
    name = "reasoning_quality"
    description = ("Is the answer's reasoning solid? Solid/slightly flawed = 1, flawed/unsound = 0 "
                   "(Pleias).")
    required = ("user_input", "response")
    labels = {"Solid": 1.0, "Slightly flawed": 1.0, "Flawed": 0.0, "Unsound": 0.0}


def cited_statements(answer: str, limit: int = MAX_CITED) -> list[tuple[str, str]]:
    """(statement, quotation) per citation: the statement is the last sentence of the prose
    before the `<ref>`; consecutive refs share the previous statement."""
    pairs: list[tuple[str, str]] = []
    last, statement = 0, ""
    for match in REF.finditer(answer):
        prose = strip_citations(answer[last:match.start()])
        sentences = split_sentences(prose)
        if sentences:
            statement = sentences[-1]
        if statement:
            pairs.append((statement, " ".join(match.group(2).split())))
        last = match.end()
    return pairs[:limit]


class GroundedStatement(Metric):
    name = "grounded_statement"
    description = ("Share of cited statements that their own quotation supports; one verdict per "
                   "(statement, quotation) pair (Pleias).")
    required = ("cited_response",)
    prompt_names = ("verdicts",)

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return verdicts(count(inputs["citations"]))

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        if not REF.search(sample.cited_response or ""):
            raise Unscorable(NO_CITATIONS)
        pairs = cited_statements(sample.cited_response or "")
        if not pairs:
            raise Unscorable("no cited statement: every citation stands without prose before it")
        items = [f"Statement: {s} | Quotation: \"{q}\"" for s, q in pairs]
        out = await self.ask(ctx, "verdicts", {"citations": items})
        flags = [v.verdict for v in out.verdicts]
        evidence = {"citations": [{"statement": s, "quotation": q, "verdict": v.verdict, "reason": v.reason}
                                  for (s, q), v in zip(pairs, out.verdicts)]}
        return Score(sum(flags) / len(flags), f"{sum(flags)} of {len(flags)} cited statements grounded", evidence)
