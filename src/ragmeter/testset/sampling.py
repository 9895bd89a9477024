"""Which chunks questions are asked about: a seeded order that spreads over sources (no
source gets a second chunk before every source has one), skipping chunks too short to ask
about and near-duplicates of chunks already taken (repeated boilerplate across pages)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from ragmeter.testset.chunking import MIN_CHUNK_CHARS, Chunk

#: token-set similarity (0-100) above which a chunk repeats one already taken
NEAR_DUPLICATE = 90


def chunk_order(chunks: list[Chunk], seed: int) -> Iterator[Chunk]:
    """Chunks in the order they are asked about: round-robin over sources (sources in a
    seeded order, each source's chunks shuffled), near-duplicates and short chunks skipped."""
    from rapidfuzz import fuzz

    rng = random.Random(seed)
    by_source: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        if len(chunk.text.strip()) >= MIN_CHUNK_CHARS:
            by_source.setdefault(chunk.source, []).append(chunk)
    sources = sorted(by_source)
    rng.shuffle(sources)
    for source in sources:
        rng.shuffle(by_source[source])
    taken: list[str] = []
    depth = 0
    while any(depth < len(by_source[s]) for s in sources):
        for source in sources:
            if depth >= len(by_source[source]):
                continue
            chunk = by_source[source][depth]
            text = " ".join(chunk.text.split())
            if any(fuzz.token_set_ratio(text, other) >= NEAR_DUPLICATE for other in taken[-200:]):
                continue
            taken.append(text)
            yield chunk
        depth += 1


def unasked(text: str, asked: list[str]) -> str | None:
    """The longest run of the chunk's blocks (reading/blocks.py) away from what was already
    asked: for each earlier question with its answer, the block sharing most of its words and
    the blocks either side are left out. The next question is written from this run (the small
    generator, shown the whole chunk and told what was asked, asked the same question again in
    12 of 12 tries); None when the run is too short to ask about."""
    from ragmeter.reading.blocks import blocks
    from ragmeter.reading.words import content_words

    pieces = blocks(text)
    words = [content_words(b) for b in pieces]
    taken: set[int] = set()
    for qa in asked:
        wanted = content_words(qa)
        best = max(range(len(pieces)), key=lambda i: (len(words[i] & wanted), -i), default=None)
        if best is not None:
            taken.update({best - 1, best, best + 1})
    runs: list[list[str]] = [[]]
    for i, piece in enumerate(pieces):
        if i in taken:
            runs.append([])
        else:
            runs[-1].append(piece)
    run = "\n".join(max(runs, key=lambda r: sum(len(p) for p in r)))
    return run if len(run.strip()) >= MIN_CHUNK_CHARS else None


#: the most times one chunk is asked about (each round from text away from the earlier questions)
MAX_ROUNDS = 4


class _Round:
    """The items of the round in progress, handed out in order."""

    items: list[tuple[Chunk, Any]]
    position: int

    def next(self) -> tuple[Chunk, Any] | None:
        """The next chunk and what its question is written from; None at the end of a round."""
        if self.position >= len(self.items):
            return None
        self.position += 1
        return self.items[self.position - 1]


class Rounds(_Round):
    """The chunks to ask about, round after round, so that a test set reaches its size when
    the chunks run out: the first round asks about each chunk in `chunk_order`; each later
    round asks about each chunk again, written from its text away from what was asked
    (`unasked`), until no chunk has such text left or MAX_ROUNDS is reached. A round's
    questions are all known before the next round starts (`next` returns None at its end)."""

    def __init__(self, chunks: list[Chunk], seed: int) -> None:
        self.order = list(chunk_order(chunks, seed))
        self.asked: dict[str, list[str]] = {}
        #: every question written so far, normalized: one written again is not judged again
        self.written: set[str] = set()
        self.stuck: set[str] = set()
        self.round = 1
        self.items: list[tuple[Chunk, str]] = [(c, c.text) for c in self.order]
        self.position = 0

    def record(self, chunk_id: str, question: str, answer: str | None) -> None:
        """A question written from this chunk; one written before ends the chunk's rounds (the
        generator is stuck on it)."""
        if normalized(question) in self.written:
            self.stuck.add(chunk_id)
        self.asked.setdefault(chunk_id, []).append(f"{question} {answer or ''}")
        self.written.add(normalized(question))

    def advance(self) -> bool:
        """Start the next round; False when no chunk has text left to ask about."""
        if self.round >= MAX_ROUNDS:
            return False
        items = []
        for chunk in self.order:
            asked = self.asked.get(chunk.id)
            # nothing written from it, or a question written again: not again
            text = unasked(chunk.text, asked) if asked and chunk.id not in self.stuck else None
            if text is not None:
                items.append((chunk, text))
        if not items:
            return False
        self.round, self.items, self.position = self.round + 1, items, 0
        return True

    def exhausted(self) -> str:
        """Why no question is left to ask, for the stop reason."""
        chunks, rounds = len(self.order), self.round
        until = "the most rounds" if rounds >= MAX_ROUNDS else "no text was left away from its earlier questions"
        return (f"every chunk was asked about until {until} "
                f"({chunks} chunk{'s' if chunks != 1 else ''}, {rounds} round{'s' if rounds > 1 else ''}); "
                f"more, shorter chunks (a smaller --chunk-size) or more documents hold more questions")


class SpanRounds(_Round):
    """The spans to ask about (testset/spans.py), round after round: round r asks each chunk,
    in `chunk_order`, for its best span not asked yet. A span already taken from another
    chunk (the same words, where chunks overlap) is not asked again: one question per fact,
    by construction. Same interface as `Rounds`; the items are (chunk, span)."""

    def __init__(self, chunks: list[Chunk], seed: int, spans_of: Callable[[Chunk], list[Any]]) -> None:
        from ragmeter.testset.spans import key

        self.order = list(chunk_order(chunks, seed))
        self._left = {c.id: list(spans_of(c)) for c in self.order}
        self._key = key
        self.taken: set[str] = set()
        self.written: set[str] = set()
        self.round = 0
        self.items: list[tuple[Chunk, Any]] = []
        self.position = 0
        self.advance()

    def record(self, chunk_id: str, question: str, answer: str | None) -> None:
        self.written.add(normalized(question))

    def advance(self) -> bool:
        """Start the next round; False when no chunk has a span left."""
        items = []
        for chunk in self.order:
            left = self._left[chunk.id]
            while left and self._key(left[0].text) in self.taken:
                left.pop(0)
            if left:
                span = left.pop(0)
                self.taken.add(self._key(span.text))
                items.append((chunk, span))
        if not items:
            return False
        self.round, self.items, self.position = self.round + 1, items, 0
        return True

    def release(self, item: tuple[Chunk, Any]) -> tuple[Chunk, str]:
        """A span drawn for a question of another type (written from its whole chunk): put
        back, to be asked by a factoid question later; the chunk and its text."""
        chunk, span = item
        self.taken.discard(self._key(span.text))
        self._left[chunk.id].insert(0, span)
        return chunk, chunk.text

    def exhausted(self) -> str:
        from ragmeter.text import counted

        return (f"every span worth asking about was asked ({counted(len(self.order), 'chunk')}, "
                f"{counted(len(self.taken), 'span')}, {counted(self.round, 'round')}); more documents hold more "
                "questions")


def normalized(question: str) -> str:
    """A question's words, lowercased: what makes two written questions the same."""
    return " ".join(question.lower().replace("?", " ").replace("¿", " ").split())
