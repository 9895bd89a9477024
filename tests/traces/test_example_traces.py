"""examples/traces.otlp.json and the docs' trace-file snippet: files a real OpenInference-
instrumented LangChain chain wrote with the OpenTelemetry SDK, read as rows; and the SDK's
console exporter output, which is not OTLP, refused with what to use instead."""

from __future__ import annotations

import json
import os
import re
import runpy
import warnings
from pathlib import Path

from tests.cli_runner import run_cli

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ["What is the exit code for a judge or infrastructure failure?", "Where are cached judge replies stored?",
             "Is judge decoding deterministic by default?", "What happens to contexts longer than the judge's window?"]


def rows_of(path: Path, tmp_path: Path) -> list[dict]:
    out = tmp_path / f"{path.stem}.rows.jsonl"
    done = run_cli("traces", str(path), "--out", str(out))
    assert done.returncode == 0, done.stderr
    return sorted((json.loads(line) for line in out.read_text().splitlines()), key=lambda r: r["start_time"])


def test_the_shipped_trace_file_reads_as_four_rows_with_their_documents(tmp_path):
    rows = rows_of(ROOT / "examples" / "traces.otlp.json", tmp_path)  # JSON Lines named .json: was "Extra data"
    assert [r["user_input"] for r in rows] == QUESTIONS
    assert rows[0]["response"] == "The exit code is 3." and rows[0]["retrieved_contexts"][0].startswith("Exit codes")
    # ids from the JSON text the LangChain instrumentor writes in document.metadata (were missing)
    assert [r["retrieved_context_ids"][0] for r in rows] == ["output.md#3", "cache.md#1", "cache.md#1", "cache.md#2"]


def test_the_example_script_writes_the_same_rows(tmp_path):
    script = runpy.run_path(str(ROOT / "examples" / "traces_otlp.py"))
    made = script["write_traces"](tmp_path / "again.otlp.json")
    again, shipped = rows_of(made, tmp_path), rows_of(ROOT / "examples" / "traces.otlp.json", tmp_path)
    keys = ("user_input", "response", "retrieved_contexts", "retrieved_context_ids")
    assert [[r[k] for k in keys] for r in again] == [[r[k] for k in keys] for r in shipped]


def test_the_docs_snippet_writes_a_file_ragmeter_reads(tmp_path):
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from langchain_core.prompts import ChatPromptTemplate
    from openinference.instrumentation.langchain import LangChainInstrumentor

    text = (ROOT / "docs" / "data.md").read_text()
    snippet = re.search(r"<!-- trace-file-snippet:start -->\n```python\n(.*?)```", text, re.S).group(1)
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        scope: dict = {}
        exec(compile(snippet, "docs/data.md", "exec"), scope)  # noqa: S102 - the page's own code, as a user runs it
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (ChatPromptTemplate.from_messages([("user", "{question}")]) | FakeListChatModel(responses=["Paris."])
             ).invoke({"question": "Which city?"})
        scope["provider"].shutdown()
    finally:
        LangChainInstrumentor().uninstrument()
        os.chdir(here)
    rows = rows_of(tmp_path / "traces.otlp.json", tmp_path)
    # a chain that ends at the chat model returns a LangChain message: its content (was "ai", its type)
    assert [(r["user_input"], r["response"]) for r in rows] == [("Which city?", "Paris.")]


def test_console_exporter_output_is_refused_with_what_to_use(tmp_path):
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

    path = tmp_path / "console.json"
    with path.open("w") as out:
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=out)))
        with provider.get_tracer("app").start_as_current_span("rag") as span:
            span.set_attribute("openinference.span.kind", "CHAIN")
            span.set_attribute("input.value", "Which city?")
        provider.shutdown()
    for command in (["traces", str(path), "--out", str(tmp_path / "rows.jsonl")],
                    ["evaluate", str(path), "--metrics", "exact_match", "--out", str(tmp_path / "run")]):
        done = run_cli(*command)
        assert done.returncode == 2
        assert "ConsoleSpanExporter output (pretty-printed spans, one after another), not OTLP" in done.stderr
        assert "docs/data.md" in done.stderr  # was: "line 31: malformed JSON (Extra data)"


def test_a_trace_file_is_read_a_line_at_a_time_with_the_same_rows(tmp_path, monkeypatch):
    """A 71 MB trace file took 528 MiB read whole (issue 37, item 21): OTLP JSON Lines are now
    read a line at a time, keeping only the attributes rows are made from."""
    from ragmeter.io.data_file import open_data_file
    from ragmeter.io.traces import rows_from_otlp

    shipped = ROOT / "examples" / "traces.otlp.json"
    whole = rows_from_otlp([json.loads(line) for line in shipped.read_text().splitlines()], str(shipped))
    monkeypatch.setattr(Path, "read_bytes", lambda self: (_ for _ in ()).throw(AssertionError("read whole")))
    file = open_data_file(shipped)
    assert file.records() == whole and len(file.sha256()) == 64 and file.kind() == "otlp"
    # an attribute no row is made from is dropped as the file is read, unless --attribute names it
    mapped = open_data_file(shipped).records(mapping={"template": "llm.prompt_template.template"})
    assert all(r["template"].startswith("Answer from these excerpts only") for r in mapped)
