"""`ragmeter index DOCS --out INDEX`: the seeds' indexing step. Documents are chunked with
the test sets' splitter (so chunk ids match a test set's `reference_context_ids` when the
chunk settings match), embedded, L2-normalised and stored in a FAISS inner-product index
(cosine similarity; exact search, or an HNSW graph above 20,000 chunks), with the chunks and
the settings beside it:

    INDEX/index.faiss   the vectors (row i = chunks.parquet row i)
    INDEX/chunks.parquet id, source, start, text
    INDEX/index.json    embeddings, chunking, counts, build time

Re-indexing reuses the vectors of chunks already in INDEX (same id, same embeddings), so
unchanged documents are not embedded again.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragmeter.errors import ConfigError, DataError

HINT = "pip install 'ragmeter[rag]'"
FORMAT = 1
#: `auto` keeps exact search (flat) up to this many chunks and uses HNSW above it: a flat
#: search of 100k x 384 took 16 ms per query on 2 cores, HNSW well under 1 ms (bench_rag.py)
HNSW_FROM = 20_000
HNSW_M, HNSW_EF_CONSTRUCTION, HNSW_EF_SEARCH = 32, 80, 128
KINDS = ("auto", "flat", "hnsw")


@dataclass
class IndexInfo:
    """What a build did: where, how many chunks, how many embedded vs reused, and the time."""

    path: Path
    chunks: int
    embedded: int
    reused: int
    seconds: float
    embed_seconds: float
    manifest: dict[str, Any]
    #: what was read and what was not (documents.Corpus.said)
    said: str = ""


def faiss_module() -> Any:
    try:
        import faiss
    except ImportError:
        raise ConfigError(f"the baseline RAG needs FAISS: {HINT}") from None
    return faiss


def build_index(docs: Any, out: str | Path, *, chunk_size: int = 2000, chunk_overlap: int = 200,
                chunk_unit: str = "characters", embeddings: str | dict | Any = "bundled", kind: str = "auto",
                cache: bool | str | Path = True, progress: bool | None = None) -> IndexInfo:
    """Chunk, embed (reusing vectors already in `out`) and store `docs` as a FAISS index."""
    import asyncio

    return asyncio.run(abuild_index(docs, out, chunk_size=chunk_size, chunk_overlap=chunk_overlap,
                                    chunk_unit=chunk_unit, embeddings=embeddings, kind=kind, cache=cache,
                                    progress=progress))


async def abuild_index(docs: Any, out: str | Path, *, chunk_size: int = 2000, chunk_overlap: int = 200,
                       chunk_unit: str = "characters", embeddings: str | dict | Any = "bundled",
                       kind: str = "auto", cache: bool | str | Path = True, progress: bool | None = None
                       ) -> IndexInfo:
    from ragmeter.embeddings import make_embedder
    from ragmeter.testset.chunking import split
    from ragmeter.testset.documents import load_documents

    faiss_module()
    if kind not in KINDS:
        raise ConfigError(f"index kind must be one of {', '.join(KINDS)}, got '{kind}'")
    started = time.perf_counter()
    out = Path(out)
    corpus = load_documents(docs)
    chunks = [c for c in split(corpus.documents, chunk_size, chunk_overlap, chunk_unit) if c.text.strip()]
    if not chunks:
        raise DataError("no text to index", source=str(docs) if isinstance(docs, (str, Path)) else "<in-memory>")
    embedder = embeddings if not isinstance(embeddings, (str, dict)) else make_embedder(embeddings)
    identity = embedder.identity()
    previous = _previous_vectors(out, identity)
    todo = [c for c in chunks if c.id not in previous]
    embed_seconds = 0.0
    if todo:
        await embedder.check()
        vectors, embed_seconds = await _embed(embedder, [c.text for c in todo], cache, progress)
        previous.update(zip((c.id for c in todo), vectors))
    await embedder.aclose()
    manifest = {"kind": "index", "format": FORMAT, "embeddings": identity,
                "embeddings_spec": embeddings if isinstance(embeddings, (str, dict)) else None,
                "chunking": {"chunk_size": chunk_size, "chunk_overlap": chunk_overlap, "chunk_unit": chunk_unit},
                "documents": corpus.record(str(docs) if isinstance(docs, (str, Path)) else "<in-memory>"),
                "chunks": len(chunks), "dimension": len(previous[chunks[0].id]),
                "search": "hnsw" if kind == "hnsw" or kind == "auto" and len(chunks) > HNSW_FROM else "flat",
                "content_digest": content_digest([c.id for c in chunks]),
                "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
    _write(out, chunks, [previous[c.id] for c in chunks], manifest)
    total = time.perf_counter() - started
    manifest["build"] = {"seconds": round(total, 3), "embed_seconds": round(embed_seconds, 3),
                         "embedded": len(todo), "reused": len(chunks) - len(todo)}
    from ragmeter.io.writers import write_json

    write_json(out / "index.json", manifest)
    return IndexInfo(out, len(chunks), len(todo), len(chunks) - len(todo), total, embed_seconds, manifest,
                     corpus.said())


def content_digest(ids: list[str]) -> str:
    """One hash for the chunk ids in order: two indexes with the same digest hold the same chunks."""
    import hashlib

    return hashlib.sha256("\n".join(ids).encode()).hexdigest()[:16]


async def _embed(embedder: Any, texts: list[str], cache: bool | str | Path, progress: bool | None
                 ) -> tuple[list[list[float]], float]:
    """Vectors through the engine's cached embedding session, in slices, with a progress bar."""
    from ragmeter.accounting import MetricStats
    from ragmeter.cache import open_cache
    from ragmeter.embeddings.base import EmbeddingSession
    from ragmeter.engine.progress import row_progress

    store = open_cache(str(cache) if isinstance(cache, Path) else cache)
    session, stats = EmbeddingSession(embedder, store), MetricStats()
    vectors: list[list[float]] = []
    try:
        with row_progress(len(texts), progress) as bar:
            for start in range(0, len(texts), 64):
                part = texts[start:start + 64]
                vectors.extend(await session.embed(part, stats))
                bar.advance(len(part))
    finally:
        store.close()
    return vectors, stats.embed_seconds


