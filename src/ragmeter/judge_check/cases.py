"""What a judge-check case is, and what every family's builder shares: a case is a plain
row for ragmeter's metrics plus what it checks and the score it should get. Each source
row's random choices come from its own seeded generator (seed + row id), so a row's cases do
not change when other rows are added or `--limit` cuts the data. The families' builders:
grounding.py (faithfulness) and families.py (the others, and which metric gets which).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from ragmeter.judge_check.claims import claim_sentences
from ragmeter.judge_check.copies import shuffled

#: the answer-side checks of a family (`Family.limited`) are made from the first this-many rows
#: only: 11 cases a row would more than double a check's cost, and the rates are read well
#: enough from 60 cases each
LIMITED_SOURCES = 12

#: high/low: the score; flagged: the row's evidence flags the contexts' disagreement
Expect = Literal["high", "low", "flagged"]

@dataclass(frozen=True)
class Source:
    """One row of the user's data as the checks see it."""

    id: str
    contexts: list[str]
    question: str | None = None
    response: str | None = None
    reference: str | None = None
    #: contexts the row says answer its question (reference_contexts, or retrieved ids that
    #: are reference ids); None when it says nothing (its retrieved contexts are then assumed)
    relevant: list[str] | None = None


@dataclass(frozen=True)
class Case:
    """One row to score, and the score it should get."""

    id: str
    family: str
    check: str
    expect: Expect
    k: int
    source: str
    row: dict[str, Any]
    #: what was changed, for a person reading a failure (e.g. "swapped 1998 -> 2013")
    edit: str = ""
    assumed: bool = False  # the high case rests on the row's own contexts being relevant


@dataclass(frozen=True)
class Check:
    name: str
    expect: Expect
    description: str
    #: the hand-written reader (reading/) that decides the case where it is not the judge: a
    #: detail changed by `literals` is failed by `literals`, a contradicting chunk is flagged by
    #: `conflicts`, a vote is set aside by `votes`. Those cases check the reader, not the judge:
    #: they are reported apart and kept out of the judge's ROC-AUC.
    reader: str | None = None


@dataclass
class Family:
    """The checks of one kind of metric, and which rows can make them."""

    name: str
    checks: tuple[Check, ...]
    needs_question: bool
    sizes_apply: bool  # the checks run at every prompt size (k contexts)
    build: Callable[[Source, list[Source], int, random.Random, str], Iterator[Case]] = field(repr=False)
    #: checks made from the first LIMITED_SOURCES rows only (the answer-side ones)
    limited: frozenset[str] = frozenset()


def norm(text: str) -> str:
    return " ".join(text.split()).lower()


def absent(sentence: str, contexts: list[str]) -> bool:
    needle = norm(sentence)
    return not any(needle in norm(c) for c in contexts)


def rng_for(seed: int, *parts: Any) -> random.Random:
    digest = hashlib.sha256("\x00".join(map(str, (seed, *parts))).encode()).hexdigest()
    return random.Random(int(digest[:16], 16))


def others(source: Source, pool: list[Source], rng: random.Random, count: int) -> list[Source]:
    """`count` other rows, seeded, none with the same first context."""
    others = [s for s in pool if s.id != source.id and s.contexts and s.contexts[0] != source.contexts[0]]
    return rng.sample(others, min(count, len(others)))


def other_questions(source: Source, pool: list[Source], rng: random.Random, keep: Callable[[Source], bool]
                     ) -> list[Source]:
    """Seeded other rows that ask another question and pass `keep`."""
    return [o for o in others(source, pool, rng, 20) if o.question != source.question and keep(o)]


def source_prompt(source: Source, pool: list[Source], k: int,
                   rng: random.Random) -> tuple[str, list[str], list[Source]] | None:
    """The row's first context with a claim-like sentence, placed at a seeded position among
    k-1 other rows' first contexts: (that context, the prompt's contexts, the other rows)."""
    context = next((c for c in source.contexts if claim_sentences(c)), None)
    if context is None:
        return None
    distractors = others(source, pool, rng, k - 1)
    if len(distractors) < k - 1:
        return None
    contexts = [d.contexts[0] for d in distractors]
    contexts.insert(rng.randrange(len(contexts) + 1), context)
    return context, contexts, distractors


def base_row(source: Source) -> dict[str, Any]:
    row = {"user_input": source.question, "response": source.response or source.reference,
           "reference": source.reference}
    return {k: v for k, v in row.items() if v}


def make_case(family: str, check: Check, k: int, source: Source, row: dict[str, Any], edit: str = "",
          assumed: bool = False) -> Case:
    case_id = f"{family}/{check.name}/k{k}/{source.id}"
    return Case(case_id, family, check.name, check.expect, k, source.id, {"id": case_id, **row}, edit, assumed)


def shuffled_sources(sources: list[Source], rng: random.Random) -> list[Source]:
    return shuffled(sources, rng)[:20]


def build_cases(family: Family, sources: list[Source], sizes: tuple[int, ...], seed: int,
                language: str) -> list[Case]:
    """Every case of one family, source by source, size by size."""
    usable = [s for s in sources if s.contexts and (s.question or not family.needs_question)]
    cases: list[Case] = []
    for n, source in enumerate(usable):
        for k in (sizes if family.sizes_apply else (1,)):
            made = family.build(source, usable, k, rng_for(seed, family.name, source.id, k), language)
            cases.extend(c for c in made if n < LIMITED_SOURCES or c.check not in family.limited)
    return cases
