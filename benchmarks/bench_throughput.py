"""What a local judge does per row on a CPU: rows per minute and seconds per row on the bundled
judge, cold cache, for faithfulness alone and for the quickstart's six metrics.

The rows are public and labelled elsewhere in this project: the shared meta-eval sets
(../shared/data/meta-eval: Q2, ClapNQ, RAGChecker, XQuAD-es), benchmarks/e2e and e2e_code
(answers the baseline RAG wrote over READMEs and code documentation) and
benchmarks/abstention: 1,033 rows in all, English and Spanish, taken in a fixed shuffled
order. A row without a reference is unscored by the two metrics that need one.

`--rows-from realistic` reads rows shaped like a user's instead (benchmarks/realistic_rows.py:
e2e_blind's questions and answers, five retrieved chunks of about 260 words each) and also
counts, per row, the tokens llama.cpp evaluated (a restored prompt prefix is not evaluated) and
the row's distinct tokens (its question, answer and each chunk tokenized once): the least any
layout can read (issue 75).

    python benchmarks/bench_throughput.py [--rows 1000] [--config faithfulness|quickstart|both]
        [--judge llamacpp] [--rows-from public|realistic]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from pathlib import Path
from typing import Any

import ragmeter
from ragmeter.meta_eval.labels import load_labelled
from ragmeter.metrics import DEFAULT_METRICS

HERE = Path(__file__).resolve().parent
META_EVAL = HERE.parent.parent / "shared" / "data" / "meta-eval"
CONFIGS = {"faithfulness": ["faithfulness"], "quickstart": list(DEFAULT_METRICS)}


def public_rows(meta_eval: Path = META_EVAL, seed: int = 13) -> list[dict[str, Any]]:
    """Every public row in ragmeter's fields (read as meta-eval reads labelled files), shuffled
    once with a fixed seed; a pairwise row keeps its first answer."""
    files = [(path, "label", "") for path in sorted(meta_eval.glob("*.jsonl"))]
    files += [(HERE / name, label, name.split("/")[0] + "-") for name, label in
              (("e2e/labelled.jsonl", "label"), ("e2e_code/labelled.jsonl", "label"),
               ("abstention/answers.jsonl", "answerable"))]
    rows = [_row(rec, prefix) for path, label, prefix in files for rec in load_labelled(path, label_column=label)]
    random.Random(seed).shuffle(rows)
    return rows


def _row(rec: dict[str, Any], prefix: str) -> dict[str, Any]:
    answer = rec["response"][0] if isinstance(rec["response"], list) else rec["response"]
    row = {"id": prefix + rec["id"], "user_input": rec["user_input"], "response": answer,
           "retrieved_contexts": rec["retrieved_contexts"]}
    return {**row, "reference": rec["reference"]} if rec["reference"] else row


def machine() -> str:
    """The CPU model and the cores this process may use."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                 if line.startswith("model name")]
        model = names[0] if names else model
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{model}, {cores} cores, {platform.system()} {platform.machine()}"


def realistic(count: int) -> list[dict[str, Any]]:
    """The realistic rows (built once by benchmarks/realistic_rows.py) in a fixed shuffled order
    (both languages, every kind of document), the first `count`."""
    from realistic_rows import OUT, realistic_rows

    if not OUT.exists():
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in realistic_rows()), encoding="utf-8")
    rows = [json.loads(line) for line in OUT.read_text(encoding="utf-8").splitlines()]
    random.Random(13).shuffle(rows)
    return [{k: v for k, v in row.items() if k not in ("language", "kind")} for row in rows[:count]]


class Evaluated:
    """Counts the prompt tokens llama.cpp evaluates (judges/llamacpp/prompt.py's two evaluators),
    which a restored prefix is not: what a layout costs, where `prompt_tokens` counts every
    prompt whole."""

    def __init__(self) -> None:
        self.tokens = 0

    def __enter__(self) -> Evaluated:
        from ragmeter.judges.llamacpp import prompt

        self._saved = prompt.eval_halting, prompt.eval_reading
        halting, reading = self._saved

        def counted_halting(llm: Any, tokens: list[int], *args: Any) -> None:
            self.tokens += len(tokens)
            return halting(llm, tokens, *args)

        def counted_reading(llm: Any, tokens: list[int], *args: Any) -> dict[int, float]:
            self.tokens += len(tokens)
            return reading(llm, tokens, *args)

        prompt.eval_halting, prompt.eval_reading = counted_halting, counted_reading
        return self

    def __exit__(self, *exc: object) -> None:
        from ragmeter.judges.llamacpp import prompt

        prompt.eval_halting, prompt.eval_reading = self._saved


