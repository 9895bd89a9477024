"""Faithfulness as an ordered list of named steps over one row (`Grounding`).

The row keeps what is judged: the statements, the answer's views, the excerpts shown. Each
step is one object: it reads the row, fills in what it judges, and returns what it decided
(decisions.py), or None; it never writes a flag for another step to read. Here: the votes an
answer addresses to its judge, the evidence shown for its statements, the judge's verdicts,
the literal details no context holds, the chunks that disagree (the claims, the copies and
declines, and the views have modules of their own). The row's units and its contexts' blocks
are cut once, for every step that reads them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ParamSpec, Protocol, TypeVar

from ragmeter.metrics.base import MetricContext
from ragmeter.metrics.faithfulness.decisions import NO_CLAIM, NO_CLAIM_REASON, SETTLED, Decision, Voted
from ragmeter.metrics.faithfulness.options import (
    ConflictsOptions,
    EvidenceOptions,
    LiteralsOptions,
    VerdictsOptions,
    VotesOptions,
)
from ragmeter.metrics.judgment import Weighed, weigh_verdicts
from ragmeter.reading.addressed import FLAG as ADDRESSED
from ragmeter.reading.addressed import reader
from ragmeter.reading.blocks import blocks, states_something, units
from ragmeter.reading.conflicts import FLAG as DISAGREE
from ragmeter.reading.conflicts import disagreements
from ragmeter.reading.excerpts import excerpts
from ragmeter.reading.literals import literals, missing_each
from ragmeter.samples import Sample

T = TypeVar("T")
P = ParamSpec("P")
D = TypeVar("D", bound=Decision)

NO_STATEMENTS = "the judge found no statements in the response"
#: answers of at most this many words are judged with their question (`short_answers`)
SHORT_WORDS = 5


def is_short(answer: str) -> bool:
    """A name, a number, a fragment, "yes": at most SHORT_WORDS words, and not a sentence of
    four or more words with its stop ("France is in Western Europe." stands alone)."""
    n = len(answer.split())
    return 0 < n <= SHORT_WORDS and not (n >= 4 and answer.rstrip().endswith((".", "!", "?")))


@dataclass
class Statement:
    """One judged statement and everything the steps found about it."""

    text: str
    verdict: int | None = None
    reason: str = ""
    weighed: Weighed | None = None
    #: the contexts' token evidence (judges/llamacpp/token_evidence.py), where asked for
    tokens: Any = None
    #: literal details no retrieved context holds (reading/literals.py)
    absent: list[str] = field(default_factory=list)
    #: set by a check that fails the statement whatever the verdict (a detail no context holds)
    failed: bool = False
    #: for a view of the answer (views.py): which part of it this is
    view: str = ""
    #: the excerpts chosen for this statement alone, where each statement has a call of its own
    shown: list[str] | None = None

    @property
    def value(self) -> float:
        return 0.0 if self.failed or self.weighed is None else self.weighed.value

    @property
    def supported(self) -> bool:
        return bool(self.verdict) and not self.failed


@dataclass
class Grounding:
    """One row through the steps: what is judged, and what each step decided."""

    sample: Sample
    language: str
    statements: list[Statement] = field(default_factory=list)
    #: where the statements came from, for the evidence ("parts", "short answer: question")
    source: str = ""
    repeats: int = 0
    #: what the judge was shown, where it is not the contexts themselves
    shown: list[str] | None = None
    #: the answer judged again in parts that leave something out (views.py): each can lower
    #: the score, none can raise it
    views: list[Statement] = field(default_factory=list)
    #: what the steps decided, in the order they ran
    decisions: list[Decision] = field(default_factory=list)

    @property
    def settled(self) -> Decision | None:
        """The decision that settled the row's verdicts or its score, if one did."""
        return next((d for d in self.decisions if d.settles != "nothing"), None)

    def found(self, kind: type[D]) -> D | None:
        """What a step of this kind decided (the votes' units for the claims and the views)."""
        return next((d for d in self.decisions if isinstance(d, kind)), None)

    @property
    def ranked(self) -> list[Decision]:
        """The decisions in the order their sections and clauses are written (decisions.RANKS)."""
        return sorted(self.decisions, key=lambda d: d.rank)

    @property
    def contexts(self) -> list[str]:
        return self.sample.retrieved_contexts or []

    @cached_property
    def units(self) -> list[str]:
        """The answer's units (reading/blocks.py), cut once for the votes and the views."""
        return units(self.sample.response or "")

    @cached_property
    def cut(self) -> list[list[str]]:
        """Each context's blocks (reading/blocks.py), cut once for every step."""
        return [blocks(c) for c in self.contexts]


class Asker(Protocol):
    """The metric a judging step sends its prompts through (Metric.ask and Metric.answer)."""

    async def ask(self, ctx: MetricContext, prompt_name: str, inputs: Mapping[str, object],
                  max_tokens: int | None = None) -> Any: ...

    async def answer(self, ctx: MetricContext, prompt_name: str, inputs: Mapping[str, object],
                     max_tokens: int | None = None, evidence: tuple[str, str] | None = None) -> Any: ...


class Step(Protocol):
    """One named step: reads the row, fills what it judges, and returns what it decided (None:
    nothing). `after_settled`: it still runs once another step settled the verdicts (a step that
    flags and never scores); no step runs after one settled the score."""

    @property
    def name(self) -> str: ...

    @property
    def after_settled(self) -> bool: ...

    async def run(self, row: Grounding, ctx: MetricContext) -> Decision | None: ...


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
        found = await off_loop(row, missing_each, texts, row.contexts, row.sample.user_input)
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


#: a row's text (answer and contexts) above which its no-model readers run on a worker thread
OFF_LOOP_CHARS = 20_000


async def off_loop(row: Grounding, read: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`read(*args)` for a row: on a worker thread when the row is long, so that a reader that
    takes seconds (a 100 KB row of one character took minutes before the readers were made
    linear) never stalls every other row in flight, the progress line or a signal's handler."""
    size = len(row.sample.response or "") + sum(len(c) for c in row.contexts)
    if size <= OFF_LOOP_CHARS:
        return read(*args, **kwargs)
    return await asyncio.to_thread(read, *args, **kwargs)
