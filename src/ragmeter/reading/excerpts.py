"""The parts of long contexts a claim is about: evidence selection before verification.

A small judge reads a claim against a few sentences far better than against thousands of
characters of retrieved chunks (the bundled Qwen's verbatim-copy answers read 0.46 among
five 500-character chunks and 0.70 against one: docs/judge-check.md). Fact
verification pipelines select evidence sentences before they verify (FEVER; MiniCheck
checks a claim chunk by chunk), and so does this: for each sentence of the claim, the
context sentences that share the most of its words, each with the sentence before it (for
what "it" or "they" refers to), in the contexts' own order. Contexts are cut into the blocks
a reader would cite (reading/blocks.py: a code block, a table row, a list item, a sentence),
and words are matched as a reader matches them: identifiers whole and in their parts
(`dpkg-split`, `dpkg`, `split`), and by their first letters (`configure`, `configuration`;
`selecciona`, `seleccionar`). One context that fits the budget
is sent whole, so a short single context is judged exactly as before; several contexts are
always cut, however short, because a handful of one-line contexts confused the judge as
much as long ones (copied sentences read a median 0.56 among three short contexts).
"""

from __future__ import annotations

import math
import re

from ragmeter.reading.blocks import blocks
from ragmeter.reading.literals import literals
from ragmeter.reading.marks import item_number
from ragmeter.reading.sentences import split_sentences
from ragmeter.reading.shapes import URL as _URL
from ragmeter.reading.words import match_words as words

#: a single context up to this many characters is sent whole
BUDGET_CHARS = 400
#: context sentences kept per claim sentence: the best, and others scoring at least this share of it
PER_CLAIM = 2
MAX_PER_CLAIM, WORDS_PER_BLOCK = 4, 10
#: a line up to this long that ends in ":" (or is in capitals) introduces the block after it
INTRO_MAX = 80
NEAR_BEST = 0.6
#: a literal detail found in more blocks than this says little about where the claim comes from
MAX_DETAIL_BLOCKS = 3
GAP = " … "
#: the question's words count this much against the claim's own in choosing sentences
QUESTION_WEIGHT = 0.5
#: and a sentence's own share of claim and question words this much (a tie-break by focus)
FOCUS = 0.1


def sentence_words(sentence: str, keep_urls: bool) -> set[str]:
    """A context sentence's words for matching; the words inside its web addresses count only
    when the claim itself holds one (else a URL line that repeats a project's name outranks
    the sentence that says what the project is)."""
    return set(words(sentence if keep_urls else _URL.sub(" ", sentence)))


def excerpts(claim: str, contexts: list[str], budget: int = BUDGET_CHARS, question: str | None = None,
             cut: list[list[str]] | None = None) -> list[str]:
    """The contexts to show a judge for `claim`: one context that fits `budget` whole, else
    each context cut to its blocks most like the claim's (a context with none left out).
    The question's words help choose (at QUESTION_WEIGHT): a one-word answer says little
    about where it comes from, its question says the rest. `cut`: each context's blocks,
    where the caller cut them already (a row's contexts are cut once for every reader)."""
    if len(contexts) <= 1 and sum(len(c) for c in contexts) <= budget:
        return contexts
    sentences = cut if cut is not None else [blocks(c) for c in contexts]
    keep_urls = bool(_URL.search(claim))
    bags = [[sentence_words(s, keep_urls) for s in per] for per in sentences]  # each sentence's words, split once
    weight = _idf([bag for per in bags for bag in per])
    asked = set(words(question or ""))
    chosen: set[tuple[int, int]] = set()
    for part in _pieces(claim) or [claim]:
        wanted = set(words(part))
        ranked = sorted(((_rank(wanted, asked, bag, weight), c, i) for c, per in enumerate(bags)
                         for i, bag in enumerate(per)), reverse=True)
        best = ranked[0][0] if ranked else 0.0
        for score, c, i in ranked[:_per_claim(part)]:
            if score > 0 and score >= NEAR_BEST * best:
                chosen.update(_with_neighbours(sentences[c], c, i))
    chosen.update(_holding_details(claim, sentences))
    out = []
    for c, per in enumerate(sentences):
        kept = sorted(i for cc, i in chosen if cc == c)
        if kept:
            out.append(_join(per, kept))
    return out or contexts


