"""A run under a flaky judge finishes (issue 37, item 17): a call that fails its retries is
that row's failure, tried once more at the end and patched into the results in its place;
a judge that is down still stops the run; --max-failed decides the exit code."""

from __future__ import annotations

import asyncio
import json

import pytest

from ragmeter.engine.failed_calls import IN_A_ROW
from ragmeter.errors import JudgeUnavailable, TransientJudgeError
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.run.config import RunConfig
from ragmeter.run.execute import run_config

ROWS = [{"id": f"r{i:02d}", "user_input": f"What is item {i}?", "response": f"Item {i}.", "reference": f"Item {i}.",
         "retrieved_contexts": [f"Item {i} is red."]} for i in range(20)]


def config(tmp_path, **kw) -> RunConfig:
    return RunConfig(**{"dataset": "<in-memory>", "metrics": ["context_relevance"], "judge": "scripted",
                        "retries": 0, "output": str(tmp_path / "run"), "progress": False, **kw})


def flaky(fail_first: set[str], always: set[str] = frozenset()):
    """Fails the first call for each row in `fail_first`, every call for rows in `always`."""
    seen: set[str] = set()

    def reply(request):
        text = request.messages[-1]["content"]
        row = next(r["id"] for r in ROWS if r["user_input"] in text)
        if row in always or (row in fail_first and row not in seen):
            seen.add(row)
            raise TransientJudgeError("HTTP 503 from the judge", status=503)
        return {"rating": 2}
    return reply


