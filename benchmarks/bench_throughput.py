"""What a local judge does per row on a CPU: rows per minute and seconds per row on the bundled
judge, cold cache, for faithfulness alone and for the quickstart's six metrics.

The rows are public and labelled elsewhere in this project: the shared meta-eval sets
(../shared/data/meta-eval: Q2, ClapNQ, RAGChecker, XQuAD-es), benchmarks/e2e and e2e_code
(answers the baseline RAG wrote over READMEs and code documentation) and
benchmarks/abstention: 1,033 rows in all, English and Spanish, taken in a fixed shuffled
order. A row without a reference is unscored by the two metrics that need one.

    python benchmarks/bench_throughput.py [--rows 1000] [--config faithfulness|quickstart|both]
        [--judge llamacpp]
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


def measure(rows: list[dict[str, Any]], metrics: list[str], judge: str | dict[str, Any]) -> dict[str, Any]:
    start = time.perf_counter()
    result = ragmeter.evaluate(rows, metrics, judge=judge, cache=False, progress=False, concurrency=1)
    wall = time.perf_counter() - start
    summary = result.summary()
    return {"rows": len(rows), "wall_s": round(wall, 1), "s_per_row": round(wall / len(rows), 2),
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
    args = parser.parse_args()
    rows = public_rows()[:args.rows]
    print(f"machine: {machine()}; judge {args.judge}; {len(rows)} public rows; cold cache, prefixes "
          f"{args.prefixes}, one call at a time")
    judge = {"spec": args.judge, "prefixes": args.prefixes} if args.judge.startswith("llamacpp") else args.judge
    for name in CONFIGS if args.config == "both" else [args.config]:
        figures = measure(rows, CONFIGS[name], judge)
        print(json.dumps({"config": name, **figures}))


if __name__ == "__main__":
    main()
