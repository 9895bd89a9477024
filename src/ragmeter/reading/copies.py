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

A copy holds by construction only where it says what the context says there (issue 77): a run
must start where a sentence or line of the context starts and end where one ends, so a copy
that drops a "not", a condition ("If the disk is full, ..."), an attribution ("Some forums claim
that ...") or a qualifier after its clause is no copy; and a label over a run ("Redis:") is part
of the run and must stand over it in the context too (another entity's label over a sentence
is no copy). Only the covered languages' own answer labels ("Answer:", "Respuesta:") are
scaffolding, wherever they stand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragmeter.reading.blocks import unit_states, units
from ragmeter.reading.languages import covered
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
    haystacks = [flat_lines(c) for c in contexts]
    found: list[int] = []
    for n, run in enumerate(runs):
        text = _bare(run)
        where = next((i for i, h in enumerate(haystacks) if _holds(h, text)), None)
        if where is not None and word_count(text) >= MIN_RUN_WORDS:
            found.append(where)
        elif n == len(runs) - 1 and n > 0 and _holds(haystacks[found[-1]], _bare(runs[n - 1] + "\n" + run), cut=True):
            # a short last run decides nothing alone ("No" could be anyone's); it is allowed only as
            # the cut-off continuation of the run before it, in the same context ("... like this:: 2. To")
            found.append(found[-1])
        else:
            return None
    return Copy(tuple(runs), tuple(found))


def _bare(run: str) -> str:
    """A run as compared: flat, without its closing punctuation."""
    return flat(run).rstrip(_CLOSING).strip()


def flat_lines(text: str) -> str:
    """A context as a copy is compared (`flat`), its line breaks kept: a run must start and end
    where a line or a sentence does."""
    return "\n".join(f for line in text.splitlines() if (f := flat(line)))


def _holds(haystack: str, text: str, cut: bool = False) -> bool:
    """Whether the flat context holds the flat run from the start of one of its sentences or
    lines to the end of one ("set debug" is no copy of "do not set debug", nor "delete it" of
    "delete it if the disk is full"); `cut`: an answer cut off mid-sentence, whole words to
    its end."""
    if not text:
        return False
    body = r"\s+".join(re.escape(w) for w in text.split())
    return re.search(rf"{_STARTS_AT}{body}{_WORD_END if cut else _ENDS_AT}", haystack) is not None


#: where a copied run may start and end in a flat context: a line's or a sentence's edges
_STARTS_AT = r"(?:^|(?<=\n)|(?<=[.!?:;] )|(?<=[.!?:;]\)\s))"
_ENDS_AT = r"(?=[.!?:;]|\s*\n|\s*$)"
_WORD_END = r"(?!\w)"


def _runs(cut: list[str]) -> list[str]:
    """Consecutive stating units joined, in order; a unit that states nothing ends a run, and a
    label with words ("Redis:") starts the next one, unless it is an answer label ("Answer:")."""
    runs: list[list[str]] = [[]]
    for unit in cut:
        if _states(unit):
            runs[-1].append(unit)
        elif word_count(unit) and not unit.strip().endswith("?") and _bare(unit).strip("# ") not in scaffolding():
            runs.append([unit])
        elif runs[-1]:
            runs.append([])
    return ["\n".join(run) for run in runs if run and any(_states(u) for u in run)]


def scaffolding() -> frozenset[str]:
    """The covered languages' answer labels, flat ("answer", "respuesta")."""
    return frozenset(flat(v.samples.heading).strip("# ") for v in covered().values())


def _states(unit: str) -> bool:
    """A unit that could state a fact. A question, a bare list number and a label or heading
    of at most LABEL_WORDS words ("Answer:", "## Respuesta") state nothing; a longer line
    ending in ":" does ("Use this code to delete the table:" says what the code does), so it
    must be a copy too."""
    text = unit.strip()
    if text.endswith("?") or not flat(text).strip(_CLOSING + " "):
        return False
    return unit_states(text) or word_count(text) > LABEL_WORDS
