"""Embeddings spec strings and YAML dicts -> Embedder instances, with lazy backend imports.

`bundled`, `sentence-transformers:/dir`, `openai-compat:URL#MODEL`, `openai:MODEL`.
"""

from __future__ import annotations

from typing import Any

from ragmeter.embeddings.base import Embedder
from ragmeter.endpoints import OPENAI_KEY_ENV, OPENAI_URL, split_endpoint
from ragmeter.errors import ConfigError


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
