"""Bounded output schemas. Every list has a bound and every string a maximum length:
the bundled base model, even under a grammar, repeats list items until max_tokens
when a list is unbounded (see shared/notes/bundled-judge.md)."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model

from ragmeter.reading.sentences import sentence_ends

REASON_MAX = 100
STATEMENT_MAX = 150
ShortText = Annotated[str, StringConstraints(max_length=STATEMENT_MAX)]


class Verdict(BaseModel):
    """The verdict comes before its reason: its probability is then read from the inputs
    alone, not from reasoning the judge just wrote and has committed to. On Q2 with the
    bundled Qwen judge, ROC-AUC against human labels went from 0.75 (reason first, Ragas's
    order) to 0.89 (verdict first); README, Benchmarks."""

    model_config = ConfigDict(extra="forbid")

    verdict: Literal[0, 1]
    reason: str = Field(max_length=REASON_MAX)


class Rating(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rating: Literal[0, 1, 2]


@cache
def verdicts(n: int) -> type[BaseModel]:
    """Exactly n verdicts, one per item the judge was shown."""
    return create_model(f"Verdicts{n}", __config__=ConfigDict(extra="forbid"),
                        verdicts=(list[Verdict], Field(min_length=n, max_length=n)))


@cache
def statements(limit: int) -> type[BaseModel]:
    return create_model(f"Statements{limit}", __config__=ConfigDict(extra="forbid"),
                        statements=(list[ShortText], Field(max_length=limit)))


@cache
def questions(n: int) -> type[BaseModel]:
    return create_model(f"Questions{n}", __config__=ConfigDict(extra="forbid"),
                        questions=(list[ShortText], Field(min_length=n, max_length=n)),
                        noncommittal=(Literal[0, 1], ...))


def claim_limit(text: str, cap: int = 10) -> int:
    """Upper bound on claims: two per sentence plus slack, capped."""
    sentences = max(1, sentence_ends(text.strip()) or 1)
    return min(cap, 2 * sentences + 2)


def unique(items: list[str]) -> list[str]:
    """Stripped items without empties and exact repeats (case/whitespace-insensitive), in
    order: small models repeat list items."""
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        norm = " ".join(item.lower().split())
        if norm and norm not in seen:
            seen.add(norm)
            out.append(item.strip())
    return out


ANALYSIS_MAX = 200


@cache
def labelled(labels: tuple[str, ...]) -> type[BaseModel]:
    """A short analysis, then one label from a fixed set (the analysis comes first so a
    judge reasons before it commits; the label set makes a missing answer impossible)."""
    return create_model(f"Label{abs(hash(labels)) % 10**8}", __config__=ConfigDict(extra="forbid"),
                        analysis=(str, Field(max_length=ANALYSIS_MAX)),
                        label=(Literal[labels], ...))  # type: ignore[arg-type]


@cache
def entities(limit: int = 15) -> type[BaseModel]:
    return create_model(f"Entities{limit}", __config__=ConfigDict(extra="forbid"),
                        entities=(list[Annotated[str, StringConstraints(max_length=80)]], Field(max_length=limit)))
