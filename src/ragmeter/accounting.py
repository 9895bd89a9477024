"""Per-metric counters: judge calls, tokens, cache hits, unscored rows, seconds."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass


@dataclass
class MetricStats:
    judge_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0
    reasks: int = 0
    unparseable: int = 0
    truncated: int = 0
    embed_calls: int = 0
    embed_cache_hits: int = 0
    unscored: int = 0
    #: rows whose judge call failed its retries (and its retry at the end of the run)
    failed: int = 0
    judge_seconds: float = 0.0
    embed_seconds: float = 0.0

    @property
    def seconds(self) -> float:
        """Time spent in the judge and the embedder for this metric."""
        return self.judge_seconds + self.embed_seconds

    def as_dict(self) -> dict[str, float | int]:
        out = asdict(self)
        out["seconds"] = round(self.seconds, 4)
        out["judge_seconds"] = round(self.judge_seconds, 4)
        out["embed_seconds"] = round(self.embed_seconds, 4)
        return out


class BusyClock:
    """Union of the intervals in which the judge or the embedder was working.

    Calls overlap (metrics of a row run concurrently), so summing their durations would
    overstate model time; wall time minus this union is ragmeter's own overhead.
    """

    def __init__(self) -> None:
        self._active = 0
        self._since = 0.0
        self.total = 0.0

    @contextmanager
    def busy(self) -> Iterator[None]:
        if self._active == 0:
            self._since = time.perf_counter()
        self._active += 1
        try:
            yield
        finally:
            self._active -= 1
            if self._active == 0:
                self.total += time.perf_counter() - self._since
