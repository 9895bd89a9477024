"""Progress: a bar on a terminal; off a terminal (SLURM, CI, nohup) a plain line on stderr
every `RAGMETER_PROGRESS_SECONDS` (30 by default); nothing when progress is off.

Both show the same text: rows done (with the shares of rows whose metrics have finished),
a unit of work that moves while a row is slow (judge calls so far), the pace as seconds per
row or rows per second with 2 significant figures, and an ETA from the average pace since
the start. A windowed rate jumps, and "0.00 rows/s" read as nothing happening.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from ragmeter.text import duration

#: a short text of the work done so far that moves within a row, e.g. "12 judge calls"
Work = Callable[[], str]


class Pace:
    """Rows done against a clock; `text()` is what both the bar and the lines show."""

    def __init__(self, total: int, unit: str = "rows", work: Work | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.unit, self.work, self.clock = total, unit, work, clock
        self.done = 0.0
        self.start = clock()

    def advance(self, amount: float = 1.0) -> None:
        self.done += amount  # shares of a row as its metrics finish

    def text(self) -> str:
        elapsed = self.clock() - self.start
        parts = [f"{_count(self.done)}/{self.total} {self.unit}"]
        if self.work is not None:
            parts.append(self.work())
        if self.done > 1e-9:
            per = elapsed / self.done
            rate = f"{_sig2(per)} s/{self.unit.rstrip('s')}" if per >= 1 else f"{_sig2(1 / per)} {self.unit}/s"
            parts += [rate, f"elapsed {duration(elapsed)}", f"ETA {duration(per * max(0.0, self.total - self.done))}"]
        else:
            parts += [f"elapsed {duration(elapsed)}", "ETA after the first result"]
        return " · ".join(parts)


def _count(done: float) -> str:
    """1, or 1.3 while a row is partly done (its finished metrics' shares)."""
    whole = round(done)
    return str(whole) if abs(done - whole) < 0.05 else f"{done:.1f}"


def _sig2(value: float) -> str:
    """2 significant figures, as people read a pace: 42, 4.2, 0.42."""
    return f"{value:.2g}" if value < 100 else f"{value:.0f}"


class _Silent:
    def advance(self, amount: float = 1.0) -> None:
        return None


class _Lines:
    """A line every `every` seconds from a daemon thread, so a slow row still shows life."""

    def __init__(self, pace: Pace, every: float, stream: TextIO) -> None:
        self.pace, self.every, self.stream = pace, every, stream
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def advance(self, amount: float = 1.0) -> None:
        self.pace.advance(amount)

    def line(self) -> str:
        return f"ragmeter: {self.pace.text()}"

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
def row_progress(total: int, enabled: bool | None = None, console: Any = None, *, unit: str = "rows",
                 work: Work | None = None) -> Iterator[Any]:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, ProgressColumn
    from rich.text import Text

    console = console or Console(stderr=True)
    if enabled is False:
        yield _Silent()
        return
    pace = Pace(total, unit, work)
    if enabled is None and not console.is_terminal:
        with _Lines(pace, float(os.environ.get("RAGMETER_PROGRESS_SECONDS", "30")), sys.stderr) as lines:
            yield lines
        return

    class PaceColumn(ProgressColumn):
        def render(self, task: Any) -> Text:  # at every refresh, so judge calls move between rows
            return Text(pace.text())

    with Progress(BarColumn(bar_width=20), PaceColumn(), console=console, transient=False) as bar:
        task = bar.add_task(unit, total=total)

        class _Bar:
            def advance(self, amount: float = 1.0) -> None:
                pace.advance(amount)
                bar.advance(task, amount)

        yield _Bar()
        pace.done = total  # shares of rows add up to total up to float error
        bar.update(task, completed=total)


def judge_work(stats: dict[str, Any]) -> Work:
    """Judge calls so far across `stats` (MetricStats by name), cache hits apart."""
    def text() -> str:
        calls = sum(getattr(s, "judge_calls", 0) for s in stats.values())
        hits = sum(getattr(s, "cache_hits", 0) for s in stats.values())
        return f"{calls:,} judge calls" + (f" ({hits:,} cached)" if hits else "")
    return text
