"""Benchmark the core: the six metrics over examples/dataset.jsonl with the bundled judge.

Prints, per metric, judge calls, prompt and completion tokens and seconds per row, and the
unscored share; ragmeter's own overhead (wall time minus the time the judge or the embedder
was working); and the cached re-run time, in-process and as a fresh CLI process.
Compares with the Ragas 0.4.3 figures measured for the core issue (same six metrics,
10 rows): 10.4 judge calls and ~7,870 prompt tokens per row, 53.6 s per row on this judge.

`--probe-overhead` times the same rows with the label-probability probe on and off (no
cache): probability mode costs no extra judge calls, only the probe's work in the decode.

    python benchmarks/bench_core.py [--judge llamacpp:qwen-coder-1.5b] [--rows N] [--determinism]
                                    [--probe-overhead] [--reasons all|failing|none] [--prefixes memory|disk]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ragmeter

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "examples" / "dataset.jsonl"
METRICS = ["context_precision", "context_precision_with_reference", "context_recall", "faithfulness",
           "response_relevancy", "context_relevance"]
RAGAS = {"calls_per_row": 10.4, "prompt_tokens_per_row": 7870, "seconds_per_row": 53.6}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=None, help="only the first N rows")
    parser.add_argument("--determinism", action="store_true", help="also re-run without cache and compare")
    parser.add_argument("--judge", default="llamacpp")
    parser.add_argument("--probe-overhead", action="store_true", help="only time the probe on and off")
    parser.add_argument("--reasons", choices=["all", "failing", "none"], default=None,
                        help="the in-process judge's reasons setting (default: the judge's own, failing)")
    parser.add_argument("--prefixes", choices=["memory", "disk"], default="memory",
                        help="memory (default): a cold start, every prompt prefix evaluated; disk: restored "
                             "where an earlier run saved it (the in-process default)")
    args = parser.parse_args()
    settings = {"reasons": args.reasons} if args.reasons else {}
    if args.judge.startswith("llamacpp"):
        settings["prefixes"] = args.prefixes
    if settings:
        args.judge = {"spec": args.judge, **settings}
    if args.probe_overhead:
        return report_probe_overhead(args.judge, args.rows or 5)
    with tempfile.TemporaryDirectory() as tmp:
        cache, out = Path(tmp) / "cache.sqlite", Path(tmp) / "out"
        start = time.perf_counter()
        first = ragmeter.evaluate(DATASET, METRICS, judge=args.judge, cache=cache, out=out, limit=args.rows,
                                  progress=False)
        print(f"first run: {time.perf_counter() - start:.1f} s end to end")
        report_first(first.manifest)
        report_cached(cache, out, args.rows, args.judge)
        if args.determinism:
            report_determinism(first, args.rows, args.judge)


def report_first(m: dict) -> None:
    rows = m["dataset"]["rows"]
    print(f"\nragmeter {m['ragmeter_version']} · {rows} rows · judge {m['judge']['name']} · cold cache\n")
    print(f"{'metric':34} {'calls/row':>9} {'prompt tok/row':>14} {'compl tok/row':>13} {'s/row':>7} {'unscored':>8}")
    totals = {"calls": 0, "prompt": 0, "completion": 0}
    for name, s in m["metrics"].items():
        totals["calls"] += s["judge_calls"]
        totals["prompt"] += s["prompt_tokens"]
        totals["completion"] += s["completion_tokens"]
        print(f"{name:34} {s['judge_calls'] / rows:9.2f} {s['prompt_tokens'] / rows:14.0f} "
              f"{s['completion_tokens'] / rows:13.0f} {s['seconds'] / rows:7.2f} {s['unscored'] / rows:8.0%}")
    per_row = m["wall_seconds"] / rows
    print(f"{'all six':34} {totals['calls'] / rows:9.2f} {totals['prompt'] / rows:14.0f} "
          f"{totals['completion'] / rows:13.0f} {per_row:7.2f}")
    print(f"\nwall {m['wall_seconds']:.1f} s; judge or embedder working {m['model_busy_seconds']:.1f} s "
          f"(judge {m['judge_seconds']:.1f} s, embeddings {m['embed_seconds']:.1f} s incl. model load, "
          f"judge model load {m['judge_load_seconds']:.1f} s)")
    print(f"ragmeter overhead: {m['overhead_seconds']:.3f} s = {100 * m['overhead_seconds'] / m['wall_seconds']:.2f}% "
          f"of wall (target < 2%)")
    print(f"vs Ragas 0.4.3 on the same judge: judge calls {totals['calls'] / rows / RAGAS['calls_per_row']:.2f}x, "
          f"prompt tokens {totals['prompt'] / rows / RAGAS['prompt_tokens_per_row']:.2f}x (target <= 0.5x), "
          f"seconds per row {per_row / RAGAS['seconds_per_row']:.2f}x (target <= 0.3x)")


def report_cached(cache: Path, out: Path, rows: int | None, judge: str | dict) -> None:
    start = time.perf_counter()
    again = ragmeter.evaluate(DATASET, METRICS, judge=judge, cache=cache, out=out, limit=rows, progress=False)
    inproc = time.perf_counter() - start
    calls = sum(s["judge_calls"] for s in again.manifest["metrics"].values())
    spec = judge["spec"] if isinstance(judge, dict) else judge
    settings = [f"--reasons={judge['reasons']}"] if isinstance(judge, dict) and "reasons" in judge else []
    cmd = [sys.executable, "-m", "ragmeter.cli", "evaluate", str(DATASET), "--judge", spec, *settings,
           "--out", str(out)]
    if rows:
        cmd += ["--limit", str(rows)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, env={**os.environ, "RAGMETER_CACHE": str(cache)}, capture_output=True, text=True)
    cli = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    print(f"\ncached re-run: {calls} judge calls; {inproc:.2f} s in-process, {cli:.2f} s as a new CLI process "
          f"(Python start-up and imports included; target < 1 s)")


def report_determinism(first, rows: int | None, judge: str) -> None:
    again = ragmeter.evaluate(DATASET, METRICS, judge=judge, cache=False, limit=rows, progress=False)
    same = sum(a[m] == b[m] for a, b in zip(first.rows, again.rows) for m in METRICS)
    total = len(first.rows) * len(METRICS)
    print(f"re-run without cache: {same} of {total} scores identical")


def report_probe_overhead(judge: str, rows: int) -> None:
    """Judge seconds with the probe off, then on, same rows, no cache (the model loads once first)."""
    from ragmeter.judges.llamacpp import judge as llamacpp

    real = llamacpp.label_fields
    seconds = {}
    ragmeter.evaluate(DATASET, ["context_relevance"], judge=judge, cache=False, limit=1, progress=False)  # warm-up
    for name, fields in (("off", lambda schema: {}), ("on", real)):
        llamacpp.label_fields = fields
        result = ragmeter.evaluate(DATASET, METRICS, judge=judge, cache=False, limit=rows, progress=False)
        m = result.manifest
        seconds[name] = m["judge_seconds"]
        calls = sum(s["judge_calls"] for s in m["metrics"].values())
        print(f"probe {name:3}: {calls} judge calls, judge {m['judge_seconds']:.1f} s, wall {m['wall_seconds']:.1f} s")
    llamacpp.label_fields = real
    print(f"probability mode costs {100 * (seconds['on'] / seconds['off'] - 1):+.1f}% judge time (target < 5%)")


if __name__ == "__main__":
    main()
