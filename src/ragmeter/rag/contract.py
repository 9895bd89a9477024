"""What a RAG under test gives back, and the shapes ragmeter accepts from a user's callable.

A RAG is any callable (sync or async) taking one argument, the query: the question as a
string, or for a multi-turn row the conversation as a list of {"role", "content"} turns
(the last one the question). It returns any of:

* `RAGAnswer(answer, contexts)`;
* a dict `{"answer": str, "contexts": [...]}` (also `response` / `retrieved_contexts`, and
  `finish_reason`: "length" marks an answer cut at the generator's token limit);
* a tuple `(answer, contexts)`;

where each context is a string, or a dict `{"text": str, "id": str, "score": float}` (id
and score optional), or an object with `page_content`/`metadata` (a LangChain Document).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ragmeter.errors import DataError

EXPECTED = ("a RAGAnswer, a dict {'answer': str, 'contexts': [str | {'text', 'id', 'score'}]}, "
            "or a tuple (answer, contexts)")


@dataclass
class Context:
    text: str
    id: str | None = None
    score: float | None = None


@dataclass
class RAGAnswer:
    answer: str
    contexts: list[Context | str | dict[str, Any]] = field(default_factory=list)
    #: generation tokens, when the RAG knows them (the baseline does)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: why generation stopped, when the RAG knows it: "length" is an answer cut at max_tokens
    finish_reason: str | None = None
    #: what ended the answer, when the RAG knows it (rag/stops.py: "end of turn", "blank line", ...)
    stop: str | None = None


def normalize(value: Any, where: str) -> RAGAnswer:
    """The callable's return value as a RAGAnswer with Context items, or a DataError naming
    `where` (the row) and what was expected."""
    answer: Any
    contexts: Any
    if isinstance(value, RAGAnswer):
        answer, contexts = value.answer, value.contexts
    elif isinstance(value, dict):
        answer = value.get("answer", value.get("response"))
        contexts = value.get("contexts", value.get("retrieved_contexts", []))
    elif isinstance(value, tuple) and len(value) == 2:
        answer, contexts = value
    else:
        raise DataError(f"{where}: the RAG returned {type(value).__name__}; expected {EXPECTED}")
    if not isinstance(answer, str):
        raise DataError(f"{where}: the RAG's answer is {type(answer).__name__}, expected a string ({EXPECTED})")
    if contexts is None or isinstance(contexts, (str, bytes)) or not hasattr(contexts, "__iter__"):
        raise DataError(f"{where}: the RAG's contexts are {type(contexts).__name__}, expected a list ({EXPECTED})")
    items = [_context(c, where, n) for n, c in enumerate(contexts, start=1)]
    tokens = value if isinstance(value, RAGAnswer) else None
    finish = tokens.finish_reason if tokens else value.get("finish_reason") if isinstance(value, dict) else None
    stop = tokens.stop if tokens else value.get("stop") if isinstance(value, dict) else None
    return RAGAnswer(answer, list(items), tokens.prompt_tokens if tokens else 0,
                     tokens.completion_tokens if tokens else 0, finish if isinstance(finish, str) else None,
                     stop if isinstance(stop, str) else None)


def _context(item: Any, where: str, number: int) -> Context:
    if isinstance(item, Context):
        return item
    if isinstance(item, str):
        return Context(item)
    if isinstance(item, dict) and isinstance(item.get("text"), str):
        return Context(item["text"], _id(item.get("id")), _score(item.get("score"), where, number))
    if hasattr(item, "page_content"):  # a LangChain Document
        meta = getattr(item, "metadata", None) or {}
        return Context(str(item.page_content), _id(meta.get("id") or getattr(item, "id", None)),
                       _score(meta.get("score"), where, number))
    raise DataError(f"{where}: context {number} is {type(item).__name__}; expected a string or "
                    "{'text': str, 'id': str, 'score': float}")


def _id(value: Any) -> str | None:
    return None if value is None else str(value)


def _score(value: Any, where: str, number: int) -> float | None:
    if value is None:
        return None
    try:
        score = float(value)
    except (TypeError, ValueError):
        raise DataError(f"{where}: context {number}'s score {value!r} is not a number") from None
    return score if math.isfinite(score) else None
