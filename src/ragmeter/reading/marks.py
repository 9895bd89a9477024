"""What a line of Markdown is marked as, and a sentence read without its marks: the list
marker, a heading's or a table row's line, a list item's label, emphasis, links and web
addresses. One definition each, for every reader (the test set's spans, judge-check's claims,
the converters), so that no two disagree about what a list item is (issue 74)."""

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
#: markitdown's image: ![alt](address)
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(([^)\n]*)\)")
_NOT_WORD = re.compile(r"\W")
#: an empty cell (or one reading NA, N/A, null: pandas reads them as missing) that pandas writes "NaN"
_NAN_CELL = re.compile(r"(?<=\|) NaN (?=\|)")
#: a date cell as pandas writes it, with the time of day a date has not: "1947-01-08 00:00:00"
_MIDNIGHT_CELL = re.compile(r"(?<=\| )(\d{4}-\d\d-\d\d) 00:00:00(?= \|)")
#: the name pandas gives a blank cell of the row it takes as the header
_UNNAMED_CELL = re.compile(r"(?<=\|) Unnamed: \d+ (?=\|)")


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


def images_as_alt_text(text: str) -> str:
    """Markdown images as their alt text, as pandoc writes a page; an image whose alt text is only
    its file's name as nothing: markitdown reads a PowerPoint picture with no description as its
    shape's name ("Espace réservé du contenu 16", "Picture 3"), its file named after it with the
    name's non-word characters taken out (`![Picture 3](Picture3.jpg)`), text no slide shows."""
    return _IMAGE.sub(_alt_text, text)


def _alt_text(image: re.Match[str]) -> str:
    alt, address = image.group(1), image.group(2)
    stem = address.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return "" if stem and _NOT_WORD.sub("", alt) == stem else alt


def without_nan_cells(text: str) -> str:
    """A table's cells that pandas wrote "NaN" for a missing value, empty."""
    return _NAN_CELL.sub(" ", text)


def without_unnamed_headers(text: str) -> str:
    """A table's header cells that pandas named "Unnamed: 1", "Unnamed: 2"... for a blank cell of
    the sheet's first row (its header), empty: only in a header row, the line above a separator."""
    lines = text.split("\n")
    for i in range(len(lines) - 1):
        if "Unnamed: " in lines[i] and _separator(lines[i + 1]):
            lines[i] = _UNNAMED_CELL.sub(" ", lines[i])
    return "\n".join(lines)


def dates_without_midnight(text: str) -> str:
    """A table's date cells without the " 00:00:00" pandas writes after each (it reads every date
    cell as a timestamp, whatever the cell's number format shows); any other time of day stays (a
    cell that holds exactly midnight reads as its date alone)."""
    return _MIDNIGHT_CELL.sub(r"\1", text)


def _separator(line: str) -> bool:
    """A table's line under its header: `| --- | :---: |`."""
    return table_row(line) and "-" in line and not line.replace("|", "").replace("-", "").replace(":", "").strip()
