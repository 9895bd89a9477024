"""Metric registry: name -> "module:Class", imported only when chosen."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import import_module
from typing import Any, Union

from ragmeter.errors import ConfigError
from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable

REGISTRY: dict[str, str] = {
    "context_precision": "ragmeter.metrics.context_precision:ContextPrecision",
    "context_precision_with_reference": "ragmeter.metrics.context_precision:ContextPrecisionWithReference",
    "context_recall": "ragmeter.metrics.context_recall:ContextRecall",
    "faithfulness": "ragmeter.metrics.faithfulness:Faithfulness",
    "response_relevancy": "ragmeter.metrics.response_relevancy:ResponseRelevancy",
    "context_relevance": "ragmeter.metrics.context_relevance:ContextRelevance",
    # Abstention as an outcome: declined or answered, and whether the contexts could answer
    "abstention": "ragmeter.metrics.abstention:Abstention",
    "correct_abstention": "ragmeter.metrics.abstention:CorrectAbstention",
    "false_confidence": "ragmeter.metrics.abstention:FalseConfidence",
    "over_refusal": "ragmeter.metrics.abstention:OverRefusal",
    # Pleias citation family (cited answers: `text` + `generated_response` files)
    "citation_reprint": "ragmeter.metrics.citations:CitationReprint",
    "valid_quote": "ragmeter.metrics.citations:ValidQuote",
    "valid_identifier": "ragmeter.metrics.citations:ValidIdentifier",
    "unduplicated_quote": "ragmeter.metrics.citations:UnduplicatedQuote",
    "query_adherence": "ragmeter.metrics.cited_quality:QueryAdherence",
    "grounded_statement": "ragmeter.metrics.cited_quality:GroundedStatement",
    "language_quality": "ragmeter.metrics.cited_quality:LanguageQuality",
    "reasoning_quality": "ragmeter.metrics.cited_quality:ReasoningQuality",
    # Lexical and embedding metrics (no judge)
    "bleu": "ragmeter.metrics.lexical:Bleu",
    "rouge": "ragmeter.metrics.lexical:Rouge",
    "exact_match": "ragmeter.metrics.lexical:ExactMatch",
    "string_presence": "ragmeter.metrics.lexical:StringPresence",
    "string_similarity": "ragmeter.metrics.lexical:StringSimilarity",
    "non_llm_context_precision_with_reference": "ragmeter.metrics.lexical:NonLLMContextPrecisionWithReference",
    "non_llm_context_recall": "ragmeter.metrics.lexical:NonLLMContextRecall",
    "semantic_similarity": "ragmeter.metrics.semantic_similarity:SemanticSimilarity",
    # Ragas family beyond the core six
    "factual_correctness": "ragmeter.metrics.factual_correctness:FactualCorrectness",
    "answer_correctness": "ragmeter.metrics.factual_correctness:AnswerCorrectness",
    "context_entity_recall": "ragmeter.metrics.context_entity_recall:ContextEntityRecall",
    "noise_sensitivity": "ragmeter.metrics.noise_sensitivity:NoiseSensitivity",
    "aspect_critic": "ragmeter.metrics.rubrics:AspectCritic",
    "rubric_score": "ragmeter.metrics.rubrics:RubricScore",
    # LlamaIndex judge family
    "llamaindex_faithfulness": "ragmeter.metrics.llamaindex:LlamaIndexFaithfulness",
    "llamaindex_relevancy": "ragmeter.metrics.llamaindex:LlamaIndexRelevancy",
    "correctness": "ragmeter.metrics.llamaindex:Correctness",
    "guideline_adherence": "ragmeter.metrics.llamaindex:GuidelineAdherence",
    "pairwise": "ragmeter.metrics.llamaindex:Pairwise",
    # Hugging Face cookbook judge
    "answer_accuracy_rubric": "ragmeter.metrics.rubrics:AnswerAccuracyRubric",
    # Multi-turn and agent metrics (rows with `messages`)
    "agent_goal_accuracy": "ragmeter.metrics.agents:AgentGoalAccuracy",
    "agent_goal_accuracy_without_reference": "ragmeter.metrics.agents:AgentGoalAccuracyWithoutReference",
    "tool_call_accuracy": "ragmeter.metrics.agents:ToolCallAccuracy",
    "topic_adherence": "ragmeter.metrics.agents:TopicAdherence",
    # Retrieval ranking from ids (no judge); `ndcg@5` sets k
    "hit_rate@k": "ragmeter.metrics.ranking:HitRate",
    "mrr@k": "ragmeter.metrics.ranking:MRR",
    "precision@k": "ragmeter.metrics.ranking:PrecisionAtK",
    "recall@k": "ragmeter.metrics.ranking:RecallAtK",
    "ndcg@k": "ragmeter.metrics.ranking:NDCG",
}
DEFAULT_METRICS = ("context_precision", "context_precision_with_reference", "context_recall", "faithfulness",
                   "response_relevancy", "context_relevance")
#: the default for cited (Pleias-style) files; rag_index is computed over these
CITATION_METRICS = ("citation_reprint", "valid_quote", "valid_identifier", "unduplicated_quote",
                    "query_adherence", "grounded_statement", "language_quality", "reasoning_quality")


MetricSpec = Union[str, Mapping[str, Any]]


def parse_spec(spec: MetricSpec) -> tuple[str, dict[str, object]]:
    """'ndcg@5' -> ('ndcg@k', {'k': 5}); {'aspect_critic': {...}} -> ('aspect_critic', {...})."""
    if isinstance(spec, Mapping):
        if len(spec) != 1:
            raise ConfigError(f"a metric with settings is one mapping {{name: {{setting: value}}}}, got {dict(spec)}")
        (name, options), = spec.items()
        if options is not None and not isinstance(options, Mapping):
            raise ConfigError(f"settings of metric {name} must be a mapping, got {options!r}")
        base, extra = parse_spec(str(name))
        return base, {**extra, **dict(options or {})}
    name = spec.strip()
    if "@" in name and name not in REGISTRY:
        base, _, k = name.partition("@")
        if not k.isdigit() or f"{base}@k" not in REGISTRY:
            raise ConfigError(f"unknown metric '{name}'; ranking metrics take a cut-off like ndcg@5")
        return f"{base}@k", {"k": int(k)}
    if f"{name}@k" in REGISTRY:
        return f"{name}@k", {}
    return name, {}


ENTRY_POINT_GROUP = "ragmeter.metrics"


def plugin_metrics() -> dict[str, str]:
    """Metrics other packages register under the `ragmeter.metrics` entry-point group
    (name = "module:Class"); a built-in name cannot be taken over."""
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name not in REGISTRY}


def builtin_direction(name: str) -> bool | None:
    """Whether built-in metric `name` is higher-is-better; None for a name not built in."""
    from importlib import import_module

    target = REGISTRY.get(name)
    if target is None:
        return None
    module, _, cls = target.partition(":")
    return bool(getattr(import_module(module), cls).higher_is_better)


def get_metric(spec: MetricSpec | Metric) -> Metric:
    """A metric by name (with settings), or a Metric instance as given (your own metric)."""
    if isinstance(spec, Metric):
        return spec
    name, options = parse_spec(spec)
    target = REGISTRY.get(name) or plugin_metrics().get(name)
    if target is None:
        from difflib import get_close_matches

        known = [*REGISTRY, *plugin_metrics()]
        close = get_close_matches(name, known, n=1, cutoff=0.75)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise ConfigError(f"unknown metric '{name}'; {hint}available: {', '.join(known)}")
    module, _, cls = target.partition(":")
    label = options.pop("as", None)
    return getattr(import_module(module), cls)(label=label, **options)


def get_metrics(specs: Sequence[MetricSpec | Metric]) -> list[Metric]:
    if not specs:
        raise ConfigError("no metrics chosen")
    metrics = [get_metric(s) for s in specs]
    labels = [m.label for m in metrics]
    duplicates = sorted({n for n in labels if labels.count(n) > 1})
    if duplicates:
        raise ConfigError(f"metric(s) listed twice: {duplicates} (give one of them `as: other_name`)")
    return metrics


__all__ = ["CITATION_METRICS", "DEFAULT_METRICS", "REGISTRY", "Metric", "MetricContext", "Score", "Unscorable",
           "get_metric", "get_metrics", "parse_spec"]
