"""Production traces in: OTLP JSON written from a real OpenInference-instrumented LangChain
chain (the OpenTelemetry SDK's spans, encoded by its OTLP encoder) becomes one row per trace."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

import ragmeter
from ragmeter.errors import DataError
from ragmeter.io.datasets import load_dataset
from ragmeter.judges.scripted import ScriptedJudge
from tests.conftest import ROOT
from tests.otel_chain import traced_rag

QUESTIONS = ["What is the capital of France?", "Which river runs through Paris?"]


@pytest.fixture(scope="module")
def spans():
    """Spans of a LangChain retrieval chain (two questions), a chain with no retriever (one),
    and one span from a tracer that is not OpenInference."""
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    traced_rag(SimpleSpanProcessor(exporter), QUESTIONS, bare=["Who won in 1998?"], other=1)
    return exporter.get_finished_spans()


def otlp_json(spans) -> dict:
    """The spans as one ExportTraceServiceRequest in protobuf's JSON (ids in base64)."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    return MessageToDict(encode_spans(spans))


def hex_ids(request: dict) -> dict:
    """The same request as the OpenTelemetry Collector's file exporter writes it: hex ids."""
    for resource in request["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if span.get(key):
                        span[key] = base64.b64decode(span[key]).hex()
    return request


def test_each_trace_is_one_row_with_its_question_answer_and_retrieved_documents(tmp_path: Path, spans, caplog):
    path = tmp_path / "traces.json"
    path.write_text(json.dumps(otlp_json(spans)))
    dataset = load_dataset(path)
    assert "traces.json: 3 of 4 traces read; skipped 1 from another instrumentation" in caplog.text
    rows = {r["user_input"]: r for r in dataset.records}
    assert set(rows) == {*QUESTIONS, "Who won in 1998?"}
    first = rows[QUESTIONS[0]]
    assert first["response"] == "Paris."
    assert first["retrieved_contexts"] == ["Paris is the capital of France.",
                                           f"The Seine runs through Paris. ({QUESTIONS[0]})"]
    assert rows[QUESTIONS[1]]["response"] == "The Seine."
    assert "retrieved_contexts" not in rows["Who won in 1998?"]  # no retriever span: nothing, not []
    trace_ids = {s.context.trace_id for s in spans}
    assert {int(r["trace_id"], 16) for r in rows.values()} <= trace_ids
    assert all(r["id"] == r["trace_id"] and len(r["span_id"]) == 16 for r in rows.values())


def test_collector_jsonl_with_hex_ids_reads_the_same_and_evaluates_with_trace_ids_kept(tmp_path: Path, spans):
    base64_file, collector = tmp_path / "traces.json", tmp_path / "collector.jsonl"
    base64_file.write_text(json.dumps(otlp_json(spans)))
    collector.write_text(json.dumps(hex_ids(otlp_json(spans))) + "\n")  # a request a line, as the exporter writes
    assert load_dataset(collector).records == load_dataset(base64_file).records

    judge = ScriptedJudge(lambda request: {"rating": 2})
    result = ragmeter.evaluate(collector, ["context_relevance"], judge=judge, cache=False, progress=False,
                               out=tmp_path / "run")
    by_question = {r["user_input"]: r for r in result.rows}
    assert by_question[QUESTIONS[0]]["context_relevance"] == 1.0
    unscored = by_question["Who won in 1998?"]
    assert unscored["context_relevance"] is None and "retrieved_contexts" in unscored["context_relevance_reason"]
    assert all(len(r["trace_id"]) == 32 for r in result.rows)  # trace ids kept in results.jsonl


def test_a_file_of_other_spans_or_a_broken_span_is_one_clear_error(tmp_path: Path, spans):
    other = [s for s in spans if s.instrumentation_scope.name == "another-instrumentation"]
    path = tmp_path / "other.json"
    path.write_text(json.dumps(otlp_json(other)))
    with pytest.raises(DataError, match=r"other.json: no OpenInference RAG traces among 1 trace\(s\): 1 from "
                                        r"another instrumentation"):
        load_dataset(path)
    broken = hex_ids(otlp_json(spans))
    del broken["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"]
    lines = tmp_path / "broken.jsonl"
    lines.write_text(json.dumps(hex_ids(otlp_json(spans))) + "\n" + json.dumps(broken) + "\n")
    with pytest.raises(DataError, match=r"broken.jsonl, line 2: not an OTLP span \(KeyError: 'traceId'\)"):
        load_dataset(lines)


def test_a_trace_file_larger_than_free_memory_is_one_line_before_reading(tmp_path, monkeypatch):
    """Issue 50: 1e6 spans peaked at 3.0 GiB and, under a 1.5 GB cap, died with a MemoryError
    traceback. Spans now hold one copy of each key and trace id and rows are written as they
    go (1.81 GB -> 1.15 GB on 1e6 spans); what cannot fit is said before reading."""
    import ragmeter.io.spans as spans
    from tests.cli_runner import run_cli

    source = tmp_path / "t.jsonl"
    source.write_text(Path(ROOT / "examples" / "traces.otlp.json").read_text(encoding="utf-8"))
    monkeypatch.setattr(spans, "available_memory", lambda: 1000)
    done = run_cli("traces", str(source), "--out", str(tmp_path / "rows.jsonl"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "MB of traces need about" in done.stderr and "split the file" in done.stderr
    assert not (tmp_path / "rows.jsonl").exists()


def test_out_of_memory_anywhere_is_one_line(tmp_path, monkeypatch):
    import ragmeter.io.traces as traces
    from tests.cli_runner import run_cli

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(traces, "rows_from_traces", no_memory)
    done = run_cli("traces", str(ROOT / "examples" / "traces.otlp.json"), "--out", str(tmp_path / "rows.jsonl"))
    assert done.returncode == 3 and done.stderr.startswith("ragmeter: error: out of memory") and \
        done.stderr.count("\n") == 1

