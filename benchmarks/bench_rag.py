"""The baseline RAG's retrieval side (prints figures; not a timed test).

1. Indexing throughput with the bundled embeddings: README.md and examples/docs cut into
   500-character chunks, embedded with the model already loaded; chunks/s, and ragmeter's
   own share of the time (everything but the embedding model's forward passes).
2. Retrieval latency of one query against 1k, 10k and 100k chunks (synthetic unit vectors of
   the bundled model's 384 dimensions in a FAISS flat inner-product index): p50 / p95 of
   `VectorIndex.search`, and of the query's embedding separately.
3. Recall@k of retrieval against `reference_context_ids` on examples/testset.jsonl (a test
   set generated from examples/docs; the index uses the same chunking, 2000/200).

    python benchmarks/bench_rag.py [--sizes 1000,10000,100000] [--queries 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def percentiles(values: list[float]) -> str:
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return f"p50 {pick(0.50) * 1000:.2f} ms, p95 {pick(0.95) * 1000:.2f} ms"


def corpus() -> list[dict[str, str]]:
    docs = [{"source": p.name, "text": p.read_text(encoding="utf-8")} for p in sorted((ROOT / "examples" / "docs")
                                                                                       .iterdir())]
    return docs + [{"source": "README.md", "text": (ROOT / "README.md").read_text(encoding="utf-8")}]


def indexing() -> None:
    from ragmeter.embeddings.local import SentenceTransformerEmbedder
    from ragmeter.rag.index import abuild_index

    embedder = SentenceTransformerEmbedder()
    asyncio.run(embedder.embed(["load the model first"]))  # the load is not indexing throughput
    with tempfile.TemporaryDirectory() as tmp:
        info = asyncio.run(abuild_index(corpus(), Path(tmp) / "index", chunk_size=500, chunk_overlap=50,
                                        embeddings=embedder, cache=False, progress=False))
        texts = [c["text"] for c in _chunks(Path(tmp) / "index")]
    own = info.seconds - info.embed_seconds
    print(f"indexing: {info.chunks} chunks (500 characters) in {info.seconds:.2f} s = "
          f"{info.chunks / info.seconds:.1f} chunks/s; embedding {info.embed_seconds:.2f} s, ragmeter's own "
          f"{own:.2f} s ({own / info.seconds:.1%}: reading, splitting, FAISS, writing)")
    model = embedder._load()
    started = time.perf_counter()
    model.encode(texts, batch_size=32, show_progress_bar=False)
    batched = time.perf_counter() - started
    print(f"  for reference, the same chunks encoded in batches of 32: {len(texts) / batched:.1f} chunks/s "
          "(ragmeter encodes one text per pass so a vector never depends on its batch neighbours)")


def _chunks(path: Path) -> list[dict[str, str]]:
    import pyarrow.parquet as pq

    return pq.read_table(path / "chunks.parquet").to_pylist()


def retrieval(sizes: list[int], queries: int) -> None:
    import numpy as np

    from ragmeter.embeddings.local import SentenceTransformerEmbedder
    from ragmeter.rag.index import VectorIndex, faiss_module, make_faiss_index

    faiss_module()
    rng = np.random.default_rng(0)
    for size in sizes:
        # clustered like real embeddings (topics), not uniform noise, which no ANN index handles well
        centres = rng.standard_normal((max(10, size // 100), 384), dtype="float32")
        vectors = centres[rng.integers(0, len(centres), size)] + 0.6 * rng.standard_normal((size, 384),
                                                                                            dtype="float32")
        asked = (centres[rng.integers(0, len(centres), queries)]
                 + 0.6 * rng.standard_normal((queries, 384), dtype="float32")).tolist()
        rows = [{"id": f"c{i}", "text": "", "source": "s"} for i in range(size)]
        found = {}
        for search in ("flat", "hnsw"):
            index = VectorIndex(Path("."), {"embeddings": {}}, make_faiss_index(384, search), rows)
            unit = vectors.copy()
            faiss_module().normalize_L2(unit)
            started = time.perf_counter()
            index.faiss.add(unit)
            built = time.perf_counter() - started
            times, found[search] = [], []
            for query in asked:
                started = time.perf_counter()
                found[search].append({h.id for h in index.search([query], 5)[0]})
                times.append(time.perf_counter() - started)
            shared = sum(len(a & b) for a, b in zip(found["flat"], found[search])) / (5 * queries)
            agree = f"; top-5 recall vs exact {shared:.3f}" if search == "hnsw" else ""
            print(f"retrieval, top-5 of {size:,} chunks, {search} (built in {built:.1f} s), one query at a time "
                  f"({queries} queries): {percentiles(times)}{agree}")
    embedder = SentenceTransformerEmbedder()
    asyncio.run(embedder.embed(["warm up"]))
    times = []
    for n in range(50):
        started = time.perf_counter()
        asyncio.run(embedder.embed([f"What does setting number {n} of the judge change?"]))
        times.append(time.perf_counter() - started)
    print(f"  a question's embedding (bundled MiniLM, 50 questions): {percentiles(times)}")


def recall_at_k() -> None:
    from ragmeter.rag.index import build_index, load_index

    rows = [json.loads(line) for line in (ROOT / "examples" / "testset.jsonl").read_text().splitlines()]
    rows = [r for r in rows if r.get("reference_context_ids")]
    with tempfile.TemporaryDirectory() as tmp:
        build_index(ROOT / "examples" / "docs", Path(tmp) / "index", cache=False, progress=False)
        index = load_index(Path(tmp) / "index")
        from ragmeter.embeddings.local import SentenceTransformerEmbedder

        embedder = SentenceTransformerEmbedder()
        queries = [" ".join(t["content"] for t in r["messages"] if t["role"] == "user") if r.get("messages")
                   else r["user_input"] for r in rows]
        hits = index.search(asyncio.run(embedder.embed(queries)), 10)
    print(f"recall@k against reference_context_ids, {len(rows)} answerable rows of examples/testset.jsonl "
          f"({index.faiss.ntotal} chunks):")
    for k in (1, 3, 5):
        recalls = [len(set(r["reference_context_ids"]) & {h.id for h in hit[:k]}) / len(r["reference_context_ids"])
                   for r, hit in zip(rows, hits)]
        print(f"  k={k}: {sum(recalls) / len(recalls):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    indexing()
    retrieval([int(s) for s in args.sizes.split(",")], args.queries)
    recall_at_k()


if __name__ == "__main__":
    main()
