"""Memory and time of reading a file of traces: examples/traces.otlp.json copied, each copy
a new trace id, to about --mb megabytes of OTLP JSON Lines; `ragmeter traces` on it in a
child process, whose peak resident memory is read back.

    python benchmarks/bench_traces.py [--mb 71]

Measured (2-core CPU, 71 MB, 799 traces): read whole, 481 MB peak and 1.9 s; read a line at
a time keeping only the attributes rows are made from, 125 MB and 0.9 s (issue 37).
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def make_file(path: Path, megabytes: float) -> int:
    lines = (ROOT / "examples" / "traces.otlp.json").read_text().splitlines()
    rng, size, copies = random.Random(0), 0, 0
    with path.open("w") as out:
        while size < megabytes * 2**20:
            trace = base64.b64encode(rng.randbytes(16)).decode()
            for line in lines:
                request = json.loads(line)
                for batch in request["resourceSpans"]:
                    for scope in batch["scopeSpans"]:
                        for span in scope["spans"]:
                            span["traceId"] = trace
                text = json.dumps(request)
                out.write(text + "\n")
                size += len(text) + 1
            copies += 1
    return copies


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=float, default=71.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        traces = Path(tmp) / "day.otlp.json"
        copies = make_file(traces, args.mb)
        started = time.perf_counter()
        command = [sys.executable, "-m", "ragmeter.cli", "traces", str(traces), "--out", str(Path(tmp) / "r.jsonl")]
        subprocess.run(command, check=True, capture_output=True)
        seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"{traces.name}: {args.mb:.0f} MB, {copies} traces; `ragmeter traces` peak {peak:.0f} MB, {seconds:.1f} s")


if __name__ == "__main__":
    main()
