"""Small text utilities every floor shares: sentences, content words, and text made safe to print."""

from __future__ import annotations

import re
from typing import Any

_ABBREVIATIONS = {"dr", "mr", "mrs", "ms", "prof", "st", "vs", "etc", "e.g", "i.e", "no", "fig", "approx",
                  "inc", "ltd", "jr", "sr", "u.s", "u.k", "sra", "dra", "ee.uu"}
_BOUNDARY = re.compile(r"(?<=[.!?。！？])[\"')\]]*\s+(?=[\"'(\[¿¡]?[A-ZÁÉÍÓÚÑÜ0-9])")


def split_sentences(text: str) -> list[str]:
    """Split on sentence-final punctuation followed by a capital or digit, not after
    common abbreviations; decimals and numbers like 8.849 or 1,000.5 stay whole."""
    text = " ".join(text.split())
    if not text:
        return []
    pieces, start = [], 0
    for match in _BOUNDARY.finditer(text):
        candidate = text[start:match.start()].strip()
        last_word = candidate.rsplit(" ", 1)[-1].rstrip(".!?").lower()
        if last_word in _ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha()):
            continue
        pieces.append(candidate)
        start = match.end()
    pieces.append(text[start:].strip())
    return [p for p in pieces if p]


_WORD = re.compile(r"\w+", re.UNICODE)
#: control characters, and the bidirectional overrides and marks that reorder what a terminal shows
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def content_words(text: str) -> set[str]:
    """Lowercased words of three or more characters: what word-overlap measures compare."""
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


def printable(value: Any) -> str:
    """Text from data or config, safe for rich and the terminal: control characters shown as
    escapes, markup escaped."""
    from rich.markup import escape

    return escape(plain(value))


def plain(value: Any) -> str:
    """Control characters shown as escapes, for print() (no rich markup to escape)."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], str(value))


def duration(seconds: float) -> str:
    """A span of time as people read it on one line: 42s, 3m05s, 1h20m (progress, estimates)."""
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def print_table(console: Any, table: Any) -> None:
    """`table` as it is when the terminal has room for each column's longest word (cells then
    wrap between words); otherwise each row folded into a block (its first cell, then
    `header: value` pairs that wrap), so no name or number is cut or broken at 80 columns."""
    from rich.padding import Padding

    narrowest = _narrowest_columns(table)
    if sum(narrowest) + 3 * len(narrowest) + 1 <= console.width:  # + padding and borders
        for column, width in zip(table.columns, narrowest):
            column.min_width = max(column.min_width or 0, width)  # rich would cut the widest column first
        console.print(table)
        return
    if table.title:
        console.print(table.title, style="bold", highlight=False)
    headers = [str(column.header) for column in table.columns]
    for cells in zip(*(list(column.cells) for column in table.columns)):
        console.print(cells[0], style="bold", highlight=False)
        pairs = [f"{header}: {value}" for header, value in zip(headers[1:], cells[1:]) if str(value) not in ("", "-")]
        console.print(Padding(" · ".join(pairs), (0, 0, 0, 2)), highlight=False)


def _narrowest_columns(table: Any) -> list[int]:
    """Each column's width with its cells wrapped between words (a no_wrap column's whole
    lines): below it rich would cut a name or a number."""
    from rich.cells import cell_len
    from rich.text import Text

    widths = []
    for column in table.columns:
        texts = [Text.from_markup(str(t)).plain for t in (column.header, *column.cells)]
        pieces = [p for t in texts for p in (t.splitlines() if column.no_wrap else t.split())]
        widths.append(max((cell_len(p) for p in pieces), default=0))
    return widths
