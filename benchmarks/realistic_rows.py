"""Rows shaped like a user's RAG rows, for the throughput benchmark (issue 75): the questions and
answers of benchmarks/e2e_blind (public documents: CDC, CFPB, eLife, SciELO, a product manual;
English and Spanish; answers the baseline RAG wrote), each given the five chunks a FAISS index
of its language's documents returns for it (2,000-character chunks, the baseline's default,
bundled MiniLM embeddings). The labelled rows carry one or two chunks; a user's rows carry
about five of a few hundred tokens each, which is what every context-reading metric pays for.
The reference is an answer to the same question that people labelled faithful and not a
decline (any configuration's), where there is one: text of a reference's length for the two
metrics that read one. The rows measure time and tokens, not agreement with people.

    python benchmarks/realistic_rows.py [--k 5] [--out benchmarks/throughput/realistic_rows.jsonl]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BLIND = HERE / "e2e_blind"
OUT = HERE / "throughput" / "realistic_rows.jsonl"
LANGUAGES = {"english": "en", "spanish": "es"}


def labelled_rows() -> list[dict[str, Any]]:
    """One row per question (the first configuration's answer), in file order, with a
    reference where one of its answers was labelled faithful and no decline."""
    every = [json.loads(line) for line in (BLIND / "labelled.jsonl").read_text(encoding="utf-8").splitlines()]
    faithful = {}
    for row in every:
        if row["label"] == 1 and not row["declines"]:
            faithful.setdefault(row["user_input"], row["response"])
    seen: set[str] = set()
    rows = []
    for row in every:
        key = row["user_input"]
        if key not in seen:
            seen.add(key)
            rows.append({**row, "reference": faithful.get(key)})
    return rows


async def _retrieve(index_dir: Path, questions: list[str], k: int) -> list[list[str]]:
    from ragmeter.embeddings import make_embedder
    from ragmeter.rag.index import load_index

    index = load_index(index_dir)
    embedder = make_embedder("bundled")
    vectors = await embedder.embed(questions)
    return [[hit.text for hit in hits] for hits in index.search(vectors, k)]


def realistic_rows(k: int = 5) -> list[dict[str, Any]]:
    """Each e2e_blind question with its answer and the top `k` chunks of its language's index."""
    from ragmeter.rag.index import build_index

    rows = labelled_rows()
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for language, code in LANGUAGES.items():
            index_dir = Path(tmp) / code
            build_index(BLIND / "docs" / code, index_dir, cache=False, progress=False)
            mine = [r for r in rows if r["language"] == language]
            chunks = asyncio.run(_retrieve(index_dir, [r["user_input"] for r in mine], k))
            out += [{"id": r["id"], "language": language, "kind": r["kind"], "user_input": r["user_input"],
                     "response": r["response"], "retrieved_contexts": found}
                    | ({"reference": r["reference"]} if r["reference"] else {}) for r, found in zip(mine, chunks)]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    rows = realistic_rows(args.k)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    words = [len(c.split()) for r in rows for c in r["retrieved_contexts"]]
    print(f"{len(rows)} rows, {len(words)} chunks, {sum(words) / len(words):.0f} words a chunk -> {args.out}")


if __name__ == "__main__":
    main()
