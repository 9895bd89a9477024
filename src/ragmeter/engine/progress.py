"""Progress: a bar on a terminal; off a terminal (SLURM, CI, nohup) a plain line on stderr
every `RAGMETER_PROGRESS_SECONDS` (30 by default); nothing when progress is off.

Both show the same text: rows done (with the shares of rows whose metrics have finished),
a unit of work that moves while a row is slow (judge calls so far), the pace as seconds per
row or rows per second with 2 significant figures, and an ETA from the average pace since
the start over the rows that needed the judge (Pace). A windowed rate jumps, and "0.00
rows/s" read as nothing happening. Before the first row is done the ETA is the run's
up-front estimate less the time spent, where there is one (run/upfront.py), then, after
a few judge calls, the calls it expects at their measured pace. The text fits the width it
is given (80 columns with the bar or the "ragmeter: " prefix): the least needed parts are
left out first, never the rows or ETA.
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
    """Rows done against a clock; `text()` is what both the bar and the lines show.

    The pace counts only rows that needed the judge (`calls`, the judge calls so far, moved
    while they finished): a resumed run's cached rows finish in a burst that says nothing of
    the rows still to judge. Before the first such row, once FEW_CALLS calls are answered,
    the ETA is the measured seconds per call times the calls the up-front estimate expects
    still to make, not the estimate's seconds (a busy machine runs far slower than the speed
    it was measured at)."""

    FEW_CALLS = 3

    def __init__(self, total: int, unit: str = "rows", work: Work | None = None,
                 clock: Callable[[], float] = time.monotonic, expected: float | None = None,
                 calls: Callable[[], int] | None = None, expected_calls: int | None = None) -> None:
        self.total, self.unit, self.work, self.clock = total, unit, work, clock
        self.done = 0.0
        #: of `done`, the rows (shares) that finished while judge calls were being made
        self.judged = 0.0
        self.start = clock()
        #: the up-front estimate of the whole run in seconds, for the ETA before the first result
        self.expected = expected
        self.calls, self.expected_calls = calls, expected_calls
        self._calls_seen = 0

    def advance(self, amount: float = 1.0) -> None:
        self.done += amount  # shares of a row as its metrics finish
        if self.calls is None:
            self.judged += amount
            return
        now = self.calls()
        if now > self._calls_seen:
            self.judged += amount
        self._calls_seen = now

    def text(self, width: int = 70) -> str:
        """Rows, ETA, pace, work, elapsed: as many as fit in `width`, in that order of need."""
        elapsed = self.clock() - self.start
        rows = f"{_count(self.done)}/{self.total} {self.unit}"
        # rows that paid for judge calls; while none were made and none are expected (every reply
        # cached), every row
        waiting = bool(self.expected_calls) or (self.calls is not None and self.calls() > 0)
        paid = self.judged if self.judged > 1e-9 or waiting else self.done
        if paid > 1e-9:
            per = elapsed / paid
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
        made = self.calls() if self.calls is not None else 0
        if self.expected_calls and made >= self.FEW_CALLS:  # the measured pace of this machine, now
            return f"ETA ~{duration(elapsed / made * max(0, self.expected_calls - made))}"
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
                 work: Work | None = None, expected: float | None = None, calls: Callable[[], int] | None = None,
                 expected_calls: int | None = None) -> Iterator[Any]:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, ProgressColumn
    from rich.text import Text

    console = console or Console(stderr=True)
    if enabled is False:
        yield _Silent()
        return
    pace = Pace(total, unit, work, expected=expected, calls=calls, expected_calls=expected_calls)
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


def judge_calls(stats: dict[str, Any]) -> Callable[[], int]:
    """Judge calls made so far across `stats` (cache hits not counted): what a pace is of."""
    def count() -> int:
        return sum(getattr(s, "judge_calls", 0) for s in stats.values())
    return count


def judge_work(stats: dict[str, Any]) -> Work:
    """Judge calls so far across `stats` (MetricStats by name), cache hits apart."""
    made = judge_calls(stats)

    def text() -> str:
        calls = made()
        hits = sum(getattr(s, "cache_hits", 0) for s in stats.values())
        return f"{calls:,} judge call{'' if calls == 1 else 's'}" + (f" ({hits:,} cached)" if hits else "")
    return text
