"""The promise in the README: the same data and config, judged again with `--no-cache` by the
default bundled judge in a new process, gives a results file byte for byte the same (scores,
reasons and evidence)."""

from __future__ import annotations

import subprocess

import pytest

from tests.bundled import DATASET, METRICS, env_with_cache, ragmeter_cmd

pytestmark = pytest.mark.model


def _run(out, cache) -> bytes:
    cmd = ragmeter_cmd() + ["evaluate", str(DATASET), "--judge", "llamacpp", "--metrics", ",".join(METRICS),
                            "--limit", "2", "--no-cache", "--out", str(out)]
    done = subprocess.run(cmd, env=env_with_cache(cache), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return (out / "results.jsonl").read_bytes()


def test_two_no_cache_runs_write_byte_identical_results(tmp_path):
    first = _run(tmp_path / "a", tmp_path / "a.sqlite")
    second = _run(tmp_path / "b", tmp_path / "b.sqlite")
    assert first == second
    rows = first.decode().splitlines()
    assert len(rows) == 2
    # the promise covers judged scores with their evidence, not only rows left unscored
    assert all('"faithfulness_evidence":{' in row and '"response_relevancy":0.' in row for row in rows)
