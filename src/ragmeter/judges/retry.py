"""Per-call timeout and retries with exponential backoff and jitter, transient errors only."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from ragmeter.errors import JudgeUnavailable, TransientJudgeError
from ragmeter.faults import FaultLog

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    timeout: float = 120.0
    retries: int = 3
    backoff: float = 1.0
    max_backoff: float = 30.0


async def call_with_retry(call: Callable[[], Awaitable[T]], policy: RetryPolicy, what: str,
                          faults: FaultLog | None = None) -> T:
    """Run `call` with a timeout; retry TransientJudgeError and timeouts, nothing else; each
    fault is counted in `faults`."""
    faults = faults or FaultLog()
    for attempt in range(policy.retries + 1):
        try:
            async with asyncio.timeout(policy.timeout):  # no extra task per call, unlike wait_for
                return await call()
        except (TimeoutError, TransientJudgeError) as exc:
            error = exc if isinstance(exc, TransientJudgeError) else f"timed out after {policy.timeout:g} s"
            if isinstance(exc, TransientJudgeError) and exc.status is not None:
                faults.http_error(exc.status)
            elif not isinstance(exc, TransientJudgeError):
                faults.add("timeouts")
            if attempt == policy.retries:
                raise JudgeUnavailable(f"{what}: {error} (gave up after {attempt + 1} attempts)") from None
            delay = policy.backoff * 2 ** attempt * (0.5 + random.random() / 2)
            asked = getattr(exc, "retry_after", None)  # the server's Retry-After, honoured up to the cap
            faults.add("retries")
            await asyncio.sleep(min(policy.max_backoff, max(delay, asked or 0.0)))
    raise AssertionError("unreachable")
