"""The answers a test-set question is written for, chosen in the chunk before any question
exists, with no model (issue 73): each sentence or list item of the chunk's prose that states
something a reader would look up. The reference answer of the question is that span as the
chunk writes it (markup aside), so a reference the chunk does not hold cannot be written,
and a fact is asked once: the same span in two overlapping chunks is one span.

A span is not asked when it is a heading, the document's title, code, a table row, a
question, a lead ending in a colon, a run of names (mostly capitalised words: an author list), a
line of terms (keywords), too short to state a fact or too long to be an answer.
Spans are ranked by what they hold, by their shape alone (the same in every language): a
number, a name or identifier, a term defined by a list item's label, a numbered step; a
sentence holding none of these is still asked, after them."""

from __future__ import annotations

from dataclasses import dataclass

from ragmeter.reading.document import Document
from ragmeter.reading.marks import (
    after_lead,
    heading_line,
    holds_digit,
    holds_identifier,
    item_number,
    labelled,
    list_marker,
    listed_pieces,
    table_row,
    without_addresses,
    without_list_marker,
    without_marks,
)
from ragmeter.reading.sentences import split_sentences
from ragmeter.reading.words import tokens

#: a span's bounds: fewer words state no fact; more characters are no answer to one question
MIN_WORDS, MAX_CHARS = 6, 300


@dataclass(frozen=True)
class Span:
    """One answer to ask about: the span as the chunk writes it (whitespace and markup
    folded), the sentence before it (what "it" refers to), and what it holds."""

    text: str
    before: str
    holds: tuple[str, ...]
    position: int
    #: where its item starts in the chunk (characters): the section it stands in is read there
    offset: int = 0

    @property
    def passage(self) -> str:
        """The span with the sentence before it: what the writer and the answerability check read."""
        return f"{self.before} {self.text}".strip()


def spans(text: str, title: str | None = None, edges: tuple[bool, bool] = (True, True)) -> list[Span]:
    """The chunk's spans worth asking about, best first (more kinds of detail held, then
    earlier in the chunk). `edges`: whether the chunk starts and ends at a line's edge in its
    document; a chunk cut inside a line holds a piece of a sentence at that end, not asked."""
    found: list[Span] = []
    before = ""
    items = _prose(text)
    last = len(items) - 1
    for n, (piece, step, offset) in enumerate(items):
        sentences = split_sentences(piece)
        for i, sentence in enumerate(sentences):
            shown = _plain(sentence)
            at_start, at_end = (n, i) == (0, 0), (n, i) == (last, len(sentences) - 1)
            if _whole(shown, not edges[0] and at_start, not edges[1] and at_end) and _askable(shown, title):
                found.append(Span(shown, before, _holds(sentence, shown, step), len(found), offset))
            before = shown
    return sorted(found, key=lambda s: (-len(s.holds), s.position))


#: how a sentence ends
_ENDS = (".", "!", "?", ")", '"', "\u201d", "\u00bb", ";")


def _whole(shown: str, cut_before: bool, cut_after: bool) -> bool:
    """A sentence as its document writes it: not begun in the chunk before (a lowercase start,
    or the chunk's first words where it begins inside a line), not cut at the chunk's end."""
    return not shown[:1].islower() and not cut_before and (not cut_after or shown.endswith(_ENDS))


def _prose(text: str) -> list[tuple[str, bool, int]]:
    """The chunk's prose items (a paragraph's lines joined, a list item with the lines that
    continue it) with whether each is a numbered step and where it starts in the chunk; code,
    headings and table rows left out."""
    out: list[tuple[str, bool, int]] = []
    doc = Document.of(text)
    at = 0  # the line's number in the chunk: where it starts is read from the parse (a \r\n is two characters)
    for fenced, lines in doc.segments:
        if fenced:
            at += len(lines)
            continue
        item: list[str] = []
        start = 0
        for line in lines + [""]:
            prose = bool(line.strip()) and not (heading_line(line) or table_row(line)
                                                or _code_line(line, bool(item) and bool(list_marker(item[0]))))
            if item and (not prose or list_marker(line)):
                out.append(_item(item, start))
                item = []
            if prose:
                start = doc.offsets[at] if not item else start
                item.append(line.strip())
            at += 1
        at -= 1  # the "" appended above is no line of the chunk
    return out


