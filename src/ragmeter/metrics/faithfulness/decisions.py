"""What a faithfulness step decided about a row: one small typed record a step returns, in
place of the flags steps once wrote on the row (`no_claim`, `copied`, `declined`, `settled`).

The metric runs its steps in order and keeps each one's decision; the score, the reason and
the evidence are then written in one loop over them (metric.py), so the metric names no step.
A decision settles `nothing` (the steps after it run), the `verdicts` (a copy, a decline, a
detail no context holds: the steps that judge leave the row alone, those that only flag it
still run) or the `score` (an answer that states nothing a context could support: 0, and no
step after it runs). Its `reason` heads the row's reason where it settles it; its `clause`,
`section` (evidence keys) and `flags` are written in the order of RANKS.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

#: the flag and reason of an answer that states nothing a context could support
NO_CLAIM = "no_claim"
NO_CLAIM_REASON = "no statement a context could support"
#: why a row's verdicts were not asked for: its literal details already set it to 0
SETTLED = "a detail no context holds sets the score to 0 whatever the verdicts"
#: where each step's section, clause and flags stand in the evidence and the reason: the order
#: runs have always written them in (not the order the steps run in); a step not named here
#: comes after these
RANKS = {"copies": 1, "declines": 2, "literals": 3, "conflicts": 4, "votes": 5, "claims": 6}


@dataclass(frozen=True)
class Decision:
    """One step's decision about one row (module doc)."""

    #: the step that decided (its name)
    step: str
    #: what it settles: `nothing`, the `verdicts` or the `score`
    settles: Literal["nothing", "verdicts", "score"] = "nothing"
    #: the row's reason, or its head, where it settles the row
    reason: str = ""
    #: the score, where it settles it
    value: float | None = None
    #: a clause the reason adds after its head ("the contexts disagree about 1 statement(s)")
    clause: str = ""
    #: the keys it adds to the row's evidence, in their order
    section: Mapping[str, object] = field(default_factory=dict)
    #: what the summary counts the row under ("contexts_disagree", "no_claim")
    flags: tuple[str, ...] = ()

    @property
    def rank(self) -> int:
        return RANKS.get(self.step, len(RANKS) + 1)


@dataclass(frozen=True)
class Voted(Decision):
    """The units that address the judge, and the answer without them (for the claims and the views)."""

    units: tuple[str, ...] = ()
    without: str = ""


def no_claim(step: str, why: str) -> Decision:
    """That the answer states nothing a context could support: 0, flagged, never left out of the mean."""
    return Decision(step, "score", f"{NO_CLAIM_REASON}: {why}", 0.0, flags=(NO_CLAIM,))
