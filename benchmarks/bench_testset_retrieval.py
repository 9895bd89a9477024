"""What the way a question is written does to retrieval scores (issue 62, item 5): the
labelled questions of benchmarks/testset_labels/new/ (one per chunk, written from the chunk
alone or with the subject line and "ask in a user's words"), their overlap with their chunk,
and whether the baseline RAG's retriever (the bundled embeddings in a FAISS index of the same
chunks, k=5) finds their chunk: hit@1, hit@5 and MRR, per language and generator.

    python benchmarks/bench_testset_retrieval.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
NEW = ROOT / "benchmarks" / "testset_labels" / "new"
K = 5


def ranks(rows: list[dict[str, Any]], folder: Path) -> list[int | None]:
    """The rank (1-based) of each question's own chunk among the top K, None when missed."""
    import asyncio

    from ragmeter.embeddings import make_embedder
    from ragmeter.rag.index import build_index, load_index

    with tempfile.TemporaryDirectory() as tmp:
        build_index(folder, Path(tmp) / "index", chunk_size=1000, chunk_overlap=100, progress=False)
        index = load_index(Path(tmp) / "index")
        embedder = make_embedder("bundled")
        vectors = asyncio.run(embedder.embed([r["question"] for r in rows]))
        hits = index.search(vectors, K)
    return [next((n for n, h in enumerate(found, 1) if h.id == r["chunk_id"]), None) for r, found in zip(rows, hits)]


def main() -> None:
    from ragmeter.reading.words import share_held

    rows = [json.loads(line) for line in (NEW / "labelled.jsonl").read_text(encoding="utf-8").splitlines()]
    summary: dict[str, Any] = {}
    for code, language in (("en", "english"), ("es", "spanish")):
        part = [r for r in rows if r["language"] == language and r["question"]]
        found = ranks(part, NEW / code)
        for variant in ("chunk-only", "subject"):
            picked = [(r, rank) for r, rank in zip(part, found) if r["variant"] == variant]
            for kept in (False, True):
                chosen = [(r, rank) for r, rank in picked if not kept or r["label"] == 1]
                shares = [s for r, _ in chosen if (s := share_held(r["question"], [r["chunk"]])) is not None]
                line = {"questions": len(chosen), "overlap": round(sum(shares) / len(shares), 3),
                        "hit@1": round(sum(rank == 1 for _, rank in chosen) / len(chosen), 3),
                        f"hit@{K}": round(sum(rank is not None for _, rank in chosen) / len(chosen), 3),
                        "mrr": round(sum(1 / rank for _, rank in chosen if rank) / len(chosen), 3)}
                name = f"{language} {variant}{' (reader keeps)' if kept else ''}"
                summary[name] = line
                print(f"{name:40s} {line}")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