def _item(lines: list[str], start: int) -> tuple[str, bool, int]:
    return " ".join(lines), item_number(lines[0]) is not None, start


def _code_line(line: str, in_list_item: bool) -> bool:
    """An indented code line (indented text continues a list item instead), a prompt or REPL
    line, a directive, markup: not prose."""
    indented = line.startswith(("    ", "\t")) and not list_marker(line) and not in_list_item
    return indented or line.lstrip().startswith(("$ ", ">>> ", ".. ", "<"))


def _plain(sentence: str) -> str:
    """The sentence as a reader reads it: list marks, links' targets and emphasis marks dropped."""
    return without_marks(sentence)


def _holds(sentence: str, shown: str, step: bool) -> tuple[str, ...]:
    """The kinds of detail a span holds, read from its shape: a number, a name (an identifier
    or a word capitalised past the sentence's first), a defined term (a list item's label),
    a numbered step."""
    holds = []
    if holds_digit(without_addresses(shown)):
        holds.append("number")
    words = tokens(shown)
    if holds_identifier(sentence) or any(w[:1].isupper() and len(w) > 1 for w in words[1:]):
        holds.append("name")
    if list_marker(sentence) and labelled(without_list_marker(sentence)):
        holds.append("term")
    if step:
        holds.append("step")
    return tuple(holds)


def _askable(shown: str, title: str | None) -> bool:
    """Whether a span states something to ask about: enough words, short enough to be an
    answer, no question, no lead into a list, not the document's title, not a bare address."""
    if len(tokens(shown)) < MIN_WORDS or len(shown) > MAX_CHARS:
        return False
    if shown.rstrip().endswith(("?", ":")) or shown.lstrip().startswith("¿"):
        return False
    if title and " ".join(tokens(shown)).lower() == " ".join(tokens(title)).lower():
        return False
    if _mostly_names(shown) or _term_list(shown):
        return False
    return len(tokens(without_addresses(shown))) >= MIN_WORDS


def _mostly_names(shown: str) -> bool:
    """A line whose words are mostly capitalised is a run of names or a title (an author list,
    a keyword line), which states nothing to ask about; prose is mostly lowercase."""
    words = [w for w in tokens(shown) if w[:1].isalpha()]
    return sum(w[:1].isupper() for w in words) * 2 > len(words)


def _term_list(shown: str) -> bool:
    """A line of terms ("Keywords: spirometry; children; Puerto Rico"): after a label, every
    piece between commas or semicolons is three words or fewer; it states nothing. A
    sentence with a list in it ("Common fixed periods are 3, 5, 7, and 10 years.") has a
    longer piece."""
    pieces = listed_pieces(after_lead(shown).rstrip("."))
    return len(pieces) > 1 and all(len(tokens(p)) <= 3 for p in pieces)


def sentences(text: str) -> list[str]:
    """Every sentence of the chunk's prose as a reader reads it (askable or not), in order."""
    return [_plain(sentence) for piece, _, _ in _prose(text) for sentence in split_sentences(piece)]


def key(span_text: str) -> str:
    """What makes two spans the same fact: their words, lowercased."""
    return " ".join(w.lower() for w in tokens(span_text))


def prose_key(text: str) -> str:
    """A chunk's prose as its spans are keyed (markup and link targets dropped), to find a
    span in it."""
    return key(" ".join(sentences(text)))


def holds(text_key: str, span_key: str) -> bool:
    """Whether a text holds a span, both as `key` gives them, whole words only."""
    return f" {span_key} " in f" {text_key} "
