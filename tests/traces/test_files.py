"""`ragmeter traces FILE`: a file of traces (OTLP JSON written from a real instrumented chain)
sampled by time, by trace or by session, into a dataset file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_runner import run_cli
from tests.io.test_traces import otlp_json
from tests.otel_chain import traced_rag

CHAT = {"Where is the Louvre?": "chat-1", "When does it open?": "chat-1", "How much is a ticket?": "chat-1",
        "Which river runs through Paris?": "chat-2", "Is it long?": "chat-2"}


@pytest.fixture(scope="module")
def traces_file(tmp_path_factory) -> Path:
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    traced_rag(SimpleSpanProcessor(exporter), [*CHAT, "A question on its own?"], sessions=CHAT)
    path = tmp_path_factory.mktemp("traces") / "traces.json"
    path.write_text(json.dumps(otlp_json(exporter.get_finished_spans())))
    return path


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_sessions_become_conversations_with_their_turns_in_order(traces_file: Path, tmp_path: Path):
    done = run_cli("traces", str(traces_file), "--sessions", "--out", str(tmp_path / "chats.jsonl"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"6 traces in the file; 3 sessions sampled; wrote 3 rows to {tmp_path / 'chats.jsonl'}"
    chats = {r["id"]: r for r in rows(tmp_path / "chats.jsonl")}
    assert [m["content"] for m in chats["chat-1"]["messages"] if m["type"] == "human"] == [
        "Where is the Louvre?", "When does it open?", "How much is a ticket?"]
    assert [m["type"] for m in chats["chat-2"]["messages"]] == ["human", "ai", "human", "ai"]
    assert len(chats["chat-1"]["trace_ids"]) == 3 and chats["chat-1"]["trace_id"] == chats["chat-1"]["trace_ids"][-1]
    alone = next(r for r in chats.values() if r["id"] not in CHAT.values())
    assert alone["id"] == alone["trace_id"] and len(alone["messages"]) == 2  # a trace without a session


def test_a_window_and_a_share_of_a_file(traces_file: Path, tmp_path: Path):
    every = run_cli("traces", str(traces_file), "--out", str(tmp_path / "all.jsonl"))
    assert every.returncode == 0, every.stderr
    starts = sorted(r["start_time"] for r in rows(tmp_path / "all.jsonl"))
    assert len(starts) == 6
    later = run_cli("traces", str(traces_file), "--since", starts[2], "--sample", "0.5", "--seed", "1",
                    "--out", str(tmp_path / "later.jsonl"))
    assert later.returncode == 0, later.stderr
    kept = rows(tmp_path / "later.jsonl")
    assert later.stdout.startswith("4 traces in the file; 2 traces sampled") and len(kept) == 2
    assert all(r["start_time"] >= starts[2] for r in kept)
    assert kept[0]["start_time"] in starts[2:4] and kept[1]["start_time"] in starts[4:6]  # one from each half


def test_a_file_that_is_not_traces_or_holds_none_in_the_window_is_one_line(traces_file: Path, tmp_path: Path):
    dataset = Path(__file__).resolve().parents[2] / "examples" / "dataset.jsonl"
    plain = run_cli("traces", str(dataset), "--out", str(tmp_path / "x.jsonl"))
    assert (plain.returncode, plain.stderr.strip()) == (
        2, f"ragmeter: error: {dataset}: not a file of traces (OTLP JSON, or spans exported from Phoenix)")
    empty = run_cli("traces", str(traces_file), "--until", "2000-01-01", "--out", str(tmp_path / "x.jsonl"))
    assert (empty.returncode, empty.stderr.strip()) == (
        2, f"ragmeter: error: {traces_file}: no traces until 2000-01-01T00:00:00+00:00 among 6")
    bad = run_cli("traces", str(traces_file), "--sample", "2", "--out", str(tmp_path / "x.jsonl"))
    assert bad.returncode == 2 and "above 0 and at most 1" in bad.stderr
    assert not (tmp_path / "x.jsonl").exists()


def test_custom_instrumentation_is_read_through_the_attributes_you_name(tmp_path: Path):
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("my-rag")
    with tracer.start_as_current_span("ask", attributes={"app.question": "Where is the Louvre?",
                                                         "eval.expected": "In Paris."}) as root:
        with tracer.start_as_current_span("search", attributes={"app.chunks.1.text": "It opened in 1793.",
                                                                "app.chunks.0.text": "The Louvre is in Paris."}):
            pass
        with tracer.start_as_current_span("search-more", attributes={"app.chunks.0.text": "Paris is in France."}):
            pass
        root.set_attribute("app.answer", "In Paris.")
    with tracer.start_as_current_span("GET /health"):
        pass
    path = tmp_path / "custom.json"
    path.write_text(json.dumps(otlp_json(exporter.get_finished_spans())))

    plain = run_cli("traces", str(path), "--out", str(tmp_path / "x.jsonl"))
    assert plain.returncode == 2 and "no OpenInference RAG traces among 2 trace(s)" in plain.stderr
    done = run_cli("traces", str(path), "--attribute", "user_input=app.question", "--attribute", "response=app.answer",
                   "--attribute", "retrieved_contexts=app.chunks.*.text", "--attribute", "reference=eval.expected",
                   "--out", str(tmp_path / "rows.jsonl"))
    assert done.returncode == 0, done.stderr
    (row,) = rows(tmp_path / "rows.jsonl")  # the health check holds none of the attributes: skipped
    assert (row["user_input"], row["response"], row["reference"]) == ("Where is the Louvre?", "In Paris.", "In Paris.")
    assert row["retrieved_contexts"] == ["The Louvre is in Paris.", "It opened in 1793.", "Paris is in France."]
    for bad in ("user_input", "user input=app.q", "retrieved_contexts=a.*.b.*"):
        wrong = run_cli("traces", str(path), "--attribute", bad, "--out", str(tmp_path / "y.jsonl"))
        assert wrong.returncode == 2 and "expected FIELD=ATTRIBUTE" in wrong.stderr, bad
