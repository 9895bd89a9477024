"""A document's outline read from its markup, the same in every language: headings of
Markdown (`#` lines and lines underlined with = or -), reStructuredText (a line under- or
over-and-underlined with one punctuation character, levels in order of first use), and of
a rendered manual page (an unindented short line over an indented body); its title from
front matter (`title:` in a YAML block or a `Title:` header line, as PEPs and RFCs carry)
or its first heading. A test-set question is written from a chunk in the middle of a page:
the outline names what that chunk is about (testset/subjects.py)."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from ragmeter.reading.document import Document

#: a Sphinx or reStructuredText role (`:mod:`!textwrap``) -> its text
_ROLE = re.compile(r":[\w:.-]+:`[!~]?([^`<]*?)\s*(?:<[^>]*>)?`")
_MARKUP = re.compile(r"[*`]+|\\(?=\S)")
_ATX = re.compile(r"(#{1,6})[ \t]+(\S.*?)[ \t]*#*[ \t]*$")
_HEADER = re.compile(r"title[ \t]*:[ \t]*(\S.*)$", re.I)
#: `.. name:: object(signature)`: the object's name
_DIRECTIVE = re.compile(r"([ \t]*)\.\. [\w:-]+:: ([A-Za-z_][\w.]*)(?:\(.*)?[ \t\\]*$")
#: described objects nest below every heading level (by their indentation among themselves)
DESCRIBED_LEVEL = 10
#: a heading line is short: longer lines are prose, whatever follows them
HEADING_MAX = 120


@dataclass(frozen=True)
class Heading:
    start: int  # offset of the heading's first line in the document
    level: int  # 1 is the outermost
    text: str


@dataclass(frozen=True)
class Outline:
    title: str | None
    headings: tuple[Heading, ...]

    def path_at(self, position: int) -> list[str]:
        """The headings that enclose `position`: the nearest one above it of each level,
        outermost first (a later heading of a level closes the deeper ones)."""
        return [h.text for h in self.enclosing(position)]

    def enclosing(self, position: int) -> list[Heading]:
        starts = [h.start for h in self.headings]
        path: list[Heading] = []
        for heading in self.headings[: bisect_right(starts, position)]:
            path = [h for h in path if h.level < heading.level] + [heading]
        return path


def outline(text: str) -> Outline:
    """The title and headings of `text`, by its markup alone."""
    found = _headings(text)
    return Outline(_front_matter_title(text) or (found[0].text if found else None), tuple(found))


def clean(line: str) -> str:
    """A heading's words without their markup: roles, emphasis, code marks, escapes."""
    return " ".join(_MARKUP.sub("", _ROLE.sub(r"\1", line)).split())


def _headings(text: str) -> list[Heading]:
    doc = Document.of(text)
    offsets, stripped = doc.offsets, doc.lines
    following = _following(stripped)
    body_indented = _mostly_indented(stripped)
    # Markdown (a `#` heading anywhere) ranks = over -; reStructuredText ranks styles as they come
    atx = {i: level for i, level in doc.heading_lines.items() if stripped[i].startswith("#")}
    underline_levels: dict[tuple[str, bool], int] = {("=", False): 1, ("-", False): 2} if atx else {}
    found: list[Heading] = []
    for i, line in enumerate(stripped):
        if i in doc.fences:
            continue
        heading = _atx(line, atx.get(i)) or _underlined(stripped, i, underline_levels) \
            or _described(line, following[i]) or (_man_section(line, following[i]) if body_indented else None)
        if heading and (text_ := clean(heading[1])) and len(text_) <= HEADING_MAX:
            found.append(Heading(offsets[i], heading[0], text_))
    return found


def _atx(line: str, level: int | None) -> tuple[int, str] | None:
    """A `#` heading the parse found on this line (not one inside code, HTML or a list item):
    its level and its text without the closing #s."""
    match = _ATX.match(line) if level else None
    return (level, match.group(2)) if level and match else None


def _underlined(lines: list[str], i: int, levels: dict[tuple[str, bool], int]) -> tuple[int, str] | None:
    """Line i as a title underlined (and maybe overlined) by one repeated punctuation
    character at least as long as it; levels numbered in the order styles first appear."""
    if i + 1 >= len(lines) or not lines[i].strip() or _is_rule(lines[i]):
        return None
    under = lines[i + 1]
    if not _is_rule(under) or len(under.rstrip()) < len(lines[i].rstrip()):
        return None
    overlined = i > 0 and _is_rule(lines[i - 1]) and lines[i - 1].strip()[0] == under.strip()[0]
    if not overlined and i > 0 and lines[i - 1].strip() and not _is_rule(lines[i - 1]):
        return None  # a line inside a paragraph, underlined: a table border, not a title
    style = (under.strip()[0], overlined)
    levels.setdefault(style, len(levels) + 1)
    return levels[style], lines[i].strip()


def _following(lines: list[str]) -> list[str]:
    """For each line, the next line that holds text ("" after the last): read once, backwards,
    so a document of many short sections is not rescanned for each (linear time)."""
    out, after = [""] * len(lines), ""
    for i in range(len(lines) - 1, -1, -1):
        out[i] = after
        if lines[i].strip():
            after = lines[i]
    return out


def _described(line: str, following: str) -> tuple[int, str] | None:
    """A reStructuredText directive that describes a named object (`.. function:: wrap(text)`,
    `.. attribute:: width`): its argument is a name, maybe with a signature, and its body is
    indented below it; nested by indentation under the headings above. An API reference's
    sections are these."""
    match = _DIRECTIVE.match(line)
    if not match:
        return None
    indent = len(match.group(1))
    if len(following) - len(following.lstrip()) <= indent:
        return None
    return DESCRIBED_LEVEL + indent, match.group(2)


def _is_rule(line: str) -> bool:
    """A line of one punctuation character repeated, three or more times."""
    s = line.strip()
    return len(s) >= 3 and len(set(s)) == 1 and not s[0].isalnum() and not s[0].isspace()


def _mostly_indented(lines: list[str]) -> bool:
    """A rendered manual page: most of its text is indented under unindented section names."""
    text = [line for line in lines if line.strip()]
    return len(text) >= 10 and sum(line[:1] in (" ", "\t") for line in text) > 0.6 * len(text)


def _man_section(line: str, following: str) -> tuple[int, str] | None:
    if not line[:1].isalnum() or len(line.split()) > 6 or line.rstrip()[-1] in ".,:;!?)":
        return None
    return (1, line.strip()) if following[:1] in (" ", "\t") else None


def _front_matter_title(text: str) -> str | None:
    """`title:` in the document's leading block: YAML front matter between --- lines, or a
    header block of `Key: value` lines (a PEP's, an RFC's) ending at the first blank line."""
    lines = text.lstrip("\ufeff").splitlines()
    if lines and lines[0].strip() == "---":
        block = lines[1: next((n for n, line in enumerate(lines[1:], 1) if line.strip() == "---"), 1)]
    else:
        block = lines[: next((n for n, line in enumerate(lines) if not line.strip()), len(lines))]
        if not block or not all(re.match(r"[\w-]+:(?:\s|$)|\s", line) for line in block):
            return None
    for line in block:
        if match := _HEADER.match(line):
            return clean(match.group(1).strip().strip("'\""))
    return None
