"""What a converter writes into a document's Markdown that the document does not hold, taken
out again: a picture's shape name as its text (markitdown, PowerPoint), pandas' "NaN" for an
empty cell, "Unnamed: 1" for a blank header cell and " 00:00:00" after a date (markitdown,
spreadsheets). testset/converters.py calls these after each converter (issue 74)."""

from __future__ import annotations

import re

from ragmeter.reading.marks import table_separator

#: markitdown's image: ![alt](address)
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(([^)\n]*)\)")
_NOT_WORD = re.compile(r"\W")
#: an empty cell (or one reading NA, N/A, null: pandas reads them as missing) that pandas writes "NaN"
_NAN_CELL = re.compile(r"(?<=\|) NaN (?=\|)")
#: a date cell as pandas writes it, with the time of day a date has not: "1947-01-08 00:00:00"
_MIDNIGHT_CELL = re.compile(r"(?<=\| )(\d{4}-\d\d-\d\d) 00:00:00(?= \|)")
#: the name pandas gives a blank cell of the row it takes as the header
_UNNAMED_CELL = re.compile(r"(?<=\|) Unnamed: \d+ (?=\|)")


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
        if "Unnamed: " in lines[i] and table_separator(lines[i + 1]):
            lines[i] = _UNNAMED_CELL.sub(" ", lines[i])
    return "\n".join(lines)


def dates_without_midnight(text: str) -> str:
    """A table's date cells without the " 00:00:00" pandas writes after each (it reads every date
    cell as a timestamp, whatever the cell's number format shows); any other time of day stays (a
    cell that holds exactly midnight reads as its date alone)."""
    return _MIDNIGHT_CELL.sub(r"\1", text)
