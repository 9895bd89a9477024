"""OpenAI-compatible /embeddings endpoint (OpenAI, vLLM, Ollama, llama.cpp server)."""

from __future__ import annotations

from typing import Any

import httpx

from ragmeter.embeddings.base import Embedder
from ragmeter.endpoints import bearer_headers, safe_url
from ragmeter.errors import ConfigError, JudgeUnavailable, TransientJudgeError
from ragmeter.text import secret_env


class HTTPEmbedder(Embedder):
    def __init__(self, base_url: str, model: str, api_key_env: str | None = None, timeout: float = 60.0) -> None:
        try:
            safe_url(base_url)
        except ValueError as exc:
            raise ConfigError(f"embeddings: {exc}") from None
        self.base_url, self.model, self.api_key_env, self.timeout = base_url.rstrip("/"), model, api_key_env, timeout
        secret_env(api_key_env)  # its value is redacted whatever the variable's name
        self.name = f"{self.base_url}#{model}"

    def identity(self) -> dict[str, Any]:
        return {"embedder": "http", "base_url": self.base_url, "model": self.model}

    def _headers(self) -> dict[str, str]:
        return bearer_headers(self.api_key_env, f"embeddings at {self.base_url}")

    async def check(self) -> None:
        self._headers()

    async def embed(self, texts: list[str]) -> list[list[float]]:
        try:
            async with httpx.AsyncClient(timeout=self.timeout) as client:
                response = await client.post(f"{self.base_url}/embeddings", headers=self._headers(),
                                             json={"model": self.model, "input": texts})
        except httpx.HTTPError as exc:
            raise JudgeUnavailable(f"cannot reach the embeddings server at {self.base_url}: "
                                   f"{type(exc).__name__}") from None
        if response.status_code == 429 or response.status_code >= 500:
            raise TransientJudgeError(f"HTTP {response.status_code} from {self.base_url}/embeddings")
        if response.status_code >= 400:
            raise JudgeUnavailable(f"HTTP {response.status_code} from {self.base_url}/embeddings: "
                                   f"{response.text[:200]}")
        data = sorted(response.json()["data"], key=lambda d: d["index"])
        return [d["embedding"] for d in data]
