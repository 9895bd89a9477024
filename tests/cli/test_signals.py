"""Ctrl-C and SIGTERM (what SLURM, Kubernetes and CI send on cancel) stop a run the same way:
one line at once, the cache flushed, no temporary results file left, exit 130 or 143."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.http_fakes import JSONHandler, serving

ANSWERED = 3  # requests the fake judge answers before it holds the next one


class _Judge(JSONHandler):
    """Answers ANSWERED chat completions with {"rating": 2}, then holds every later request
    until the test ends (a judge busy with a long call when the signal comes)."""

    seen = 0
    lock = threading.Condition()
    release = threading.Event()

    def do_GET(self):  # /v1/models
        self._send({"data": [{"id": "m"}]})

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        with _Judge.lock:
            _Judge.seen += 1
            mine = _Judge.seen
            _Judge.lock.notify_all()
        if mine > ANSWERED:
            _Judge.release.wait(60)
        self._send({"choices": [{"message": {"content": json.dumps({"rating": 2})}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 3}})


def _as_on_a_terminal() -> None:
    """SIGINT and SIGHUP at their defaults in the child, as on a terminal: under `nohup` (or in a
    background job) they arrive ignored, and ragmeter rightly keeps an ignored signal ignored."""
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


@pytest.fixture
def held_judge():
    _Judge.seen = 0
    _Judge.release.clear()
    with serving(_Judge) as url:
        yield f"openai-compat:{url}/v1#m"
        _Judge.release.set()


def _cached(cache: Path) -> int:
    with sqlite3.connect(cache) as db:
        return db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]


@pytest.mark.parametrize("signum, code, name", [(signal.SIGTERM, 143, "SIGTERM"), (signal.SIGINT, 130, "Ctrl-C"),
                                               (signal.SIGHUP, 129, "SIGHUP"), (signal.SIGUSR1, 138, "SIGUSR1"),
                                               (signal.SIGQUIT, 131, "SIGQUIT")])
def test_a_signal_mid_run_flushes_the_cache_cleans_up_and_says_one_line(tmp_path, held_judge, signum, code, name):
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": str(i), "question": f"q{i}?", "contexts": [f"c{i}"], "answer": "a"})
                            + "\n" for i in range(10)))
    cache, out = tmp_path / "c.sqlite", tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "ragmeter.cli", "evaluate", str(data), "--metrics",
                             "context_relevance", "--judge", held_judge, "--concurrency", "1", "--out", str(out),
                             ], env={"RAGMETER_CACHE": str(cache), "PATH": "/usr/bin:/bin", "RAGMETER_PROGRESS_SECONDS": "3600"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_as_on_a_terminal)
    try:
        with _Judge.lock:  # the answered replies are in the process, the next call is in flight
            assert _Judge.lock.wait_for(lambda: _Judge.seen > ANSWERED, timeout=60)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == code, err
    assert err.splitlines() == [f"ragmeter: stopping on {name}; finished judge replies are cached, run again to resume"]
    assert _cached(cache) == ANSWERED  # the replies held for the timed flush were written, none lost
    assert sorted(p.name for p in out.iterdir()) == []  # no .results.PID.*.jsonl.partial, no results file


def test_the_process_stop_halts_an_in_process_model_between_prompt_batches():
    """judges.base.STOPPING set by the handler stops llama.cpp's prompt evaluation at the next
    batch of n_batch tokens (a long prompt is many seconds of them)."""
    from ragmeter.errors import JudgeError
    from ragmeter.judges.base import STOPPING, Halt
    from ragmeter.judges.llamacpp.prompt import eval_halting

    class Model:
        n_batch = 4
        evaluated: list[list[int]] = []

        def eval(self, tokens):
            self.evaluated.append(tokens)
            if len(self.evaluated) == 2:
                STOPPING.set()

    model, halt = Model(), Halt()
    try:
        with pytest.raises(JudgeError, match="stopped"):
            eval_halting(model, list(range(20)), halt)  # type: ignore[arg-type]
    finally:
        STOPPING.clear()
    assert model.evaluated == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert not halt.is_set()
    halt.set()
    assert halt.is_set()


def test_a_second_signal_while_the_process_ends_still_says_still_stopping(monkeypatch, capsys):
    """Issue 77 item 10: a second SIGTERM 0.3 s after the first killed the process by the signal,
    with no "still stopping" line: the entry point put Python's default handlers back as the
    command returned, before the interpreter's own clean-up (threads joined) was done. Once a
    stop began, the handlers stay until the process ends."""
    import importlib
    import os

    from ragmeter.cli import signals
    from ragmeter.judges.base import STOPPING

    app = importlib.import_module("ragmeter.cli.app")  # the module: `ragmeter.cli.app` is also the Typer app

    def stopped_command() -> None:
        try:
            os.kill(os.getpid(), signal.SIGTERM)  # the handler runs as os.kill returns: KeyboardInterrupt
        except KeyboardInterrupt:
            app._interrupted()

    originals = {signum: signal.getsignal(signum) for signum in signals.EXIT_CODES}
    monkeypatch.setattr(app, "_main", stopped_command)
    monkeypatch.setattr(sys, "argv", ["ragmeter", "evaluate"])
    try:
        with pytest.raises(SystemExit) as stop:
            app.main()
        handler = signal.getsignal(signal.SIGTERM)
        assert stop.value.code == 143 and handler is not signal.SIG_DFL and callable(handler)
        handler(signal.SIGTERM, None)  # what a second SIGTERM now runs, instead of dying of it
    finally:
        for signum, previous in originals.items():
            signal.signal(signum, previous)
        STOPPING.clear()
    assert capsys.readouterr().err.splitlines() == [
        "ragmeter: stopping on SIGTERM; finished judge replies are cached, run again to resume",
        "ragmeter: still stopping (closing the judge, writing the cache); once more to stop at once"]
