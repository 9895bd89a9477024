"""A Markdown or reStructuredText document as a reader sees it rendered, before it is chunked:
inline HTML that only paints the page (`<font color=...>`, `<span style=...>`, `<div
class="termy">`) is dropped and its text kept, as an .html file's is; an include directive
that a documentation build would replace with a file (`{* ../../docs_src/app.py hl[3] *}`,
`--8<-- "snippets/x.md"`, `.. literalinclude:: ../src/x.py`) is taken out and counted, since
the text it stands for is not here to ask about.

By structure, not by a list of the pages seen: a tag is markup when it closes (`</b>`), has
attributes (`=`), is void (`<br>`), or opens an element closed later in the document; a lone
`<file>` in prose is a placeholder and stays. Code spans and code fences are programs and
stay as written, except a terminal session's fence (```console), where tags are the
terminal's colours, never the program's output; what is a fence is the document's one parse
(reading/document.py: a fence indented under a list item is code here as it is to `blocks()`).
A page's front matter (reading/front_matter.py) is the site's, not the page's: taken out,
its title kept as the page's heading; Kramdown's attribute lists (`{: datetime="..." }`,
`{:.note}`) only style what they follow and are taken out too. Every pattern here is linear in its input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragmeter.reading.document import Document
from ragmeter.reading.front_matter import front_matter, with_title

#: fences that show a terminal's session: tags in them are its colours
TERMINAL = frozenset({"console", "terminal", "shell-session", "sh-session", "ansi"})
#: one HTML tag: a name, attributes without angle brackets (bounded), an optional self-close
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]{0,30})((?:\s[^<>\n]{0,500})?)\s?(/?)>")
#: elements that never close
VOID = frozenset({"br", "hr", "wbr", "img", "input", "meta", "link", "source", "col", "area", "embed"})
#: a line that is a template directive (`{* *}`, `{! !}`, `{% %}`, `{{ }}`: a brace and a sign, never
#: a JSON object's `{"`), a snippet marker or an RST include
_DIRECTIVE = re.compile(r"^\s*(?:\{[*!%{].*[*!%}]\}|-{2,}8<-{2,}.*|\.\.\s+[\w-]*include::.*)\s*$")
#: what separates a directive's arguments: spaces, quotes, brackets and the template's signs
_ARGUMENT_GAP = re.compile(r"[\s\"'()\[\]{}*!%<>=]+")
#: a file name's suffix: what a path names
_SUFFIX = re.compile(r"\w{1,8}")
#: suffixes that name a file with no folder before them (`{% include "footer.html" %}`)
FILE_SUFFIXES = frozenset({"py", "md", "txt", "rst", "js", "ts", "json", "yml", "yaml", "toml", "html", "sh",
                           "java", "go", "rs", "c", "h", "cpp", "rb", "php", "ini", "cfg", "sql"})
#: Markdown's attribute list after a heading: `# Title { #title .class }`
_ATTRIBUTES = re.compile(r"\{\s*[#.][\w#.:= -]{0,200}\}\s*")


@dataclass
class Cleaned:
    text: str
    #: include directives taken out, as written (the first few of a document)
    includes: list[str] = field(default_factory=list)
    include_count: int = 0
    #: the front matter's keys taken out (none without one)
    front_matter: list[str] = field(default_factory=list)


def clean_markup(text: str, markdown: bool = True) -> Cleaned:
    """The document with includes taken out and, for Markdown, its front matter, presentational
    HTML and attribute lists dropped."""
    matter = front_matter(text) if markdown else None
    text = with_title(matter) if matter is not None else text
    closed = {m.group(2).lower() for m in _TAG.finditer(text) if m.group(1)} if markdown else set()
    out: list[str] = []
    cleaned = Cleaned("", front_matter=list(matter.fields) if matter is not None else [])
    body = _without_comments(text) if markdown else text
    # the parse numbers lines at \n alone, as they are split here (a \r stays on its line)
    doc = Document.of(body.replace("\r", "")) if markdown else None
    for i, line in enumerate(body.split("\n")):
        fence = doc.fence_at(i) if doc is not None else None
        if _DIRECTIVE.match(line) and _names_a_file(line):
            cleaned.include_count += 1
            if len(cleaned.includes) < 3:
                cleaned.includes.append(line.strip())
            continue
        if markdown and (fence is None or _terminal(fence.info)):
            line = _without_tags(line, closed, code_spans=fence is None)
            if fence is None and line.lstrip().startswith("#"):
                line = _without_attributes(line)
        if markdown and fence is None and "{:" in line:
            line = _without_attribute_lists(line)
            if not line.strip():
                continue  # a block attribute list's own line
        out.append(line)
    cleaned.text = "\n".join(out)
    return cleaned


def _terminal(info: str) -> bool:
    """A fence whose info string names a terminal session (```console)."""
    return bool(info) and info.split()[0].lower() in TERMINAL


def _without_attributes(heading: str) -> str:
    """A heading without its trailing `{ #anchor }`: matched from its last brace only (a
    pattern searched from every position was quadratic on a run of spaces)."""
    start = heading.rfind("{")
    if start < 0 or not _ATTRIBUTES.fullmatch(heading, start):
        return heading
    return heading[:start].rstrip()


def _without_attribute_lists(line: str) -> str:
    """The line without Kramdown's attribute lists and extensions (`{: .class}`, `{::comment}`),
    outside `code spans`; found with str.find, so linear in the line."""
    parts = line.split("`")
    for i in range(0, len(parts), 2):  # even parts are outside code spans
        kept, at, part = [], 0, parts[i]
        last = len(part.rstrip())  # a list that ends the line takes the spaces before it too
        while (start := part.find("{:", at)) >= 0 and (end := part.find("}", start)) >= 0:
            kept.append(part[at:start].rstrip(" ") if end + 1 >= last else part[at:start])
            at = end + 1
        parts[i] = "".join(kept) + part[at:]
    return "`".join(parts)


def _without_comments(text: str) -> str:
    """HTML comments (`<!-- ... -->`, over lines too) taken out; an unclosed one stays. Found
    with str.find, once each: a pattern's lazy scan would be quadratic on many unclosed ones."""
    parts, at = [], 0
    while (start := text.find("<!--", at)) >= 0 and (end := text.find("-->", start + 4)) >= 0:
        parts.append(text[at:start])
        at = end + 3
    parts.append(text[at:])
    return "".join(parts)


def _names_a_file(line: str) -> bool:
    """Whether an argument of the directive is a file: a path with a folder and a suffix, or a
    file name with a known suffix. Token by token, so linear in the line."""
    for token in _ARGUMENT_GAP.split(line):
        stem, dot, suffix = token.rpartition(".")
        if dot and stem and _SUFFIX.fullmatch(suffix) and ("/" in stem or suffix.lower() in FILE_SUFFIXES):
            return True
    return False


def _without_tags(line: str, closed: set[str], code_spans: bool) -> str:
    """The line without its markup tags; inside `code spans` nothing is touched."""
    if "<" not in line:
        return line
    parts = line.split("`") if code_spans else [line]
    for i in range(0, len(parts), 2):  # even parts are outside code spans
        parts[i] = _TAG.sub(lambda m: "" if _is_markup(m, closed) else m.group(0), parts[i])
    return "`".join(parts)


def _is_markup(tag: re.Match[str], closed: set[str]) -> bool:
    name = tag.group(2).lower()
    return bool(tag.group(1) or "=" in tag.group(3) or tag.group(4) or name in VOID or name in closed)
