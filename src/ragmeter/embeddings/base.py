"""One Embedder protocol, a spec parser, and a cached session the metrics call."""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from typing import Any

from ragmeter.accounting import BusyClock, MetricStats
from ragmeter.cache import EMBED_KEY_VERSION, Cache, make_key
from ragmeter.endpoints import OPENAI_KEY_ENV, OPENAI_URL, split_endpoint
from ragmeter.errors import ConfigError


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
        found = {k: self.cache.get(k, "embeddings") for k in keys}
        missing = list(dict.fromkeys(t for t, k in zip(texts, keys) if found[k] is None))
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
            for text, vector in zip(missing, vectors):
                key = keys[texts.index(text)]
                found[key] = vector
                self.cache.put(key, vector, "embeddings")
        return [found[k] for k in keys]  # type: ignore[misc]  # every key was found or embedded above


def make_embedder(spec: str | dict[str, Any] | None) -> Embedder:
    """`bundled`, `sentence-transformers:/dir`, `openai-compat:URL#model`, `openai:model`."""
    if isinstance(spec, dict):
        spec = dict(spec)
        kind = spec.pop("backend", "bundled")
        return _build(kind, spec)
    spec = spec or "bundled"
    kind, _, rest = spec.partition(":")
    if kind == "openai-compat":
        url, model = split_endpoint(rest, "embeddings")
        return _build(kind, {"base_url": url, "model": model})
    if kind == "openai":
        return _build(kind, {"model": rest or "text-embedding-3-small"})
    return _build(kind, {"model": rest} if rest else {})


def _build(kind: str, options: dict[str, Any]) -> Embedder:
    if kind in ("bundled", "sentence-transformers"):
        from ragmeter.embeddings.local import SentenceTransformerEmbedder

        if kind == "sentence-transformers" and not options.get("model"):
            raise ConfigError("embeddings 'sentence-transformers' needs a model folder: sentence-transformers:/path")
        return _construct(SentenceTransformerEmbedder, options, kind)
    if kind in ("openai", "openai-compat"):
        from ragmeter.embeddings.http import HTTPEmbedder

        if kind == "openai":
            options = {"base_url": OPENAI_URL, "api_key_env": OPENAI_KEY_ENV, **options}
        return _construct(HTTPEmbedder, options, kind)
    raise ConfigError(f"unknown embeddings backend '{kind}'; valid: bundled, sentence-transformers, "
                      "openai, openai-compat")


def _construct(cls: Any, options: dict[str, Any], kind: str) -> Embedder:
    """The embedder, or one line naming the settings it takes (never a TypeError traceback)."""
    import inspect

    accepted = [p for p in inspect.signature(cls).parameters if p != "self"]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ConfigError(f"embeddings {kind}: unknown setting(s) {', '.join(unknown)}; "
                          f"settings: {', '.join(accepted)}")
    return cls(**options)
