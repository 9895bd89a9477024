"""Word-level Smith-Waterman local alignment of a quote against its source.

Scores as in the Pleias evaluator (match +2, mismatch -1, gap -1) over lowercased words
with punctuation removed; normalised by 2 x the quote's words, so a verbatim quote
scores 1. The DP runs one quote word at a time over the whole source with numpy: with a
linear gap cost the left-gap term of a row is a running maximum,
H[j] = max_k(X[k] - g k) + g j, so each row is a handful of vector operations instead
of a Python loop over source words (benchmarks/bench_citations.py prints the speed-up).
"""

from __future__ import annotations

import re

MATCH, MISMATCH, GAP = 2, -1, -1
_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> list[str]:
    """Lowercased words; punctuation and spacing do not count."""
    return _WORD.findall(text.lower())


def local_alignment_score(quote: list[str], source: list[str], match: int = MATCH, mismatch: int = MISMATCH,
                          gap: int = GAP) -> int:
    """Best local alignment score of two word sequences (numpy, row by row)."""
    import numpy as np

    if not quote or not source:
        return 0
    vocab: dict[str, int] = {}
    src = np.fromiter((vocab.setdefault(w, len(vocab)) for w in source), dtype=np.int64, count=len(source))
    m = len(source)
    offsets = gap * np.arange(m + 1, dtype=np.int64)
    prev = np.zeros(m + 1, dtype=np.int64)
    best = 0
    for word in quote:
        qid = vocab.get(word, -1)
        scores = np.where(src == qid, match, mismatch)
        x = np.zeros(m + 1, dtype=np.int64)
        np.maximum(prev[:-1] + scores, prev[1:] + gap, out=x[1:])
        np.maximum(x, 0, out=x)
        row = np.maximum.accumulate(x - offsets) + offsets
        best = max(best, int(row.max()))
        prev = row
    return best


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
    return min(1.0, local_alignment_score(q, words(source)) / (MATCH * len(q)))
