"""Text cut where a reader would cite it: a code block, a table row, a list item, a heading,
an option of a manual page, a short paragraph, or a sentence of a long one.

A sentence splitter alone breaks what real documents hold: a fenced code block became
fragments joined with the prose around them, a table lost its rows, a command line
(`zstd --train FILES`) went into the sentence before it. A claim about a class in a code
block, or about a function's printed value, was then judged against excerpts that did not
hold the code (issue 48). The same cut gives an answer's parts: its sentences, list items
and lines, each judged on its own so one invented detail is one failed part.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from ragmeter.reading.document import CACHED, Document, cacheable
from ragmeter.reading.languages import abbreviations
from ragmeter.reading.sentences import split_sentences, starts_sentence
from ragmeter.reading.words import plain, word_count

#: a fenced code block up to this many characters is one block; longer ones are cut into runs of lines
CODE_MAX = 500
#: a paragraph or list item up to this many characters is one block; longer prose is cut into sentences
WHOLE_MAX = 250
#: lines that start a block of their own: headings, table rows, list items, quotes, HTML,
#: prompts and REPL lines, reStructuredText directives, options of a manual page
_STARTS = re.compile(r"^\s*(?:#{1,6}\s|\||[-*+]\s|\d+[.)]\s|>\s|<[A-Za-z!/]|\$\s|>>>\s|\.\.\s|--?[A-Za-z0-9])")
_UNDERLINE = re.compile(r"^\s*([=\-~^*#])\1{2,}\s*$")
_CODE_CHARS = re.compile(r"[(){}\[\];=<>$]|^\s{4,}\S|::")


def blocks(text: str) -> list[str]:
    """The blocks of `text` in order: fenced code whole (or in runs of lines), other lines
    grouped into paragraphs, each paragraph cut into its items (headings, table rows, list
    items...), an item longer than WHOLE_MAX cut into sentences unless it looks like code.
    Cut once per text (a row's answer and contexts are read by several steps), a new list each
    call."""
    return _cut_once(_blocks, text)


def _cut_once(cut: Callable[[str, frozenset[str]], tuple[str, ...]], text: str) -> list[str]:
    """`cut` (an lru_cache'd reader) for `text` under the abbreviations in force, kept where the
    text is short enough to keep (document.cacheable), worked out afresh for a whole document."""
    known = abbreviations()
    return list(cut(text, known) if cacheable(text) else cut.__wrapped__(text, known))  # type: ignore[attr-defined]


@lru_cache(maxsize=CACHED)
def _blocks(text: str, known: frozenset[str]) -> tuple[str, ...]:
    """blocks(), kept per text and per the abbreviations that end no sentence (a language
    registered later changes where sentences end)."""
    out: list[str] = []
    for fenced, lines in Document.of(text).segments:
        if fenced:
            out.extend(_runs(lines, CODE_MAX))
            continue
        for item in _items(lines):
            out.extend(_cut(item))
    return tuple(b for b in out if b.strip())


def parts(answer: str, merge: bool = True) -> tuple[list[str], int]:
    """An answer's parts to judge one by one, and how many repeats were dropped: its blocks,
    a fragment of under four words joined to the part before it (a list item "- bytes" is no
    claim alone; `merge=False` where each part is judged with its lead and the part before it
    instead), each part once."""
    seen: set[str] = set()
    pieces = []
    every = _answer_pieces(answer)
    for piece in every:
        key = plain(piece)
        if key not in seen:
            seen.add(key)
            pieces.append(piece)
    if not merge:
        return pieces, len(every) - len(pieces)
    merged: list[str] = []
    for piece in pieces:
        if merged and _few_words(piece):
            merged[-1] = f"{merged[-1]}\n{piece}"
        else:
            merged.append(piece)
    if len(merged) > 1 and _few_words(merged[0]):  # a short lead ("Options:") joins what follows
        merged[:2] = [f"{merged[0]}\n{merged[1]}"]
    return merged, len(every) - len(pieces)


def with_leads(pieces: list[str], scaffolding: frozenset[str] = frozenset()) -> list[str]:
    """Each stating piece with the label it stands under ("The formats are:"), so that judged
    alone it still says what the answer says ("- CSV" under "Formats:" claims a format); a label
    or a heading states nothing alone and is no piece of its own, nor is a list number. A heading
    leads nothing (its excerpt may not show it), nor does the answer's own label (`scaffolding`:
    "answer", "respuesta")."""
    out: list[str] = []
    lead = ""
    for piece in pieces:
        first, _, rest = piece.partition("\n")
        if not unit_states(first):  # a heading or a label ending in ":"; only a label leads what follows
            label = first.strip()
            lead = label if label.endswith(":") and label.rstrip(":").lower() not in scaffolding else ""
            piece = rest.strip()
        if not any(c.isalpha() for c in piece):  # a list number ("1.") or a rule states nothing
            continue
        out.append(f"{lead}\n{piece}" if lead else piece)
    return out


def units(answer: str) -> list[str]:
    """An answer cut at every place a reader could stop reading it: its code blocks whole,
    every other line and each sentence of it, and a bracketed group that ends a line after
    prose (`... GPL {"verdict": 1}`, `... [tag]`, `... <tag>1</tag>`) apart from what it
    follows. Nothing is merged or dropped: faithfulness judges the answer without its last
    or first units as well, so that nothing added at either end can raise its score. Cut once
    per text, a new list each call."""
    return _cut_once(_units, answer)


@lru_cache(maxsize=CACHED)
def _units(answer: str, known: frozenset[str]) -> tuple[str, ...]:
    """units(), kept as _blocks is."""
    out: list[str] = []
    for fenced, lines in Document.of(answer).segments:
        if fenced:
            out.append("\n".join(lines).strip())
            continue
        for line in lines:
            out += [u for sentence in split_sentences(line) for part in _stops(sentence)
                    for u in _split_trailing_group(part)]
    return tuple(u for u in out if u.strip())


#: a sentence's stop followed by anything but a lowercase letter: "...in Rome. ✅ Verified", which
#: the sentence splitter (a capital or a digit next) leaves whole
_STOP = re.compile(r"(?<=[.!?])\s+(?=[^\s_])")


def _stops(sentence: str) -> list[str]:
    """The sentence cut at each stop followed by a mark or a sentence's first letter or digit
    (reading/sentences.py: starts_sentence), in any script."""
    parts, start = [], 0
    for match in _STOP.finditer(sentence):
        after = sentence[match.end()]
        if after.isalnum() and not starts_sentence(after):
            continue
        parts.append(sentence[start:match.start()])
        start = match.end()
    return parts + [sentence[start:]]


def states_something(answer: str) -> bool:
    """Whether any unit of the answer could state a fact: one with a word that is not only
    a label or a heading introducing what follows (":", ".", "Thought process:", "Answer:",
    "## Answer" state nothing)."""
    return any(unit_states(u) for u in units(answer))


def unit_states(unit: str) -> bool:
    """Whether one unit could state a fact (states_something, for units already cut)."""
    return bool(word_count(unit)) and not unit.rstrip().endswith(":") and not unit.lstrip().startswith("#")


#: a line's closing bracketed group: an opener after a space, the matching closer at the end
_CLOSERS = {"{": "}", "[": "]", "<": ">", "(": ")"}


def _split_trailing_group(piece: str) -> list[str]:
    """`prose {group}` as [prose, {group}] where the group runs to the end of the piece (a
    full stop or other closing punctuation after it aside) and the prose holds a word."""
    if "\n" in piece:
        return [piece]
    end = piece.rstrip().rstrip(".!?;,")
    for at, char in enumerate(piece):
        if char in _CLOSERS and at > 0 and piece[at - 1] == " " and end.endswith(_CLOSERS[char]):
            head = piece[:at].strip()
            return [head, piece[at:].strip()] if word_count(head) else [piece]
    return [piece]


def _few_words(text: str) -> bool:
    return word_count(text) < 4


def _answer_pieces(answer: str) -> list[str]:
    """An answer's code blocks whole, everything else in sentences (a list item with the
    lines that continue it read as one)."""
    out: list[str] = []
    for fenced, lines in Document.of(answer).segments:
        if fenced:
            out.append("\n".join(lines).strip())
        else:
            out.extend(s for item in _items(lines) for s in split_sentences("\n".join(item)))
    return [p for p in out if p.strip()]


def _items(lines: list[str]) -> list[list[str]]:
    """Paragraphs (split at blank lines), each cut at every line that starts an item of its
    own; a line indented under an item continues it; a heading's underline stays with it."""
    items: list[list[str]] = []
    current: list[str] = []
    for line in lines:
        if not line.strip():
            if current:
                items.append(current)
            current = []
            continue
        if current and _UNDERLINE.match(line):
            current.append(line)
            items.append(current)
            current = []
            continue
        if current and _STARTS.match(line) and not _continues(current, line):
            items.append(current)
            current = []
        current.append(line)
    if current:
        items.append(current)
    return items


