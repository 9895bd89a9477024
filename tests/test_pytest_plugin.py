"""The pytest plugin's fixture and failure message, on a scripted OpenAI-compatible server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

from tests.cli.test_cli_config import fake_server  # noqa: F401  (fixture)

TEST_FILE = textwrap.dedent('''
    ROWS = [{"id": f"r{i}", "user_input": "q?", "retrieved_contexts": [f"c{i}"], "response": "a", "reference": "b"}
            for i in range(3)]

    def test_relevance(ragmeter_eval):  # judge: --ragmeter-judge
        result = ragmeter_eval(ROWS, metrics=["context_relevance"])
        assert result.passes(context_relevance=0.9)

    def test_too_high_a_bar(ragmeter_eval):
        result = ragmeter_eval(ROWS, metrics=["exact_match"])
        assert result.passes(exact_match=0.5)
''')


def summary(stdout: str) -> tuple[int, int, int]:
    found = re.search(r"ragmeter: (\d+) evaluation\(s\), (\d+) judge call\(s\), (\d+) cache hit\(s\)", stdout)
    assert found, stdout[-2000:]
    return int(found[1]), int(found[2]), int(found[3])


def test_fixture_judge_option_cache_and_failure_message(tmp_path, fake_server):  # noqa: F811
    (tmp_path / "test_quality.py").write_text(TEST_FILE)
    env = {**os.environ, "RAGMETER_CACHE": str(tmp_path / "c.sqlite")}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path),
               "--ragmeter-judge", f"openai-compat:{fake_server}#m"]
    proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert proc.returncode == 1 and "1 failed, 1 passed" in proc.stdout, proc.stdout[-2000:]
    assert ("gates failed: exact_match: mean 0.0000 not >= 0.5 (n=3) -- worst rows: r0 0.000: different || "
            "r1 0.000") in proc.stdout
    assert summary(proc.stdout) == (2, 6, 0)  # context_relevance: two ratings per row
    again = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert summary(again.stdout) == (2, 0, 6)
