"""How long a run will take, said before its first judge call.

A new user's first six-metric run of 4 rows showed an ETA of 34-57 minutes only once a row
had finished. Before scoring, the run now goes through the dry run's counting judge on its
first SAMPLE_ROWS rows (every prompt rendered and counted, cached replies subtracted, no
call), scales to the whole data, and prices the calls at the judge's measured speed (this
machine's bench-judge record, else a bundled judge's shipped one). Above SAY_ABOVE seconds
the estimate is printed; the progress line counts it down until the first row is done,
after which the run's own pace takes over.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ragmeter.cache import Cache
from ragmeter.run.judge_speed import JudgeSpeed, load_speed
from ragmeter.text import duration

if TYPE_CHECKING:
    from ragmeter.run.prepare import Prepared

#: rows rendered and counted for the estimate (then scaled): enough for a mean, no wait
SAMPLE_ROWS = 8
#: estimates shorter than this are not worth a line
SAY_ABOVE = 60.0


@dataclass
class Upfront:
    seconds: float
    calls: int
    rows: int
    #: where the seconds come from
    speed: JudgeSpeed

    def line(self) -> str:
        if self.speed.source == "shipped":
            where = (f"at the bundled judge's speed on {(self.speed.machine or '').split(',')[0]}; "
                     "`ragmeter bench-judge` measures this machine's")
        else:
            where = f"at the speed bench-judge measured on {self.speed.measured_at[:10]}"
        return f"about {duration(self.seconds)} for {self.rows:,} rows ({self.calls:,} judge calls {where})"


async def upfront_estimate(ready: Prepared, cache: Cache) -> Upfront | None:
    """The run's seconds from its first rows, or None when there is no judge, no measured
    speed, or nothing to judge."""
    from ragmeter.io.readers import Dataset
    from ragmeter.run.dry_run import estimate

    speed = load_speed(ready.judge.identity()) if ready.judge is not None else None
    if speed is None or not len(ready.dataset):
        return None
    head = list(itertools.islice(ready.dataset.iter_rows(), SAMPLE_ROWS))
    sample = Dataset([s for s, _ in head], [r for _, r in head], ready.dataset.source,
                     set(ready.dataset.fields_present), ready.dataset.sha256, ready.dataset.kind)
    figures = await estimate(replace(ready, dataset=sample), cache)
    if figures.total.seconds is None or not head:
        return None
    scale = len(ready.dataset) / len(head)
    return Upfront(figures.total.seconds * scale, round(figures.total.calls * scale), len(ready.dataset), speed)
