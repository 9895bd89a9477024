"""A page's front matter: the YAML (`---`) or TOML (`+++`) block a static-site generator
(Jekyll, Hugo, MkDocs, Docusaurus) reads before the page, and never shows as its text.

By structure: the block opens on the document's first line and closes on a line of the same
marker (YAML's `...` too), and it parses as a mapping; anything else is page text and stays
(a Markdown page may open with a thematic break). The title it gives is what the site shows
as the page's heading, so it stands there; every other key (`redirect_from:` paths, dates,
layouts) is the site's, not the page's.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the front matter's opening marker, and the lines that may close it
_CLOSERS = {"---": ("---", "..."), "+++": ("+++",)}
#: the keys a site shows as the page's heading, by preference
TITLE_KEYS = ("title", "name")


@dataclass(frozen=True)
class FrontMatter:
    """The block's keys (none when the page has no front matter) and the page after it."""

    fields: dict[str, object]
    body: str
    #: lines the block took, its markers included (0 without one)
    lines: int = 0

    @property
    def title(self) -> str | None:
        for key in TITLE_KEYS:
            value = self.fields.get(key)
            if isinstance(value, str) and value.strip():
                return " ".join(value.split())
        return None


def front_matter(text: str) -> FrontMatter:
    """The page's front matter split from its text; the text unchanged without one."""
    lines = text.lstrip("\ufeff").split("\n")
    marker = lines[0].rstrip() if lines else ""
    if marker not in _CLOSERS:
        return FrontMatter({}, text)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in _CLOSERS[marker]), None)
    if end is None:
        return FrontMatter({}, text)
    fields = _parsed("\n".join(lines[1:end]), marker)
    if fields is None:
        return FrontMatter({}, text)
    return FrontMatter(fields, "\n".join(lines[end + 1:]), end + 1)


def with_title(matter: FrontMatter) -> str:
    """The page as its site shows it: the front matter's title as its first heading where the
    page opens without one of its own, the rest of the block taken out."""
    title = matter.title
    if not matter.lines or title is None or _opens_with_heading(matter.body):
        return matter.body
    return f"# {title}\n\n{matter.body.lstrip(chr(10))}"


def _parsed(block: str, marker: str) -> dict[str, object] | None:
    """The block's mapping, or None where it does not parse as one (then it is page text)."""
    try:
        if marker == "+++":
            import tomllib

            value: object = tomllib.loads(block)
        else:
            import yaml

            value = yaml.safe_load(block) if block.strip() else {}
    except Exception:  # a YAML or TOML error of any kind: not front matter
        return None
    return value if isinstance(value, dict) else None


def _opens_with_heading(body: str) -> bool:
    first = next((line.strip() for line in body.split("\n") if line.strip()), "")
    return first.startswith("# ") or first == "#"
