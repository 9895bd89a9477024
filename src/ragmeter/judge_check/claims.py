"""The sentences of a context that read as claims: what judge-check copies, negates and
swaps. The context's paragraphs are read from its one parse (reading/document.py): headings,
table rows, code and HTML blocks are left out, and so is a paragraph that opens with an image,
a footnote or a tag; list markers are dropped."""

from __future__ import annotations

import re

from ragmeter.reading.document import Document
from ragmeter.reading.marks import list_marker, without_list_marker
from ragmeter.reading.sentences import split_sentences, starts_sentence

#: claim-like sentences: long enough to assert something, short enough to be one claim
MIN_WORDS, MAX_WORDS = 6, 60
#: what a piece of markup opens with: a heading, a table row, a tag, an image, a footnote
_MARKUP_OPENERS = ("#", "|", "<", "![", "[^")
#: a whole sentence ends with its stop (a chunk's cut-off end does not); it opens as sentences
#: do, in any script (_opens)
_ENDS = re.compile(r"[.!?。！？][\"')*]?$")


def claim_sentences(text: str) -> list[str]:
    """The context's whole sentences that read as claims: markup lines (headings, tables,
    code, HTML) left out, list markers dropped, 6-60 words, mostly letters, opening with a
    capital (or digit) and ending with a stop (a chunk cut mid-sentence gives neither)."""
    found = []
    for paragraph in _paragraphs(text):
        for sentence in split_sentences(paragraph):
            words = sentence.split()
            if MIN_WORDS <= len(words) <= MAX_WORDS and _opens(sentence) and _ENDS.search(sentence) and \
                    sum(c.isalpha() for c in sentence) > len(sentence) / 2:
                found.append(sentence)
    return found


def _opens(sentence: str) -> bool:
    """It opens as a sentence does: after an opening mark, a sentence's first letter or digit in
    any script (reading/sentences.py: starts_sentence), or a code span."""
    text = sentence.lstrip("\"'(¿¡*")
    return bool(text) and (text[0] == "`" or starts_sentence(text[0])) and len(sentence) - len(text) <= 1


def _paragraphs(text: str) -> list[str]:
    """The text's lines outside code fences (the parse's, as blocks() reads them), cut at blank
    lines and before each line that opens a list item, a heading or a table row, a list item's
    marker dropped; a piece that opens with markup (a heading, a table row, a tag, an image, a
    footnote) is left out. Indented lines stay prose: in a retrieved context they are more often
    a plain text's margin than code."""
    out: list[str] = []
    for fenced, lines in Document.of(text).segments:
        if fenced:
            continue
        piece: list[str] = []
        for line in [*lines, ""]:
            if piece and (not line.strip() or _opens_piece(line)):
                paragraph = "\n".join(piece)
                if not paragraph.lstrip().startswith(_MARKUP_OPENERS):
                    out.append(paragraph)
                piece = []
            if line.strip():
                piece.append(without_list_marker(line) if not piece else line)
    return out


def _opens_piece(line: str) -> bool:
    return bool(list_marker(line)) or line.lstrip().startswith(("# ", "| "))
