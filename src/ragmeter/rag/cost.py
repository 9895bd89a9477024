"""What answering a test set with the baseline RAG will take, said before it starts (and by
`answer --dry-run`): the default baseline (k=5, the bundled Qwen reader) took 135-150 s a row
on a loaded 2-core machine and nothing said so (issue 64 item 3). Each row's prompt is the
reader prompt with its question and k chunks of the index's mean length (4 characters a
token, an estimate); its reply is between a quarter of --max-tokens and all of it; rows the
answer cache holds cost nothing. Seconds come from the generator's measured speed and this
machine's learned pace (run/judge_speed.py). A RAG of your own is not counted: its cost is
not ragmeter's to know."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: characters per token where the prompt is not tokenized (no model is loaded to count)
CHARS_PER_TOKEN = 4
#: the shortest reply counted, as a share of --max-tokens
SHORTEST_REPLY = 0.25


@dataclass
class AnswerCost:
    rows: int
    cached: int
    prompt_tokens: int
    max_tokens: int
    #: (fewest, most) seconds, or None where the generator's speed is not known
    seconds: tuple[float, float] | None
    speed: str | None = None
    #: the language line (prompts/run_language.py: Followed.line), for the dry run to say
    language: str | None = None

    def line(self) -> str:
        from ragmeter.text import duration

        todo = self.rows - self.cached
        head = (f"{todo:,} of {self.rows:,} rows to answer ({self.cached:,} cached): about "
                f"{self.prompt_tokens:,} prompt tokens and up to {todo * self.max_tokens:,} reply tokens")
        if self.seconds is None:
            return head + "; no speed known for the generator (`ragmeter bench-judge` measures it)"
        fewest, most = self.seconds
        return head + f"; {duration(fewest)} to {duration(most)} at the generator's speed: {self.speed}"


def baseline_cost(rag: Any, rows: list[dict[str, Any]], cache: Any) -> AnswerCost | None:
    """The cost of answering `rows` with `rag` when it is the baseline; None for any other RAG."""
    from ragmeter.cache import make_key
    from ragmeter.rag.answer import ANSWER_KEY_VERSION, question_of
    from ragmeter.rag.baseline import BaselineRAG
    from ragmeter.run.judge_speed import load_speed

    if not isinstance(rag, BaselineRAG):
        return None
    identity = rag.identity()
    chunks = rag.index.rows
    mean_chunk = sum(len(r["text"]) for r in chunks) / len(chunks) if chunks else 0
    todo, cached, prompt = 0, 0, 0
    for row in rows:
        query = question_of(row)
        if cache.get(make_key({"rag": identity, "query": query}, ANSWER_KEY_VERSION), "replies") is not None:
            cached += 1
            continue
        question = query if isinstance(query, str) else " ".join(t["content"] for t in query or [])
        shown = rag.prompt.messages(question, ["x" * round(mean_chunk)] * rag.k)
        prompt += sum(len(m["content"]) for m in shown) // CHARS_PER_TOKEN
        todo += 1
    speed = load_speed(rag.generator.identity())
    seconds = None
    if speed is not None and todo:
        each = prompt / todo
        seconds = (todo * speed.seconds(each, rag.max_tokens * SHORTEST_REPLY),
                   todo * speed.seconds(each, rag.max_tokens))
    elif speed is not None:
        seconds = (0.0, 0.0)
    return AnswerCost(len(rows), cached, prompt, rag.max_tokens, seconds, None if speed is None else speed.said())
