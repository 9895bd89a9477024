"""Scale: ragmeter's own cost per row, several judge servers, Ray workers, the dry run.

1. Bookkeeping: rows streamed from a JSONL file to a results file with an instant
   in-process judge (replies shaped from each prompt's schema) and embedder, a real sqlite
   cache, each size in a fresh process: (a) memory: faithfulness + three lexical metrics at
   several sizes, peak memory (max RSS) and the bytes per row it grows by; (b) speed: the six
   core metrics, rows/s.
2. Judge servers: stand-ins for vLLM on 127.0.0.1 (uvicorn + Starlette, each answering
   with a fixed latency, at most `--server-slots` requests at once, the rest queued), one
   spec listing 1, 2 and 4 of them, context_relevance at --concurrency 64: requests/s
   against the linear ideal, and ragmeter's CPU per 1,000 calls. `--latency 0 --server-slots 64`:
   servers that answer at once, so whichever side is slower sets the rate; ragmeter's CPU share
   of the wall time says which.
3. Ray in local mode with 1 and 2 workers over the same stand-in servers: rows/s.
4. (--bundled) the dry run against the actual run on examples/dataset.jsonl with the
   bundled judge: calls, prompt tokens and seconds (needs `ragmeter bench-judge` first).

    python benchmarks/bench_scale.py [--rows 100000] [--memory-rows 10000,100000,1000000] [--server-rows 400]
                                     [--latency 0.05] [--server-slots 4] [--skip-ray] [--bundled]
                                     [--only-bookkeeping] [--ray-rows 10000,100000,1000000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import resource
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = textwrap.dedent('''
    import asyncio, hashlib, json, sys
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    latency, slots = float(sys.argv[2]), asyncio.Semaphore(int(sys.argv[3]))

    async def models(request):
        return JSONResponse({"data": [{"id": "m"}]})

    async def chat(request):
        body = await request.body()
        async with slots:
            await asyncio.sleep(latency)
        rating = hashlib.sha256(body).digest()[0] % 3
        return JSONResponse({"choices": [{"message": {"content": json.dumps({"rating": rating})},
                                          "finish_reason": "stop"}],
                             "usage": {"prompt_tokens": 100, "completion_tokens": 5}})

    app = Starlette(routes=[Route("/v1/models", models), Route("/v1/chat/completions", chat, methods=["POST"])])
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="error")
''')


def rows(n: int, seed: int = 3) -> list[dict]:
    rng = random.Random(seed)
    words = ["paris", "france", "capital", "river", "seine", "tower", "museum", "louvre", "city", "europe", "art",
             "history"]
    return [{"id": f"r{i}", "user_input": f"Which river runs through city {i}?",
             "response": " ".join(rng.choice(words) for _ in range(12)) + ". It is old.",
             "reference": " ".join(rng.choice(words) for _ in range(12)) + ".",
             "retrieved_contexts": [" ".join(rng.choice(words) for _ in range(40)) for _ in range(2)]}
            for i in range(n)]


# -- 1. bookkeeping ---------------------------------------------------------------------

#: the memory check's metrics (issue 24): one judged metric and three lexical ones
MEMORY_METRICS = ["faithfulness", "exact_match", "rouge", "bleu"]


def write_rows(path: Path, n: int) -> Path:
    """n synthetic rows as JSON Lines, made 10,000 at a time (the bench holds no more)."""
    with path.open("w", encoding="utf-8") as handle:
        for start in range(0, n, 10_000):
            for row in rows(min(10_000, n - start), seed=start):
                row["id"] = f"r{start}-{row['id']}"
                handle.write(json.dumps(row) + "\n")
    return path


def bookkeeping(n: int, metrics: list[str] | None, queue: mp.Queue) -> None:
    """`metrics` (None: the six core ones) over n rows streamed from a JSONL file to a results
    file, instant judge and embedder, a fresh sqlite cache."""

    from ragmeter.embeddings.base import Embedder
    from ragmeter.judges.base import JudgeReply
    from ragmeter.judges.scripted import ScriptedJudge
    from ragmeter.run.config import RunConfig
    from ragmeter.run.dry_run import synthesize
    from ragmeter.run.execute import run_config

    class Instant(Embedder):
        name = "instant"

        async def embed(self, texts: list[str]) -> list[list[float]]:
            return [[float(len(t) % 7), 1.0, 0.5] for t in texts]

    replies: dict[int, str] = {}

    def reply(request):  # one reply per output schema, made once: the judge costs ~nothing
        text = replies.get(id(request.schema))
        if text is None:
            text = replies[id(request.schema)] = json.dumps(synthesize(request.schema or {}))
        return JudgeReply(text, prompt_tokens=100, completion_tokens=5)

    with tempfile.TemporaryDirectory() as tmp:
        data = write_rows(Path(tmp) / "rows.jsonl", n)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        cfg = RunConfig(dataset=str(data), metrics=metrics, output=str(Path(tmp) / "out"),
                        cache=str(Path(tmp) / "c.sqlite"), progress=False, concurrency=16)
        start, cpu = time.perf_counter(), time.process_time()
        result = asyncio.run(run_config(cfg, judge=ScriptedJudge(reply, record=False), embedder=Instant()))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        calls = sum(m["judge_calls"] for m in result.manifest["metrics"].values())
        size = result.results_path.stat().st_size
    queue.put({"rows": n, "wall": wall, "cpu": cpu, "calls": calls, "results_bytes": size, "before_kb": before,
               "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss})


def run_bookkeeping(n: int, metrics: list[str] | None = None) -> dict:
    """In a fresh process, so its peak memory (max RSS) is this run's alone."""
    ctx = mp.get_context("spawn")
    queue: mp.Queue = ctx.Queue()
    proc = ctx.Process(target=bookkeeping, args=(n, metrics, queue))
    proc.start()
    out = queue.get()
    proc.join()
    return out


