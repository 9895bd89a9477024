"""Write the candidate questions of benchmarks/testset_labels/new/ (issue 62): one factoid
question per chunk (1,000 characters, 100 of overlap, as the 70 older labelled questions),
from each document of new/en and new/es, with the bundled generator, before any critique.

It asks with the generation prompt as `ragmeter testset` ships it (from issue 62 on: the
subject line). `new/labelled.jsonl` holds the questions of variant "subject", written with
the subject line and a quote of the chunk beside the answer (the quote was measured as a
filter and left out after: docs/testsets.md), beside those the same loop wrote at commit
3612570 with the prompt before issue 62, which saw the chunk alone (variant "chunk-only").
Labels were added by reading, never from a score (README.md: the rule).

    python benchmarks/testset_labels/generate.py > subject.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
LANGUAGES = {"en": "english", "es": "spanish"}


def chunks() -> list[tuple[str, Any, Any]]:
    """(language, document, chunk) for every chunk of the new documents, in file order."""
    from ragmeter.testset.chunking import split
    from ragmeter.testset.documents import load_documents

    out = []
    for code, language in LANGUAGES.items():
        corpus = load_documents(HERE / "new" / code)
        for doc in corpus.documents:
            for chunk in split([doc], 1000, 100):
                if len(chunk.text.strip()) >= 200:
                    out.append((language, doc, chunk))
    return out


async def generate(judge_spec: str) -> None:
    from ragmeter.cache import open_cache
    from ragmeter.errors import UnparseableReply
    from ragmeter.judges.session import JudgeSession
    from ragmeter.judges.spec import make_judge
    from ragmeter.testset.generation import Judging, write_question
    from ragmeter.testset.subjects import Subjects

    judge, cache = make_judge(judge_spec), open_cache(True)
    try:
        for language, doc, chunk in chunks():
            judging = Judging(JudgeSession(judge, cache), language, {})
            subject = await Subjects([doc], language).line(judging, chunk)
            try:
                written = await write_question(judging, "factoid", [chunk.text], subject)
            except UnparseableReply as exc:
                written = None
                print(f"{chunk.id}: {exc}", file=sys.stderr)
            row = {"language": language, "source": chunk.source, "chunk_id": chunk.id, "chunk": chunk.text,
                   "variant": "subject", "subject": subject,
                   **({"question": written.question, "answer": written.answer}
                      if written else {"question": None})}
            print(json.dumps(row, ensure_ascii=False), flush=True)
    finally:
        cache.close()
        await judge.aclose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", default="llamacpp")
    args = parser.parse_args()
    asyncio.run(generate(args.judge))


if __name__ == "__main__":
    main()
