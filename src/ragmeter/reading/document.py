"""One parse of a text, which every structural reader reads: where its code fences, headings,
list items, table rows and HTML blocks are.

Markdown was read by hand in five places that disagreed about what a code fence or a list
item is (issue 74): a fenced HTML block indented under a list item was code to `blocks()` but
had its tags stripped from the test-set corpus, so a test set could ask about code the page
does not hold. A Markdown text is now parsed once, by markdown-it-py (CommonMark exactly, with
GitHub's tables), into typed blocks with their line spans; a plain text (kind "text") is
paragraphs between blank lines. reStructuredText and manual pages have no CommonMark parse:
their headings are read by reading/outline.py's rules over the same lines. A Document is cached
by its text, so an answer and each of its contexts are parsed once per row however many readers
read them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar, overload

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

Kind = Literal["markdown", "text"]
#: documents kept parsed: a row's answer and contexts, and the rows around it
CACHED = 256
#: a text longer than this (a whole document, not a row's answer or chunk) is parsed each time
#: it is asked for, never kept: 256 documents of megabytes would hold gigabytes
CACHED_CHARS = 100_000
_BREAK = re.compile(r"\r\n|\r|\n")
T = TypeVar("T")


class _view(Generic[T]):
    """A view of a Document worked out on first use and kept on it: functools.cached_property
    without the lock Python 3.11 holds across every instance of a class (a long context parsed
    on a worker thread would hold up every other text's parse)."""

    def __init__(self, compute: Callable[[Any], T]) -> None:
        self.compute, self.__doc__ = compute, compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _view[T]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...

    def __get__(self, obj: object, owner: type | None = None) -> T | _view[T]:
        if obj is None:
            return self
        value = self.compute(obj)
        obj.__dict__[self.name] = value  # a frozen dataclass: kept beside its fields, not set on them
        return value
#: token types of markdown-it that open a block worth a Block, and the kind they give
_KINDS = {"heading_open": "heading", "fence": "fence", "code_block": "code", "list_item_open": "list_item",
          "tr_open": "table_row", "html_block": "html", "paragraph_open": "paragraph", "blockquote_open": "quote",
          "hr": "rule"}


@dataclass(frozen=True)
class Block:
    """A block of the text and its lines [start, end): kind is heading, fence, code (indented),
    list_item, table_row, html, paragraph, quote or rule; a heading's level (1-6); a fence's info
    string ("html", "console"); a list item's marker ("-", "1."); how deep it is nested."""

    kind: str
    start: int
    end: int
    level: int = 0
    info: str = ""
    marker: str = ""
    depth: int = 0


@dataclass(frozen=True, eq=False)
class Document:
    text: str
    kind: Kind = "markdown"

    @staticmethod
    def of(text: str, kind: Kind = "markdown") -> Document:
        """The text's one parse, cached (up to CACHED_CHARS): every reader of the same text
        shares it."""
        return _kept(text, kind) if cacheable(text) else Document(text, kind)

    @_view
    def lines(self) -> list[str]:
        """The text's lines as the parse numbers them (\\r\\n and \\r read as \\n)."""
        return _normalized(self.text).split("\n")

    @_view
    def offsets(self) -> list[int]:
        """Where each line starts in the text as given (after \\n, \\r\\n or a lone \\r)."""
        return [0] + [m.end() for m in _BREAK.finditer(self.text)]

    @_view
    def blocks(self) -> tuple[Block, ...]:
        """Every block in document order, containers before what they hold (a list item, then its
        paragraph)."""
        if self.kind == "text":
            return tuple(_paragraphs(self.lines))
        out = []
        for token in _parser().parse(_normalized(self.text)):
            kind = _KINDS.get(token.type)
            if kind is None or token.map is None:
                continue
            start, end = token.map
            level = int(token.tag[1]) if kind == "heading" else 0
            marker = (token.info + token.markup if token.info else token.markup) if kind == "list_item" else ""
            info = token.info.strip() if kind == "fence" else ""
            out.append(Block(kind, start, end, level, info, marker, token.level))
        return tuple(out)

    @_view
    def fences(self) -> dict[int, Block]:
        """Each line of a fenced code block (its fences included) and the block."""
        return {i: b for b in self.blocks if b.kind == "fence" for i in range(b.start, b.end)}

    @_view
    def segments(self) -> list[tuple[bool, list[str]]]:
        """Runs of lines in order: (True, one fenced code block with its fences) or (False, the
        lines between fences); a fence left open runs to the end. Between the parse's fences, a
        line that opens with ``` or ~~~ still opens one (loose_fences): an answer's fence
        indented under its prose line or inside <details> is no fence to CommonMark, yet it
        holds code a reader reads whole."""
        out: list[tuple[bool, list[str]]] = []
        at = 0
        for block in (b for b in self.blocks if b.kind == "fence"):
            if block.start > at:
                out += loose_fences(self.lines[at:block.start])
            out.append((True, self.lines[block.start:block.end]))
            at = block.end
        if at < len(self.lines):
            out += loose_fences(self.lines[at:])
        return out

    def fence_at(self, line: int) -> Block | None:
        """The fenced code block that holds line `line`, if one does."""
        return self.fences.get(line)

    @_view
    def heading_lines(self) -> dict[int, int]:
        """Each heading's first line and its level (an ATX heading's line, a setext heading's text)."""
        return {b.start: b.level for b in self.blocks if b.kind == "heading"}


def cacheable(text: str) -> bool:
    """Whether a text is short enough to keep its parse and views (CACHED_CHARS)."""
    return len(text) <= CACHED_CHARS


@lru_cache(maxsize=CACHED)
def _kept(text: str, kind: Kind) -> Document:
    return Document(text, kind)


_LOOSE_FENCE = re.compile(r"^\s*(```|~~~)")


def loose_fences(lines: list[str]) -> list[tuple[bool, list[str]]]:
    """`lines` cut at fences CommonMark does not read (indented past a paragraph's line, inside
    an HTML block): a line opening with ``` or ~~~ after any indent, to the next line that
    opens with the same run; one left open runs to the end (the readers' rule before the
    parse)."""
    out: list[tuple[bool, list[str]]] = []
    current: list[str] = []
    fence: str | None = None
    for line in lines:
        opener = _LOOSE_FENCE.match(line)
        if fence is None and opener:
            if current:
                out.append((False, current))
            current, fence = [line], opener.group(1)
        elif fence is not None:
            current.append(line)
            if line.strip().startswith(fence) and len(current) > 1:
                out.append((True, current))
                current, fence = [], None
        else:
            current.append(line)
    if current:
        out.append((fence is not None, current))
    return out


def _normalized(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _paragraphs(lines: list[str]) -> list[Block]:
    """A plain text's paragraphs: runs of lines between blank lines."""
    out, start = [], None
    for i, line in enumerate([*lines, ""]):
        if line.strip() and start is None:
            start = i
        elif not line.strip() and start is not None:
            out.append(Block("paragraph", start, i))
            start = None
    return out


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    """CommonMark with tables, built once (markdown-it-py imported on first use); blocks only:
    the inline parse (emphasis, links) is not read here, and was quadratic on a line of `<`."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").disable(["inline", "text_join"])
