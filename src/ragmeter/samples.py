"""The one typed record every metric reads. Aliases are mapped in io/, never here."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

#: Canonical single-turn fields, with Ragas names.
SAMPLE_FIELDS = ("user_input", "response", "retrieved_contexts", "reference", "reference_contexts",
                 "retrieved_context_ids", "cited_response")


class Sample(BaseModel):
    """One RAG interaction. Frozen so metrics cannot mutate shared input."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    user_input: str | None = None
    response: str | None = None
    retrieved_contexts: list[str] | None = None
    reference: str | None = None
    reference_contexts: list[str] | None = None
    #: ids of the retrieved contexts, in the same order (citation and ranking metrics)
    retrieved_context_ids: list[str] | None = None
    #: the answer as written, with `<ref name="ID">quote</ref>` citations (citation metrics)
    cited_response: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    def missing(self, fields: tuple[str, ...]) -> list[str]:
        """Required fields that are absent or empty on this row (a row-level 'unscored')."""
        out = []
        for name in fields:
            value = getattr(self, name)
            if value is None:
                out.append(name)
            elif isinstance(value, str) and not value.strip():
                out.append(name)
            elif isinstance(value, list) and not any(v.strip() for v in value):
                out.append(name)
        return out
