"""The module map in docs/architecture.md, generated from each module's docstring so the map
always matches the tree (tests/test_layout.py compares them). Rewrite it with:

    python -m tests.architecture_map
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "ragmeter"
DOC = ROOT / "docs" / "architecture.md"
START = "<!-- module-map:start (generated: python -m tests.architecture_map) -->"
END = "<!-- module-map:end -->"
SUMMARY_MAX = 160


def summary(path: Path) -> str:
    """The docstring's first sentence, on one line, for a table cell."""
    text = " ".join((ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "").split())
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    first = first if len(first) <= SUMMARY_MAX else first[:SUMMARY_MAX - 1].rstrip() + "…"
    return first.replace("|", "\\|")


def markdown() -> str:
    modules = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
    rows = [f"| `{p.relative_to(PACKAGE).as_posix()}` | {summary(p)} |" for p in modules]
    return "\n".join([START, "| module | what it is for |", "|---|---|", *rows, END])


def rewrite() -> None:
    text = DOC.read_text(encoding="utf-8")
    if START in text:
        text = text[:text.index(START)] + markdown() + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n## Every module\n\nGenerated from each module's docstring:\n\n" + markdown() + "\n"
    DOC.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    rewrite()