def test_failed_calls_are_tried_again_at_the_end_and_patched_in_place(tmp_path):
    result = asyncio.run(run_config(config(tmp_path), data=ROWS, judge=ScriptedJudge(flaky({"r03", "r11"}))))
    rows = [json.loads(line) for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == [r["id"] for r in ROWS]  # dataset order kept
    assert all(r["context_relevance"] == 1.0 for r in rows)  # was: the run aborted, exit 3
    faults = result.manifest["faults"]
    assert (faults["failed_calls"], faults["recovered_calls"]) == (0, 2)
    record = result.manifest["metrics"]["context_relevance"]
    assert (record["n"], record["unscored"], record["failed"], record["mean"]) == (20, 0, 0, 1.0)


def test_a_call_that_keeps_failing_leaves_its_row_unscored_and_the_run_finishes(tmp_path):
    result = asyncio.run(run_config(config(tmp_path), data=ROWS, judge=ScriptedJudge(flaky(set(), {"r05"}))))
    rows = {json.loads(line)["id"]: json.loads(line) for line in
            (tmp_path / "run" / "results.jsonl").read_text().splitlines()}
    assert rows["r05"]["context_relevance"] is None
    assert rows["r05"]["context_relevance_reason"].startswith("judge call failed: ")
    faults = result.manifest["faults"]
    assert (faults["failed_calls"], faults["failed_rows"]) == (1, ["r05"])
    record = result.manifest["metrics"]["context_relevance"]
    assert (record["n"], record["unscored"], record["failed"]) == (19, 1, 1)


def test_a_judge_that_is_down_still_stops_the_run(tmp_path):
    def down(request):
        raise TransientJudgeError("connection refused", status=None)

    with pytest.raises(JudgeUnavailable, match=f"{IN_A_ROW} calls failed in a row and a call that succeeded "
                                               "before fails too: the judge looks down"):
        asyncio.run(run_config(config(tmp_path), data=ROWS, judge=ScriptedJudge(down)))
    assert not (tmp_path / "run" / "results.jsonl").exists()


def test_rows_whose_prompts_always_fail_on_a_healthy_judge_are_theirs_not_the_judges(tmp_path):
    """Issue 50: twelve rows in a row whose prompts always got a 500 from a healthy server
    stopped the run as 'the judge looks down'. The breaker now sends again the last call that
    succeeded: answered, the failures are the rows' own and the run goes on."""
    bad = {f"r{i:02d}" for i in range(3, 15)}  # twelve in a row
    result = asyncio.run(run_config(config(tmp_path), data=ROWS, judge=ScriptedJudge(flaky(set(), bad))))
    record = result.manifest["metrics"]["context_relevance"]
    assert (record["n"], record["failed"]) == (8, 12)
    faults = result.manifest["faults"]
    assert faults["failed_calls"] == 12 and faults["judge_answered_probe"] >= 1


def test_a_judge_that_goes_down_mid_run_still_stops_it(tmp_path):
    calls = [0]

    def dies(request):
        calls[0] += 1
        if calls[0] > 6:
            raise TransientJudgeError("connection refused", status=None)
        return {"rating": 2}

    with pytest.raises(JudgeUnavailable, match="a call that succeeded before fails too"):
        asyncio.run(run_config(config(tmp_path), data=ROWS, judge=ScriptedJudge(dies)))


@pytest.mark.parametrize(("limit", "code"), [(0.05, 0), (0.01, 3)])
def test_max_failed_sets_the_exit_code(limit, code, capsys, tmp_path):
    import typer

    from ragmeter.cli.evaluate import _failed_calls
    from ragmeter.results.gates import GateReport, failed_calls
    from ragmeter.results.runs import load_run
    from ragmeter.testing import write_run

    manifest = load_run(write_run(tmp_path / "run", {"context_relevance": [1.0] * 19 + [None]})).manifest
    gate = failed_calls(manifest, limit)
    assert gate is None  # no pair failed
    manifest.faults.failed_calls, manifest.faults.failed_rows = 1, ["q19"]
    gate = failed_calls(manifest, limit)
    assert (gate.value, gate.bar, gate.passed) == (0.05, limit, not code)
    assert "rows q19 are unscored" in gate.message

    class Result:
        gates = GateReport(results=[gate])

    assert Result.gates.exit_code == code
    if code:
        with pytest.raises(typer.Exit) as exit_:
            _failed_calls(Result())
        assert exit_.value.exit_code == 3
    else:
        _failed_calls(Result())
    said = " ".join(capsys.readouterr().err.split())
    assert "1 of 20 (row, metric) pairs stayed failed" in said and "run again to retry only those" in said


@pytest.mark.parametrize(("limit", "passes"), [(0.05, True), (0.01, False)])
def test_the_api_and_passes_apply_max_failed_as_the_cli_does(tmp_path, limit, passes):
    """Issue 52 item 3: a run-level rule, not a CLI flag: evaluate(max_failed=...) takes it,
    result.gates carries it, and passes() (what the pytest plugin asserts) fails with it."""
    import ragmeter

    result = ragmeter.evaluate(ROWS, ["context_relevance"], judge=ScriptedJudge(flaky(set(), {"r05"})), retries=0,
                               cache=False, progress=False, max_failed=limit)
    failed = [g for g in result.gates.results if g.kind == "failed"]
    assert len(failed) == 1 and failed[0].passed is passes and failed[0].value == 0.05
    assert result.gates.exit_code == (0 if passes else 3)
    assert bool(result.passes()) is passes
    assert bool(result.passes(context_relevance=0.5)) is passes  # any gate the caller sets fails with it too
    clean = ragmeter.evaluate(ROWS, ["context_relevance"], judge=ScriptedJudge(flaky(set())), cache=False,
                              progress=False, max_failed=limit)
    assert clean.gates is None and clean.passes()


def server(answer):
    import httpx

    def handler(request):
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        return answer()
    return httpx.MockTransport(handler)


def http_judge(transport, **kw):
    from ragmeter.judges.openai_compat import OpenAICompatJudge

    return OpenAICompatJudge("http://judge.test/v1", "m", transport=transport, **kw)


def test_a_reply_that_is_not_utf8_is_a_failed_call_not_a_traceback():
    import httpx

    import ragmeter

    judge = http_judge(server(lambda: httpx.Response(200, content=b'{"choices": "\xff\xfe"}',
                                                     headers={"content-type": "application/json"})))
    result = ragmeter.evaluate([ROWS[0]], ["context_relevance"], judge=judge, cache=False, progress=False, retries=0)
    assert "that is not JSON (or not UTF-8)" in result.rows[0]["context_relevance_reason"]  # was UnicodeDecodeError


def test_a_reply_over_the_cap_is_read_no_further():
    import httpx

    import ragmeter

    sent = {"bytes": 0}

    def huge():
        async def body():
            for _ in range(64):  # 64 MiB offered, a MiB at a time
                sent["bytes"] += 2**20
                yield b" " * 2**20
        return httpx.Response(200, content=body(), headers={"content-type": "application/json"})

    judge = http_judge(server(huge), max_reply_bytes=4 * 2**20)
    result = ragmeter.evaluate([ROWS[0]], ["context_relevance"], judge=judge, cache=False, progress=False, retries=0)
    assert "an answer over 4,194,304 bytes (the cap)" in result.rows[0]["context_relevance_reason"]
    assert result.manifest["faults"]["failed_calls"] == 1
    assert sent["bytes"] <= 2 * 5 * 2**20  # read no further than the cap, on each of its two tries


def test_a_refused_connection_says_so():
    import socket

    from ragmeter.judges.openai_compat import no_answer

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens
    import httpx

    from ragmeter.endpoints import fast_transport

    async def call():
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}",
                                     transport=fast_transport(f"http://127.0.0.1:{port}")) as client:
            try:
                await client.post("/v1/chat/completions", json={})
            except httpx.HTTPError as exc:
                return no_answer(exc)
        return "answered"

    assert asyncio.run(call()) == "connection refused"  # was "ConnectTimeout"


