"""A real OpenInference-instrumented LangChain retrieval chain, for the trace tests: its spans
go to whatever span processor a test gives (in memory, or OTLP over HTTP to Phoenix)."""

from __future__ import annotations

import warnings
from typing import Any


def traced_rag(processor: Any, questions: list[str], *, resource: dict[str, str] | None = None,
               bare: list[str] = (), other: int = 0, sessions: dict[str, str] | None = None) -> Any:
    """Runs the chain once per question (a retriever of two documents, a fake chat model),
    a chain without a retriever once per `bare` question, and `other` spans from a tracer
    that is not OpenInference; `sessions` puts a question's trace in a session (OpenInference's
    `using_session`). Returns the tracer provider (flushed)."""
    import contextlib

    from langchain_core.documents import Document
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnablePassthrough
    from openinference.instrumentation import using_session
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider

    class Docs(BaseRetriever):
        def _get_relevant_documents(self, query, *, run_manager=None):
            return [Document(page_content="Paris is the capital of France."),
                    Document(page_content=f"The Seine runs through Paris. ({query})")]

    provider = TracerProvider(resource=Resource(resource or {}))
    provider.add_span_processor(processor)
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        prompt = ChatPromptTemplate.from_messages([("system", "Answer from: {context}"), ("user", "{question}")])
        rag = ({"context": Docs(), "question": RunnablePassthrough()} | prompt
               | FakeListChatModel(responses=["Paris.", "The Seine."]) | StrOutputParser())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the instrumentor's own LangChain deprecation notices
            for question in questions:
                session = (sessions or {}).get(question)
                with using_session(session) if session else contextlib.nullcontext():
                    rag.invoke(question)
            for question in bare:
                chain = ChatPromptTemplate.from_messages([("user", "{question}")]) | FakeListChatModel(
                    responses=["I do not know."]) | StrOutputParser()
                chain.invoke({"question": question})
    finally:
        instrumentor.uninstrument()
    for _ in range(other):
        with provider.get_tracer("another-instrumentation").start_as_current_span("GET /health"):
            pass
    provider.force_flush()
    return provider