def _previous_vectors(out: Path, identity: dict[str, Any]) -> dict[str, list[float]]:
    """Vectors by chunk id from an index already in `out` built with the same embeddings."""
    try:
        old = json.loads((out / "index.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if old.get("embeddings") != identity or old.get("format") != FORMAT:
        return {}
    try:
        index = load_index(out)
    except (DataError, ConfigError):
        return {}
    vectors = index.faiss.reconstruct_n(0, index.faiss.ntotal)
    return {cid: [float(x) for x in v] for cid, v in zip(index.ids, vectors)}


def _write(out: Path, chunks: list[Any], vectors: list[list[float]], manifest: dict[str, Any]) -> None:
    """index.faiss and chunks.parquet, each written to a temporary name and renamed."""
    import numpy as np

    from ragmeter.io.writers import atomic_write_bytes, make_folder, parquet_bytes

    faiss = faiss_module()
    matrix = np.asarray(vectors, dtype="float32")
    faiss.normalize_L2(matrix)
    index = make_faiss_index(matrix.shape[1], manifest["search"])
    index.add(matrix)
    make_folder(out)
    atomic_write_bytes(out / "index.faiss", faiss.serialize_index(index).tobytes())
    atomic_write_bytes(out / "chunks.parquet", parquet_bytes(
        [{"id": c.id, "source": c.source, "start": c.start, "text": c.text} for c in chunks]))


def make_faiss_index(dimension: int, search: str) -> Any:
    """Inner product over unit vectors (cosine): exact (flat), or an HNSW graph for large indexes."""
    faiss = faiss_module()
    if search == "hnsw":
        index = faiss.IndexHNSWFlat(dimension, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        index.hnsw.efSearch = HNSW_EF_SEARCH
        return index
    return faiss.IndexFlatIP(dimension)


@dataclass
class Hit:
    id: str
    text: str
    source: str
    score: float


class VectorIndex:
    """A loaded index: top-k chunks for query vectors."""

    def __init__(self, path: Path, manifest: dict[str, Any], index: Any, rows: list[dict[str, Any]]) -> None:
        self.path, self.manifest, self.faiss, self.rows = path, manifest, index, rows
        self.ids = [r["id"] for r in rows]

    @property
    def embeddings(self) -> dict[str, Any]:
        return self.manifest["embeddings"]

    def identity(self) -> dict[str, Any]:
        """What the answers depend on: the embeddings, the chunking and the chunks themselves."""
        return {"embeddings": self.embeddings, "chunking": self.manifest["chunking"],
                "content_digest": self.manifest["content_digest"], "search": self.manifest.get("search", "flat")}

    def check_embedder(self, identity: dict[str, Any]) -> None:
        if identity != self.embeddings:
            raise ConfigError(f"index {self.path} was built with embeddings {_describe(self.embeddings)}, "
                              f"not {_describe(identity)}: rebuild it or ask for the same embeddings")

    def search(self, vectors: list[list[float]], k: int) -> list[list[Hit]]:
        import numpy as np

        query = np.asarray(vectors, dtype="float32")
        self_faiss = faiss_module()
        self_faiss.normalize_L2(query)
        scores, positions = self.faiss.search(query, min(k, self.faiss.ntotal))
        return [[Hit(self.rows[p]["id"], self.rows[p]["text"], self.rows[p]["source"], float(s))
                 for s, p in zip(row_scores, row_positions) if p >= 0]
                for row_scores, row_positions in zip(scores, positions)]


def load_index(path: str | Path) -> VectorIndex:
    """The index in `path`, or an error naming what is missing or empty."""
    import numpy as np
    import pyarrow.parquet as pq

    path = Path(path)
    faiss = faiss_module()
    try:
        manifest = json.loads((path / "index.json").read_text(encoding="utf-8"))
    except OSError:
        raise DataError("not an index folder (no index.json); build one with `ragmeter index DOCS --out "
                        f"{path}`", source=str(path)) from None
    except ValueError as exc:
        raise DataError(f"index.json is not JSON: {exc}", source=str(path)) from None
    try:
        index = faiss.deserialize_index(np.frombuffer((path / "index.faiss").read_bytes(), dtype="uint8"))
        rows = pq.read_table(path / "chunks.parquet").to_pylist()
    except (OSError, RuntimeError) as exc:
        raise DataError(f"index files unreadable: {exc}", source=str(path)) from None
    if hasattr(index, "hnsw"):
        index.hnsw.efSearch = HNSW_EF_SEARCH  # not stored in the file
    if index.ntotal == 0 or not rows:
        raise DataError("the index is empty: no chunks to retrieve", source=str(path))
    if index.ntotal != len(rows):
        raise DataError(f"index.faiss holds {index.ntotal} vectors but chunks.parquet {len(rows)} chunks",
                        source=str(path))
    return VectorIndex(path, manifest, index, rows)


def _describe(identity: dict[str, Any]) -> str:
    return ":".join(str(v) for v in identity.values())
