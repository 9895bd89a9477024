"""`compare` and `report` over many synthetic runs: seconds, peak memory and the page's size.

The issue's two shapes: 20 runs x 6 metrics x 1,000 rows (compare with --by, and the report),
and 5 runs x 100,000 rows (compare). Each step runs in its own process, so its peak resident
memory is its own.

    python benchmarks/bench_compare_many.py [--runs 20] [--rows 1000] [--metrics 6] [--report]
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
METRICS = ["faithfulness", "context_recall", "context_precision", "context_relevance", "response_relevancy",
           "answer_accuracy"]


def make_runs(folder: Path, runs: int, rows: int, metrics: int) -> list[Path]:
    from ragmeter.testing.runs import write_run

    rng = random.Random(0)
    ids = [f"q{i}" for i in range(rows)]
    shape = [{"id": i, "user_input": f"question {i}?", "response": f"answer {i}.",
              "question_type": ("factual", "multi_hop", "comparison", "unanswerable")[n % 4]}
             for n, i in enumerate(ids)]
    base = {m: [rng.random() for _ in ids] for m in METRICS[:metrics]}
    out = []
    for r in range(runs):
        shift = rng.gauss(0, 0.03)
        scores = {m: [None if rng.random() < 0.02 else round(min(1.0, max(0.0, v + shift + rng.gauss(0, 0.1))), 4)
                      for v in values] for m, values in base.items()}
        out.append(write_run(folder / f"run{r:02d}", scores, ids=ids, rows=shape))
    return out


def step(name: str, runs: list[str], out: str) -> None:
    started = time.perf_counter()
    if name == "compare":
        from ragmeter.results.matrix import compare_many

        result = compare_many(runs, by="question_type")
        Path(out).write_text(result.model_dump_json())
    else:
        from ragmeter.report.many import write_many_report

        write_many_report(runs, out, by="question_type")
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{name}: {seconds:.2f} s, peak {peak:.0f} MiB, output {Path(out).stat().st_size / 1e6:.2f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--metrics", type=int, default=6)
    parser.add_argument("--report", action="store_true", help="also write the report")
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        step(args.step, args.paths, args.out)
        return
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        runs = make_runs(Path(tmp), args.runs, args.rows, args.metrics)
        print(f"{args.runs} runs x {args.metrics} metrics x {args.rows:,} rows written in "
              f"{time.perf_counter() - started:.1f} s")
        for name in ("compare", "report") if args.report else ("compare",):
            out = str(Path(tmp) / ("compare.json" if name == "compare" else "report.html"))
            subprocess.run([sys.executable, __file__, "--step", name, "--out", out, *map(str, runs)], check=True)


if __name__ == "__main__":
    main()
