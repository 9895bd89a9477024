"""Row progress: a bar with rows done, rate and ETA on a terminal; off a terminal (SLURM,
CI, nohup) a plain line on stderr every `RAGMETER_PROGRESS_SECONDS` (30 by default);
nothing when progress is off."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from ragmeter.text import duration


class _Silent:
    def advance(self, amount: float = 1.0) -> None:
        return None


class _Lines:
    """A line every `every` seconds from a daemon thread, so a slow row still shows life."""

    def __init__(self, total: int, every: float, stream: TextIO) -> None:
        self.total, self.every, self.stream = total, every, stream
        self.done = 0.0
        self.start = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def advance(self, amount: float = 1.0) -> None:
        self.done += amount  # shares of a row as its metrics finish

    def line(self) -> str:
        elapsed = time.monotonic() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = f"ETA {duration((self.total - self.done) / rate)}" if rate > 0 else "ETA unknown (nothing done yet)"
        return (f"ragmeter: {int(self.done + 1e-9)}/{self.total} rows · {rate:.2f} rows/s · "
                f"elapsed {duration(elapsed)} · {eta}")

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            print(self.line(), file=self.stream, flush=True)

    def __enter__(self) -> _Lines:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()


@contextmanager
def row_progress(total: int, enabled: bool | None = None, console: Any = None) -> Iterator[Any]:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = console or Console(stderr=True)
    if enabled is False:
        yield _Silent()
        return
    if enabled is None and not console.is_terminal:
        with _Lines(total, float(os.environ.get("RAGMETER_PROGRESS_SECONDS", "30")), sys.stderr) as lines:
            yield lines
        return
    columns = (TextColumn("rows"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("rows", total=total, rate="")

        class _Bar:
            def advance(self, amount: float = 1.0) -> None:
                bar.advance(task, amount)
                speed = bar.tasks[0].speed
                bar.update(task, rate=f"{speed:.2f} rows/s" if speed else "")

        yield _Bar()
        bar.update(task, completed=total)  # shares of rows add up to total up to float error
