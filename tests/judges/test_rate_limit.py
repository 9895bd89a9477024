"""Requests- and tokens-per-minute limits for paid APIs (issue 37, item 18), on a fake clock:
waits computed, never slept."""

from __future__ import annotations

import asyncio

import httpx
import pytest

import ragmeter
from ragmeter.judges.openai_compat import OpenAICompatJudge
from ragmeter.judges.rate_limit import RateLimiter


class FakeTime:
    def __init__(self) -> None:
        self.now, self.waits = 0.0, []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(round(seconds, 6))
        self.now += seconds


def test_requests_per_minute_across_calls_in_flight():
    fake = FakeTime()
    limits = RateLimiter(rpm=60, clock=fake.clock, sleep=fake.sleep)

    async def burst() -> None:
        await asyncio.gather(*(limits.acquire(10) for _ in range(63)))  # 63 calls in flight at once

    asyncio.run(burst())
    assert fake.waits == [1.0, 1.0, 1.0]  # a minute's 60 at once, then one a second
    assert fake.now == pytest.approx(3.0)


def test_tokens_per_minute_and_unused_reply_tokens_given_back():
    fake = FakeTime()
    limits = RateLimiter(tpm=1000, clock=fake.clock, sleep=fake.sleep)

    async def calls() -> None:
        await limits.acquire(600)
        await limits.acquire(600)  # 400 left: waits for 200 more, 12 s at 1000/min
        limits.give_back(500)  # the reply used 100 of its 600
        await limits.acquire(500)  # 500 there now: no wait

    asyncio.run(calls())
    assert fake.waits == [12.0]


def test_a_judge_with_limits_waits_for_them(monkeypatch):
    seen: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        seen.append(1)
        return httpx.Response(200, json={"choices": [{"message": {"content": '{"rating": 2}'},
                                                      "finish_reason": "stop"}],
                                         "usage": {"prompt_tokens": 50, "completion_tokens": 5}})

    fake = FakeTime()
    judge = OpenAICompatJudge("http://a.test/v1,http://b.test/v1", "m", transport=httpx.MockTransport(handler),
                              rpm=2)
    judge.limits.clock, judge.limits.sleep = fake.clock, fake.sleep
    rows = [{"id": f"r{i}", "user_input": f"q{i}?", "retrieved_contexts": [f"c{i}"]} for i in range(2)]
    result = ragmeter.evaluate(rows, ["context_relevance"], judge=judge, cache=False, progress=False, concurrency=4)
    assert len(seen) == 4 and result.manifest["metrics"]["context_relevance"]["n"] == 2
    assert fake.waits == [30.0, 30.0]  # 2 a minute over both replicas: the 3rd and 4th wait


def test_limits_are_checked_settings():
    from ragmeter.errors import ConfigError
    from ragmeter.judges.spec import judge_config

    assert judge_config(backend="openai-compat", base_url="http://h/v1", model="m", rpm=500, tpm=2e5).rpm == 500
    with pytest.raises(ConfigError, match="rpm"):
        judge_config(backend="openai-compat", base_url="http://h/v1", model="m", rpm=0)
    with pytest.raises(ConfigError, match="does not use rpm"):
        judge_config(backend="llamacpp", rpm=10)
