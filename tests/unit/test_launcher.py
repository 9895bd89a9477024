"""examples/launcher.sh runs as plain bash outside SLURM, with a node-local cache that is
saved beside the project when the job ends."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.conftest import EXAMPLES


def test_launcher_runs_outside_slurm_and_keeps_its_cache(tmp_path: Path):
    (tmp_path / "d.jsonl").write_text(json.dumps({"id": "a", "response": "Paris.", "reference": "Paris."}) + "\n")
    (tmp_path / "eval.yaml").write_text("dataset: d.jsonl\noutput: out/\nmetrics: [exact_match]\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "RAGMETER_"))}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["TMPDIR"] = str(tmp_path / "node-local")
    (tmp_path / "node-local").mkdir()
    for _ in range(2):  # the second run is the same run: it replaces its own results
        proc = subprocess.run(["bash", str(EXAMPLES / "launcher.sh"), "eval.yaml"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert rows[0]["exact_match"] == 1.0
    cache = tmp_path / ".ragmeter-cache" / "eval.sqlite"
    assert cache.is_file() and sqlite3.connect(cache).execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert list((tmp_path / "node-local").iterdir()) == []  # the node-local copy is cleaned up
