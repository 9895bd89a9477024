"""The three YAML config files (run, test set, experiment) go through one reader: the same
one line for a broken file, whichever command reads it (two of them used to show a traceback)."""

from __future__ import annotations

import pytest

from tests.cli_runner import run_cli

COMMANDS = [("run", "{file}"), ("testset", "--config", "{file}"), ("experiment", "{file}")]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
@pytest.mark.parametrize("content, message", [
    (b"testset: [unclosed\n", "invalid YAML at line 2, column 1: expected ',' or ']', but got '<stream end>'"),
    (b"\xff\xfe not text", "not UTF-8 text"),
    (b"- a\n- list\n", "expected a mapping of keys"),
])
def test_a_broken_config_file_is_one_line_naming_it(command, content, message, tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_bytes(content)
    proc = run_cli(*[a.replace("{file}", str(path)) for a in command])
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(f"ragmeter: error: {path}: {message}")


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_missing_config_file_is_named(command, tmp_path):
    proc = run_cli(*[a.replace("{file}", str(tmp_path / "nope.yaml")) for a in command])
    assert proc.returncode == 2 and f"file not found: {tmp_path / 'nope.yaml'}" in proc.stderr
