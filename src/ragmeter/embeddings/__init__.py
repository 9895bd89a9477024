"""Embedders: bundled all-MiniLM-L6-v2, any sentence-transformers folder, or HTTP /embeddings."""

from ragmeter.embeddings.base import Embedder, EmbeddingSession
from ragmeter.embeddings.spec import make_embedder

__all__ = ["Embedder", "EmbeddingSession", "make_embedder"]
