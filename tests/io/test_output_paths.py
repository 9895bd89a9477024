"""One rule for every file ragmeter writes (reports, CI summaries, JUnit, results, compare.json):
a regular file is replaced whole, a symlink is written through, a folder, FIFO or device is
refused and left alone, and a path that cannot be written is one line with exit 2."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from ragmeter.errors import ConfigError
from ragmeter.io.writers import atomic_write_bytes
from ragmeter.testing.runs import write_run
from tests.cli_runner import run_cli


def test_a_symlink_is_written_through_and_kept(tmp_path):
    (tmp_path / "real.md").write_text("old")
    (tmp_path / "link.md").symlink_to("real.md")
    atomic_write_bytes(tmp_path / "link.md", b"new")
    assert (tmp_path / "link.md").is_symlink() and (tmp_path / "real.md").read_text() == "new"
    (tmp_path / "dangling.md").symlink_to("made.md")
    atomic_write_bytes(tmp_path / "dangling.md", b"made")
    assert (tmp_path / "made.md").read_text() == "made" and (tmp_path / "dangling.md").is_symlink()


@pytest.mark.parametrize("make, message", [
    (lambda p: os.mkfifo(p), "it is not a regular file (a FIFO, device or socket), and ragmeter never replaces one"),
    (lambda p: p.mkdir(), "it is a folder; name a file"),
])
def test_a_fifo_or_folder_is_refused_and_left_alone(make, message, tmp_path):
    target = tmp_path / "out"
    make(target)
    with pytest.raises(ConfigError, match=re.escape(message)):
        atomic_write_bytes(target, b"x")
    assert not target.is_file() and os.path.exists(target)


def test_a_device_is_refused():
    with pytest.raises(ConfigError, match="not a regular file"):
        atomic_write_bytes(Path("/dev/null"), b"x")


@pytest.mark.parametrize("args", [
    ["report", "{run}", "--out", "{file}/report.html"],
    ["report", "{run}", "--out", "{folder}"],
    ["compare", "{run}", "{run2}", "--out", "{file}"],
    ["compare", "{run}", "{run2}", "--out", "{file}/cmp"],
])
def test_an_output_path_that_cannot_be_written_is_one_line_with_exit_2(args, tmp_path):
    run = write_run(tmp_path / "run", {"faithfulness": [1.0, 0.0, 1.0]})
    run2 = write_run(tmp_path / "run2", {"faithfulness": [1.0, 0.0, 1.0]})
    (tmp_path / "afile").write_text("keep me")
    (tmp_path / "afolder").mkdir()
    places = {"{run}": str(run), "{run2}": str(run2), "{file}": str(tmp_path / "afile"), "{folder}": str(tmp_path / "afolder")}
    filled = list(args)
    for key, value in places.items():
        filled = [a.replace(key, value) for a in filled]
    proc = run_cli(*filled)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("ragmeter: error: cannot ")
    assert (tmp_path / "afile").read_text() == "keep me"


def test_a_full_disk_is_one_error_and_leaves_no_partial_file(tmp_path):
    """Disk full while writing results: the close in clean-up failed too and hid the first
    error, and a hidden .results.*.partial file stayed (issue 37, item 15)."""
    import errno

    from ragmeter.errors import ServiceError
    from ragmeter.io.results_file import ResultsFile
    from ragmeter.metrics.base import Score

    class Full:
        closed = False

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

        def close(self):
            raise OSError(errno.ENOSPC, "No space left on device")

        def fileno(self):
            raise ValueError("closed")

    sink = ResultsFile(tmp_path, "jsonl", ["m"])
    real = sink.handle
    sink.handle = Full()
    with pytest.raises(ServiceError, match="No space left on device. Finished judge replies are in the cache"):
        sink.add("r1", {"id": "r1"}, {"m": Score(1.0, None)})
    sink.abort()  # raised OSError before
    real.close()
    assert list(tmp_path.glob(".results.*")) == []


def test_a_full_disk_under_the_cache_is_one_line_exit_3(tmp_path, monkeypatch):
    import sqlite3

    from ragmeter.cache import Cache
    from tests.cli_runner import run_cli

    def full(*args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Cache, "put", full)
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": "a", "user_input": "q?", "response": "a", "reference": "a"}\n')
    done = run_cli("evaluate", str(data), "--metrics", "rouge", "--out", str(tmp_path / "run"))
    assert done.returncode == 3 and "Traceback" not in done.stderr
    assert "the cache (database or disk is full): free space where it lives" in done.stderr
