"""Pleias citation metrics, no judge: do the answer's `<ref name="ID">quote</ref>` quotes
reprint their sources, are they real text, do they name real sources, are they repeated?

Each is a share over the row's quotes (the row mean; Pleias pools all quotes of a file).
A row whose answer cites nothing is unscored with that reason, never 0 or 1.
"""

from __future__ import annotations

from typing import Any

from ragmeter.citations.align import reprint_ratio, words
from ragmeter.citations.parse import Citation, citations
from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable
from ragmeter.samples import Sample

NO_CITATIONS = "the answer cites no sources (no <ref name=...> tags)"
MIN_QUOTE_WORDS = 3


def row_citations(sample: Sample) -> tuple[list[Citation], dict[str, str]]:
    """The row's citations and its sources by id."""
    found = list(citations(sample.cited_response or ""))
    if not found:
        raise Unscorable(NO_CITATIONS)
    texts = sample.retrieved_contexts or []
    ids = sample.retrieved_context_ids or []
    return found, {i: texts[n] if n < len(texts) else "" for n, i in enumerate(ids)}


#: each quote's value, and its evidence
Judged = tuple[list[float], list[dict[str, Any]]]


class CitationMetric(Metric):
    required: tuple[str, ...] = ("cited_response",)
    uses_judge = False

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        found, sources = row_citations(sample)
        flags, evidence = self.judge_quotes(found, sources)
        value = sum(flags) / len(flags)
        return Score(value, f"{self.summary(value, len(flags))}", {"quotes": evidence})

    def summary(self, value: float, n: int) -> str:
        return f"mean {value:.3f} over {n} quote(s)"

    def judge_quotes(self, found: list[Citation], sources: dict[str, str]) -> Judged:
        raise NotImplementedError


class CitationReprint(CitationMetric):
    name = "citation_reprint"
    required = ("cited_response", "retrieved_contexts", "retrieved_context_ids")
    description = ("Are quotes reprinted from the source they name? Word-level Smith-Waterman (+2/-1/-1), "
                   "punctuation-insensitive, 1 = verbatim; unknown source = 0 (Pleias non-hallucinated citation).")

    def judge_quotes(self, found: list[Citation], sources: dict[str, str]) -> Judged:
        scores, evidence = [], []
        for c in found:
            source = sources.get(c.source_id)
            value = reprint_ratio(c.quote, source) if source is not None else 0.0
            scores.append(value)
            evidence.append({"source_id": c.source_id, "quote": c.quote[:300], "reprint": round(value, 6),
                             **({} if source is not None else {"note": "unknown source id"})})
        return scores, evidence


class ValidQuote(CitationMetric):
    name = "valid_quote"
    description = f"Share of quotes that are real text: at least {MIN_QUOTE_WORDS} words (Pleias)."

    def judge_quotes(self, found: list[Citation], sources: dict[str, str]) -> Judged:
        counts = [len(words(c.quote)) for c in found]
        return ([float(n >= MIN_QUOTE_WORDS) for n in counts],
                [{"source_id": c.source_id, "quote": c.quote[:300], "words": n} for c, n in zip(found, counts)])


class ValidIdentifier(CitationMetric):
    name = "valid_identifier"
    required = ("cited_response", "retrieved_context_ids")
    description = "Share of citations whose source id is among the row's sources (Pleias)."

    def judge_quotes(self, found: list[Citation], sources: dict[str, str]) -> Judged:
        flags = [float(c.source_id in sources) for c in found]
        return flags, [{"source_id": c.source_id, "known": bool(f)} for c, f in zip(found, flags)]


class UnduplicatedQuote(CitationMetric):
    name = "unduplicated_quote"
    description = ("Share of quotes that do not repeat an earlier quote of the same answer (compared by "
                   "words, ignoring case and punctuation; Pleias).")

    def judge_quotes(self, found: list[Citation], sources: dict[str, str]) -> Judged:
        seen: set[tuple[str, ...]] = set()
        flags, evidence = [], []
        for c in found:
            key = tuple(words(c.quote))
            flags.append(float(key not in seen))
            evidence.append({"quote": c.quote[:300], "repeat": key in seen})
            seen.add(key)
        return flags, evidence
