"""Rows for the blind labeller (issue 73): every question a `ragmeter testset` run wrote, kept or
rejected, as the question, its reference answer and its source chunk, with no verdict, score,
check or run name, pooled and shuffled, each under an id that is a hash of what it shows (a
question written by two runs is labelled once). Labels already written are left out.

    python benchmarks/testset_blind/packet.py OUT.jsonl RUN_DIR [RUN_DIR ...]
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
LABELS = HERE / "labels" / "labels.jsonl"


def row_id(question: str, reference: str, chunk: str) -> str:
    """What a labeller sees, hashed: the same row from two runs is one label."""
    return "t-" + hashlib.sha256(f"{question}\x00{reference}\x00{chunk}".encode()).hexdigest()[:12]


def written(run: Path) -> list[dict]:
    """Every row of a run that has a written question (kept first, then rejected)."""
    rows = []
    for name in ("testset.jsonl", "rejected.jsonl"):
        for line in (run / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("user_input") and row.get("reference_contexts"):
                rows.append(row)
    return rows


def shown(row: dict, language: str) -> dict:
    chunk = row["reference_contexts"][0]
    return {"id": row_id(row["user_input"], row["reference"], chunk), "language": language,
            "document": row["source"], "question": row["user_input"], "reference_answer": row["reference"],
            "source_chunk": chunk}


def main(out: str, runs: list[str]) -> None:
    done = {json.loads(line)["id"] for line in LABELS.read_text().splitlines()} if LABELS.exists() else set()
    seen: dict[str, dict] = {}
    for run in map(Path, runs):
        language = json.loads((run / "manifest.json").read_text())["language"]["used"]
        for row in written(run):
            item = shown(row, language)
            if item["id"] not in done:
                seen.setdefault(item["id"], item)
    items = sorted(seen.values(), key=lambda r: r["id"])
    random.Random(73).shuffle(items)
    Path(out).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in items), encoding="utf-8")
    print(f"{len(items)} rows to label -> {out}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
