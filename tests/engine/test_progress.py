"""Progress text on a fake clock, and the plain lines off a terminal, driven by events."""

from __future__ import annotations

import io
import threading

from ragmeter.accounting import MetricStats
from ragmeter.engine.progress import Pace, _Lines, judge_work, row_progress


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_slow_run_shows_work_that_moves_and_an_eta_from_the_average_pace():
    """testset showed "0/3 rows · 0.00 rows/s · ETA unknown" for 4 minutes."""
    clock, stats = Clock(), {"faithfulness": MetricStats()}
    pace = Pace(3, "rows", judge_work(stats), clock)
    clock.now += 240
    stats["faithfulness"].judge_calls = 1
    assert pace.text().startswith("0/3 rows · 1 judge call · ")  # was "1 judge calls"
    stats["faithfulness"].judge_calls = 7
    assert pace.text() == "0/3 rows · 7 judge calls · elapsed 4m00s · ETA after the first row"
    pace.advance(0.5)  # one of a row's two metrics finished
    stats["faithfulness"].cache_hits = 2
    assert pace.text(100) == "0.5/3 rows · 7 judge calls (2 cached) · 480 s/row · elapsed 4m00s · ETA 20m00s"
    assert pace.text() == "0.5/3 rows · 7 judge calls (2 cached) · 480 s/row · ETA 20m00s"  # 70 columns
    pace.advance(0.5)
    clock.now += 60
    assert pace.text(100) == "1/3 rows · 7 judge calls (2 cached) · 300 s/row · elapsed 5m00s · ETA 10m00s"


def test_a_fast_run_reads_in_units_per_second_with_two_significant_figures():
    clock = Clock()
    pace = Pace(100, "questions", clock=clock)
    pace.advance(30)
    clock.now += 7
    assert pace.text() == "30/100 questions · 4.3 questions/s · elapsed 7s · ETA 16s"
    slow = Pace(10, "questions", clock=clock)
    slow.advance(1)
    clock.now += 4.5
    assert slow.text().startswith("1/10 questions · 4.5 s/question ·")


class Collect(io.StringIO):
    """A stream that says when a line has arrived, so the test waits on an event, not a sleep."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived = threading.Event()

    def write(self, text: str) -> int:
        written = super().write(text)
        if text.endswith("\n"):
            self.arrived.set()
        return written


def test_off_a_terminal_a_line_comes_every_few_seconds_and_progress_can_be_off(monkeypatch, capsys):
    stream = Collect()
    clock = Clock()
    pace = Pace(4, clock=clock)
    with _Lines(pace, every=0.001, stream=stream) as lines:
        lines.advance(2)
        clock.now += 10
        assert lines.line() == "ragmeter: 2/4 rows · 5 s/row · elapsed 10s · ETA 10s"
        assert stream.arrived.wait(timeout=30)  # the thread writes such lines by itself
    assert stream.getvalue().startswith("ragmeter: ")

    with row_progress(3, False) as bar:
        bar.advance()
    assert capsys.readouterr().err == ""
