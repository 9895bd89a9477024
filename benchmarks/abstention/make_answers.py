"""Answers a reader model writes for ClapNQ (English) and XQuAD (Spanish) questions given
one passage that answers them or does not: the natural data the `abstention` metric is
measured on (benchmarks/bench_abstention.py). Written once and kept in answers.jsonl;
whether each answer declines was then labelled by reading (labels.jsonl), before any score.

    python benchmarks/abstention/make_answers.py [--judge llamacpp] [--per-class 20] [--skip 0] [--reader own]

Rows: `--per-class` answerable and unanswerable rows of each meta-eval file after the first
`--skip` of each, in the order of a hash of the id (not the file's order). The reader
prompt is the baseline RAG's (prompts/<lang>/rag.answer.json, which tells the model the
phrase to decline with: "say that the documents do not answer the question") or, with
`--reader own`, reader_<lang>.json here (decline "in your own words"), for declines worded
as models word them.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
DATA = HERE.parents[2] / "shared" / "data" / "meta-eval"
CODES = {"english": "en", "spanish": "es"}
FILES = {"english": DATA / "clapnq_answerability.jsonl", "spanish": DATA / "xquad_es_context_relevance.jsonl"}


def chosen(path: Path, per_class: int, skip: int = 0) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows.sort(key=lambda r: hashlib.sha256(r["id"].encode()).hexdigest())
    return [r for label in (1, 0) for r in [r for r in rows if r["label"] == label][skip:skip + per_class]]


async def main() -> None:
    from ragmeter.judges.base import JudgeRequest
    from ragmeter.judges.spec import make_judge
    from ragmeter.rag.prompt import load_answer_prompt

    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", default="llamacpp")
    parser.add_argument("--per-class", type=int, default=20)
    parser.add_argument("--skip", type=int, default=0)
    parser.add_argument("--reader", choices=("baseline", "own"), default="baseline")
    parser.add_argument("--out", type=Path, default=HERE / "answers.jsonl")
    args = parser.parse_args()
    done = {json.loads(line)["id"] for line in args.out.read_text().splitlines()} if args.out.exists() else set()
    judge = make_judge(args.judge)
    with args.out.open("a", encoding="utf-8") as out:
        for language, path in FILES.items():
            own = HERE / f"reader_{CODES[language]}.json"
            prompt = load_answer_prompt(own if args.reader == "own" else None, language=language)
            for row in chosen(path, args.per_class, args.skip):
                if row["id"] in done:
                    continue
                messages = prompt.messages(row["question"], row["contexts"])
                reply = await judge.complete(JudgeRequest(messages, None, 200, "rag.answer"))
                record = {"id": row["id"], "lang": language, "question": row["question"],
                          "retrieved_contexts": row["contexts"], "response": reply.text.strip(),
                          "answerable": row["label"], "source": path.name, "reader": args.judge,
                          "reader_prompt": args.reader}
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
                out.flush()
                print(row["id"], language, repr(reply.text.strip()[:80]), flush=True)
    await judge.aclose()


if __name__ == "__main__":
    asyncio.run(main())
