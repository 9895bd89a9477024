"""A test set's rule for a flaky judge (engine/failed_calls.py): an attempt whose judge call
failed its retries is asked again once; only a judge that is down stops the build."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragmeter.engine.failed_calls import FailedCalls
from ragmeter.errors import JudgeUnavailable
from ragmeter.testset.chunking import Chunk


@dataclass
class Flaky:
    """A run's rule for a flaky judge, for test sets (engine/failed_calls.py): an attempt whose
    call failed its retries is asked again once, in the next batch; failing again, it is
    rejected with the reason; only a judge that is down (the breaker's probe) stops the build."""

    failures: FailedCalls
    #: (kind, item, pool) of attempts to ask again
    again: list[tuple[str, tuple[Chunk, str], list[Chunk | None]]] = field(default_factory=list)
    answered: int = 0
    last: JudgeUnavailable | None = None

    def check(self) -> None:
        """A build whose every attempt failed its judge call had a judge that is down, however
        few attempts there were (the breaker needs IN_A_ROW)."""
        if self.last is not None and not self.answered:
            raise JudgeUnavailable(f"{self.last}; the judge answered no call of this build: it looks down")

    async def attempt(self, planned: tuple[str, tuple[Chunk, str], list[Chunk | None]], retried: bool,
                      work: Any, row: dict[str, Any]) -> dict[str, Any] | None:
        try:
            done = await work
        except JudgeUnavailable as exc:
            self.last = exc
            failed = await self.failures.failed_call(exc)  # raises when the judge is down
            if not retried:
                self.again.append(planned)
                return None
            return {**row, "rejected_by": "judge call failed", "detail": failed.reason}
        self.failures.answered()
        self.answered += 1
        return done
