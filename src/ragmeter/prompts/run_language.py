"""The language a command works in, followed from the data instead of defaulting to English
(issue 76 item 1): `testset` found a corpus Spanish, then `answer`, `evaluate` and
`judge-check` on the same rows judged in English and said nothing.

In order: the language given (`--language`, a config's `language`), then the one the manifest
beside the data names (a test set's `language.used`, the answers' or a run's `language`), then
the rows' own text read by the identifier (reading/identify.py). A language read from the text
that has no built-in prompts is named, and English prompts are used, said so. Every command
says the language it uses and where it came from on its start line and in its dry run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

#: what `--language` is when the user gave none
AUTO = "auto"
FALLBACK = "english"
#: the source of the fallback where the rows' text tells no language
NOTHING_TO_TELL = "the rows' text tells no language; --language to choose"


@dataclass(frozen=True)
class Followed:
    """The language a command uses and where it came from, as its start line says it."""

    name: str
    source: str

    @property
    def worth_saying(self) -> bool:
        """Whether a start line says it: a language the data decided (not given, and not the
        fallback of rows whose text tells none: a toy or a numbers-only set)."""
        return self.source != "given" and self.source != NOTHING_TO_TELL

    def line(self) -> str:
        return f"language: {self.name} ({self.source})"

    def say(self, progress: bool | None) -> None:
        """The start line on stderr, where it is worth saying and progress is not off."""
        if progress is not False and self.worth_saying:
            import sys

            from ragmeter.text import plain

            print(plain(f"ragmeter: {self.line()}"), file=sys.stderr)

    def record(self) -> dict[str, str]:
        """The manifest's `language`: what a later command on these rows follows."""
        return {"used": self.name, "from": self.source}


def follow_language(given: str | None, data: object = None, texts: Iterable[str] = ()) -> Followed:
    """The language to use: `given` unless it is "auto" or None, else the manifest beside
    `data` (a path), else the language `texts` are written in (module docstring)."""
    from ragmeter.prompts.languages import builtin_folders, normalize_language

    if given is not None and given.strip().lower() != AUTO:
        return Followed(normalize_language(given), "given")
    found = manifest_language(data)
    if found is not None:
        return Followed(found[0], f"from {found[1]}")
    from ragmeter.reading.identify import identify_all

    read = identify_all([t for t in texts if t])
    if read is None:
        return Followed(FALLBACK, NOTHING_TO_TELL)
    if read.name in builtin_folders():
        return Followed(read.name, f"read from the rows' text, P {read.probability:.2f}")
    return Followed(FALLBACK, f"the rows read as {read.said()}, which has no built-in prompts: English ones; "
                              "--language with --prompts-dir to judge in it")


#: the manifests a language is followed from, by `kind`, and the key naming their rows' file
WRITTEN_BY_RAGMETER = {"testset": "testset_file", "answers": "answers_file", None: "results_file"}


def manifest_language(data: object) -> tuple[str, str] | None:
    """(language, the manifest's path) from the manifest.json a ragmeter command wrote beside
    the data (a test set's, the answers', a run's), if it is about this file and names a
    language with built-in prompts that was not itself a fallback; else None."""
    from ragmeter.errors import ConfigError
    from ragmeter.prompts.languages import builtin_folders, normalize_language

    if not isinstance(data, (str, Path)):
        return None
    path = Path(data).expanduser()
    manifest = (path if path.is_dir() else path.parent) / "manifest.json"
    try:
        record = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or "ragmeter_version" not in record or \
            record.get("kind") not in WRITTEN_BY_RAGMETER:
        return None
    named = record.get(WRITTEN_BY_RAGMETER[record.get("kind")])
    if path.is_file() and isinstance(named, str) and Path(named).name != path.name:
        return None  # another file's manifest in the same folder
    value = record.get("language")
    name = value.get("used") if isinstance(value, dict) else value
    source = value.get("from") if isinstance(value, dict) else record.get("language_from")
    if not isinstance(name, str) or source == NOTHING_TO_TELL:
        return None
    try:
        name = normalize_language(name)
    except ConfigError:
        return None
    return (name, str(manifest)) if name in builtin_folders() else None


def row_texts(rows: Iterable[dict[str, object]], fields: tuple[str, ...] = ("user_input", "response")) -> list[str]:
    """The rows' text a language is read from: their questions and answers."""
    out: list[str] = []
    for row in rows:
        for name in fields:
            value = row.get(name)
            if isinstance(value, str):
                out.append(value)
            elif isinstance(value, list):  # a conversation's turns
                out += [t["content"] for t in value if isinstance(t, dict) and isinstance(t.get("content"), str)]
    return out
