"""Map source columns onto canonical Sample fields: explicit mapping first, then aliases."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ragmeter.errors import ConfigError
from ragmeter.samples import SAMPLE_FIELDS

#: Common names other tools use, in order of preference after the canonical name.
ALIASES: dict[str, tuple[str, ...]] = {
    "user_input": ("question", "query"),
    "response": ("answer", "generated_answer"),
    "retrieved_contexts": ("contexts", "retrieved_context"),
    "reference": ("ground_truth", "reference_answer"),
    "reference_contexts": ("ground_truth_contexts",),
    "reference_context_ids": ("relevant_ids", "expected_ids"),
    "response_b": ("response2", "answer_b"),
    "reference_topics": ("topics",),
}

LIST_FIELDS = frozenset({"retrieved_contexts", "reference_contexts", "retrieved_context_ids",
                         "reference_context_ids", "reference_topics"})
#: fields validated by a pydantic type (lists of turns or tool calls, a mapping of grades)
STRUCTURED_FIELDS = frozenset({"messages", "reference_tool_calls", "relevance_grades"})
KNOWN_FIELDS = (*SAMPLE_FIELDS, "id", "metadata")


def resolve_columns(columns: Iterable[str], mapping: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return {canonical field: source column} for the columns present in the data."""
    present = list(columns)
    mapping = dict(mapping or {})
    unknown = sorted(set(mapping) - set(KNOWN_FIELDS))
    if unknown:
        raise ConfigError(f"column mapping names unknown field(s) {unknown}; valid: {list(KNOWN_FIELDS)}")
    resolved: dict[str, str] = {}
    for field in KNOWN_FIELDS:
        if field in mapping:
            if mapping[field] not in present:
                raise ConfigError(f"column mapping {field}: '{mapping[field]}' is not a column "
                                  f"of the dataset (columns: {present})")
            resolved[field] = mapping[field]
        elif field in present:
            resolved[field] = field
        else:
            found = [a for a in ALIASES.get(field, ()) if a in present]
            if len(found) > 1:
                raise ConfigError(f"columns {found} both look like '{field}'; choose one with a "
                                  f"column mapping (columns: {{{field}: {found[0]}}})")
            if found:
                resolved[field] = found[0]
    return resolved
