"""Where the retrieved chunks disagree about a statement, found without a judge call.

A judge asked "is this supported by the contexts?" says yes when one chunk supports a
statement and another contradicts it (Ragas, DeepEval and TruLens alike); the reader
wants to see the disagreement. For each statement, each chunk's block that shares most
of the statement's words (metrics/blocks.py, metrics/excerpts.py's words) is read: a chunk
**holds** the statement when that block has its literal details (numbers, names, flags,
versions: metrics/literals.py) and its polarity; a chunk **contradicts** it when the block
says the same words around a different detail, or the same words negated. A statement
with both is flagged, with the two spans. The score does not change: this is evidence,
counted in the summary (`flags`), not a verdict. Cost: no calls, O(statements x blocks).

Only literal and polarity disagreements are found; two chunks that disagree in other
words ("rises" against "falls") are not (measured in docs/judge-check.md, the
`conflicting` family).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragmeter.metrics.blocks import blocks
from ragmeter.metrics.excerpts import words
from ragmeter.metrics.literals import literals, missing, negations

#: share of the statement's other words a block must hold to be about the same thing
SAME_WORDS = 0.6
#: statements with fewer matching words than this are too short to tell
MIN_WORDS = 3
FLAG = "contexts_disagree"
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Reading:
    chunk: int
    span: str
    holds: bool
    detail: str  # why it contradicts ("8080 -> 9090", "negated"), or ""


def disagreements(statements: list[str], contexts: list[str]) -> list[dict[str, object]]:
    """One entry per statement the chunks disagree about: the statement, the chunk that
    holds it and the chunk that contradicts it, each with its span."""
    found = []
    chunk_blocks = [blocks(c) for c in contexts]
    for number, statement in enumerate(statements):
        readings = [r for c, bs in enumerate(chunk_blocks) if (r := _read(statement, c, bs)) is not None]
        holds = next((r for r in readings if r.holds), None)
        against = next((r for r in readings if not r.holds), None)
        if holds and against:
            found.append({"statement": statement, "statement_index": number,
                          "holds": {"chunk": holds.chunk, "span": holds.span},
                          "contradicts": {"chunk": against.chunk, "span": against.span, "detail": against.detail}})
    return found


def _read(statement: str, chunk: int, chunk_blocks: list[str]) -> Reading | None:
    """Whether the chunk holds the statement (any of its blocks about it does) or else
    contradicts it (its block most about it states another detail, or negates it); None
    when no block is about it or the one that is neither holds nor contradicts."""
    details = literals(statement)
    wanted = set(words(statement)) - {w for d in details for w in words(d)}
    if len(wanted) < MIN_WORDS:
        return None
    about = sorted(((len(wanted & set(words(b))) / len(wanted), i) for i, b in enumerate(chunk_blocks)), reverse=True)
    readings = [_reading(statement, details, wanted, chunk, chunk_blocks[i]) for share, i in about
                if share >= SAME_WORDS]
    return next((r for r in readings if r and r.holds), None) or next((r for r in readings if r), None)


def _reading(statement: str, details: list[str], wanted: set[str], chunk: int, block: str) -> Reading | None:
    negated = negations(statement) != negations(block)
    absent = missing(statement, [block])
    if _plain(statement) in _plain(block) or (not absent and not negated):
        return Reading(chunk, block, True, "")
    own = set(words(block)) - {w for d in literals(block) for w in words(d)}
    if len(wanted & own) < SAME_WORDS * len(own):  # a longer block about more: not the same statement
        return None
    if negated and not absent:
        return Reading(chunk, block, False, "negated")
    other = [d for d in literals(block) if d.lower() not in {x.lower() for x in details}]
    if absent and other:
        return Reading(chunk, block, False, f"{absent[0]} -> {other[0]}")
    return None


def _plain(text: str) -> str:
    """Every word, short ones too ("no" is the whole difference in Spanish), lowercased."""
    return " ".join(_WORD.findall(text.lower()))
