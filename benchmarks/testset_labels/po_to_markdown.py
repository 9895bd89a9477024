"""How benchmarks/testset_labels/new/es/*.md were made from python-docs-es's .po files: each
translated paragraph (msgstr) in the order of the page, an untranslated one in English as
the published page shows it, Sphinx roles reduced to their text (`:mod:`venv`` -> `venv`).
A .po file does not keep the page's headings as headings, so an entry is written as one
("#" for the first, "##" after) when its English original is short and ends without
punctuation: that is how the tutorial's section titles look. Code blocks are not translated
and so are not in the .po: the pages have prose only.

    python benchmarks/testset_labels/po_to_markdown.py tutorial/venv.po > venv.md
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROLE = re.compile(r":(?:[a-z]+:)?[a-z]+:`!?~?([^`<]*?)(?:\s*<[^>]*>)?`")


def entries(text: str) -> list[tuple[str, str]]:
    """(msgid, msgstr) pairs in file order, the header entry aside."""
    out, current, field = [], {"msgid": "", "msgstr": ""}, None
    for line in text.splitlines() + [""]:
        if line.startswith(("msgid ", "msgstr ")):
            field, _, rest = line.partition(" ")
            if field == "msgid" and current["msgid"]:
                out.append((current["msgid"], current["msgstr"]))
                current = {"msgid": "", "msgstr": ""}
            current[field] = _unquote(rest)
        elif line.startswith('"') and field:
            current[field] += _unquote(line)
        elif not line.strip() and field == "msgstr":
            if current["msgid"]:
                out.append((current["msgid"], current["msgstr"]))
            current, field = {"msgid": "", "msgstr": ""}, None
    return out


def _unquote(part: str) -> str:
    return part.strip()[1:-1].replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")


def markdown(text: str) -> str:
    lines, first = [], True
    for msgid, msgstr in entries(text):
        shown = ROLE.sub(r"`\1`", msgstr or msgid)
        heading = len(msgid) < 60 and "\n" not in msgid and not msgid.rstrip().endswith((".", ":", "?", "!", ")"))
        if heading:
            shown, first = ("# " if first else "## ") + shown, False
        lines.append(shown)
    return "\n\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown(Path(sys.argv[1]).read_text(encoding="utf-8")))
