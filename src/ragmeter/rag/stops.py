"""Where a generated answer ends, and what ended it.

An instruct model ends its turn; a base model continuing a rendered transcript does not, and
ran every answer to --max-tokens (issue 76 item 5). Its answer ends, by the prompt's
construction, where the template's own text would begin again: a line starting with one of
its labels (the next "Question:" / "Pregunta:", "Document 3:::"), its separator line, the
judge transcript's next header (judges/render.py), or a blank line after the answer (the
transcript's end of an output); one that ran to the token limit repeating a line ends where
the repeats began. Every answer says which stop ended it (`generation_stop`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragmeter.judges.render import TRANSCRIPT_STOPS

if TYPE_CHECKING:
    from ragmeter.judges.base import JudgeReply
    from ragmeter.rag.prompt import AnswerPrompt

#: the rules' version, in the baseline's identity: answers cached under other rules are made again
ANSWER_END = 3
#: what `generation_stop` says where the model ended its turn
END_OF_TURN = "end of turn"
TOKEN_LIMIT = "token limit"
BLANK_LINE = "blank line"
#: an answer the token limit cut in a loop: a larger limit cannot end it
LOOP = "token limit, in a loop"
#: a base model's answer that went on repeating its last line: it ended where the repeats began
REPEATED_LINE = "a line repeated (the model looped from there)"
#: lines of one repeated shape a looping base model's answer keeps
KEPT_REPEATS = 3
#: the longest repeated unit, and the tail read for it (characters)
LOOP_PERIOD, LOOP_TAIL = 40, 120
#: a server that stopped at one of the stop strings without saying which
SOME_STOP = "a stop string (the server did not say which)"


def template_stops(prompt: AnswerPrompt) -> tuple[str, ...]:
    """Line starts a base model's answer ends at: the template's labels, the lead of its
    document line, and its separator lines ("---")."""
    from ragmeter.rag.prompt import labels_of

    fixed = prompt.user.replace("{context}", "").replace("{question}", "")
    first = prompt.document.split("\n")[0]
    lead = first.split("{number}")[0] if "{number}" in first else first.split("{text}")[0]
    rules = [line.strip() for line in fixed.split("\n") if line.strip() and not any(c.isalnum() for c in line)]
    words = any(c.isalpha() for c in lead)  # "Document ", never a bare "- " or "[" that lists begin with
    found = [f"{label}:" for label in labels_of(fixed)] + ([lead] if words else []) + rules
    return tuple(dict.fromkeys(f"\n{s}" for s in found))


def answer_end(reply: JudgeReply, transcript: bool) -> tuple[str, str, str]:
    """The answer, its finish reason and what ended it. A transcript's answer ends at its first
    blank line after text, so one the token limit cut there was whole."""
    text = reply.text.strip()
    cut = _blank_line(text) if transcript else -1
    if cut > 0:
        return text[:cut].rstrip(), "stop", BLANK_LINE
    repeats = _repeats_from(text) if transcript and reply.finish_reason == "length" else -1
    if repeats > 0:
        return text[:repeats].rstrip(), "stop", REPEATED_LINE
    if reply.finish_reason == "length":
        return text, "length", LOOP if loops(text) else TOKEN_LIMIT
    if reply.stop is not None:
        whose = "the transcript's" if reply.stop in TRANSCRIPT_STOPS else "the template's"
        return text, reply.finish_reason, f"{whose} {reply.stop.strip()!r}"
    return text, reply.finish_reason, SOME_STOP if transcript else END_OF_TURN


def loops(text: str) -> bool:
    """Whether the text ends in a loop: its last LOOP_TAIL characters one unit of at most
    LOOP_PERIOD repeated, as written or with every number read as one ("# 20.", "# 21.")."""
    tail = text[-LOOP_TAIL:]
    if len(tail) < LOOP_TAIL:
        return False
    return _periodic(tail) or _periodic(_numbers_as_one(text)[-LOOP_TAIL // 2:])


def _numbers_as_one(text: str) -> str:
    return "".join(c if not c.isdigit() else "0" for i, c in enumerate(text) if not (c.isdigit() and i and
                                                                                     text[i - 1].isdigit()))


def _periodic(tail: str) -> bool:
    return any(all(tail[i] == tail[i - period] for i in range(period, len(tail)))
               for period in range(1, LOOP_PERIOD + 1) if len(tail) >= 3 * period)


def _blank_line(text: str) -> int:
    """Where a transcript's answer ends: its first blank line after a paragraph that does not
    lead on (a paragraph ending in ":" leads to its list); -1 where there is none."""
    at = text.find("\n\n")
    while at > 0 and text[:at].rstrip().endswith(":"):
        at = text.find("\n\n", at + 2)
    return at


def _repeats_from(text: str) -> int:
    """Where a base model's repeating went past KEPT_REPEATS lines of one shape (numbers read as
    one: "# 2." repeats "# 1."): the offset of the next repeat, -1 where no run is that long.
    What follows adds nothing; the lines kept show the shape ("1.", "2.", "3.": a list's
    numbers, no item)."""
    at, previous, run = 0, None, 0
    for line in text.split("\n"):
        shape = _numbers_as_one(line.strip())
        run = run + 1 if shape and shape == previous else 1
        if run > KEPT_REPEATS:
            return at
        previous, at = shape or previous, at + len(line) + 1
    return -1
