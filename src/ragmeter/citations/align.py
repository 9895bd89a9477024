"""Word-level Smith-Waterman local alignment of a quote against its source.

Scores as in the Pleias evaluator (match +2, mismatch -1, gap -1) over lowercased words
with punctuation removed; normalised by 2 x the quote's words, so a verbatim quote
scores 1. The DP runs one quote word at a time over the whole source with numpy: with a
linear gap cost the left-gap term of a row is a running maximum,
H[j] = max_k(X[k] - g k) + g j, so each row is a handful of vector operations instead
of a Python loop over source words (benchmarks/bench_citations.py prints the speed-up).
"""

from __future__ import annotations

from functools import lru_cache

from ragmeter.reading.words import lower_words as words

MATCH, MISMATCH, GAP = 2, -1, -1


class SourceIndex:
    """A source encoded once (word ids as a numpy array), for aligning many quotes to it."""

    def __init__(self, source: list[str]) -> None:
        import numpy as np

        self.vocab: dict[str, int] = {}
        self.ids = np.fromiter((self.vocab.setdefault(w, len(self.vocab)) for w in source), dtype=np.int32,
                               count=len(source))

    def score(self, quote: list[str], match: int = MATCH, mismatch: int = MISMATCH, gap: int = GAP) -> int:
        """Best local alignment score of `quote` against the source (numpy, row by row)."""
        import numpy as np

        m = len(self.ids)
        if not quote or not m:
            return 0
        offsets = gap * np.arange(m + 1, dtype=np.int32)
        prev = np.zeros(m + 1, dtype=np.int32)
        x = np.zeros(m + 1, dtype=np.int32)
        best = 0
        for word in quote:
            scores = np.where(self.ids == self.vocab.get(word, -1), match, mismatch).astype(np.int32)
            np.add(prev[:-1], scores, out=x[1:])
            np.maximum(x[1:], prev[1:] + gap, out=x[1:])
            np.maximum(x, 0, out=x)
            x -= offsets
            row = np.maximum.accumulate(x)
            row += offsets
            best = max(best, int(row.max()))
            prev = row
        return best


def local_alignment_score(quote: list[str], source: list[str], match: int = MATCH, mismatch: int = MISMATCH,
                          gap: int = GAP) -> int:
    """Best local alignment score of two word sequences."""
    return SourceIndex(source).score(quote, match, mismatch, gap)


@lru_cache(maxsize=64)
def source_index(source: str) -> SourceIndex:
    """Quotes of one answer often cite the same source: encode it once."""
    return SourceIndex(words(source))


def reference_score(quote: list[str], source: list[str], match: int = MATCH, mismatch: int = MISMATCH,
                    gap: int = GAP) -> int:
    """The textbook O(n m) double loop, kept to check the fast version and to time it."""
    prev = [0] * (len(source) + 1)
    best = 0
    for q in quote:
        row = [0] * (len(source) + 1)
        for j, s in enumerate(source, start=1):
            row[j] = max(0, prev[j - 1] + (match if q == s else mismatch), prev[j] + gap, row[j - 1] + gap)
            best = max(best, row[j])
        prev = row
    return best


def reprint_ratio(quote: str, source: str) -> float:
    """1.0 for a verbatim quote (whatever its punctuation), lower as it departs from the source."""
    q = words(quote)
    if not q:
        return 0.0
    return min(1.0, source_index(source).score(q) / (MATCH * len(q)))
