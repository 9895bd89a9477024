"""One row through faithfulness's steps: what is judged (the statements, the answer's views,
the excerpts shown), what each step decided (decisions.py), and the protocol a step keeps.

The row's units and its contexts' blocks are cut once, for every step that reads them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ParamSpec, Protocol, TypeVar

from ragmeter.metrics.base import MetricContext
from ragmeter.metrics.faithfulness.decisions import Decision
from ragmeter.metrics.judgment import Weighed
from ragmeter.reading.blocks import blocks, units
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
