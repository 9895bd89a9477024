"""Several replicas of one judge server (vLLM, llama.cpp): requests go to the least loaded
server that is up; each server's concurrency adapts to its answers (AIMD, as TCP does).

- Success: the server's limit grows by 1 per reply while no overload has been seen (slow
  start, doubling per round trip), then by 1/limit per reply (one per round trip).
- HTTP 429 or 503: the limit is halved (never below 1) and the request is retried.
- No answer (connection refused, reset) or another 5xx: the server is taken out for a
  cool-down that doubles with each consecutive failure (1 s up to 60 s), then tried again.
  The request moves to another server at once.

The run's --concurrency still bounds the requests in flight over the whole fleet.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from ragmeter.errors import TransientJudgeError

MAX_LIMIT = 256.0
COOLDOWN = 1.0
MAX_COOLDOWN = 60.0


@dataclass
class Server:
    """One replica's adaptive limit, load and record."""

    url: str
    limit: float = 1.0
    in_flight: int = 0
    slow_start: bool = True
    down_until: float = 0.0
    failures: int = 0  # consecutive
    record: dict[str, int] = field(default_factory=lambda: {"requests": 0, "overloaded": 0, "down": 0})

    def up(self, now: float) -> bool:
        return now >= self.down_until

    def has_room(self) -> bool:
        return self.in_flight < max(1, int(self.limit))

    def succeeded(self) -> None:
        self.failures = 0
        self.record["requests"] += 1
        self.limit = min(MAX_LIMIT, self.limit + (1.0 if self.slow_start else 1.0 / self.limit))

    def overloaded(self) -> None:
        self.record["overloaded"] += 1
        self.slow_start = False
        self.limit = max(1.0, self.limit / 2)

    def went_down(self, now: float) -> None:
        self.record["down"] += 1
        self.down_until = now + min(MAX_COOLDOWN, COOLDOWN * 2 ** self.failures)
        self.failures += 1


class Fleet:
    """Picks a server for each request and learns from how it answered."""

    def __init__(self, urls: list[str]) -> None:
        self.servers = [Server(url) for url in urls]
        self._changed = asyncio.Condition()

    @asynccontextmanager
    async def slot(self, exclude: set[str]) -> AsyncIterator[Server]:
        """A server with room, waiting for one while all that are up are busy. Raises
        TransientJudgeError when every server not in `exclude` is down."""
        server = await self._acquire(exclude)
        try:
            yield server
        finally:
            server.in_flight -= 1
            async with self._changed:
                self._changed.notify_all()

    async def _acquire(self, exclude: set[str]) -> Server:
        async with self._changed:
            while True:
                now = time.monotonic()
                usable = [s for s in self.servers if s.url not in exclude and s.up(now)]
                if not usable:
                    raise TransientJudgeError(f"all {len(self.servers)} judge servers are down or failed "
                                              "this request", status=None, retry_after=self._next_up(now))
                free = [s for s in usable if s.has_room()]
                if free:
                    # least loaded; among equals, the one that has served least (round robin)
                    server = min(free, key=lambda s: (s.in_flight / s.limit, s.record["requests"]))
                    server.in_flight += 1
                    return server
                await self._wait()

    async def _wait(self) -> None:
        """Until a request finishes (or a second passes: a cool-down may have ended)."""
        try:
            await asyncio.wait_for(self._changed.wait(), timeout=1.0)
        except TimeoutError:
            pass

    def _next_up(self, now: float) -> float:
        return max(0.0, min(s.down_until for s in self.servers) - now)

    def mark_down(self, server: Server) -> None:
        server.went_down(time.monotonic())

    def record(self) -> list[dict[str, object]]:
        """Per server: requests answered, overloads, times taken out, and the limit reached."""
        return [{"url": s.url, **s.record, "limit": round(s.limit, 2)} for s in self.servers]
