"""Answers copied from their contexts as written: supported by construction, no judge call.

A small judge misreads verbatim copies (issue 48: a copied excerpt scored 0.14; issue 61: a
copied `[TIP]` block 0.09, a copied SQL paragraph 0.34 once list numbers were put before
it). A sentence copied from a context states exactly what the context states there, in any
language and on any kind of page, so no judgment is needed: the answer is cut into the
units a reader would stop at (reading/blocks.py `units`), the units that state nothing are
set aside (a heading, a label ending in ":", a question, a list number), and each run of
consecutive stating units must be found, as one piece, in one context. Runs are matched
whole, not unit by unit, so two copied lines put side by side that the context keeps apart
(a comment moved onto another example's code) are no copy; one changed word (`git diff`
for `git difftool`) is no copy either. Matching ignores only what a copy may change without
changing what it says: case, spacing, markup (backticks, emphasis), list markers at line
starts and a run's closing punctuation.

A copy that does not answer the question is still a faithful one (relevance is not
faithfulness: benchmarks/e2e_code/README.md's labelling rule). Short answers ("CHANGELOG.md",
"Yes.") are never decided here: too few words to be told from a coincidence, they are judged
with their question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragmeter.reading.blocks import unit_states, units
from ragmeter.reading.words import word_count

#: words a copied run must hold, each, for the answer to be decided as a copy
MIN_RUN_WORDS = 4
#: a line ending in ":" (or a heading) of at most this many words is a label, not a statement
LABEL_WORDS = 2
_MARKUP = re.compile(r"[`*_]+")
_LIST_MARK = re.compile(r"(?m)^\s*(?:[-*+•]|\d{1,3}[.)])(?:\s+|$)")
_CLOSING = ".,;:!"


@dataclass(frozen=True)
class Copy:
    """An answer found as copied runs: each run, and the context it was found in."""

    runs: tuple[str, ...]
    contexts: tuple[int, ...]


def flat(text: str) -> str:
    """Text as a copy is compared: lowercase, one space, no markup or line-start list markers."""
    return " ".join(_MARKUP.sub("", _LIST_MARK.sub("", text)).lower().split())


def copied(answer: str, contexts: list[str], cut: list[str] | None = None) -> Copy | None:
    """The answer as runs copied from `contexts`, when every unit of it that states something
    lies in such a run of at least MIN_RUN_WORDS words; else None (the judge reads it).
    `cut`: the answer's units, where the caller cut them already."""
    runs = _runs(cut if cut is not None else units(answer))
    if not runs:
        return None
    haystacks = [flat(c) for c in contexts]
    found: list[int] = []
    for n, run in enumerate(runs):
        text = _bare(run)
        where = next((i for i, h in enumerate(haystacks) if _holds(h, text)), None)
        if where is not None and word_count(text) >= MIN_RUN_WORDS:
            found.append(where)
        elif n == len(runs) - 1 and n > 0 and _holds(haystacks[found[-1]], _bare(runs[n - 1] + "\n" + run)):
            # a short last run decides nothing alone ("No" could be anyone's); it is allowed only as
            # the cut-off continuation of the run before it, in the same context ("... like this:: 2. To")
            found.append(found[-1])
        else:
            return None
    return Copy(tuple(runs), tuple(found))


def _bare(run: str) -> str:
    """A run as compared: flat, without its closing punctuation."""
    return flat(run).rstrip(_CLOSING).strip()


def _holds(haystack: str, text: str) -> bool:
    """Whether the flat context holds the flat run as whole words ("no" is not in "note")."""
    return bool(text) and re.search(rf"(?<!\w){re.escape(text)}(?!\w)", haystack) is not None


def _runs(cut: list[str]) -> list[str]:
    """Consecutive stating units joined, in order; a unit that states nothing ends a run."""
    runs: list[list[str]] = [[]]
    for unit in cut:
        if _states(unit):
            runs[-1].append(unit)
        elif runs[-1]:
            runs.append([])
    return ["\n".join(run) for run in runs if run]


def _states(unit: str) -> bool:
    """A unit that could state a fact. A question, a bare list number and a label or heading
    of at most LABEL_WORDS words ("Answer:", "## Respuesta") state nothing; a longer line
    ending in ":" does ("Use this code to delete the table:" says what the code does), so it
    must be a copy too."""
    text = unit.strip()
    if text.endswith("?") or not flat(text).strip(_CLOSING + " "):
        return False
    return unit_states(text) or word_count(text) > LABEL_WORDS
