"""Metric registry: name -> "module:Class", imported only when chosen.

The work is in `registry.py`; this package re-exports its public names."""

from ragmeter.metrics.registry import (  # noqa: F401 - the package's public face
    CITATION_METRICS,
    DEFAULT_METRICS,
    REGISTRY,
    Metric,
    MetricContext,
    Score,
    Unscorable,
    get_metric,
    get_metrics,
    parse_spec,
)

__all__ = ["CITATION_METRICS", "DEFAULT_METRICS", "Metric", "MetricContext", "REGISTRY", "Score", "Unscorable",
           "get_metric", "get_metrics", "parse_spec"]