def extrapolate(r: dict, replica_calls_per_s: float) -> None:
    """What a measured run supports for a million rows in an hour (arithmetic, not measured)."""
    calls_per_row = r["calls"] / r["rows"]
    own = r["rows"] / r["cpu"]  # rows per CPU-second of ragmeter's own work
    needed = 1_000_000 / 3600
    replicas = needed * calls_per_row / replica_calls_per_s
    print(f"  extrapolated: {calls_per_row:.1f} judge calls a row; ragmeter's own work is {1000 / own:.2f} ms CPU a "
          f"row, so one process drives at most {own:,.0f} rows/s. A million rows in an hour is {needed:,.0f} "
          f"rows/s: {replicas:,.1f} judge replicas answering {replica_calls_per_s:g} calls/s each, and "
          f"{needed / own:.2f} of a ragmeter process (one process per ~{own:,.0f} rows/s; more with --shard)")


def print_bookkeeping(results: list[dict]) -> None:
    for r in results:
        print(f"  {r['rows']:>9,} rows: {r['rows'] / r['wall']:,.0f} rows/s ({r['calls'] / r['wall']:,.0f} judge "
              f"calls/s), CPU {r['cpu']:.1f} s, max RSS {r['maxrss_kb'] / 1024:,.0f} MiB, "
              f"results file {r['results_bytes'] / 2**20:,.0f} MiB")
    for small, large in zip(results, results[1:]):
        growth = (large["maxrss_kb"] - small["maxrss_kb"]) * 1024 / (large["rows"] - small["rows"])
        print(f"  memory per row from {small['rows']:,} to {large['rows']:,} rows: {growth:,.1f} bytes "
              f"(a row's results take {large['results_bytes'] / large['rows']:,.0f} bytes on disk)")


# -- 2. several judge servers -------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_servers(count: int, latency: float, slots: int) -> tuple[list[subprocess.Popen], list[str]]:
    procs, urls = [], []
    for _ in range(count):
        port = free_port()
        procs.append(subprocess.Popen([sys.executable, "-c", SERVER, str(port), str(latency), str(slots)]))
        urls.append(f"http://127.0.0.1:{port}/v1")
    import httpx

    for url in urls:
        for _ in range(200):
            try:
                httpx.get(f"{url}/models", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.05)
    return procs, urls


