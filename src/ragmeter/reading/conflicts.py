"""Where the retrieved chunks disagree about a statement, found without a judge call.

A judge asked "is this supported by the contexts?" says yes when one chunk supports a
statement and another contradicts it (Ragas, DeepEval and TruLens alike); the reader
wants to see the disagreement. For each statement, each chunk's block that shares most
of the statement's words (reading/blocks.py, reading/words.py's match_words) is read: a chunk
**holds** the statement when that block has its literal details (numbers, names, flags,
versions: reading/literals.py) and its polarity; a chunk **contradicts** it when the block
says the same words around a different detail, or the same words negated. A statement
with both is flagged, with the two spans. The score does not change: this is evidence,
counted in the summary (`flags`), not a verdict. Cost: no calls, O(statements x blocks).

Only literal and polarity disagreements are found; two chunks that disagree in other
words ("rises" against "falls") are not (measured in docs/judge-check.md, the
`conflicting` family).
"""

from __future__ import annotations

from dataclasses import dataclass

from ragmeter.reading.blocks import blocks
from ragmeter.reading.literals import literals, missing, negations
from ragmeter.reading.words import match_words as words
from ragmeter.reading.words import plain as _plain

#: share of the statement's other words a block must hold to be about the same thing
SAME_WORDS = 0.6
#: statements with fewer matching words than this are too short to tell
MIN_WORDS = 3
FLAG = "contexts_disagree"


@dataclass(frozen=True)
class Reading:
    chunk: int
    span: str
    holds: bool
    detail: str  # why it contradicts ("8080 -> 9090", "negated"), or ""


@dataclass(frozen=True)
class Piece:
    """A statement or a block, read once: its literal details, and its words outside them."""

    text: str
    details: tuple[str, ...]
    words: frozenset[str]  # every matching word (reading/words.py's match_words)
    own: frozenset[str]  # the words outside its details

    @classmethod
    def of(cls, text: str) -> Piece:
        details, found = tuple(literals(text)), frozenset(words(text))
        return cls(text, details, found, found - {w for d in details for w in words(d)})


def disagreements(statements: list[str], contexts: list[str], language: str,
                  cut: list[list[str]] | None = None) -> list[dict[str, object]]:
    """One entry per statement the chunks disagree about: the statement, the chunk that
    holds it and the chunk that contradicts it, each with its span. Negations are read in
    `language` (none where it is not covered: then only details disagree). `cut`: each
    context's blocks, where the caller cut them already."""
    found = []
    cut = cut if cut is not None else [blocks(c) for c in contexts]
    chunk_blocks = [[Piece.of(b) for b in per] for per in cut]  # read once, whatever the statements
    for number, text in enumerate(statements):
        statement = Piece.of(text)
        if len(statement.own) < MIN_WORDS:
            continue
        readings = [r for c, bs in enumerate(chunk_blocks) if (r := _read(statement, c, bs, language)) is not None]
        holds = next((r for r in readings if r.holds), None)
        against = next((r for r in readings if not r.holds), None)
        if holds and against:
            found.append({"statement": text, "statement_index": number,
                          "holds": {"chunk": holds.chunk, "span": holds.span},
                          "contradicts": {"chunk": against.chunk, "span": against.span, "detail": against.detail}})
    return found


def _read(statement: Piece, chunk: int, chunk_blocks: list[Piece], language: str) -> Reading | None:
    """Whether the chunk holds the statement (any of its blocks about it does) or else
    contradicts it (its block most about it states another detail, or negates it); None
    when no block is about it or the one that is neither holds nor contradicts."""
    wanted = statement.own
    about = sorted(((len(wanted & b.words) / len(wanted), i) for i, b in enumerate(chunk_blocks)), reverse=True)
    readings = [_reading(statement, chunk, chunk_blocks[i], language) for share, i in about if share >= SAME_WORDS]
    return next((r for r in readings if r and r.holds), None) or next((r for r in readings if r), None)


def _reading(statement: Piece, chunk: int, block: Piece, language: str) -> Reading | None:
    negated = negations(statement.text, language) != negations(block.text, language)
    absent = missing(statement.text, [block.text])
    if _plain(statement.text) in _plain(block.text) or (not absent and not negated):
        return Reading(chunk, block.text, True, "")
    if len(statement.own & block.own) < SAME_WORDS * len(block.own):  # a longer block about more: not the same
        return None
    if negated and not absent:
        return Reading(chunk, block.text, False, "negated")
    mine = {x.lower() for x in statement.details}
    other = [d for d in block.details if d.lower() not in mine]
    if absent and other:
        return Reading(chunk, block.text, False, f"{absent[0]} -> {other[0]}")
    return None
