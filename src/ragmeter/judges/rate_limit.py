"""Requests-per-minute and tokens-per-minute limits for a paid API (`--judge-opt rpm=500
tpm=200000`), honoured across every call in flight and every replica of one judge: one
limiter per judge, token buckets that refill continuously. A request waits until both
buckets hold enough; it is charged its prompt (estimated at ~3 characters a token, as the
dry run does for HTTP judges) plus the reply tokens it may use, as OpenAI's limits count
them, and the unused reply tokens are given back when the reply says how many it used.
A 429 is still retried with its `Retry-After` honoured (retry.py): the limits make it rare.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field


@dataclass
class Bucket:
    """`per_minute` units, refilled continuously; starts full (a minute's worth at once)."""

    per_minute: float
    level: float = -1.0
    updated: float = 0.0

    def refill(self, now: float) -> None:
        if self.level < 0:
            self.level, self.updated = self.per_minute, now
        self.level = min(self.per_minute, self.level + (now - self.updated) * self.per_minute / 60.0)
        self.updated = now

    def wait_for(self, amount: float) -> float:
        """Seconds until `amount` (at most a full bucket) is there."""
        short = min(amount, self.per_minute) - self.level
        return 0.0 if short <= 0 else short * 60.0 / self.per_minute


@dataclass
class RateLimiter:
    rpm: float | None = None
    tpm: float | None = None
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    _buckets: dict[str, Bucket] = field(default_factory=dict)
    _lock: asyncio.Lock | None = None

    def __post_init__(self) -> None:
        if self.rpm:
            self._buckets["requests"] = Bucket(self.rpm)
        if self.tpm:
            self._buckets["tokens"] = Bucket(self.tpm)

    @property
    def active(self) -> bool:
        return bool(self._buckets)

    async def acquire(self, tokens: int) -> None:
        """Wait until one request of `tokens` tokens fits both limits, then take it. Callers
        queue in order (one waits at a time), so a large request is not starved by small ones."""
        if not self._buckets:
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        wanted = {"requests": 1.0, "tokens": float(tokens)}
        async with self._lock:
            while True:
                now = self.clock()
                for bucket in self._buckets.values():
                    bucket.refill(now)
                wait = max(b.wait_for(wanted[name]) for name, b in self._buckets.items())
                if wait <= 0:
                    break
                await self.sleep(wait)
            for name, bucket in self._buckets.items():
                bucket.level -= min(wanted[name], bucket.per_minute)

    def give_back(self, tokens: int) -> None:
        """Reply tokens charged but not used."""
        bucket = self._buckets.get("tokens")
        if bucket is not None and tokens > 0:
            bucket.level = min(bucket.per_minute, bucket.level + tokens)


def estimated_tokens(text_chars: int, max_tokens: int) -> int:
    """A request's charge: its prompt at ~3 characters a token, plus the reply it may use."""
    return text_chars // 3 + max_tokens
