"""Writes examples/traces.otlp.json: the OTLP traces of a real OpenInference-instrumented
LangChain RAG over examples/docs, saved with the OpenTelemetry SDK and the OTLP exporter's
own protobuf encoder (one ExportTraceServiceRequest as JSON a line), as docs/data.md shows.

The retriever ranks the documents' paragraphs by shared words (a LangChain BaseRetriever);
the chat model is LangChain's FakeListChatModel with written answers (no weights are
downloaded here), two of them wrong on purpose so that faithfulness has something to find.
Trace ids are random, so the file differs on every run; its rows do not.

    pip install langchain-core openinference-instrumentation-langchain opentelemetry-sdk \
        opentelemetry-exporter-otlp-proto-common          # make setup's environment has them
    python examples/traces_otlp.py [OUT]
    ragmeter evaluate examples/traces.otlp.json --metrics faithfulness,context_relevance
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: (question, the answer the fake chat model gives): the last two are not what the documents say
QA = [
    ("What is the exit code for a judge or infrastructure failure?", "The exit code is 3."),
    ("Where are cached judge replies stored?",
     "In sqlite, at ~/.cache/ragmeter/cache.sqlite unless RAGMETER_CACHE or cache: says otherwise."),
    ("Is judge decoding deterministic by default?", "No: the judge samples at temperature 0.7 unless told otherwise."),
    ("What happens to contexts longer than the judge's window?", "They are left out of the judge's prompt."),
]


def otlp_json_lines(path: str | Path) -> Any:
    """The span exporter of docs/data.md ("Writing a trace file"): each batch of spans
    appended as one OTLP ExportTraceServiceRequest in protobuf's JSON, a line each."""
    from google.protobuf.json_format import MessageToJson
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class OtlpJsonLines(SpanExporter):
        def __init__(self, path: str | Path) -> None:
            self.path = path

        def export(self, spans: Sequence[Any]) -> SpanExportResult:
            with open(self.path, "a", encoding="utf-8") as out:
                out.write(MessageToJson(encode_spans(spans), indent=None) + "\n")
            return SpanExportResult.SUCCESS

    return OtlpJsonLines(path)


def paragraphs() -> list[Any]:
    """examples/docs' Markdown paragraphs as LangChain documents, each with a stable id."""
    from langchain_core.documents import Document

    docs = []
    for path in sorted(HERE.glob("docs/*.md")):
        for n, text in enumerate(p.strip() for p in path.read_text(encoding="utf-8").split("\n\n")):
            if len(text) > 80:
                docs.append(Document(page_content=text, id=f"{path.name}#{n}", metadata={"id": f"{path.name}#{n}"}))
    return docs


def words(text: str) -> set[str]:
    """Words of four letters or more: enough to rank paragraphs without stop words."""
    return {w for w in (w.strip("`*.,;:()?!'\"").lower() for w in text.split()) if len(w) > 3}


def retriever(k: int = 2) -> Any:
    """The k paragraphs sharing most words with the question."""
    from langchain_core.retrievers import BaseRetriever

    docs = paragraphs()

    class Paragraphs(BaseRetriever):
        def _get_relevant_documents(self, query: str, *, run_manager: Any = None) -> list[Any]:
            asked = words(query)
            return sorted(docs, key=lambda d: -len(asked & words(d.page_content)))[:k]

    return Paragraphs()


def write_traces(out: Path) -> Path:
    """Runs the chain once per question with OpenInference's LangChain instrumentor on."""
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnablePassthrough
    from openinference.instrumentation.langchain import LangChainInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    out.unlink(missing_ok=True)
    provider = TracerProvider(resource=Resource({"service.name": "docs-rag"}))
    provider.add_span_processor(SimpleSpanProcessor(otlp_json_lines(out)))
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        prompt = ChatPromptTemplate.from_messages([("system", "Answer from these excerpts only:\n{context}"),
                                                   ("user", "{question}")])
        rag = ({"context": retriever(), "question": RunnablePassthrough()} | prompt
               | FakeListChatModel(responses=[answer for _, answer in QA]) | StrOutputParser())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the instrumentor's own LangChain deprecation notices
            for question, _ in QA:
                rag.invoke(question)
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
    return out


if __name__ == "__main__":
    print(write_traces(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "traces.otlp.json"))
