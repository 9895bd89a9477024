"""compare and report on large synthetic runs: seconds and peak memory (targets at 100,000
rows: compare under 5 s, report under 10 s, and a page a browser opens).

Each step runs in its own process, so its peak resident memory is its own.

    python benchmarks/bench_compare.py [--rows 100000] [--metrics 3] [--browser]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def make_runs(folder: Path, rows: int, metrics: int) -> tuple[Path, Path]:
    from ragmeter.testing.runs import write_run

    rng = random.Random(0)
    names = ["faithfulness", "context_recall", "answer_relevancy", "context_precision"][:metrics]
    a = {m: [round(rng.random(), 4) if rng.random() > 0.02 else None for _ in range(rows)] for m in names}
    b = {m: [None if v is None else round(min(1.0, max(0.0, v + rng.gauss(0.01, 0.1))), 4) for v in a[m]]
         for m in names}
    return write_run(folder / "a", a), write_run(folder / "b", b)


def step(name: str, a: str, b: str, out: str) -> None:
    started = time.perf_counter()
    if name == "compare":
        from ragmeter.results.compare import compare, write_comparison

        write_comparison(compare(a, b), out)
    else:
        from ragmeter.report import write_report

        write_report(a, b, Path(out) / "report.html")
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"step": name, "seconds": round(seconds, 2), "peak_mb": round(peak_mb)}))


def open_in_browser(page: Path) -> float:
    """Seconds until the report's first page of rows is drawn in headless Chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        tab = browser.new_page()
        started = time.perf_counter()
        tab.goto(page.as_uri())
        tab.wait_for_selector("#row-table tbody tr")
        seconds = time.perf_counter() - started
        assert tab.locator("#row-table tbody tr").count() == 50
        browser.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--metrics", type=int, default=3)
    parser.add_argument("--browser", action="store_true", help="also time opening the page in Chromium")
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("--a", help=argparse.SUPPRESS)
    parser.add_argument("--b", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        step(args.step, args.a, args.b, args.out)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        a, b = make_runs(folder, args.rows, args.metrics)
        size = (a / "results.jsonl").stat().st_size / 1e6
        print(f"{args.rows} rows x {args.metrics} metrics per run ({size:.0f} MB of results each), "
              f"made in {time.perf_counter() - started:.1f} s")
        for name in ("compare", "report"):
            proc = subprocess.run([sys.executable, __file__, "--step", name, "--a", str(a), "--b", str(b),
                                   "--out", str(folder / "out")], capture_output=True, text=True, check=True)
            figures = json.loads(proc.stdout.strip().splitlines()[-1])
            target = 5 if name == "compare" else 10
            print(f"{name:<8} {figures['seconds']:6.2f} s (target < {target} s)  peak memory {figures['peak_mb']} MB")
        page = folder / "out" / "report.html"
        print(f"report.html {page.stat().st_size / 1e6:.1f} MB")
        if args.browser:
            print(f"first page of rows drawn in Chromium after {open_in_browser(page):.2f} s")


if __name__ == "__main__":
    main()