def test_a_row_the_server_refuses_is_that_rows_failure_and_the_run_goes_on():
    """Issue 65 item 2: an HTTP 400 for one row ("maximum context length") ended the run
    with exit 3, naming no row, and the replies in flight were lost. It is now the row's
    failure with the server's reason, sent once (never again at the end: it would be refused
    again), and counted against max_failed."""
    import httpx

    import ragmeter

    sent: list[str] = []

    def handler(request):
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        text = request.content.decode()
        sent.append(text)
        if "item 7?" in text:
            return httpx.Response(400, json={"error": {"message": "This model's maximum context length is 4096"}})
        return httpx.Response(200, json={"choices": [{"message": {"content": '{"rating": 2}'},
                                                      "finish_reason": "stop"}]})

    result = ragmeter.evaluate(ROWS, ["context_relevance"], judge=http_judge(httpx.MockTransport(handler)),
                               cache=False, progress=False, concurrency=4, retries=2, max_failed=0.1)
    rows = {r["id"]: r for r in result.rows}
    assert rows["r07"]["context_relevance"] is None
    assert "HTTP 400" in rows["r07"]["context_relevance_reason"]
    assert "maximum context length is 4096" in rows["r07"]["context_relevance_reason"]
    assert sum(r["context_relevance"] == 1.0 for r in result.rows) == 19  # the others, in flight or not, kept
    assert sum("item 7?" in text for text in sent) == 1  # not retried, not tried again at the end
    faults = result.manifest["faults"]
    assert (faults["failed_calls"], faults["failed_rows"]) == (1, ["r07"])
    assert result.gates.exit_code == 0  # 1 of 20 is under max_failed=0.1


def test_a_server_that_refuses_every_request_stops_the_run_saying_so():
    import httpx

    import ragmeter

    def handler(request):
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        return httpx.Response(400, json={"error": {"message": "unknown parameter: seed"}})

    with pytest.raises(JudgeUnavailable, match="the server refused 10 requests in a row"):
        ragmeter.evaluate(ROWS, ["context_relevance"], judge=http_judge(httpx.MockTransport(handler)),
                          cache=False, progress=False)


def test_one_failed_call_shared_by_many_rows_counts_once_toward_the_breaker():
    """Issue 65 item 6: one request awaited by several rows (the same prompt) raises one
    exception in each; counted once per row, 19% faults stopped 1 run in 4 as "down"."""
    from ragmeter.engine.failed_calls import FailedCalls

    failures = FailedCalls()
    shared = JudgeUnavailable("judge: HTTP 503 (gave up after 4 attempts)")
    for _ in range(3 * IN_A_ROW):  # was: JudgeUnavailable at the tenth row
        asyncio.run(failures.failed_call(shared))
    assert failures.in_a_row == 1
    with pytest.raises(JudgeUnavailable, match="looks down"):
        for i in range(IN_A_ROW):
            asyncio.run(failures.failed_call(JudgeUnavailable(f"call {i}")))


def test_the_breakers_probe_is_retried_as_any_call_is():
    """A probe sent once said "down" for a judge that fails one call in five."""
    from ragmeter.judges.retry import RetryPolicy
    from ragmeter.judges.session import JudgeSession

    calls = [0]

    def once_down(request):
        calls[0] += 1
        if calls[0] == 2:  # the probe's first try
            raise TransientJudgeError("HTTP 503", status=503)
        return {"rating": 2}

    from ragmeter.cache import NullCache
    from ragmeter.judges.base import JudgeRequest

    judge = ScriptedJudge(once_down)
    session = JudgeSession(judge, NullCache(), policy=RetryPolicy(retries=2, backoff=0.0))
    session.last_answered = JudgeRequest([{"role": "user", "content": "hi"}], None, 8, "t", 1.0)
    calls[0] = 1
    assert asyncio.run(session.probe()) is True and calls[0] == 3
