"""Join the baseline RAG's answers with the labels read for them (issue 61): provenance.

    python benchmarks/e2e_kinds/assemble.py RUN_DIR LABELS_TSV

RUN_DIR holds questions_{en,es}.jsonl (questions.py) and ans_{en,es}_{base,narrow,weak}/
(`ragmeter answer`); LABELS_TSV has one line per answer: question id, config, label (1, 0,
or -1 for an answer that states nothing a reader could check) and the reader's note.
Writes labelled.jsonl and no_claim.jsonl beside this file.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(run: Path, labels: Path) -> None:
    questions = {}
    for code in ("en", "es"):
        for line in (run / f"questions_{code}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            questions[row["id"]] = row
    kept, apart = [], []
    with labels.open(encoding="utf-8") as handle:
        for qid, config, label, note in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE):
            question = questions[qid]
            answers = run / f"ans_{qid[:2]}_{config}" / "answers.jsonl"
            answer = next(a for a in map(json.loads, answers.read_text(encoding="utf-8").splitlines())
                          if a["id"] == qid)
            row = {"id": f"{config}-{qid}", "config": config, "language": question["language"],
                   "kind": question["kind"], "split": question["split"], "user_input": question["user_input"],
                   "response": answer["response"], "retrieved_contexts": answer["retrieved_contexts"],
                   "label": int(label), "note": note}
            (apart if row["label"] < 0 else kept).append(row)
    for name, rows in (("labelled.jsonl", kept), ("no_claim.jsonl", apart)):
        with (HERE / name).open("w", encoding="utf-8") as out:
            for row in sorted(rows, key=lambda r: r["id"]):
                if row["label"] < 0:
                    row.pop("label")
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{name}: {len(rows)} answers")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
