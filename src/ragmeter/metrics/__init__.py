"""Metric registry: name -> "module:Class", imported only when chosen."""

from __future__ import annotations

from importlib import import_module

from ragmeter.errors import ConfigError
from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable

REGISTRY: dict[str, str] = {
    "context_precision": "ragmeter.metrics.context_precision:ContextPrecision",
    "context_precision_with_reference": "ragmeter.metrics.context_precision:ContextPrecisionWithReference",
    "context_recall": "ragmeter.metrics.context_recall:ContextRecall",
    "faithfulness": "ragmeter.metrics.faithfulness:Faithfulness",
    "response_relevancy": "ragmeter.metrics.response_relevancy:ResponseRelevancy",
    "context_relevance": "ragmeter.metrics.context_relevance:ContextRelevance",
    # Pleias citation family (cited answers: `text` + `generated_response` files)
    "citation_reprint": "ragmeter.metrics.citations:CitationReprint",
    "valid_quote": "ragmeter.metrics.citations:ValidQuote",
    "valid_identifier": "ragmeter.metrics.citations:ValidIdentifier",
    "unduplicated_quote": "ragmeter.metrics.citations:UnduplicatedQuote",
    "query_adherence": "ragmeter.metrics.cited_quality:QueryAdherence",
    "grounded_statement": "ragmeter.metrics.cited_quality:GroundedStatement",
    "language_quality": "ragmeter.metrics.cited_quality:LanguageQuality",
    "reasoning_quality": "ragmeter.metrics.cited_quality:ReasoningQuality",
}
DEFAULT_METRICS = ("context_precision", "context_precision_with_reference", "context_recall", "faithfulness",
                   "response_relevancy", "context_relevance")
#: the default for cited (Pleias-style) files; rag_index is computed over these
CITATION_METRICS = ("citation_reprint", "valid_quote", "valid_identifier", "unduplicated_quote",
                    "query_adherence", "grounded_statement", "language_quality", "reasoning_quality")


def get_metric(name: str) -> Metric:
    target = REGISTRY.get(name)
    if target is None:
        raise ConfigError(f"unknown metric '{name}'; available: {', '.join(REGISTRY)}")
    module, _, cls = target.partition(":")
    return getattr(import_module(module), cls)()


def get_metrics(names: list[str] | tuple[str, ...]) -> list[Metric]:
    if not names:
        raise ConfigError("no metrics chosen")
    duplicates = sorted({n for n in names if list(names).count(n) > 1})
    if duplicates:
        raise ConfigError(f"metric(s) listed twice: {duplicates}")
    return [get_metric(n) for n in names]


__all__ = ["CITATION_METRICS", "DEFAULT_METRICS", "REGISTRY", "Metric", "MetricContext", "Score", "Unscorable",
           "get_metric", "get_metrics"]
