"""Precision and recall of `ragmeter testset` runs against blind labels (issue 73): every question
a run wrote, kept or rejected, was labelled keep/drop by a helper who saw only the question, its
reference answer and its chunk (benchmarks/testset_blind/packet.py) and shared/notes/labelling.md.

    python benchmarks/bench_testset_blind.py RUN_DIR [RUN_DIR ...]

Per run: kept, kept that the reader keeps (precision), written that the reader keeps and the run
kept (recall), judge calls, tokens and judge seconds per kept question (from the manifest).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "testset_blind"))
from packet import LABELS, row_id, written  # noqa: E402


def labels() -> dict[str, dict]:
    return {(row := json.loads(line))["id"]: row for line in LABELS.read_text().splitlines()}


def score(run: Path, known: dict[str, dict]) -> dict:
    """A run's figures; a row without a label is counted as missing."""
    kept_ids = {json.loads(line)["id"] for line in (run / "testset.jsonl").read_text().splitlines()}
    found = [(row["id"] in kept_ids, known.get(row_id(row["user_input"], row["reference"],
                                                       row["reference_contexts"][0]))) for row in written(run)]
    missing = sum(label is None for _, label in found)
    judged = [(kept, label["label"] == "keep") for kept, label in found if label is not None]
    kept = [good for was_kept, good in judged if was_kept]
    good = [was_kept for was_kept, is_good in judged if is_good]
    quality = json.loads((run / "manifest.json").read_text())["quality"]
    drops = Counter(label["kind"] for was_kept, label in found if label is not None and was_kept
                    and label["label"] == "drop")
    return {"run": run.name, "kept": len(kept), "reader_keeps_of_kept": sum(kept),
            "precision": round(sum(kept) / len(kept), 3) if kept else None,
            "written_reader_keeps": len(good), "recall": round(sum(good) / len(good), 3) if good else None,
            "unlabelled": missing, "kept_dropped_by_reader": dict(drops),
            "calls_per_kept": quality["judge_calls_per_kept"], "tokens_per_kept": quality["tokens_per_kept"],
            "seconds_per_kept": quality["seconds_per_kept"], "asked_for": quality["asked_for"]}


def main(runs: list[str]) -> None:
    known = labels()
    for run in map(Path, runs):
        print(json.dumps(score(run, known)))


if __name__ == "__main__":
    main(sys.argv[1:])
