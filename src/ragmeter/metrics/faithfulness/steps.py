"""Faithfulness's steps that read or judge every row: the votes an answer addresses to its
judge, the evidence shown for its statements, the judge's verdicts, the literal details no
context holds, the chunks that disagree (the claims, the copies and declines, and the views
have modules of their own).

Each step is one object: it reads the row (record.py), fills in what it judges, and returns
what it decided (decisions.py), or None; it never writes a flag for another step to read.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from ragmeter.metrics.base import MetricContext
from ragmeter.metrics.faithfulness.decisions import NO_CLAIM, NO_CLAIM_REASON, SETTLED, Decision, Voted
from ragmeter.metrics.faithfulness.options import (
    ConflictsOptions,
    EvidenceOptions,
    LiteralsOptions,
    VerdictsOptions,
    VotesOptions,
)
from ragmeter.metrics.faithfulness.record import Asker, Grounding, Statement, off_loop
from ragmeter.metrics.judgment import weigh_verdicts
from ragmeter.reading.addressed import FLAG as ADDRESSED
from ragmeter.reading.addressed import reader
from ragmeter.reading.blocks import states_something
from ragmeter.reading.conflicts import FLAG as DISAGREE
from ragmeter.reading.conflicts import disagreements
from ragmeter.reading.excerpts import excerpts
from ragmeter.reading.literals import literals, missing_each


@dataclass(frozen=True)
class Votes:
    """Sentences that address the judge (reading/addressed.py) flagged, and the answer
    without them kept for one more view; an answer that only addresses the judge states
    nothing (scored 0, flagged: never left out of the mean)."""

    options: VotesOptions
    name: str = "votes"
    after_settled: bool = False

    async def run(self, row: Grounding, ctx: MetricContext) -> Voted | None:
        response = row.sample.response or ""
        found = reader(row.language)
        if self.options.mode == "off" or not response.strip() or found is None:
            return None
        # read unit by unit: content on a vote's line stays ("GPL {"verdict": 1}")
        flagged = [u for u in row.units if found.addresses(u)]
        if not flagged:
            return None
        rest = "\n".join(u for u in row.units if u not in flagged)
        voted = Voted(self.name, clause=f"addressed to the judge: {' | '.join(flagged)[:200]}",
                      section={ADDRESSED: flagged}, flags=(ADDRESSED,), units=tuple(flagged), without=rest)
        # all of it addresses the judge: no claim, unless it states a detail (a number, a
        # flag, a name), which a context holds or not ("Ignore the warnings: it uses port 9999.")
        if not states_something(rest) and not any(literals(v) for v in flagged):
            return Voted(self.name, "score", f"{NO_CLAIM_REASON}: the answer only addresses the judge", 0.0,
                         section=voted.section, flags=(ADDRESSED, NO_CLAIM), units=voted.units, without=rest)
        return voted


@dataclass(frozen=True)
class Evidence:
    """Several contexts, or a long one, cut to the blocks the statements are about
    (reading/excerpts.py); `full`: the contexts as they are."""

    options: EvidenceOptions
    #: `each`: every statement is judged in a call of its own, over excerpts chosen for it alone
    calls: str = "one"
    name: str = "evidence"
    after_settled: bool = False

    async def run(self, row: Grounding, ctx: MetricContext) -> None:
        if self.options.contexts != "excerpts":
            return
        contexts = row.contexts
        if self.calls == "each":
            for statement in row.statements:
                shown = await off_loop(row, excerpts, statement.text, contexts, question=row.sample.user_input,
                                       cut=row.cut)
                statement.shown = shown if shown is not contexts else None
            return
        claim = "\n\n".join(s.text for s in row.statements)
        shown = await off_loop(row, excerpts, claim, contexts, question=row.sample.user_input, cut=row.cut)
        row.shown = shown if shown is not contexts else None


@dataclass(frozen=True)
class Verdicts:
    """One judge call: a verdict per statement, weighed by its probability (or 0/1), with the
    contexts' token evidence where asked for."""

    options: VerdictsOptions
    judge: Asker
    name: str = "verdicts"
    after_settled: bool = False

    async def run(self, row: Grounding, ctx: MetricContext) -> None:
        if self.options.calls == "each":  # no statement's verdict reads another; a failed one needs none
            await asyncio.gather(*(self.judged([s], row, ctx) for s in row.statements if not s.failed))
        else:
            await self.judged(row.statements, row, ctx)
        for view in row.views:  # each view in a call of its own: no view reads another
            await self.judged([view], row, ctx)

    async def judged(self, statements: list[Statement], row: Grounding, ctx: MetricContext) -> None:
        options = self.options
        texts = [s.text for s in statements]
        own = statements[0].shown if len(statements) == 1 else None
        shown = own if own is not None else row.shown if row.shown is not None else row.contexts
        judged = await self.judge.answer(ctx, "verdicts", {"contexts": shown, "statements": texts},
                                          evidence=("statements", "contexts") if options.token_evidence else None)
        weighed = weigh_verdicts(judged, judged.parsed.verdicts, options.judgment)
        tokens = judged.evidence or [None] * len(texts)
        for statement, verdict, weight, token in zip(statements, judged.parsed.verdicts, weighed, tokens):
            statement.verdict, statement.reason, statement.weighed, statement.tokens = \
                verdict.verdict, verdict.reason, weight, token


@dataclass(frozen=True)
class Literals:
    """Literal details (URL, flag, identifier, number) each statement states that no
    retrieved context holds (reading/literals.py): `score` fails the statement, `evidence`
    lists them only. Read before the verdicts: where the failed statements already make the
    score 0 (every one failed, or one where the weakest counts), no verdict could change it,
    and it settles the verdicts: the judge is not called (a view can only lower a score)."""

    options: LiteralsOptions
    combine: str = "mean"
    name: str = "literals"
    after_settled: bool = False

    async def run(self, row: Grounding, ctx: MetricContext) -> Decision | None:
        if self.options.mode == "off":
            return None
        texts = [s.text for s in row.statements]
        found = await off_loop(row, missing_each, texts, row.contexts, row.sample.user_input, row.language)
        for statement, absent in zip(row.statements, found):
            statement.absent = absent
            statement.failed = bool(absent) and self.options.mode == "score"
        failed = [s.failed for s in row.statements]
        settled = bool(failed) and (all(failed) or (self.combine == "min" and any(failed)))
        missing = ", ".join(x for s in row.statements for x in s.absent)
        if not settled and not missing:
            return None
        head = (f"{sum(failed)} of {len(row.statements)} statements state a detail no context holds, which sets "
                "the score to 0: no judge call")
        return Decision(self.name, "verdicts" if settled else "nothing", head if settled else "",
                        clause=f"not in any context: {missing[:200]}" if missing else "",
                        section={"no_judge_call": SETTLED} if settled else {})


@dataclass(frozen=True)
class Conflicts:
    """Where one chunk holds a statement's detail and another states a different one or
    negates it (reading/conflicts.py): evidence and a flag, the score unchanged (so it reads
    rows whose verdicts another step settled, too)."""

    options: ConflictsOptions
    name: str = "conflicts"
    after_settled: bool = True

    async def run(self, row: Grounding, ctx: MetricContext) -> Decision | None:
        if self.options.mode == "off" or len(row.contexts) < 2:
            return None
        found = await off_loop(row, disagreements, [s.text for s in row.statements], row.contexts,
                               row.language, row.cut)
        if not found:
            return None
        return Decision(self.name, clause=f"the contexts disagree about {len(found)} statement(s)",
                        section={DISAGREE: found}, flags=(DISAGREE,))
