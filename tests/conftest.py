"""Shared fixtures. Most tests script the judge at the judge boundary (no network, no model);
those marked `model` use the real bundled judge through the fixtures in tests/bundled.py."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ragmeter.embeddings.base import Embedder
from tests.bundled import bundled_model, inprocess_run, llama_server, session_cache  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


class TableEmbedder(Embedder):
    """Vectors from a lookup table (unknown texts get [0, 0, 1]) for exact cosine arithmetic."""

    name = "table"

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table
        self.calls = 0

    async def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        return [self.table.get(t, [0.0, 0.0, 1.0]) for t in texts]


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never touch the user's cache from tests."""
    path = tmp_path / "cache.sqlite"
    monkeypatch.setenv("RAGMETER_CACHE", str(path))
    return path


def run(coro):
    return asyncio.run(coro)
