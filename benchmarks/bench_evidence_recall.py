"""Evidence recall: how often the excerpts a faithfulness judge is shown hold the text that
supports a faithful answer. No model.

- XQuAD-es and ClapNQ (shared/data/meta-eval): for each answerable row, the claim is the
  question with its human answer (XQuAD's short span; ClapNQ's long answer, written by a person), the row's
  passage is put among k - 1 passages of other rows at a seeded position, and the excerpts
  must hold the answer span (XQuAD) or every passage sentence the person selected for the long answer (ClapNQ).
- benchmarks/e2e_code/labelled.jsonl: each faithful answer with its `support` (a span of its
  own retrieved chunks that a reader cites for it, written when labelling); the excerpts of
  its own retrieved chunks must hold it.

    python benchmarks/bench_evidence_recall.py [--sizes 1,3,5] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path
from typing import Any

from ragmeter.reading.blocks import parts
from ragmeter.reading.excerpts import excerpts
from ragmeter.reading.words import content_words

HERE = Path(__file__).resolve().parent
META = HERE.parent.parent / "shared" / "data" / "meta-eval"


def norm(text: str) -> str:
    return " ".join(re.sub(r"[*`_\u2010\u00ad]", "", text).split()).lower()


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def shown(claim: str, contexts: list[str], question: str | None) -> str:
    """The excerpts as the metric builds them (parts joined as faithfulness joins them)."""
    claims = parts(claim)[0] or [claim]
    return norm(" ".join(excerpts("\n\n".join(claims), contexts, question=question)))


def among(rows: list[dict[str, Any]], i: int, k: int, rng: random.Random) -> list[str]:
    """Row i's passage among k - 1 passages of other rows, at a seeded position."""
    others = [r["contexts"][0] for j, r in enumerate(rows) if j != i]
    picked = rng.sample(others, k - 1)
    picked.insert(rng.randrange(k), rows[i]["contexts"][0])
    return picked


def used(sentence: str, answer: str) -> bool:
    """A selected sentence the answer uses: half its content words are in the answer."""
    mine = content_words(sentence)
    return len(mine & content_words(answer)) * 2 >= len(mine)


def meta_eval(name: str, sizes: list[int], seed: int, claim_of: Any, targets_of: Any) -> None:
    path = META / name.split(" ")[0]
    if not path.exists():
        print(f"{name}: not found at {path}")
        return
    rows = [r for r in load(path) if r["label"] == 1 and r.get("reference")]
    cells = []
    for k in sizes:
        rng = random.Random(seed)
        hits = 0
        for i, row in enumerate(rows):
            text = shown(claim_of(row), among(rows, i, k, rng), row["question"])
            hits += all(norm(t) in text for t in targets_of(row))
        cells.append(f"k={k}: {hits / len(rows):.3f} ({hits}/{len(rows)})")
    print(f"{name:<40} " + "  ".join(cells))


def labelled(path: Path) -> None:
    rows = [r for r in load(path) if r["label"] == 1 and r.get("support")]
    by_language: dict[str, list[int]] = {}
    for row in rows:
        text = shown(row["response"], row["retrieved_contexts"], row["user_input"])
        supports = row["support"] if isinstance(row["support"], list) else [row["support"]]
        counts = by_language.setdefault(row.get("language", "?"), [0, 0])
        counts[0] += all(norm(s) in text for s in supports)
        counts[1] += 1
    for language, (hit, total) in sorted(by_language.items()):
        print(f"{path.parent.name + '/' + path.name + ' (' + language + ')':<40} "
              f"own chunks: {hit / total:.3f} ({hit}/{total})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1,3,5")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sizes = [int(k) for k in args.sizes.split(",")]
    meta_eval("xquad_es_context_relevance.jsonl", sizes, args.seed,
              lambda r: f"{r['question']} {r['reference']}", lambda r: [r["reference"]])
    meta_eval("clapnq_answerability.jsonl", sizes, args.seed,
              lambda r: r["reference"], lambda r: r["meta"]["selected_sentences"])
    # people selected more passage sentences than some long answers use: those the answer uses
    meta_eval("clapnq_answerability.jsonl (used)", sizes, args.seed,
              lambda r: r["reference"],
              lambda r: [s for s in r["meta"]["selected_sentences"] if used(s, r["reference"])])
    path = HERE / "e2e_code" / "labelled.jsonl"
    if path.exists():
        labelled(path)


if __name__ == "__main__":
    main()
