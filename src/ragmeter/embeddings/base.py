"""One Embedder protocol, a spec parser, and a cached session the metrics call."""

from __future__ import annotations

import asyncio
import math
import time
from abc import ABC, abstractmethod
from typing import Any

from ragmeter.accounting import BusyClock, MetricStats
from ragmeter.cache import EMBED_KEY_VERSION, Cache, make_key


def cosine(a: list[float], b: list[float]) -> float:
    """The cosine of two vectors, 0 where either is all zeros."""
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


class Embedder(ABC):
    name: str = "abstract"

    def identity(self) -> dict[str, Any]:
        return {"embedder": self.name}

    async def check(self) -> None:
        """Fail before any row when the embedder cannot work."""

    @abstractmethod
    async def embed(self, texts: list[str]) -> list[list[float]]:
        """One vector per text."""

    async def aclose(self) -> None:
        """Release resources."""


class EmbeddingSession:
    """Cached embeddings: a re-run needs no embedding model at all."""

    def __init__(self, embedder: Embedder, cache: Cache, clock: BusyClock | None = None) -> None:
        self.embedder, self.cache = embedder, cache
        self.clock = clock or BusyClock()
        self._lock = asyncio.Lock()
        self.seconds = 0.0

    async def embed(self, texts: list[str], stats: MetricStats) -> list[list[float]]:
        keys = [make_key({"embedder": self.embedder.identity(), "text": t}, EMBED_KEY_VERSION) for t in texts]
        found: dict[str, Any] = self.cache.get_many(keys, "embeddings")
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in found))
        stats.embed_cache_hits += len(texts) - len(missing)
        if missing:
            async with self._lock:
                start = time.perf_counter()
                with self.clock.busy():
                    vectors = await self.embedder.embed(missing)
                elapsed = time.perf_counter() - start
            stats.embed_calls += 1
            stats.embed_seconds += elapsed
            self.seconds += elapsed
            new = {keys[texts.index(text)]: vector for text, vector in zip(missing, vectors)}
            found.update(new)
            self.cache.put_many(new, "embeddings")
        return [found[k] for k in keys]  # every key was found or embedded above
