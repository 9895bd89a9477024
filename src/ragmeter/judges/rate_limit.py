"""Requests-per-minute and tokens-per-minute limits for a paid API (`--judge-opt rpm=500
tpm=200000`), honoured across every call in flight and every replica of one judge: one
limiter per judge, each limit a sliding window. No 60 seconds ever hold more than `rpm`
requests or `tpm` tokens, as providers count them (a token bucket that starts full and
refills on top let twice the limit through in the first minute, and a 429 followed). A
limit under 1 a minute is a longer window: `rpm=0.5` is one request every 2 minutes. A
request is charged its prompt (estimated at ~3 characters a token, as the dry run does for
HTTP judges) plus the reply tokens it may use, as OpenAI's limits count them, and the unused
reply tokens are given back when the reply says how many it used; one larger than `tpm`
waits for a window with nothing else in it and goes alone. A 429 is still retried with its
`Retry-After` honoured (retry.py): the limits make it rare.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field


class Window:
    """`per_minute` units in any window of 60 s (of 60/per_minute s for a single unit, under 1)."""

    def __init__(self, per_minute: float) -> None:
        self.capacity = float(max(1, math.floor(per_minute)))
        self.seconds = max(60.0, 60.0 * self.capacity / per_minute)
        #: what was granted and when: [time, units], oldest first
        self.granted: deque[list[float]] = deque()

    def wait_for(self, amount: float, now: float) -> float:
        """Seconds until `amount` fits (a larger amount than the limit: until the window is empty)."""
        while self.granted and self.granted[0][0] + self.seconds <= now:
            self.granted.popleft()
        need = min(amount, self.capacity) - (self.capacity - sum(units for _, units in self.granted))
        for at, units in self.granted:
            if need <= 0:
                break
            need -= units
            if need <= 0:
                return at + self.seconds - now
        return 0.0

    def take(self, amount: float, now: float) -> list[float]:
        entry = [now, min(amount, self.capacity)]
        self.granted.append(entry)
        return entry


@dataclass
class Grant:
    """What one request took from each window: its unused reply tokens can be given back."""

    entries: dict[str, list[float]] = field(default_factory=dict)


@dataclass
class RateLimiter:
    rpm: float | None = None
    tpm: float | None = None
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    _windows: dict[str, Window] = field(default_factory=dict)
    _lock: asyncio.Lock | None = None

    def __post_init__(self) -> None:
        if self.rpm:
            self._windows["requests"] = Window(self.rpm)
        if self.tpm:
            self._windows["tokens"] = Window(self.tpm)

    @property
    def active(self) -> bool:
        return bool(self._windows)

    async def acquire(self, tokens: int) -> Grant:
        """Wait until one request of `tokens` tokens fits both limits, then take it. Callers
        queue in order (one waits at a time), so a large request is not starved by small ones."""
        if not self._windows:
            return Grant()
        if self._lock is None:
            self._lock = asyncio.Lock()
        wanted = {"requests": 1.0, "tokens": float(tokens)}
        async with self._lock:
            while True:
                now = self.clock()
                wait = max(w.wait_for(wanted[name], now) for name, w in self._windows.items())
                if wait <= 0:
                    break
                await self.sleep(wait)
            return Grant({name: w.take(wanted[name], now) for name, w in self._windows.items()})

    def give_back(self, grant: Grant, tokens: int) -> None:
        """Reply tokens `grant` was charged but did not use."""
        entry = grant.entries.get("tokens")
        if entry is not None and tokens > 0:
            entry[1] = max(0.0, entry[1] - tokens)


def estimated_tokens(text_chars: int, max_tokens: int) -> int:
    """A request's charge: its prompt at ~3 characters a token, plus the reply it may use."""
    return text_chars // 3 + max_tokens
