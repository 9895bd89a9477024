"""The parts of long contexts a claim is about: evidence selection before verification.

A small judge reads a claim against a few sentences far better than against thousands of
characters of retrieved chunks (the bundled Qwen's verbatim-copy answers read 0.46 among
five 500-character chunks and 0.70 against one: docs/judge-check.md). Fact
verification pipelines select evidence sentences before they verify (FEVER; MiniCheck
checks a claim chunk by chunk), and so does this: for each sentence of the claim, the
context sentences that share the most of its words, each with the sentence before it (for
what "it" or "they" refers to), in the contexts' own order. One context that fits the budget
is sent whole, so a short single context is judged exactly as before; several contexts are
always cut, however short, because a handful of one-line contexts confused the judge as
much as long ones (copied sentences read a median 0.56 among three short contexts).
"""

from __future__ import annotations

import math
import re

from ragmeter.text import split_sentences

#: a single context up to this many characters is sent whole
BUDGET_CHARS = 400
#: context sentences kept per claim sentence: the best, and others scoring at least this share of it
PER_CLAIM = 2
NEAR_BEST = 0.6
GAP = " … "
_WORD = re.compile(r"\w+", re.UNICODE)
#: where markdown and plain text break between sentences that have no stop: blank lines,
#: list items, headings, table rows
_BLOCKS = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*+#|>]|\d+[.)])\s)")


def words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text) if len(w) > 2 or w.isdigit()]


def excerpts(claim: str, contexts: list[str], budget: int = BUDGET_CHARS) -> list[str]:
    """The contexts to show a judge for `claim`: one context that fits `budget` whole, else
    each context cut to its sentences most like the claim's (a context with none left out)."""
    if len(contexts) <= 1 and sum(len(c) for c in contexts) <= budget:
        return contexts
    sentences = [context_sentences(c) for c in contexts]
    bags = [[set(words(s)) for s in per] for per in sentences]  # each sentence's words, split once
    weight = _idf([bag for per in bags for bag in per])
    chosen: set[tuple[int, int]] = set()
    for part in split_sentences(claim) or [claim]:
        wanted = set(words(part))
        ranked = sorted(((_overlap(wanted, bag, weight), c, i) for c, per in enumerate(bags)
                         for i, bag in enumerate(per)), reverse=True)
        best = ranked[0][0] if ranked else 0.0
        for score, c, i in ranked[:PER_CLAIM]:
            if score > 0 and score >= NEAR_BEST * best:
                chosen.update({(c, i), (c, i - 1)} if i > 0 else {(c, i)})
    out = []
    for c, per in enumerate(sentences):
        kept = sorted(i for cc, i in chosen if cc == c)
        if kept:
            out.append(_join(per, kept))
    return out or contexts


def context_sentences(text: str) -> list[str]:
    """Sentences, also where markdown separates them by a line break rather than a stop."""
    return [s for block in _BLOCKS.split(text) for s in split_sentences(block)]


def _idf(bags: list[set[str]]) -> dict[str, float]:
    """Rarer words weigh more: a shared 'judge' says less than a shared '5,895'."""
    counts: dict[str, int] = {}
    for bag in bags:
        for word in bag:
            counts[word] = counts.get(word, 0) + 1
    total = len(bags) + 1
    return {w: math.log(total / n) + 1.0 for w, n in counts.items()}


def _overlap(wanted: set[str], bag: set[str], weight: dict[str, float]) -> float:
    """Weighted share of the claim's words the sentence holds."""
    if not wanted:
        return 0.0
    found = wanted & bag
    return sum(weight.get(w, 1.0) for w in found) / sum(weight.get(w, 1.0) for w in wanted)


def _join(sentences: list[str], kept: list[int]) -> str:
    """The kept sentences in order, with a gap mark where sentences were left out."""
    parts: list[str] = []
    last = -1
    for i in kept:
        if parts and i != last + 1:
            parts.append(GAP.strip())
        parts.append(sentences[i])
        last = i
    text = " ".join(parts)
    return (GAP.strip() + " " if kept[0] > 0 else "") + text + (" " + GAP.strip() if last < len(sentences) - 1 else "")
