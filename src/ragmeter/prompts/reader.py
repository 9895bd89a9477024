"""The built-in reader prompts (`<lang>/rag.answer.json`, the baseline RAG's) as the text an
answer may repeat: their instructions with the placeholders and the decline sentence taken out
(saying the documents do not answer is what the reader was told to say, not an echo)."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

from ragmeter.prompts.languages import builtin_folders

#: what stands where a placeholder or the decline was: no run of words crosses it
GAP = " | "


@lru_cache(maxsize=1)
def reader_instructions() -> tuple[str, ...]:
    """Every built-in reader prompt's system and user text, as an answer could repeat them."""
    return tuple(instructions(data.get(key, ""), data.get("decline")) for data in _prompts()
                 for key in ("system", "user"))


@lru_cache(maxsize=1)
def part_names() -> frozenset[str]:
    """The words the built-in reader prompts name each retrieved document with ("Documento")."""
    from ragmeter.reading.echoes import folded

    return frozenset(w for data in _prompts() for w in folded(instructions(data.get("document", ""), None)))


@lru_cache(maxsize=1)
def _prompts() -> tuple[dict[str, str], ...]:
    root = resources.files("ragmeter.prompts")
    paths = [root.joinpath(code, "rag.answer.json") for code in builtin_folders().values()]
    return tuple(json.loads(path.read_text(encoding="utf-8")) for path in paths if path.is_file())


def instructions(text: str, decline: str | None) -> str:
    """`text` with its {placeholders} and the line that tells the reader how to decline taken
    out: an answer declining in that line's words ("the answer cannot be deduced from the
    context") declines as told, it does not repeat the prompt."""
    for placeholder in ("{context}", "{question}", "{number}", "{text}"):
        text = text.replace(placeholder, GAP)
    if decline:
        text = "\n".join(GAP if decline.casefold() in line.casefold() else line for line in text.split("\n"))
    return text
