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
    assert fake.waits == [60.0]  # a minute's 60, then the rest once the first minute has passed
    assert fake.now == pytest.approx(60.0)


def _most_in_a_minute(times: list[float]) -> int:
    return max(sum(1 for u in times if t <= u < t + 60.0) for t in times)


@pytest.mark.parametrize("rpm", [30, 30.5, 7])
def test_no_minute_holds_more_than_rpm_requests(rpm):
    """Issue 50: `rpm=30` sent 59 requests in the first minute (the bucket started full and
    refilled on top). Every window of 60 s now holds at most rpm, under steady demand."""
    fake = FakeTime()
    limits = RateLimiter(rpm=rpm, clock=fake.clock, sleep=fake.sleep)
    sent: list[float] = []

    async def caller() -> None:
        for _ in range(25):
            await limits.acquire(1)
            sent.append(fake.now)
            fake.now += 0.7  # each call takes a moment

    async def callers() -> None:
        await asyncio.gather(*(caller() for _ in range(4)))

    asyncio.run(callers())
    assert len(sent) == 100 and _most_in_a_minute(sent) == int(rpm)


def test_a_limit_under_one_a_minute_is_honoured():
    fake = FakeTime()
    limits = RateLimiter(rpm=0.5, clock=fake.clock, sleep=fake.sleep)

    async def three() -> None:
        for _ in range(3):
            await limits.acquire(1)

    asyncio.run(three())
    assert fake.waits == [120.0, 120.0]  # one request each 2 minutes


def test_tokens_per_minute_and_unused_reply_tokens_given_back():
    fake = FakeTime()
    limits = RateLimiter(tpm=1000, clock=fake.clock, sleep=fake.sleep)

    async def calls() -> None:
        first = await limits.acquire(600)
        limits.give_back(first, 500)  # the reply used 100 of its 600: 900 free
        await limits.acquire(600)  # fits at once
        await limits.acquire(600)  # 300 free: waits until the first minute's 100 and 600 have passed
        assert fake.now == pytest.approx(60.0)
        await limits.acquire(5000)  # larger than the limit: waits for an empty window and goes alone

    asyncio.run(calls())
    assert fake.waits == [60.0, 60.0]


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
    assert fake.waits == [60.0]  # 2 a minute over both replicas: the 3rd and 4th wait for the next minute


def test_limits_are_checked_settings():
    from ragmeter.errors import ConfigError
    from ragmeter.judges.spec import judge_settings

    assert judge_settings(backend="openai-compat", base_url="http://h/v1", model="m", rpm=500, tpm=2e5).rpm == 500
    with pytest.raises(ConfigError, match="rpm"):
        judge_settings(backend="openai-compat", base_url="http://h/v1", model="m", rpm=0)
    with pytest.raises(ConfigError, match="does not use rpm"):
        judge_settings(backend="llamacpp", rpm=10)


def test_a_request_is_granted_once_it_holds_a_slot_just_before_it_is_sent():
    """Issue 65 item 11: grants were stamped before a request waited for a server slot, so
    requests queued for slots went out bunched (53 in one 60 s window at rpm=45.5). The grant
    is now taken inside the slot, right before the request is sent."""
    from contextlib import asynccontextmanager

    events: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        events.append("sent")
        return httpx.Response(200, json={"choices": [{"message": {"content": '{"rating": 2}'},
                                                      "finish_reason": "stop"}]})

    fake = FakeTime()
    judge = OpenAICompatJudge("http://a.test/v1", "m", transport=httpx.MockTransport(handler), rpm=100)
    judge.limits.clock, judge.limits.sleep = fake.clock, fake.sleep
    slot, acquire = judge.fleet.slot, judge.limits.acquire

    @asynccontextmanager
    async def watched_slot(tried):
        async with slot(tried) as server:
            events.append("slot")
            yield server

    async def watched_acquire(tokens):
        events.append("granted")
        return await acquire(tokens)

    judge.fleet.slot, judge.limits.acquire = watched_slot, watched_acquire
    rows = [{"id": f"r{i}", "user_input": f"q{i}?", "retrieved_contexts": [f"c{i}"]} for i in range(3)]
    ragmeter.evaluate(rows, ["context_relevance"], judge=judge, cache=False, progress=False, concurrency=1)
    assert events and events == ["slot", "granted", "sent"] * (len(events) // 3)  # was: granted, slot, sent
