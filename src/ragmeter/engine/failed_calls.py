"""A run under a flaky judge finishes. A call that fails its retries makes that row's metric
unscored with the reason (as a bad row would be), not the run's end; such rows are held out
of the aggregates, written in their place, and tried once more when every other row is
done, then patched in the results. Only a judge that fails IN_A_ROW calls with no success
between stops the run (it is down, not flaky: resumable as before), and only once a probe
says so: the last call that succeeded in this run is sent again, and if it is answered the
failures are the rows' own (prompts a healthy server always fails, say with a 500), so the
run goes on. A request the server refused (RequestRefused: an HTTP 400 for a prompt over the
model's context, a content filter) is that row's failure too, held with its reason and not
sent again: the server would refuse it again. One failed call shared by several rows (the
same prompt asked by each, sent once) counts once toward the breaker. Whether too many
stayed failed is the run's rule `max_failed` (results/gates.py, exit 3 above it); a re-run
judges only those, since every other reply is in the cache.
FailedCalls is these calls; the faults a run survived (retries, timeouts) are faults.FaultLog.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ragmeter.errors import JudgeUnavailable, RequestRefused
from ragmeter.metrics.base import Score
from ragmeter.samples import Sample

#: calls that failed their retries one after another, none answered between: the judge is down
IN_A_ROW = 10
#: how many recent failures are remembered to tell a shared failed call from a new one
SEEN = 256
#: the start of a failed call's reason (and its evidence key)
FAILED = "judge call failed"


def failed_score(exc: JudgeUnavailable) -> Score:
    """The row's reason, written to the results: a server's words in it are redacted."""
    from ragmeter.text import redact

    refused = {"refused": True} if isinstance(exc, RequestRefused) else {}
    return Score(None, f"{FAILED}: {redact(str(exc))}", {"failed_call": True, **refused})


def is_failed(score: Score) -> bool:
    return bool(score.evidence and score.evidence.get("failed_call"))


@dataclass
class Held:
    """A row with a failed call: where it went in the sink, and what to score again."""

    index: int
    sample: Sample
    record: dict[str, Any]
    scores: dict[str, Score]


@dataclass
class FailedCalls:
    """Calls that failed their retries in a run: the breaker for a judge that is down, and
    the rows held back to be tried again at the end."""

    in_a_row: int = 0
    #: re-sends a call that succeeded before: True when the judge answers it (judges/session.py)
    probe: Callable[[], Awaitable[bool]] | None = None
    #: times the breaker's probe was answered: failures tied to the rows, not the judge
    probed_alive: int = 0
    held: list[Held] = field(default_factory=list)
    recovered: int = 0
    #: (row id, metric) pairs still failed after the last try
    failed: list[tuple[str, str]] = field(default_factory=list)
    #: the failures already counted: one call awaited by several rows raises one exception in each
    _counted: deque[JudgeUnavailable] = field(default_factory=lambda: deque(maxlen=SEEN))

    def answered(self) -> None:
        self.in_a_row = 0

    async def failed_call(self, exc: JudgeUnavailable) -> Score:
        if any(exc is seen for seen in self._counted):  # the same failed request, met by another row
            return failed_score(exc)
        self._counted.append(exc)
        self.in_a_row += 1
        if self.in_a_row >= IN_A_ROW:
            if self.probe is not None and await self.probe():
                self.in_a_row, self.probed_alive = 0, self.probed_alive + 1
                return failed_score(exc)
            if isinstance(exc, RequestRefused):
                raise JudgeUnavailable(f"{exc}; the server refused {IN_A_ROW} requests in a row and answers no "
                                       "request it answered before in this run: the judge's settings (model, "
                                       "options) look wrong, not the rows") from None
            raise JudgeUnavailable(f"{exc}; {IN_A_ROW} calls failed in a row and a call that succeeded before "
                                   "fails too: the judge looks down, not flaky") from None
        return failed_score(exc)

    async def retry(self, score: Callable[[str, Sample], Awaitable[Score]], in_flight: int,
                    done: Callable[[Held], None]) -> None:
        """Each held row's failed metrics once more (`score(label, sample)`), then `done(row)`."""
        slots = asyncio.Semaphore(max(1, in_flight))

        async def again(row: Held) -> None:
            async with slots:
                for label in [m for m, s in row.scores.items() if is_failed(s)]:
                    if not row.scores[label].evidence.get("refused"):  # a refusal would come again
                        row.scores[label] = await score(label, row.sample)
                    if is_failed(row.scores[label]):
                        self.failed.append((row.sample.id, label))
                    else:
                        self.recovered += 1
            done(row)

        await asyncio.gather(*(again(row) for row in self.held))

    def record(self) -> dict[str, Any]:
        return {"failed_calls": len(self.failed), "recovered_calls": self.recovered,
                "failed_rows": sorted({row_id for row_id, _ in self.failed})[:20],
                "judge_answered_probe": self.probed_alive}
