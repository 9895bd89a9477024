"""What a run says before its first call when it will take over a minute: the seconds and
calls of its first rows still to judge, counted as the dry run counts (run/dry_run.py) and
scaled to the run, at the judge's measured speed."""

from __future__ import annotations

import itertools
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
# had finished. Before scoring, the run now goes through the dry run's counting judge on its
# first SAMPLE_ROWS rows that still need the judge (every prompt rendered and counted, cached
# replies subtracted, no call; a resumed run's judged rows are skipped, up to SCAN_ROWS of
# them), scales to the rows from there on, and prices the calls at the judge's measured speed
# (this machine's bench-judge record, else a bundled judge's shipped one). Above SAY_ABOVE
# seconds the estimate is printed; the progress line counts it down until a few calls are
# answered, after which the run's own pace takes over (engine/progress.py).

#: rows rendered and counted (then scaled): enough for a mean, no wait
SAMPLE_ROWS = 8
#: judged rows at the start of a resumed run looked past for rows still to judge
SCAN_ROWS = 512
#: estimates shorter than this are not worth a line
SAY_ABOVE = 60.0


@dataclass
class Upfront:
    """The seconds and calls a run expects, from its first rows still to judge."""

    seconds: float
    calls: int
    rows: int
    #: where the seconds come from
    speed: JudgeSpeed
    #: rows at the start whose replies are all cached (a resumed run)
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
    """The run's seconds from its first rows still to judge, or None when there is no judge,
    no measured speed, or nothing to judge within SCAN_ROWS rows."""
    speed = load_speed(judge.identity()) if judge is not None else None
    if speed is None or not len(dataset):
        return None
    rows, judged = dataset.iter_rows(), 0
    while judged < SCAN_ROWS:
        head = list(itertools.islice(rows, SAMPLE_ROWS))
        if not head:
            return None
        sample = Dataset([s for s, _ in head], [r for _, r in head], dataset.source,
                         set(dataset.fields_present), dataset.sha256, dataset.kind)
        figures = await cost(sample)
        if figures.total.seconds is None:
            return None
        if figures.total.calls:
            scale = (len(dataset) - judged) / len(head)
            return Upfront(figures.total.seconds * scale, round(figures.total.calls * scale), len(dataset),
                           speed, judged)
        judged += len(head)
    return None