def _continues(current: list[str], line: str) -> bool:
    """A line indented deeper than its item's first line continues it (a list item's second
    line, a manual page option's description), unless it is a table row or a code line."""
    first = current[0]
    indent = len(line) - len(line.lstrip())
    return indent > len(first) - len(first.lstrip()) and not line.lstrip().startswith(("|", "$ ", ">>> "))


def _cut(item: list[str]) -> list[str]:
    """An item whole when short, in runs of lines when it looks like code, else in sentences."""
    text = "\n".join(line.rstrip() for line in item)
    if len(text) <= WHOLE_MAX:
        return [_dedent(text)]
    if sum(bool(_CODE_CHARS.search(line)) for line in item) * 2 > len(item):
        return _runs(item, CODE_MAX)
    return split_sentences(text)


def _runs(lines: list[str], limit: int) -> list[str]:
    """Consecutive lines grouped up to `limit` characters (a longer line alone)."""
    out: list[str] = []
    current: list[str] = []
    size = 0
    for line in lines:
        if current and size + len(line) + 1 > limit:
            out.append(_dedent("\n".join(current)))
            current, size = [], 0
        current.append(line.rstrip())
        size += len(line) + 1
    if current:
        out.append(_dedent("\n".join(current)))
    return out


def _dedent(text: str) -> str:
    """The block without the indentation all its lines share (a manual page's margin)."""
    lines = text.splitlines()
    margin = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return "\n".join(line[margin:] for line in lines).strip("\n")
