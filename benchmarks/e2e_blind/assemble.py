"""The blind set's rows, before and after a reader labels them (issue 72): provenance.

    python benchmarks/e2e_blind/assemble.py rows RUN_DIR          # to_label.jsonl: what the labeller reads
    python benchmarks/e2e_blind/assemble.py join RUN_DIR LABELS   # labelled.jsonl, no_claim.jsonl

RUN_DIR holds ans_{en,es}_{base,narrow}/answers.jsonl (`ragmeter answer`, README.md). The
labeller is given to_label.jsonl and shared/notes/labelling.md only: the question, the answer
and the retrieved chunks, never a score, a judge's reason or the code. LABELS is what it wrote,
one JSON object per line: id, label (1, 0), borderline, no_claim, declines, note.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIGS = ("base", "narrow")


def answers(run: Path) -> list[dict[str, object]]:
    """Every answer of every configuration, with its question's language, kind and split."""
    questions = {q["id"]: q for q in map(json.loads, (HERE / "questions.jsonl").read_text("utf-8").splitlines())}
    out = []
    for code in ("en", "es"):
        for config in CONFIGS:
            path = run / f"ans_{code}_{config}" / "answers.jsonl"
            for answer in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
                q = questions[answer["id"]]
                out.append({"id": f"{config}-{q['id']}", "config": config,
                            "language": "english" if code == "en" else "spanish", "kind": q["kind"],
                            "split": q["split"], "user_input": q["user_input"], "response": answer["response"],
                            "retrieved_contexts": answer["retrieved_contexts"]})
    return out


def rows(run: Path) -> None:
    with (run / "to_label.jsonl").open("w", encoding="utf-8") as out:
        for row in answers(run):
            seen = {k: row[k] for k in ("id", "user_input", "response", "retrieved_contexts")}
            out.write(json.dumps(seen, ensure_ascii=False) + "\n")


def join(run: Path, labels: Path) -> None:
    lines = [line for line in labels.read_text(encoding="utf-8").splitlines() if line.strip()]
    read = {r["id"]: r for r in map(json.loads, lines)}
    kept, apart = [], []
    for row in answers(run):
        label = read[str(row["id"])]
        row.update({"label": int(label["label"]), "borderline": bool(label.get("borderline")),
                    "declines": bool(label.get("declines")), "note": label.get("note", "")})
        (apart if label.get("no_claim") else kept).append(row)
    for name, found in (("labelled.jsonl", kept), ("no_claim.jsonl", apart)):
        with (HERE / name).open("w", encoding="utf-8") as out:
            for row in sorted(found, key=lambda r: str(r["id"])):
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{name}: {len(found)} answers")


if __name__ == "__main__":
    if sys.argv[1] == "rows":
        rows(Path(sys.argv[2]))
    else:
        join(Path(sys.argv[2]), Path(sys.argv[3]))
