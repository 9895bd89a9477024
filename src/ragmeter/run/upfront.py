"""What a run says before its first call when it will take over a minute: the seconds and
calls of its first rows still to judge, counted as the dry run counts (run/dry_run.py) and
scaled to the run, at the judge's measured speed."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ragmeter.io.readers import Dataset, Rows
from ragmeter.judges.base import Judge
from ragmeter.run.dry_run import Estimate
from ragmeter.run.judge_speed import JudgeSpeed, load_speed
from ragmeter.text import duration

# How long a run will take, said before its first judge call.
#
# A new user's first six-metric run of 4 rows showed an ETA of 34-57 minutes only once a row
# had finished. Before scoring, the run now goes through the dry run's counting judge on
# SAMPLE_ROWS rows spread evenly over the whole dataset (every prompt rendered and counted,
# cached replies subtracted, no call), one row at a time so that a row whose replies are all
# cached is known as judged, scales to the dataset, and prices the calls at the judge's
# measured speed (this machine's bench-judge record, else a bundled judge's shipped one).
# Spread, not the first rows: a resumed run's judged rows are wherever its rows in flight
# were when it stopped, and a second resume's are past any first rows (issue 65: 7,341 calls
# said where the dry run counted 17,652, then nothing). Above SAY_ABOVE seconds the estimate
# is printed; the progress line counts it down until a few calls are answered, after which
# the run's own pace takes over (engine/progress.py).

#: rows rendered and counted (then scaled): enough for a mean, no wait
SAMPLE_ROWS = 32
#: estimates shorter than this are not worth a line
SAY_ABOVE = 60.0


@dataclass
class Upfront:
    """The seconds and calls a run expects, from a sample of its rows."""

    seconds: float
    calls: int
    rows: int
    #: where the seconds come from
    speed: JudgeSpeed
    #: rows whose replies are all cached (a resumed run), scaled from the sample
    judged: int = 0

    def line(self) -> str:
        if self.speed.source == "shipped":
            where = (f"at the bundled judge's speed on {(self.speed.machine or '').split(',')[0]}; "
                     "`ragmeter bench-judge` measures this machine's")
        else:
            where = f"at the speed bench-judge measured on {self.speed.measured_at[:10]}"
        rows = f"{self.rows:,} rows" if not self.judged else \
            f"the {self.rows - self.judged:,} rows still to judge ({self.judged:,} cached)"
        return f"about {duration(self.seconds)} for {rows} ({self.calls:,} judge calls {where})"


async def upfront(dataset: Rows, judge: Judge | None,
                  cost: Callable[[Dataset], Awaitable[Estimate]]) -> Upfront | None:
    """The run's seconds from SAMPLE_ROWS rows spread over it, or None when there is no judge,
    no measured speed, or nothing left to judge in the sample."""
    speed = load_speed(judge.identity()) if judge is not None else None
    if speed is None or not len(dataset):
        return None
    picked = spread(len(dataset), SAMPLE_ROWS)
    seconds, calls, judged, sampled = 0.0, 0, 0, 0
    for index, (sample, record) in enumerate(dataset.iter_rows()):
        if index not in picked:
            continue
        one = Dataset([sample], [record], dataset.source, set(dataset.fields_present), dataset.sha256, dataset.kind)
        figures = await cost(one)
        if figures.total.seconds is None:
            return None
        seconds, calls = seconds + figures.total.seconds, calls + figures.total.calls
        judged, sampled = judged + (not figures.total.calls), sampled + 1
    if not calls:
        return None
    scale = len(dataset) / sampled
    return Upfront(seconds * scale, round(calls * scale), len(dataset), speed, round(judged * scale))


def spread(rows: int, most: int) -> set[int]:
    """`most` row indices evenly over `rows` (all of them when there are fewer)."""
    return set(range(rows)) if rows <= most else {index * rows // most for index in range(most)}
