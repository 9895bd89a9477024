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


def test_array_tasks_score_their_shard_with_their_own_cache_and_merge(tmp_path: Path):
    rows = [{"id": f"r{i}", "response": "Paris." if i % 2 else "Lyon.", "reference": "Paris."} for i in range(12)]
    (tmp_path / "d.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "eval.yaml").write_text("dataset: d.jsonl\noutput: out/\nmetrics: [exact_match]\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "RAGMETER_"))}
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}", RAGMETER_SHARDS="2",
               RAGMETER_SHARD_OUT="shards", TMPDIR=str(tmp_path))
    for task in ("0", "1"):  # what `sbatch --array=0-1` runs, one task each
        proc = subprocess.run(["bash", str(EXAMPLES / "launcher.sh"), "eval.yaml"], cwd=tmp_path,
                              env={**env, "SLURM_ARRAY_TASK_ID": task}, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / ".ragmeter-cache").iterdir()) == ["eval-shard0.sqlite",
                                                                               "eval-shard1.sqlite"]
    proc = subprocess.run([sys.executable, "-m", "ragmeter.cli", "merge", "shards/shard-0", "shards/shard-1",
                           "--out", "merged"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    merged = json.loads((tmp_path / "merged" / "manifest.json").read_text())
    assert merged["metrics"]["exact_match"]["mean"] == 0.5 and merged["metrics"]["exact_match"]["n"] == 12
    ids = [json.loads(line)["id"] for line in (tmp_path / "merged" / "results.jsonl").read_text().splitlines()]
    assert ids == [r["id"] for r in rows]