def _holding_details(claim: str, sentences: list[list[str]]) -> set[tuple[int, int]]:
    """Every block holding one of the claim's literal details as written (an identifier, an
    option, a number, a name in code), at most MAX_DETAIL_BLOCKS per detail: word overlap ranks
    by the words a question and its answer share, and a question in Spanish over a line in
    English shares none but the identifier, which is the line that decides the claim."""
    found: set[tuple[int, int]] = set()
    for detail in literals(claim):
        url = bool(_URL.fullmatch(detail))
        needle = re.compile(rf"(?<![\w-]){re.escape(detail)}(?![\w-])", re.IGNORECASE)
        hits = [(c, i) for c, per in enumerate(sentences) for i, block in enumerate(per)
                if needle.search(block if url else _URL.sub(" ", block))]  # a name inside a web address is no mention
        if len(hits) <= MAX_DETAIL_BLOCKS:
            for c, i in hits:
                found.update(_with_neighbours(sentences[c], c, i))
    return found


def _per_claim(part: str) -> int:
    """Blocks kept per claim sentence: one per WORDS_PER_BLOCK of its words, at least
    PER_CLAIM and at most MAX_PER_CLAIM (a long sentence naming three people needs three)."""
    return max(PER_CLAIM, min(MAX_PER_CLAIM, len(part.split()) // WORDS_PER_BLOCK))


def _with_neighbours(blocks_of: list[str], c: int, i: int) -> set[tuple[int, int]]:
    """A chosen block with the one before it (what "it" refers to, or its heading), and the
    one after it where the chosen block only introduces it: a heading, or a short line ending
    in ":", says nothing alone, and a code block after a sentence is what the sentence shows."""
    out = {(c, i), (c, i - 1)} if i > 0 else {(c, i)}
    if i + 1 < len(blocks_of) and (_introduces(blocks_of[i]) or _is_code(blocks_of[i + 1])):
        out.add((c, i + 1))
    return out


def _introduces(block: str) -> bool:
    text = block.strip()
    short = "\n" not in text and len(text) <= INTRO_MAX
    return text.startswith("#") or (short and (text.endswith(":") or text.isupper()))


def _own_line(block: str) -> bool:
    """Blocks shown on lines of their own: several lines (code, an option), headings, list
    items, table rows, and short lines that introduce what follows; sentences run on."""
    text = block.strip()
    listed = text.startswith(("-", "*", "+", "|", ">")) or item_number(text) is not None
    return "\n" in text or _introduces(text) or listed


def _is_code(block: str) -> bool:
    return block.lstrip().startswith(("```", "~~~", "$ ", ">>> "))


def _rank(wanted: set[str], asked: set[str], bag: set[str], weight: dict[str, float]) -> float:
    """How well a sentence holds the claim: the weighted share of the claim's words it holds,
    then of the question's (less), then, a little, the share of its own words that are the
    claim's or question's: of two sentences holding the claim, the focused one (a sentence,
    not a licence paragraph or a list of links) ranks first."""
    if not bag:
        return 0.0
    focus = _overlap(bag, wanted | asked, weight)
    return _overlap(wanted, bag, weight) + QUESTION_WEIGHT * _overlap(asked - wanted, bag, weight) + FOCUS * focus


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


def _pieces(claim: str) -> list[str]:
    """What evidence is chosen for, one at a time: the claim's sentences, its code and list
    lines as blocks, and a table row's cells one by one (a row of three statements is three
    statements, however it is drawn)."""
    return [s for b in blocks(claim) for cell in _cells(b) for s in ([cell] if "\n" in cell else split_sentences(cell))]


def _cells(block: str) -> list[str]:
    """A one-line table row's cells; any other block as it is."""
    line = block.strip()
    if "\n" in line or not (line.startswith("|") and line.endswith("|") and line.count("|") >= 3):
        return [block]
    return [cell.strip() for cell in line.strip("|").split("|") if cell.strip()]


def _join(sentences: list[str], kept: list[int]) -> str:
    """The kept blocks in order, with a gap mark where blocks were left out; a block of
    several lines (code, a table, an option) on lines of its own."""
    parts: list[str] = []
    last = -1
    for i in kept:
        if parts and i != last + 1:
            parts.append(GAP.strip())
        parts.append(sentences[i])
        last = i
    text = ""
    for i, part in enumerate(parts):
        own_line = _own_line(part) or (i > 0 and _own_line(parts[i - 1]))
        text += ("\n" if own_line else " ") + part if i else part
    return (GAP.strip() + " " if kept[0] > 0 else "") + text + (" " + GAP.strip() if last < len(sentences) - 1 else "")
