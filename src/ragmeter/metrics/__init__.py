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
}
DEFAULT_METRICS = tuple(REGISTRY)


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


__all__ = ["DEFAULT_METRICS", "REGISTRY", "Metric", "MetricContext", "Score", "Unscorable",
           "get_metric", "get_metrics"]
