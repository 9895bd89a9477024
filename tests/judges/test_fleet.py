"""Several judge servers behind one spec: spreading, failover, AIMD concurrency."""

from __future__ import annotations

import asyncio
import json
import logging

import httpx
import pytest

import ragmeter
from ragmeter.errors import ConfigError, JudgeUnavailable
from ragmeter.judges.fleet import Fleet, Server
from ragmeter.judges.openai_compat import OpenAICompatJudge
from ragmeter.judges.spec import parse_judge_spec

ROWS = [{"id": f"r{i}", "user_input": f"q{i}?", "retrieved_contexts": [f"c{i} about q{i}"]} for i in range(12)]
A, B = "http://a.test/v1", "http://b.test/v1"


def fleet_transport(hits: dict[str, int], down: set[str] = frozenset(), overloaded: dict[str, int] | None = None):
    """Replicas by host: `down` hosts refuse connections; `overloaded[host]` 503s first."""
    overloaded = dict(overloaded or {})

    def handler(request: httpx.Request) -> httpx.Response:
        host = request.url.host
        if host in down:
            raise httpx.ConnectError("connection refused", request=request)
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        if overloaded.get(host, 0) > 0:
            overloaded[host] -= 1
            return httpx.Response(503, text="busy")
        hits[host] = hits.get(host, 0) + 1
        content = json.dumps({"rating": 2})
        return httpx.Response(200, json={"choices": [{"message": {"content": content}, "finish_reason": "stop"}],
                                         "usage": {"prompt_tokens": 10, "completion_tokens": 3}})
    return httpx.MockTransport(handler)


def run(judge, concurrency: int = 4):
    return ragmeter.evaluate(ROWS, ["context_relevance"], judge=judge, cache=False, progress=False,
                             concurrency=concurrency, retries=3)


def test_spec_lists_replicas_and_identity_ignores_their_order():
    cfg = parse_judge_spec(f"openai-compat:{A},{B}#m")
    assert cfg.base_url == f"{A},{B}"
    assert parse_judge_spec({"backend": "openai-compat", "model": "m", "base_url": [A, B]}).base_url == f"{A},{B}"
    one = OpenAICompatJudge(f"{A},{B}", "m").identity()
    assert one == OpenAICompatJudge(f"{B},{A}", "m").identity() and one["base_url"] == f"{A},{B}"
    assert OpenAICompatJudge(A, "m").identity()["base_url"] == A  # one server: the key is unchanged
    with pytest.raises(ConfigError, match="'ftp://c' is not an http"):
        parse_judge_spec(f"openai-compat:{A},ftp://c#m")
    with pytest.raises(ConfigError, match="must not hold credentials"):
        parse_judge_spec(f"openai-compat:{A},http://u:sk-secret@b.test/v1#m")


def test_requests_are_spread_over_the_replicas_with_the_same_scores():
    hits: dict[str, int] = {}
    result = run(OpenAICompatJudge(f"{A},{B}", "m", transport=fleet_transport(hits)))
    assert sum(hits.values()) == 24 and hits["a.test"] >= 6 and hits["b.test"] >= 6
    assert [r["context_relevance"] for r in result.rows] == [1.0] * 12
    servers = result.manifest["judge"]["servers"]
    assert [s["url"] for s in servers] == [A, B] and sum(s["requests"] for s in servers) == 24


def test_a_replica_that_does_not_answer_is_taken_out_and_nothing_is_lost(caplog):
    hits: dict[str, int] = {}
    judge = OpenAICompatJudge(f"{A},{B}", "m", transport=fleet_transport(hits, down={"b.test"}))
    with caplog.at_level(logging.WARNING, logger="ragmeter"):
        result = run(judge)
    assert hits == {"a.test": 24} and all(r["context_relevance"] == 1.0 for r in result.rows)
    assert f"cannot reach the judge server at {B}" in caplog.text
    assert result.manifest["judge"]["servers"][1]["down"] >= 1


def test_a_replica_that_dies_mid_run_fails_over_at_once():
    hits: dict[str, int] = {}
    down: set[str] = set()
    judge = OpenAICompatJudge(f"{A},{B}", "m", transport=fleet_transport(hits, down=down))
    asyncio.run(judge.check())  # both up at the start
    down.add("b.test")
    result = run(judge)
    assert hits == {"a.test": 24} and result.manifest["faults"]["retries"] == 0  # moved, not retried


def test_every_replica_down_fails_before_any_row_naming_each():
    judge = OpenAICompatJudge(f"{A},{B}", "m", transport=fleet_transport({}, down={"a.test", "b.test"}))
    with pytest.raises(JudgeUnavailable, match=f"at {A}: ConnectError.*at {B}: ConnectError"):
        run(judge)


def test_overload_halves_a_replicas_limit_and_the_request_is_retried():
    hits: dict[str, int] = {}
    judge = OpenAICompatJudge(A, "m", transport=fleet_transport(hits, overloaded={"a.test": 2}))
    result = run(judge)
    assert hits == {"a.test": 24} and all(r["context_relevance"] == 1.0 for r in result.rows)
    assert result.manifest["faults"]["http_errors"] == {"503": 2}


def test_aimd_arithmetic():
    server = Server(A)
    for _ in range(3):
        server.succeeded()  # slow start: +1 per reply
    assert server.limit == 4.0
    server.overloaded()
    assert server.limit == 2.0 and not server.slow_start
    server.succeeded()
    server.succeeded()
    assert server.limit == pytest.approx(2.0 + 1 / 2 + 1 / 2.5)  # then +1/limit per reply
    for _ in range(5):
        server.overloaded()
    assert server.limit == 1.0  # never below one request
    server.went_down(now=100.0)
    server.went_down(now=100.0)
    assert server.down_until == 102.0 and not server.up(101.9) and server.up(102.0)  # 1 s, then 2 s


def test_the_least_loaded_replica_with_room_is_chosen():
    async def go():
        fleet = Fleet([A, B])
        fleet.servers[0].limit = 3.0
        async with fleet.slot(set()) as first, fleet.slot(set()) as second, fleet.slot(set()) as third:
            return [first.url, second.url, third.url]
    assert asyncio.run(go()) == [A, B, A]  # A: 0/3; B: 0/1 < 1/3; then B is full


def test_a_lone_server_that_drops_connections_is_retried_not_taken_out(monkeypatch):
    """One server resetting one connection in five (and a 502 now and then) is a transient
    fault like a 500: every row is scored, each fault retried on the same server."""
    import functools

    import ragmeter.run.execute
    from ragmeter.judges.retry import RetryPolicy

    monkeypatch.setattr(ragmeter.run.execute, "RetryPolicy", functools.partial(RetryPolicy, backoff=0.0))
    seen = {"n": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        seen["n"] += 1
        if seen["n"] % 5 == 0:
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.", request=request)
        if seen["n"] % 7 == 0:
            return httpx.Response(502, text="bad gateway")
        content = json.dumps({"rating": 2})
        return httpx.Response(200, json={"choices": [{"message": {"content": content}, "finish_reason": "stop"}],
                                         "usage": {"prompt_tokens": 10, "completion_tokens": 3}})

    judge = OpenAICompatJudge(A, "m", transport=httpx.MockTransport(handler))
    result = run(judge)
    assert [r["context_relevance"] for r in result.rows] == [1.0] * len(ROWS)
    assert result.manifest["faults"]["retries"] == seen["n"] - 2 * len(ROWS)  # each fault retried once
