"""The one typed record every metric reads. Aliases are mapped in io/, never here."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, FiniteFloat, model_validator

#: Canonical single-turn fields, with Ragas names.
SAMPLE_FIELDS = ("user_input", "response", "retrieved_contexts", "reference", "reference_contexts",
                 "retrieved_context_ids", "cited_response", "reference_context_ids", "relevance_grades",
                 "response_b", "messages", "reference_tool_calls", "reference_topics")


class ToolCall(BaseModel):
    """A tool call an agent made or should make: a name and its arguments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class Turn(BaseModel):
    """One message of a multi-turn sample (Ragas MultiTurnSample): human, ai (maybe with tool
    calls) or tool (a tool's result). OpenAI roles user/assistant are accepted too."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal["human", "ai", "tool"]
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _roles(cls, data: Any) -> Any:
        if isinstance(data, dict) and "role" in data and "type" not in data:
            data = dict(data)
            role = data.pop("role")
            data["type"] = {"user": "human", "assistant": "ai"}.get(role, role)
        return data


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
    #: ids of the contexts that should have been retrieved (ranking metrics)
    reference_context_ids: list[str] | None = None
    #: graded relevance by context id, e.g. {"d1": 3, "d7": 1} (ndcg); ids absent are 0
    relevance_grades: dict[str, FiniteFloat] | None = None  # NaN/Infinity refused at load
    #: a second answer to the same question (pairwise comparison)
    response_b: str | None = None
    #: a multi-turn conversation (agent metrics); JSONL may give it as a list `user_input`
    messages: list[Turn] | None = None
    reference_tool_calls: list[ToolCall] | None = None
    reference_topics: list[str] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    #: Why this row's response cannot be judged (a generation cut off at max_tokens): every
    #: metric that reads the response leaves the row unscored with this reason.
    response_problem: str | None = None

    def missing(self, fields: tuple[str, ...]) -> list[str]:
        """Required fields that are absent or empty on this row (a row-level 'unscored')."""
        return [name for name in fields if _empty(getattr(self, name))]


def _empty(value: Any) -> bool:
    """None, blank text, an empty list or mapping, or a list of blank texts."""
    if value is None or isinstance(value, (list, dict)) and not value:
        return True
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, list) and all(isinstance(v, str) and not v.strip() for v in value)
