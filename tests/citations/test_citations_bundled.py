"""The citation family on the real bundled model: the four judged metrics over
examples/pleias_sample.parquet, and `ragmeter generate` (special tokens) resuming."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.bundled import GEMMA, ROOT, env_with_cache, ragmeter_cmd

pytestmark = pytest.mark.model
SAMPLE = ROOT / "examples" / "pleias_sample.parquet"
JUDGED = ["query_adherence", "grounded_statement", "language_quality", "reasoning_quality"]


def test_judged_citation_metrics_on_the_bundled_model(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(ragmeter_cmd() + ["evaluate", str(SAMPLE), "--judge", GEMMA, "--out", str(out)],
                          env=env_with_cache(tmp_path / "c.sqlite"), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "RAG Index" in done.stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert list(manifest["metrics"])[4:] == JUDGED  # the citation family is the default for this file
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    for metric in JUDGED:
        stats = manifest["metrics"][metric]
        assert stats["unparseable"] == 0, metric  # labels come from a fixed set under the grammar
        for r in rows:
            value, reason = r[metric], r[f"{metric}_reason"]
            assert value in (0.0, 1.0) or (metric == "grounded_statement" and value is not None and 0 <= value <= 1) \
                or (value is None and reason), (r["id"], metric, value, reason)
    # p05 cites nothing: grounded_statement says so instead of scoring
    p05 = next(r for r in rows if r["id"] == "p05")
    assert p05["grounded_statement"] is None and p05["grounded_statement_reason"].startswith("the answer cites no")
    assert manifest["metrics"]["grounded_statement"]["n"] == 4
    # 5 rows: the index has a value and no interval (fewer than 10 rows), and the summary says so
    assert manifest["rag_index"]["value"] is not None and manifest["rag_index"]["ci95"] is None
    assert "(95% CI n<10)" in done.stdout


def test_generate_with_the_bundled_model_writes_and_resumes(tmp_path):
    cache, out = tmp_path / "c.sqlite", tmp_path / "gen"
    cmd = ragmeter_cmd() + ["generate", "--input", str(SAMPLE), "--model", GEMMA, "--format", "special-tokens", "--rows", "2",
                            "--max-tokens", "48", "--out", str(out), "--overwrite"]  # the sample has answers
    first = subprocess.run(cmd, env=env_with_cache(cache), capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr
    assert "2 rows: 2 generated" in first.stdout
    import pyarrow.parquet as pq

    rows = pq.read_table(out / "generations.parquet").to_pylist()
    assert [r["id"] for r in rows] == ["p01", "p02"]
    assert all(r["generated_response"].startswith("<|analysis_start|>") and len(r["generated_response"]) > 20
               for r in rows)
    assert "=== row 2" in (out / "samples.txt").read_text()
    again = subprocess.run(cmd, env=env_with_cache(cache), capture_output=True, text=True, timeout=600)
    assert "2 rows: 0 generated" in again.stdout and "2 from cache" in again.stdout
    assert pq.read_table(out / "generations.parquet").to_pylist() == rows
