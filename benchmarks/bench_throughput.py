"""What a local judge does per row on a CPU: rows per minute and seconds per row on the bundled
judge, cold cache, for faithfulness alone and for the quickstart's six metrics.

The rows are public and labelled elsewhere in this project: the shared meta-eval sets
(../shared/data/meta-eval: Q2, ClapNQ, RAGChecker, XQuAD-es), benchmarks/e2e and e2e_code
(answers the baseline RAG wrote over READMEs and code documentation) and
benchmarks/abstention: 1,033 rows in all, English and Spanish, taken in a fixed shuffled
order. A row without a reference is unscored by the two metrics that need one.

    python benchmarks/bench_throughput.py [--rows 1000] [--config faithfulness|quickstart|both]
        [--judge llamacpp] [--threads N]
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

HERE = Path(__file__).resolve().parent
META_EVAL = HERE.parent.parent / "shared" / "data" / "meta-eval"
CONFIGS = {
    "faithfulness": ["faithfulness"],
    "quickstart": ["context_precision", "context_precision_with_reference", "context_recall", "faithfulness",
                   "response_relevancy", "context_relevance"],
}


def public_rows(meta_eval: Path = META_EVAL, seed: int = 13) -> list[dict[str, Any]]:
    """Every public row in ragmeter's fields, shuffled once with a fixed seed."""
    rows: list[dict[str, Any]] = []
    for path in sorted(meta_eval.glob("*.jsonl")):
        for rec in _records(path):
            answer = rec["answer"][0] if isinstance(rec["answer"], list) else rec["answer"]
            rows.append(_row(rec["id"], rec["question"], answer, rec["contexts"], rec.get("reference")))
    for name in ("e2e/labelled.jsonl", "e2e_code/labelled.jsonl", "abstention/answers.jsonl"):
        for rec in _records(HERE / name):
            rows.append(_row(f"{name.split('/')[0]}-{rec['id']}", rec.get("user_input") or rec["question"],
                             rec["response"], rec["retrieved_contexts"], rec.get("reference")))
    random.Random(seed).shuffle(rows)
    return rows


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _row(row_id: str, question: str, answer: str, contexts: list[str], reference: str | None) -> dict[str, Any]:
    row = {"id": row_id, "user_input": question, "response": answer, "retrieved_contexts": contexts}
    return {**row, "reference": reference} if reference else row


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


def measure(rows: list[dict[str, Any]], metrics: list[str], judge: str) -> dict[str, Any]:
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
    args = parser.parse_args()
    rows = public_rows()[:args.rows]
    print(f"machine: {machine()}; judge {args.judge}; {len(rows)} public rows; cold cache, one call at a time")
    for name in CONFIGS if args.config == "both" else [args.config]:
        figures = measure(rows, CONFIGS[name], args.judge)
        print(json.dumps({"config": name, **figures}))


if __name__ == "__main__":
    main()
