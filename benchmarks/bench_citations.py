"""Speed of citation_reprint's alignment: quotes per second, numpy row-vectorised
Smith-Waterman against the textbook pure-Python double loop, on long sources.

    python benchmarks/bench_citations.py [--source-words 5000] [--quotes 40]
"""

from __future__ import annotations

import argparse
import random
import time

from ragmeter.citations.align import SourceIndex, local_alignment_score, reference_score


def make_case(rng: random.Random, source_words: int, quotes: int) -> tuple[list[str], list[list[str]]]:
    vocab = [f"w{i}" for i in range(3000)]
    source = [rng.choice(vocab) for _ in range(source_words)]
    qs = []
    for i in range(quotes):
        n = rng.randint(10, 40)
        start = rng.randrange(0, source_words - n)
        quote = source[start:start + n]
        if i % 2:  # half the quotes are edited: a few words replaced
            quote = [rng.choice(vocab) if rng.random() < 0.2 else w for w in quote]
        qs.append(quote)
    return source, qs


def rate(fn, source: list[str], quotes: list[list[str]]) -> tuple[float, list[int]]:
    start = time.perf_counter()
    scores = [fn(q, source) for q in quotes]
    return len(quotes) / (time.perf_counter() - start), scores


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--source-words", type=int, default=5000)
    parser.add_argument("--quotes", type=int, default=40)
    args = parser.parse_args()
    source, quotes = make_case(random.Random(0), args.source_words, args.quotes)
    fast, fast_scores = rate(local_alignment_score, source, quotes)
    index = SourceIndex(source)
    indexed, indexed_scores = rate(lambda q, _: index.score(q), source, quotes)
    slow, slow_scores = rate(reference_score, source, quotes)
    assert fast_scores == slow_scores == indexed_scores, "the fast alignment disagrees with the textbook DP"
    print(f"source of {args.source_words} words, {args.quotes} quotes of 10-40 words (half edited); scores identical")
    print(f"numpy, source encoded once (as citation_reprint does): {indexed:8.1f} quotes/s "
          f"({indexed / slow:.1f}x)")
    print(f"numpy, source encoded per quote                      : {fast:8.1f} quotes/s ({fast / slow:.1f}x)")
    print(f"pure-Python DP                                       : {slow:8.1f} quotes/s")


if __name__ == "__main__":
    main()
