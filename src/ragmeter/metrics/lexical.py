"""Non-LLM metrics (Ragas's lexical family): no judge, no embeddings, deterministic.

BLEU scores the whole response with sacrebleu (Ragas splits response and reference into
sentences and zips them, so a one-sentence reference scores only the first sentence of
the response: a known defect, not copied). ROUGE uses rouge-score, string similarity
rapidfuzz. The non-LLM context metrics compare retrieved and reference contexts by string
similarity against a threshold.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ragmeter.metrics.base import Metric, MetricContext, OptionsT, Score, supported_share
from ragmeter.metrics.context_precision import average_precision
from ragmeter.samples import Sample

Distance = Literal["levenshtein", "hamming", "jaro", "jaro_winkler", "indel"]


def similarity(a: str, b: str, distance: Distance = "levenshtein") -> float:
    """Normalised similarity in [0, 1] (rapidfuzz); Hamming pads the shorter string."""
    from rapidfuzz import distance as d

    module = {"levenshtein": d.Levenshtein, "hamming": d.Hamming, "jaro": d.Jaro,
              "jaro_winkler": d.JaroWinkler, "indel": d.Indel}[distance]
    if distance == "hamming":
        return float(module.normalized_similarity(a, b, pad=True))
    return float(module.normalized_similarity(a, b))


class LexicalMetric(Metric[OptionsT]):
    uses_judge = False
    required = ("response", "reference")


class Bleu(LexicalMetric):
    name = "bleu"
    description = "Sentence BLEU of the whole response against the reference (sacrebleu), / 100."

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        result = _bleu().sentence_score(sample.response or "", [sample.reference or ""])
        precisions = [round(p / 100, 4) for p in result.precisions]  # sacrebleu's are percentages
        shown = ", ".join(f"{p:.0%}" for p in precisions)
        return Score(result.score / 100, f"BLEU {result.score / 100:.4f} (1-4-gram precisions {shown}; "
                                         f"brevity penalty {result.bp:.3f})",
                     {"precisions": precisions, "bp": round(result.bp, 6)})


class RougeOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rouge_type: Literal["rougeL", "rouge1", "rouge2"] = "rougeL"
    mode: Literal["fmeasure", "precision", "recall", "f", "p", "r"] = "fmeasure"


class Rouge(LexicalMetric[RougeOptions]):
    name = "rouge"
    description = "ROUGE (rouge-score) of the response against the reference: rougeL/rouge1/rouge2, f/p/r."

    def default_label(self) -> str:
        o = self.options
        return self.name if (o.rouge_type, o.mode) == ("rougeL", "fmeasure") else f"rouge_{o.rouge_type}_{o.mode[0]}"

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        scorer = _rouge_scorer(self.options.rouge_type)
        result = scorer.score(sample.reference or "", sample.response or "")[self.options.rouge_type]
        mode = {"f": "fmeasure", "p": "precision", "r": "recall"}.get(self.options.mode, self.options.mode)
        value = getattr(result, mode)
        return Score(value, f"{self.options.rouge_type} {mode}",
                     {"precision": round(result.precision, 6), "recall": round(result.recall, 6),
                      "fmeasure": round(result.fmeasure, 6)})


@cache
def _bleu() -> Any:
    """sacrebleu's `sentence_bleu` settings (13a, exp smoothing, effective order), built once."""
    from sacrebleu.metrics import BLEU

    return BLEU(effective_order=True)


@cache
def _rouge_scorer(rouge_type: str) -> Any:
    """rouge-score's scorer with its own tokenizer and Porter stemmer, the stemmer's answers
    remembered: stemming was a third of a lexical run's time, and words repeat (identical scores)."""
    from nltk.stem import porter
    from rouge_score import rouge_scorer, tokenizers

    tokenizer = tokenizers.DefaultTokenizer(use_stemmer=True)
    stemmer = porter.PorterStemmer()
    tokenizer._stemmer = _Stems(lru_cache(maxsize=1 << 16)(stemmer.stem))
    return rouge_scorer.RougeScorer([rouge_type], tokenizer=tokenizer)


class _Stems:
    def __init__(self, stem: object) -> None:
        self.stem = stem


class ExactMatch(LexicalMetric):
    name = "exact_match"
    description = "1 if the response equals the reference exactly (after trimming outer whitespace), else 0."

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        same = (sample.response or "").strip() == (sample.reference or "").strip()
        return Score(float(same), "identical" if same else "different")


class StringPresence(LexicalMetric):
    name = "string_presence"
    description = "1 if the reference appears verbatim in the response, else 0."

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        found = (sample.reference or "").strip() in (sample.response or "")
        return Score(float(found), "reference found in the response" if found else "reference not in the response")


class SimilarityOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    distance: Distance = "levenshtein"


class StringSimilarity(LexicalMetric[SimilarityOptions]):
    name = "string_similarity"
    description = "1 - normalised edit distance between response and reference (rapidfuzz; Levenshtein default)."

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        value = similarity(sample.response or "", sample.reference or "", self.options.distance)
        return Score(value, f"{self.options.distance} similarity")


class ContextMatchOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    distance: Distance = "levenshtein"
    threshold: float = Field(default=0.5, ge=0.0, le=1.0)


def matches(items: list[str], against: list[str], options: ContextMatchOptions) -> tuple[list[float], list[int]]:
    """Each item's best similarity to any of `against`, and whether it reaches the threshold."""
    best = [max(similarity(i, a, options.distance) for a in against) for i in items]
    return best, [int(b >= options.threshold) for b in best]


class NonLLMContextPrecisionWithReference(Metric[ContextMatchOptions]):
    name = "non_llm_context_precision_with_reference"
    description = ("Average precision of retrieved chunks, a chunk counting as relevant when its string "
                   "similarity to some reference context reaches the threshold (Ragas, no judge).")
    required = ("retrieved_contexts", "reference_contexts")
    uses_judge = False

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        best, flags = matches(sample.retrieved_contexts or [], sample.reference_contexts or [], self.options)
        return Score(average_precision(flags), f"{sum(flags)} of {len(flags)} chunks match a reference context",
                     {"best_similarity": [round(b, 6) for b in best], "relevant": flags})


class NonLLMContextRecall(Metric[ContextMatchOptions]):
    name = "non_llm_context_recall"
    description = ("Share of reference contexts that some retrieved chunk matches by string similarity at "
                   "the threshold (Ragas, no judge).")
    required = ("retrieved_contexts", "reference_contexts")
    uses_judge = False

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        best, flags = matches(sample.reference_contexts or [], sample.retrieved_contexts or [], self.options)
        return Score(supported_share(flags, "no reference contexts"),
                     f"{sum(flags)} of {len(flags)} reference contexts retrieved",
                     {"best_similarity": [round(b, 6) for b in best], "retrieved": flags})
