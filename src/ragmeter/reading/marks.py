"""What a line of Markdown is marked as, and a sentence read without its marks: the list
marker, a heading's or a table row's line, a list item's label, emphasis, links and web
addresses. One definition each for the readers that call it (the test set's spans, judge-check's
claims, excerpts); blocks.py's line starts and copies.py's bullets keep rules of their own for
now (they cut answers, where another rule moves scores: issue 74 left them measured, not moved)."""

from __future__ import annotations

import re

#: a list item's marker, as CommonMark writes one: a bullet, or a number and "." or ")", then a space
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|(\d+)[.)])\s+")
#: a heading's line: `#`s and a space, or a setext or reStructuredText underline
_HEADING_LINE = re.compile(r"^\s*(#{1,6}\s|[=\-~^*#]{3,}\s*$)")
#: a list item's label: "**Term**: ...", "Term: ...", "Term - ..." (a few words before the mark)
_LABEL = re.compile(r"^\s*(?:\*\*|__)?([^:\n]{1,40}?)(?:\*\*|__)?\s*(?::|\s[-\u2013\u2014]\s)\s*\S")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
#: emphasis and code marks: `**`, `__`, a `*` or `_` at a word's edge, a backtick
_MARKS = re.compile(r"\*\*|__|(?<!\w)[*_](?=\S)|(?<=\S)[*_](?!\w)|`")
#: web addresses and DOIs, which hold digits and dots that are no number or name
_ADDRESS = re.compile(r"https?://\S+|\bdoi:\s*\S+|\b10\.\d{4,}/\S+", re.I)
#: a name in code: a code span, a flag, a dotted or snake_case name, camelCase
_IDENTIFIER = re.compile(r"`[^`]+`|(?<!\w)--?[a-z][\w-]*|\w+[._]\w+|[a-z]+[A-Z]\w*")
#: a short label and its colon, at the start of a line ("Keywords: ")
_LEAD = re.compile(r"^[^:]{1,40}:\s*")


def list_marker(line: str) -> str | None:
    """The line's list marker with the space after it ("- ", "2. "), None on a line that opens no item."""
    match = _LIST_MARKER.match(line)
    return match.group(0) if match else None


def item_number(line: str) -> int | None:
    """The number of a numbered list item ("2. Run it" -> 2), None on any other line."""
    match = _LIST_MARKER.match(line)
    return int(match.group(1)) if match and match.group(1) else None


def without_list_marker(line: str) -> str:
    """The line without the list marker it opens with."""
    return _LIST_MARKER.sub("", line, count=1)


def heading_line(line: str) -> bool:
    """A `#` heading's line or an underline (===, ---, ~~~)."""
    return bool(_HEADING_LINE.match(line))


def table_row(line: str) -> bool:
    return line.lstrip().startswith("|")


def labelled(item: str) -> bool:
    """Whether a list item's text opens with a label ("**Term**: ...", "Term - ...")."""
    return bool(_LABEL.match(item))


def without_marks(sentence: str) -> str:
    """The sentence as a reader reads it: its list marker, links' targets and emphasis and code
    marks dropped, one space between words."""
    text = _LINK.sub(r"\1", without_list_marker(sentence))
    return " ".join(_MARKS.sub("", text).split())


def without_addresses(text: str) -> str:
    """The text without its web addresses and DOIs."""
    return _ADDRESS.sub("", text)


def holds_digit(text: str) -> bool:
    return any(c.isdecimal() for c in text)


def holds_identifier(text: str) -> bool:
    """Whether the text names something in code: a code span, a flag, a dotted, snake_case or
    camelCase name."""
    return bool(_IDENTIFIER.search(text))


def after_lead(line: str) -> str:
    """The line without a short label before a colon ("Keywords: a; b" -> "a; b")."""
    return _LEAD.sub("", line, count=1)


def listed_pieces(text: str) -> list[str]:
    """The pieces of a line of terms, between its commas and semicolons."""
    return [p for p in text.replace(";", ",").split(",") if p.strip()]


def table_separator(line: str) -> bool:
    """A table's line under its header: `| --- | :---: |`."""
    return table_row(line) and "-" in line and not line.replace("|", "").replace("-", "").replace(":", "").strip()
