"""Ragas FactualCorrectness and AnswerCorrectness: claims from the response and from the
reference, each side checked against the other by the judge (NLI both ways).

precision = response claims the reference supports / response claims
recall    = reference claims the response supports / reference claims
f-beta    = (1 + b^2) P R / (b^2 P + R)

Ragas computes recall as TP / (TP + FN) with TP counted on the response's claims and FN on
the reference's, mixing the two directions; here each side is a share of its own claims
(documented difference). Zero claims on a side the mode needs is unscored, never NaN.
AnswerCorrectness weights that F1 with the embedding similarity (0.75 / 0.25 by default).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

from ragmeter.metrics.base import Metric, MetricContext, OptionsT, Score, count, supported_share, text
from ragmeter.metrics.judgment import JudgedOptions, Weighed, mode_of, p_one, weigh_verdicts
from ragmeter.metrics.schemas import claim_limit, statements, unique, verdicts
from ragmeter.metrics.semantic_similarity import embedding_similarity
from ragmeter.samples import Sample


class ClaimMetric(Metric[OptionsT]):
    """Sends factual_correctness's two prompts: claims of a text, verdicts against a premise."""

    prompts_of = "factual_correctness"
    prompt_names = ("claims", "verdicts")
    detail = "low atomicity, low coverage"

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        if prompt_name == "claims":
            return statements(claim_limit(text(inputs["text"])))
        return verdicts(count(inputs["claims"]))

    async def claims(self, ctx: MetricContext, text: str) -> list[str]:
        out = await self.ask(ctx, "claims", {"detail": self.detail, "text": text})
        return unique(out.statements)

    async def supported(self, ctx: MetricContext, premise: str, claims: list[str],
                        judgment: str = "label") -> list[Weighed]:
        """One verdict per claim, each as P(supported) or its 0/1 label."""
        if not claims:
            return []
        out = await self.answer(ctx, "verdicts", {"premise": premise, "claims": claims})
        return weigh_verdicts(out, out.parsed.verdicts, judgment)


def f_beta(precision: float, recall: float, beta: float) -> float:
    if precision + recall == 0:
        return 0.0
    b2 = beta * beta
    return (1 + b2) * precision * recall / (b2 * precision + recall)


def share(weighed: list[Weighed], side: str) -> float:
    return supported_share([w.value for w in weighed], f"the judge found no claims in the {side}")


class FactualOptions(JudgedOptions):
    mode: Literal["precision", "recall", "f1"] = "f1"
    beta: float = Field(default=1.0, gt=0)
    atomicity: Literal["low", "high"] = "low"
    coverage: Literal["low", "high"] = "low"


class FactualCorrectness(ClaimMetric[FactualOptions]):
    name = "factual_correctness"
    description = ("Claims of response and reference checked against each other: precision, recall or "
                   "F-beta (Ragas FactualCorrectness; atomicity and coverage settings).")
    required = ("response", "reference")

    def default_label(self) -> str:
        return self.name if self.options.mode == "f1" else f"{self.name}_{self.options.mode}"

    @property
    def detail(self) -> str:  # type: ignore[override]
        return f"{self.options.atomicity} atomicity, {self.options.coverage} coverage"

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        mode = self.options.mode
        evidence: dict[str, Any] = {}
        p = r = None
        weighed: list[Weighed] = []
        if mode in ("precision", "f1"):
            claims = await self.claims(ctx, sample.response or "")
            flags = await self.supported(ctx, sample.reference or "", claims, self.options.judgment)
            evidence["response_claims"] = [{"claim": c, "supported_by_reference": f.label, "p_supported": p_one(f)}
                                           for c, f in zip(claims, flags)]
            p = share(flags, "response")
            weighed += flags
        if mode in ("recall", "f1"):
            claims = await self.claims(ctx, sample.reference or "")
            flags = await self.supported(ctx, sample.response or "", claims, self.options.judgment)
            evidence["reference_claims"] = [{"claim": c, "supported_by_response": f.label, "p_supported": p_one(f)}
                                            for c, f in zip(claims, flags)]
            r = share(flags, "reference")
            weighed += flags
        evidence.update({"precision": p, "recall": r, "judgment": mode_of(weighed)})
        if mode == "precision":
            return Score(p, f"precision {p:.3f}", evidence)
        if mode == "recall":
            return Score(r, f"recall {r:.3f}", evidence)
        value = f_beta(p, r, self.options.beta)  # type: ignore[arg-type]
        return Score(value, f"F{self.options.beta:g} of precision {p:.3f} and recall {r:.3f}", evidence)


class AnswerOptions(JudgedOptions):
    weights: tuple[float, float] = (0.75, 0.25)

    @field_validator("weights")
    @classmethod
    def _weights(cls, value: tuple[float, float]) -> tuple[float, float]:
        if min(value) < 0 or sum(value) == 0:
            raise ValueError("weights are two non-negative numbers, [factual, semantic], not both 0")
        return value


class AnswerCorrectness(ClaimMetric[AnswerOptions]):
    name = "answer_correctness"
    description = ("Weighted factual F1 (claims both ways) and embedding similarity of response and "
                   "reference; weights 0.75 / 0.25 by default (Ragas AnswerCorrectness).")
    required = ("response", "reference")

    def __init__(self, label: str | None = None, **options: Any) -> None:
        super().__init__(label, **options)
        # what it needs follows its weights: [0, 1] is embeddings only, [1, 0] the judge only
        self.uses_embeddings = self.options.weights[1] > 0
        self.uses_judge = self.options.weights[0] > 0

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        w_fact, w_sem = self.options.weights
        evidence: dict[str, Any] = {}
        f1 = similarity = 0.0
        if w_fact > 0:
            response_claims = await self.claims(ctx, sample.response or "")
            reference_claims = await self.claims(ctx, sample.reference or "")
            forward = await self.supported(ctx, sample.reference or "", response_claims, self.options.judgment)
            backward = await self.supported(ctx, sample.response or "", reference_claims, self.options.judgment)
            p, r = share(forward, "response"), share(backward, "reference")
            f1 = f_beta(p, r, 1.0)
            evidence.update({"response_claims": response_claims, "reference_claims": reference_claims,
                             "precision": p, "recall": r, "factual_f1": f1, "judgment": mode_of(forward + backward)})
        if w_sem > 0:
            similarity = max(0.0, await embedding_similarity(ctx, sample.response or "", sample.reference or ""))
            evidence["similarity"] = round(similarity, 6)
        value = (w_fact * f1 + w_sem * similarity) / (w_fact + w_sem)
        return Score(value, f"{w_fact:g} x factual F1 {f1:.3f} + {w_sem:g} x similarity {similarity:.3f}", evidence)
