"""Production traces through a real Phoenix server (`phoenix serve` on 127.0.0.1, a temporary
working folder): a real OpenInference-instrumented LangChain chain sends its spans over OTLP,
`ragmeter traces` samples them into a dataset, a run scores it, `ragmeter publish` puts the
scores back, and Phoenix's own client reads the annotations."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ragmeter
from ragmeter.io.datasets import load_dataset
from ragmeter.judges.scripted import ScriptedJudge
from tests.cli_runner import run_cli
from tests.otel_chain import traced_rag

pytestmark = pytest.mark.phoenix
PROJECT = "rag-prod"
QUESTIONS = [f"Question {n}: which river runs through Paris?" for n in range(12)]
BARE = ["Who won in 1998?"]  # a chain without a retriever


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(check, what: str, seconds: float = 120):
    """Polls an outside process until `check()` is true (a real server takes its own time)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.25)
    raise AssertionError(f"{what}: not within {seconds} s")


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory):
    """A Phoenix server (the `phoenix` console script next to this Python) and its URL."""
    import httpx

    server = Path(sys.executable).with_name("phoenix")
    assert server.exists(), "arize-phoenix is a dev dependency: make setup installs it"
    work = tmp_path_factory.mktemp("phoenix")
    port = _free_port()
    env = {**os.environ, "PHOENIX_WORKING_DIR": str(work), "PHOENIX_HOST": "127.0.0.1",
           "PHOENIX_PORT": str(port), "PHOENIX_GRPC_PORT": str(_free_port())}
    log = (work / "server.log").open("wb")
    proc = subprocess.Popen([str(server), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        assert proc.poll() is None, (work / "server.log").read_text()[-2000:]
        try:
            return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        _wait(healthy, "phoenix serve answering /healthz")
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


@pytest.fixture(scope="module")
def traced(phoenix):
    """13 RAG traces and one from another instrumentation, sent to the project over OTLP/HTTP."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from phoenix.client import Client

    exporter = OTLPSpanExporter(endpoint=f"{phoenix}/v1/traces")
    traced_rag(SimpleSpanProcessor(exporter), QUESTIONS, bare=BARE, other=1,
               resource={"openinference.project.name": PROJECT})
    client = Client(base_url=phoenix)
    roots = _wait(lambda: (r := _roots(client, PROJECT)) and len(r) == len(QUESTIONS) + len(BARE) + 1 and r,
                  "Phoenix storing the spans")
    return client, roots


def _roots(client, project: str) -> list[dict]:
    """The project's root spans so far (none while Phoenix has not made the project yet)."""
    import httpx

    try:
        return client.spans.get_spans(project_identifier=project, parent_id="null", limit=100)
    except httpx.HTTPStatusError as exc:
        if exc.response.status_code != 404:
            raise
        return []


def test_sample_evaluate_publish_and_read_the_scores_back_in_phoenix(phoenix, traced, tmp_path: Path):
    client, roots = traced
    done = run_cli("traces", f"phoenix:{phoenix}", "--project", PROJECT, "--out", str(tmp_path / "day.jsonl"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"14 traces in project {PROJECT}; 14 traces sampled; wrote 13 rows")
    rows = [json.loads(line) for line in (tmp_path / "day.jsonl").read_text().splitlines()]
    assert sorted(r["user_input"] for r in rows) == sorted(QUESTIONS + BARE)
    first = next(r for r in rows if r["user_input"] == QUESTIONS[0])
    assert first["response"] in ("Paris.", "The Seine.")
    assert first["retrieved_contexts"] == ["Paris is the capital of France.",
                                           f"The Seine runs through Paris. ({QUESTIONS[0]})"]
    root_of = {r["context"]["trace_id"]: r["context"]["span_id"] for r in roots}
    assert all(root_of[r["trace_id"]] == r["span_id"] for r in rows)
    assert [r["start_time"] for r in rows] == sorted(r["start_time"] for r in rows)  # in time order

    judge = ScriptedJudge(lambda request: {"rating": 2})
    result = ragmeter.evaluate(tmp_path / "day.jsonl", ["context_relevance"], judge=judge, cache=False,
                               progress=False, out=tmp_path / "run")
    scored = {r["span_id"]: r["context_relevance"] for r in result.rows if r["context_relevance"] is not None}
    assert len(scored) == len(QUESTIONS)  # the chain without a retriever is unscored, not 0

    published = run_cli("publish", str(tmp_path / "run"), "--to", f"phoenix:{phoenix}",
                        "--fail-under", "context_relevance=0.5")
    assert published.returncode == 0, published.stderr
    assert published.stdout.strip() == (f"published 12 annotations on 13 traces to {phoenix}; 1 unscored left out")
    annotations = client.spans.get_span_annotations(span_ids=list(scored), project_identifier=PROJECT)
    assert {a["span_id"]: a["result"]["score"] for a in annotations} == scored
    assert {(a["name"], a["identifier"], a["annotator_kind"], a["result"]["label"]) for a in annotations} == {
        ("context_relevance", "ragmeter", "LLM", "pass")}
    assert all(a["result"]["explanation"] for a in annotations)

    again = run_cli("publish", str(tmp_path / "run"), "--to", f"phoenix:{phoenix}")
    assert again.returncode == 0, again.stderr
    after = client.spans.get_span_annotations(span_ids=list(scored), project_identifier=PROJECT)
    assert sorted(a["id"] for a in after) == sorted(a["id"] for a in annotations)  # replaced, not duplicated
    assert {a["result"]["label"] for a in after} == {None}  # this time without a bar


def test_a_seeded_share_is_the_same_sample_spread_over_time(phoenix, traced, tmp_path: Path):
    _, roots = traced
    by_time = [r["context"]["trace_id"] for r in sorted(roots, key=lambda r: r["start_time"])]
    files = []
    for name, seed in (("a", "4"), ("b", "4")):
        done = run_cli("traces", f"phoenix:{phoenix}", "--project", PROJECT, "--sample", "0.25", "--seed", seed,
                       "--out", str(tmp_path / f"{name}.jsonl"))
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(f"14 traces in project {PROJECT}; 4 traces sampled")
        files.append((tmp_path / f"{name}.jsonl").read_text())
    assert files[0] == files[1]
    positions = [by_time.index(json.loads(line)["trace_id"]) for line in files[0].splitlines()]
    quarters = [0, 3, 7, 10, 14]  # 14 traces cut into 4 equal runs by start time
    seen = [next(q for q in range(4) if quarters[q] <= p < quarters[q + 1]) for p in positions]
    # one trace from each quarter, in time order (the one from another instrumentation has no row)
    assert len(seen) >= 3 and seen == sorted(set(seen))


def test_phoenix_spans_export_reads_as_the_same_rows(phoenix, traced, tmp_path: Path):
    client, _ = traced
    frame = client.spans.get_spans_dataframe(project_identifier=PROJECT)
    frame.to_parquet(tmp_path / "spans.parquet")
    frame.to_json(tmp_path / "spans.jsonl", orient="records", lines=True, date_format="iso", date_unit="us")
    pulled = run_cli("traces", f"phoenix:{phoenix}", "--project", PROJECT, "--out", str(tmp_path / "day.jsonl"))
    assert pulled.returncode == 0, pulled.stderr
    expected = {r["trace_id"]: r for r in map(json.loads, (tmp_path / "day.jsonl").read_text().splitlines())}
    for name in ("spans.parquet", "spans.jsonl"):
        assert {r["trace_id"]: r for r in load_dataset(tmp_path / name).records} == expected, name


def test_a_wrong_project_a_dead_server_or_an_empty_window_is_one_line(phoenix, traced, tmp_path: Path):
    out = str(tmp_path / "x.jsonl")
    wrong = run_cli("traces", f"phoenix:{phoenix}", "--project", "nope", "--out", out)
    assert (wrong.returncode, wrong.stderr.strip()) == (2, f"ragmeter: error: Phoenix at {phoenix} has no project "
                                                           "'nope' (Project with name nope not found)")
    dead = run_cli("traces", f"phoenix:http://127.0.0.1:{_free_port()}", "--out", out)
    assert dead.returncode == 3 and "is not reachable (ConnectError" in dead.stderr
    empty = run_cli("traces", f"phoenix:{phoenix}", "--project", PROJECT, "--since", "2099-01-01", "--out", out)
    assert (empty.returncode, empty.stderr.strip()) == (
        2, f"ragmeter: error: {phoenix}: no traces in project '{PROJECT}' since 2099-01-01T00:00:00+00:00")
    assert not Path(out).exists()


def test_sessions_from_phoenix_are_sampled_whole(phoenix, tmp_path: Path):
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from phoenix.client import Client

    chat = {"Where is the Louvre?": "chat-1", "When does it open?": "chat-1", "Is it long?": "chat-2"}
    traced_rag(SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{phoenix}/v1/traces")), list(chat), sessions=chat,
               resource={"openinference.project.name": "rag-chat"})
    client = Client(base_url=phoenix)
    _wait(lambda: len(_roots(client, "rag-chat")) == 3, "Phoenix storing the spans")
    done = run_cli("traces", f"phoenix:{phoenix}", "--project", "rag-chat", "--sessions", "--sample", "0.5",
                   "--out", str(tmp_path / "chats.jsonl"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("3 traces in project rag-chat; 1 sessions sampled; wrote 1 rows")
    (chat_row,) = [json.loads(line) for line in (tmp_path / "chats.jsonl").read_text().splitlines()]
    asked = [m["content"] for m in chat_row["messages"] if m["type"] == "human"]
    assert asked == [q for q, s in chat.items() if s == chat_row["id"]]  # a session is never cut
