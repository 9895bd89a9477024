"""Progress: a bar on a terminal; off a terminal (SLURM, CI, nohup) a plain line on stderr
every `RAGMETER_PROGRESS_SECONDS` (30 by default); nothing when progress is off.

Both show the same text: rows done (with the shares of rows whose metrics have finished),
a unit of work that moves while a row is slow (judge calls so far), the pace as seconds per
row or rows per second with 2 significant figures, and an ETA from the average pace since
the start. A windowed rate jumps, and "0.00 rows/s" read as nothing happening. Before the
first row is done the ETA is the run's up-front estimate less the time spent, where there
is one (run/dry_run.py, upfront_estimate). The text fits the width it is given (80 columns with the bar or
the "ragmeter: " prefix): the least needed parts are left out first, never the rows or ETA.
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
                 clock: Callable[[], float] = time.monotonic, expected: float | None = None) -> None:
        self.total, self.unit, self.work, self.clock = total, unit, work, clock
        self.done = 0.0
        self.start = clock()
        #: the up-front estimate of the whole run in seconds, for the ETA before the first result
        self.expected = expected

    def advance(self, amount: float = 1.0) -> None:
        self.done += amount  # shares of a row as its metrics finish

    def text(self, width: int = 70) -> str:
        """Rows, ETA, pace, work, elapsed: as many as fit in `width`, in that order of need."""
        elapsed = self.clock() - self.start
        rows = f"{_count(self.done)}/{self.total} {self.unit}"
        if self.done > 1e-9:
            per = elapsed / self.done
            rate = f"{_sig2(per)} s/{self.unit.rstrip('s')}" if per >= 1 else f"{_sig2(1 / per)} {self.unit}/s"
            eta = f"ETA {duration(per * max(0.0, self.total - self.done))}"
        else:
            rate, eta = "", self._first_eta(elapsed)
        ordered = [(rows, 0), (self.work() if self.work else "", 1), (rate, 2), (f"elapsed {duration(elapsed)}", 3),
                   (eta, 4)]
        kept = [(text, place) for text, place in ordered if text]
        for need in (3, 1, 2):  # elapsed goes first, then the work, then the pace
            if len(" · ".join(t for t, _ in kept)) <= width:
                break
            kept = [(t, place) for t, place in kept if place != need]
        return " · ".join(t for t, _ in kept)

    def _first_eta(self, elapsed: float) -> str:
        if self.expected is None:
            return f"ETA after the first {self.unit.rstrip('s')}"
        left = self.expected - elapsed
        return f"ETA ~{duration(left)} (estimate)" if left > 0 else f"over the {duration(self.expected)} estimate"


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
        return f"ragmeter: {self.pace.text(80 - len('ragmeter: '))}"

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            print(self.line(), file=self.stream, flush=True)

    def __enter__(self) -> _Lines:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()


#: the bar's width in columns; the text beside it gets the rest of the line
BAR = 16


@contextmanager
def row_progress(total: int, enabled: bool | None = None, console: Any = None, *, unit: str = "rows",
                 work: Work | None = None, expected: float | None = None) -> Iterator[Any]:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, ProgressColumn
    from rich.text import Text

    console = console or Console(stderr=True)
    if enabled is False:
        yield _Silent()
        return
    pace = Pace(total, unit, work, expected=expected)
    if enabled is None and not console.is_terminal:
        with _Lines(pace, float(os.environ.get("RAGMETER_PROGRESS_SECONDS", "30")), sys.stderr) as lines:
            yield lines
        return

    class PaceColumn(ProgressColumn):
        def render(self, task: Any) -> Text:  # at every refresh, so judge calls move between rows
            return Text(pace.text(max(40, min(console.width, 80) - BAR - 2)))

    with Progress(BarColumn(bar_width=BAR), PaceColumn(), console=console, transient=False) as bar:
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
        return f"{calls:,} judge call{'' if calls == 1 else 's'}" + (f" ({hits:,} cached)" if hits else "")
    return text
