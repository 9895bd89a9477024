"""examples/ci/test_rag_quality.py through the pytest plugin with the default bundled judge:
it passes, and a re-run with the same cache makes no judge call."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.bundled import ROOT

pytestmark = pytest.mark.model


def run_example(cache) -> subprocess.CompletedProcess:
    env = {**os.environ, "RAGMETER_CACHE": str(cache)}
    env.pop("RAGMETER_JUDGE", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(ROOT / "examples" / "ci")], capture_output=True, text=True, env=env, timeout=600)


def test_example_ci_tests_pass_and_rerun_from_cache(tmp_path):
    first = run_example(tmp_path / "c.sqlite")
    assert first.returncode == 0, first.stdout[-3000:]
    calls = re.search(r"ragmeter: 3 evaluation\(s\), (\d+) judge call\(s\), (\d+) cache hit\(s\)", first.stdout)
    assert calls and (int(calls[1]), int(calls[2])) == (6, 4), first.stdout[-500:]  # 4 rows shared by two tests
    second = run_example(tmp_path / "c.sqlite")
    assert second.returncode == 0 and "3 passed" in second.stdout
    assert "ragmeter: 3 evaluation(s), 0 judge call(s), 10 cache hit(s)" in second.stdout
