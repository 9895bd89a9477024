"""Verdicts at prefill speed: the verdict-only metrics (context_precision, its reference
variant, context_recall, faithfulness, context_relevance) on examples/dataset.jsonl with the
bundled Qwen judge, no cache, with verdicts read from the logits (the default) and decoded as
JSON (`verdicts: decode`). Per metric: judge seconds, the seconds spent evaluating its
prompts alone (timed inside the judge), their ratio, and the tokens sampled; then the rows
whose faithfulness or context_recall crossed 0.5 from >= 0.8 or <= 0.2.

    python benchmarks/bench_verdicts.py [--rows N] [--modes read,decode]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import ragmeter
from ragmeter.io.datasets import load_dataset

ROOT = Path(__file__).resolve().parents[1]
METRICS = ["context_precision", "context_precision_with_reference", "context_recall", "faithfulness",
           "context_relevance"]


def timed_judge(mode: str) -> tuple[Any, dict[str, float]]:
    """The bundled judge, its prompt loading timed per metric (the tag's metric name)."""
    from ragmeter.judges.spec import make_judge

    judge = make_judge({"spec": "llamacpp:qwen-coder-1.5b", "verdicts": mode})
    spent: dict[str, float] = {}
    load = judge._load_prompt

    def timed(llm: Any, request: Any, parts: Any) -> Any:
        started = time.perf_counter()
        try:
            return load(llm, request, parts)
        finally:
            metric = request.tag.split(".")[0]
            spent[metric] = spent.get(metric, 0.0) + time.perf_counter() - started

    judge._load_prompt = timed  # type: ignore[method-assign]
    return judge, spent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--modes", default="read,decode")
    args = parser.parse_args()
    rows = load_dataset(ROOT / "examples" / "dataset.jsonl").records[: args.rows]
    scores: dict[str, Any] = {}
    for mode in args.modes.split(","):
        judge, spent = timed_judge(mode)
        result = ragmeter.evaluate(rows, METRICS, judge=judge, cache=False, progress=False)
        print(f"verdicts: {mode}, {len(rows)} rows, wall {result.manifest['wall_seconds']:.1f} s")
        for name in METRICS:
            m = result.manifest["metrics"][name]
            prompt = spent.get(name, 0.0)
            print(f"  {name:<34} judge {m['judge_seconds']:6.1f} s  prompts alone {prompt:6.1f} s  "
                  f"ratio {m['judge_seconds'] / max(prompt, 1e-9):4.2f}  sampled {m['completion_tokens']:5d} tokens")
        scores[mode] = {name: [r[name] for r in result.rows] for name in METRICS}
    if {"read", "decode"} <= set(scores):
        for name in ("faithfulness", "context_recall"):
            crossed = [(i, a, b) for i, (a, b) in enumerate(zip(scores["decode"][name], scores["read"][name]))
                       if a is not None and b is not None and ((a >= 0.8 and b < 0.5) or (a <= 0.2 and b >= 0.5))]
            changed = sum(1 for a, b in zip(scores["decode"][name], scores["read"][name]) if a != b)
            print(f"{name}: {changed} rows changed, crossed 0.5 from >= 0.8 or <= 0.2: {crossed or 'none'}")


if __name__ == "__main__":
    main()