def distinct_tokens(rows: list[dict[str, Any]]) -> int:
    """The rows' distinct texts (question, answer, reference, each chunk) tokenized once by the
    bundled judge's tokenizer: the fewest prompt tokens any layout can read for them."""
    from llama_cpp import Llama

    from ragmeter.judges.bundled import BUNDLED, DEFAULT_BUNDLED, model_path

    vocab = Llama(model_path=str(model_path(BUNDLED[DEFAULT_BUNDLED])), vocab_only=True, verbose=False)
    total = 0
    for row in rows:
        texts = {row["user_input"], row["response"], row.get("reference") or "", *row["retrieved_contexts"]}
        total += sum(len(vocab.tokenize(t.encode("utf-8"), add_bos=False)) for t in texts if t)
    return total


def measure(rows: list[dict[str, Any]], metrics: list[str], judge: str | dict[str, Any],
            layout: str = "instruction") -> dict[str, Any]:
    start = time.perf_counter()
    with Evaluated() as evaluated:
        result = ragmeter.evaluate(rows, metrics, judge=judge, cache=False, progress=False, concurrency=1,
                                   layout=layout)
    wall = time.perf_counter() - start
    summary = result.summary()
    n = len(rows)
    per_row = {"prompt_tokens_per_row": round(sum(r.prompt_tokens for r in summary.values()) / n),
               "evaluated_tokens_per_row": round(evaluated.tokens / n),
               "sampled_tokens_per_row": round(sum(r.completion_tokens for r in summary.values()) / n),
               "sampled_per_metric_per_row": {name: round(r.completion_tokens / n, 1) for name, r in summary.items()},
               "prompt_per_metric_per_row": {name: round(r.prompt_tokens / n) for name, r in summary.items()}}
    return {"rows": len(rows), "wall_s": round(wall, 1), "s_per_row": round(wall / len(rows), 2), **per_row,
            "rows_per_min": round(60 * len(rows) / wall, 1),
            "calls": sum(r.judge_calls for r in summary.values()),
            "prompt_tokens": sum(r.prompt_tokens for r in summary.values()),
            "sampled_tokens": sum(r.completion_tokens for r in summary.values()),
            "scored": {name: r.n for name, r in summary.items()},
            "unscored": {name: r.unscored_reasons for name, r in summary.items() if r.unscored}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--config", choices=[*CONFIGS, "both"], default="both")
    parser.add_argument("--judge", default="llamacpp")
    parser.add_argument("--prefixes", choices=["memory", "disk"], default="memory",
                        help="memory (default): every metric's prompt prefix evaluated in the run, a cold start; "
                             "disk: restored where an earlier run saved it")
    parser.add_argument("--rows-from", choices=["public", "realistic"], default="public",
                        help="public (default): the labelled sets' rows, one or two short contexts; realistic: "
                             "five retrieved chunks of a real document a row (benchmarks/realistic_rows.py)")
    parser.add_argument("--layout", default="instruction",
                        help="instruction, row or auto (prompts/row_first.py); several, comma-separated, are "
                             "measured one after the other in one run")
    args = parser.parse_args()
    rows = realistic(args.rows) if args.rows_from == "realistic" else public_rows()[:args.rows]
    print(f"machine: {machine()}; judge {args.judge}; {len(rows)} {args.rows_from} rows; cold cache, prefixes "
          f"{args.prefixes}, one call at a time")
    if args.rows_from == "realistic":
        print(json.dumps({"distinct_tokens_per_row": round(distinct_tokens(rows) / len(rows))}))
    judge = {"spec": args.judge, "prefixes": args.prefixes} if args.judge.startswith("llamacpp") else args.judge
    for name in CONFIGS if args.config == "both" else [args.config]:
        for layout in args.layout.split(","):
            figures = measure(rows, CONFIGS[name], judge, layout)
            print(json.dumps({"config": name, "layout": layout, **figures}), flush=True)


if __name__ == "__main__":
    main()
