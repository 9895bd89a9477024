"""Two small adapters so a LangChain chain or a LlamaIndex query engine is a RAG under test.
Neither library is a dependency: the objects are used through their public methods only.

    from ragmeter.rag.adapters import from_langchain, from_llamaindex
    ragmeter.rag.answer("testset/", rag=from_langchain(chain, rag_id="my-chain-v3"))

The cache identity (`rag_id`) should name your pipeline's version: answers are reused for
the same id and question. Without one, the id is a hash of the object's repr when that repr
is stable (LangChain runnables describe their steps and prompts), else unique to this
process (no reuse across runs).
"""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import Any

from ragmeter.rag.contract import Context, RAGAnswer
from ragmeter.rag.prompt import Turn
from ragmeter.rag.targets import CallableRAG


def from_langchain(chain: Any, *, rag_id: str | None = None, input_key: str | None = "input",
                   answer_key: str = "answer", context_key: str = "context",
                   history_key: str | None = "chat_history") -> CallableRAG:
    """A runnable whose `ainvoke({input_key: question})` returns `{answer_key: str, context_key:
    [Document]}`, as `create_retrieval_chain` does. Earlier turns of a conversation go in
    `history_key` as ("human" | "ai", text) pairs. `input_key=None` sends the bare question."""

    async def rag(query: str | list[Turn]) -> RAGAnswer:
        question, history = _split(query)
        if input_key is None:
            payload: Any = question
        else:
            payload = {input_key: question}
            if history and history_key:
                payload[history_key] = [("human" if t["role"] == "user" else "ai", t["content"]) for t in history]
        out = await chain.ainvoke(payload)
        if isinstance(out, dict):
            return RAGAnswer(_text(out.get(answer_key)), [_document(d) for d in out.get(context_key) or []])
        return RAGAnswer(_text(out), [])

    return CallableRAG(rag, rag_id or _default_id("langchain", chain), f"langchain:{type(chain).__name__}")


def from_llamaindex(query_engine: Any, *, rag_id: str | None = None) -> CallableRAG:
    """A query engine: `aquery(question)` -> Response with `.response` and `.source_nodes`
    (NodeWithScore: node text, node_id, score). A query engine has no chat memory, so a
    conversation's earlier user turns are prefixed to the question."""

    async def rag(query: str | list[Turn]) -> RAGAnswer:
        question, history = _split(query)
        asked = " ".join([t["content"] for t in history if t["role"] == "user"] + [question])
        response = await query_engine.aquery(asked)
        contexts: list[Any] = []
        for hit in getattr(response, "source_nodes", None) or []:
            node = getattr(hit, "node", hit)
            text = node.get_content() if hasattr(node, "get_content") else str(getattr(node, "text", ""))
            contexts.append(Context(text, getattr(node, "node_id", None), getattr(hit, "score", None)))
        return RAGAnswer(_text(getattr(response, "response", response)), contexts)

    return CallableRAG(rag, rag_id or _default_id("llamaindex", query_engine),
                       f"llamaindex:{type(query_engine).__name__}")


def _split(query: str | list[Turn]) -> tuple[str, list[Turn]]:
    from ragmeter.rag.baseline import split_query

    return split_query(query)


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    content = getattr(value, "content", None)  # an AIMessage
    return content if isinstance(content, str) else "" if value is None else str(value)


def _document(doc: Any) -> Context:
    if isinstance(doc, str):
        return Context(doc)
    meta = getattr(doc, "metadata", None) or {}
    ident = meta.get("id") or getattr(doc, "id", None)
    return Context(str(getattr(doc, "page_content", doc)), None if ident is None else str(ident), meta.get("score"))


def _default_id(library: str, obj: Any) -> str:
    """A hash of the object's repr when it holds no memory address, else unique to this run."""
    text = repr(obj)
    if re.search(r"0x[0-9a-f]{6,}", text):
        return f"{library}:{type(obj).__name__}:{uuid.uuid4().hex[:12]}"
    return f"{library}:{type(obj).__name__}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"
