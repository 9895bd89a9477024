"""ragmeter's own cost when the judge is not the bottleneck.

1. An instant OpenAI-compatible judge (an in-memory HTTP transport answering at once), N rows
   of context_relevance at --concurrency C: wall seconds, ragmeter's CPU seconds, judge
   calls, identical prompts coalesced, rows per second.
2. The non-LLM metrics (lexical, ranking, citations) over M rows: rows per second, and the
   functions that take the most time (cProfile, cumulative).

    python benchmarks/bench_overhead.py [--rows 1000] [--concurrency 32] [--lexical-rows 5000]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import time

import httpx

import ragmeter
from ragmeter.judges.openai_compat import OpenAICompatJudge

LEXICAL = ["bleu", "rouge", "exact_match", "string_presence", "string_similarity", "non_llm_context_recall",
           "ndcg@5", "mrr@k", "valid_identifier", "valid_quote"]


def rows(n: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    words = ["paris", "france", "capital", "river", "seine", "tower", "museum", "louvre", "city", "europe",
             "art", "history"]
    out = []
    for i in range(n):
        context = " ".join(rng.choice(words) for _ in range(40))
        answer = " ".join(rng.choice(words) for _ in range(12))
        out.append({"id": f"r{i}", "user_input": f"question {i % 400}?", "response": answer,
                    "reference": " ".join(rng.choice(words) for _ in range(12)),
                    "retrieved_contexts": [context, context[::-1]], "reference_contexts": [context],
                    "retrieved_context_ids": ["d1", "d2"], "reference_context_ids": ["d1"],
                    "cited_response": f'{answer} <ref name="d1">{context[:30]}</ref>.'})
    return out


def instant_judge() -> tuple[OpenAICompatJudge, list[int]]:
    posts: list[int] = []
    reply = {"choices": [{"message": {"content": json.dumps({"rating": 2})}, "finish_reason": "stop"}],
             "usage": {"prompt_tokens": 100, "completion_tokens": 5}}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"data": []})
        posts.append(1)
        return httpx.Response(200, json=reply)

    return OpenAICompatJudge("http://judge.test/v1", "m", transport=httpx.MockTransport(handler)), posts


def judge_overhead(n: int, concurrency: int) -> None:
    judge, posts = instant_judge()
    data = rows(n)
    cpu, start = time.process_time(), time.perf_counter()
    result = ragmeter.evaluate(data, ["context_relevance"], judge=judge, cache=False, progress=False,
                               concurrency=concurrency)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    m = result.manifest["metrics"]["context_relevance"]
    print(f"instant judge, {n} rows, concurrency {concurrency}: wall {wall:.2f} s, CPU {cpu:.2f} s, "
          f"{n / wall:.0f} rows/s, {len(posts)} HTTP calls ({m['judge_calls']} judge calls, "
          f"{m['cache_hits']} answered by an identical request in flight)")


def lexical_speed(n: int) -> None:
    data = rows(n)
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    ragmeter.evaluate(data, LEXICAL, cache=False, progress=False)
    profiler.disable()
    wall = time.perf_counter() - start
    print(f"non-LLM metrics ({len(LEXICAL)}), {n} rows: {wall:.2f} s, {n / wall:.0f} rows/s")
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(8)
    print("top functions by own time:")
    print("\n".join(line for line in text.getvalue().splitlines() if line.strip()[:1].isdigit())[:2000])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--lexical-rows", type=int, default=5000)
    args = parser.parse_args()
    judge_overhead(args.rows, 1)
    judge_overhead(args.rows, args.concurrency)
    lexical_speed(args.lexical_rows)


if __name__ == "__main__":
    main()
