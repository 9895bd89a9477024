"""Scale: ragmeter's own cost per row, several judge servers, Ray workers, the dry run.

1. Bookkeeping: the six core metrics over N rows with an instant in-process judge (replies
   shaped from each prompt's schema) and embedder, a real sqlite cache: rows/s, and peak
   memory (max RSS) at two sizes: bytes per row beyond the smaller.
2. Judge servers: stand-ins for vLLM on 127.0.0.1 (uvicorn + Starlette, each answering
   with a fixed latency, at most `--server-slots` requests at once, the rest queued), one
   spec listing 1, 2 and 4 of them, context_relevance at --concurrency 64: requests/s
   against the linear ideal.
3. Ray in local mode with 1 and 2 workers over the same stand-in servers: rows/s.
4. (--bundled) the dry run against the actual run on examples/dataset.jsonl with the
   bundled judge: calls, prompt tokens and seconds (needs `ragmeter bench-judge` first).

    python benchmarks/bench_scale.py [--rows 100000] [--small 20000] [--server-rows 400]
                                     [--latency 0.05] [--server-slots 4] [--skip-ray] [--bundled]
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

def bookkeeping(n: int, queue: mp.Queue) -> None:
    """The six core metrics over n rows, instant judge and embedder, a fresh sqlite cache."""

    from ragmeter.api import run_config
    from ragmeter.embeddings.base import Embedder
    from ragmeter.judges.base import JudgeReply
    from ragmeter.judges.scripted import ScriptedJudge
    from ragmeter.run.config import RunConfig
    from ragmeter.run.dry_run import synthesize

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

    data = rows(n)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = RunConfig(dataset="<in-memory>", output=str(Path(tmp) / "out"), cache=str(Path(tmp) / "c.sqlite"),
                        progress=False, concurrency=16)
        start, cpu = time.perf_counter(), time.process_time()
        result = asyncio.run(run_config(cfg, data=data, judge=ScriptedJudge(reply), embedder=Instant()))
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        calls = sum(m["judge_calls"] for m in result.manifest["metrics"].values())
        size = result.results_path.stat().st_size
    queue.put({"rows": n, "wall": wall, "cpu": cpu, "calls": calls, "results_bytes": size,
               "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss})


def run_bookkeeping(n: int) -> dict:
    """In a fresh process, so its peak memory (max RSS) is this run's alone."""
    ctx = mp.get_context("spawn")
    queue: mp.Queue = ctx.Queue()
    proc = ctx.Process(target=bookkeeping, args=(n, queue))
    proc.start()
    out = queue.get()
    proc.join()
    return out


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
    from ragmeter.api import run_config
    from ragmeter.run.config import RunConfig

    with tempfile.TemporaryDirectory() as tmp:
        cfg = RunConfig(dataset="<in-memory>", metrics=["context_relevance"], progress=False,
                        judge=f"openai-compat:{','.join(urls)}#m", cache=str(Path(tmp) / "c.sqlite"),
                        concurrency=concurrency, engine=engine or {})
        start = time.perf_counter()
        result = asyncio.run(run_config(cfg, data=rows(n), write=False))
        wall = time.perf_counter() - start
    calls = result.manifest["metrics"]["context_relevance"]["judge_calls"]
    return {"wall": wall, "calls": calls, "rps": calls / wall, "rows_per_s": n / wall,
            "servers": result.manifest["judge"].get("servers")}


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=20_000)
    parser.add_argument("--server-rows", type=int, default=400)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--server-slots", type=int, default=4)
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument("--skip-bookkeeping", action="store_true")
    parser.add_argument("--bundled", action="store_true")
    args = parser.parse_args()

    if not args.skip_bookkeeping:
        print("1. bookkeeping: six core metrics, instant judge and embedder, real sqlite cache")
        small, large = run_bookkeeping(args.small), run_bookkeeping(args.rows)
        for r in (small, large):
            print(f"  {r['rows']:>7,} rows: {r['rows'] / r['wall']:,.0f} rows/s ({r['calls'] / r['wall']:,.0f} judge "
                  f"calls/s), CPU {r['cpu']:.1f} s, max RSS {r['maxrss_kb'] / 1024:,.0f} MiB, "
                  f"results file {r['results_bytes'] / 2**20:,.0f} MiB")
        growth = (large["maxrss_kb"] - small["maxrss_kb"]) * 1024 / (large["rows"] - small["rows"])
        per_row_file = large["results_bytes"] / large["rows"]
        print(f"  memory per extra row: {growth:,.0f} bytes (the row's results take {per_row_file:,.0f} bytes "
              "on disk)")

    print(f"2. judge servers: latency {args.latency} s, {args.server_slots} requests at once each, "
          f"{args.server_rows} rows of context_relevance, --concurrency 64")
    procs, urls = start_servers(4, args.latency, args.server_slots)
    try:
        ideal = args.server_slots / args.latency
        base = None
        for count in (1, 2, 4):
            r = servers_run(urls[:count], args.server_rows, 64)
            base = base or r["rps"]
            print(f"  {count} server(s): {r['rps']:,.0f} requests/s ({r['rps'] / (ideal * count):.0%} of the "
                  f"servers' capacity, {r['rps'] / (base * count):.0%} of linear from one server); "
                  f"per server: {[s['requests'] for s in r['servers']] if r['servers'] else r['calls']}")
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
