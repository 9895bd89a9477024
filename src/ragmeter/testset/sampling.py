"""Which chunks questions are asked about: a seeded order that spreads over sources (no
source gets a second chunk before every source has one), skipping chunks too short to ask
about and near-duplicates of chunks already taken (repeated boilerplate across pages)."""

from __future__ import annotations

import random
from collections.abc import Iterator

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