def servers_run(urls: list[str], n: int, concurrency: int, engine: dict | None = None) -> dict:
    from ragmeter.run.config import RunConfig
    from ragmeter.run.execute import run_config

    with tempfile.TemporaryDirectory() as tmp:
        cfg = RunConfig(dataset="<in-memory>", metrics=["context_relevance"], progress=False,
                        judge=f"openai-compat:{','.join(urls)}#m", cache=str(Path(tmp) / "c.sqlite"),
                        concurrency=concurrency, engine=engine or {})
        start, cpu = time.perf_counter(), time.process_time()
        result = asyncio.run(run_config(cfg, data=rows(n), write=False))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    calls = result.manifest["metrics"]["context_relevance"]["judge_calls"]
    return {"wall": wall, "calls": calls, "rps": calls / wall, "rows_per_s": n / wall, "cpu": cpu,
            "servers": result.manifest["judge"].get("servers")}


def ray_streamed(urls: list[str], n: int, workers: int, queue: mp.Queue) -> None:
    """n rows streamed from a JSONL file through Ray (local mode) to a results file, in a
    fresh process, so its max RSS is the driver's own."""
    from ragmeter.run.config import RunConfig
    from ragmeter.run.execute import run_config

    with tempfile.TemporaryDirectory() as tmp:
        data = write_rows(Path(tmp) / "rows.jsonl", n)
        cfg = RunConfig(dataset=str(data), metrics=["context_relevance"], progress=False, output=str(Path(tmp) / "out"),
                        judge=f"openai-compat:{','.join(urls)}#m", cache=str(Path(tmp) / "c.sqlite"), concurrency=32,
                        engine={"kind": "ray", "address": "local", "workers": workers})
        start = time.perf_counter()
        result = asyncio.run(run_config(cfg))
        wall = time.perf_counter() - start
        size = result.results_path.stat().st_size
    queue.put({"rows": n, "wall": wall, "results_bytes": size,
               "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss})


def run_ray_streamed(urls: list[str], n: int, workers: int) -> dict:
    ctx = mp.get_context("spawn")
    queue: mp.Queue = ctx.Queue()
    proc = ctx.Process(target=ray_streamed, args=(urls, n, workers, queue))
    proc.start()
    out = queue.get()
    proc.join()
    return out


# -- 4. the dry run against the actual run, bundled judge -----------------------------------

def bundled_dry_run_check() -> None:
    env = {**os.environ, "RAGMETER_CACHE": tempfile.mktemp(suffix=".sqlite")}
    data = str(ROOT / "examples" / "dataset.jsonl")
    ragmeter = [sys.executable, "-m", "ragmeter.cli"]
    subprocess.run([*ragmeter, "evaluate", data, "--dry-run"], env=env, check=True)
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([*ragmeter, "evaluate", data, "--out", out, "-v"], env=env, check=True)
        estimate = json.loads((Path(out) / "manifest.json").read_text())["estimate"]
    actual = estimate["actual"]
    print(f"  calls: estimated {estimate['total']['calls']}, actual {sum(a['calls'] for a in actual.values())}")
    print(f"  prompt tokens: estimated {estimate['total']['prompt_tokens']:,}, "
          f"actual {sum(a['prompt_tokens'] for a in actual.values()):,}")
    seconds = estimate["total"]["seconds"]
    print(f"  seconds: estimated {'-' if seconds is None else f'{seconds:.1f}'} (run `ragmeter bench-judge` first), "
          f"actual wall {estimate['actual_wall_seconds']:.1f}")


def ray_memory(sizes: list[int]) -> None:
    """3b. The Ray driver streams: context_relevance over rows read from a file, 2 workers, 4
    stand-in servers answering at once (0 latency, 64 slots), results written to a file."""
    print("3b. Ray (local mode, 2 workers) streamed from a JSONL file to results.jsonl, context_relevance, 4 "
          "stand-in servers without latency")
    procs, urls = start_servers(4, 0.0, 64)
    try:
        found = [run_ray_streamed(urls, n, 2) for n in sizes]
    finally:
        for p in procs:
            p.terminate()
    for r in found:
        print(f"  {r['rows']:>9,} rows: {r['rows'] / r['wall']:,.0f} rows/s (Ray start included), driver max RSS "
              f"{r['maxrss_kb'] / 1024:,.0f} MiB, results file {r['results_bytes'] / 2**20:,.0f} MiB")
    for small, large in zip(found, found[1:]):
        growth = (large["maxrss_kb"] - small["maxrss_kb"]) * 1024 / (large["rows"] - small["rows"])
        print(f"  driver memory per row from {small['rows']:,} to {large['rows']:,} rows: {growth:,.1f} bytes")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--memory-rows", default="10000,100000",
                        help="row counts for the memory check, comma-separated (issue 24: 10000,100000,1000000)")
    parser.add_argument("--only-bookkeeping", action="store_true")
    parser.add_argument("--replica-calls-per-s", type=float, default=50.0,
                        help="a judge replica's answers per second, for the million-row extrapolation")
    parser.add_argument("--server-rows", type=int, default=400)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--server-slots", type=int, default=4)
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument("--skip-bookkeeping", action="store_true")
    parser.add_argument("--bundled", action="store_true")
    parser.add_argument("--ray-rows", default="",
                        help="row counts for a Ray run streamed from a file (local mode, 2 workers, fast stand-in "
                             "servers), comma-separated: the driver's max RSS at each")
    args = parser.parse_args()

    if args.ray_rows:
        ray_memory([int(x) for x in args.ray_rows.split(",") if x])
        return

    if not args.skip_bookkeeping:
        sizes = [int(x) for x in args.memory_rows.split(",") if x]
        if sizes:
            print(f"1a. memory: {' + '.join(MEMORY_METRICS)} streamed from a JSONL file to results.jsonl, "
                  "instant judge, real sqlite cache")
            memory = [run_bookkeeping(n, MEMORY_METRICS) for n in sizes]
            print_bookkeeping(memory)
            extrapolate(memory[-1], args.replica_calls_per_s)
        print("1b. speed: the six core metrics, the same way")
        speed = run_bookkeeping(args.rows)
        print_bookkeeping([speed])
        extrapolate(speed, args.replica_calls_per_s)
        if args.only_bookkeeping:
            return

    print(f"2. judge servers: latency {args.latency} s, {args.server_slots} requests at once each, "
          f"{args.server_rows} rows of context_relevance, --concurrency 64")
    procs, urls = start_servers(4, args.latency, args.server_slots)
    try:
        servers_run(urls[:1], 20, 64)  # the lazy imports (numpy, pyarrow, aiohttp) out of the figures
        base = None
        for count in (1, 2, 4):
            r = servers_run(urls[:count], args.server_rows, 64)
            base = base or r["rps"]
            capacity = (f"{r['rps'] / (args.server_slots / args.latency * count):.0%} of the servers' capacity, "
                        if args.latency else "")
            print(f"  {count} server(s): {r['rps']:,.0f} requests/s ({capacity}{r['rps'] / (base * count):.0%} of "
                  f"linear from one server); per server: "
                  f"{[s['requests'] for s in r['servers']] if r['servers'] else r['calls']}; ragmeter's CPU "
                  f"{1000 * r['cpu'] / r['calls']:.2f} s per 1,000 calls, busy {r['cpu'] / r['wall']:.0%} of the "
                  "wall time (near 100%: ragmeter, not the servers, is what bounds the rate)")
        if not args.skip_ray:
            print("3. Ray in local mode over the 4 servers (this machine has "
                  f"{os.cpu_count()} cores)")
            for workers in (1, 2):
                r = servers_run(urls, args.server_rows, 32,
                                {"kind": "ray", "address": "local", "workers": workers})
                print(f"  {workers} worker(s): {r['rows_per_s']:,.1f} rows/s, {r['rps']:,.0f} requests/s, "
                      f"wall {r['wall']:.1f} s (Ray start included)")
    finally:
        for p in procs:
            p.terminate()
    if args.bundled:
        print("4. dry run against the actual run, bundled judge, examples/dataset.jsonl")
        bundled_dry_run_check()


if __name__ == "__main__":
    main()
