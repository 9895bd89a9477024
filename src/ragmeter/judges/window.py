"""Fitting a prompt into the judge's window: the contexts are cut, never the question,
the answer or the statements."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragmeter.errors import UnparseableReply
from ragmeter.judges.base import Judge, Message, Prompt

TRUNCATION_MARK = " [...]"


def fit_to_window(prompt: Prompt, inputs: Mapping[str, object], judge: Judge,
                  schema: dict[str, object], max_tokens: int, structured: bool = True) -> tuple[list[Message], bool]:
    """Shorten the prompt's truncatable fields (contexts) until prompt + reply fit the window.

    Policy: each truncatable text keeps its beginning and loses its end, all cut by the same
    ratio, marked with " [...]". Questions, answers and statements are never cut.
    """
    with_schema = None if judge.constrained and structured else schema
    messages = prompt.messages(inputs, with_schema, schema)
    window = judge.context_window
    if window is None:
        return messages, False
    budget = window - max_tokens
    truncated = False
    for _ in range(6):
        used = judge.count_messages(messages)
        if used <= budget:
            return messages, truncated
        inputs = _shrink(prompt, inputs, used, budget, judge)
        truncated = True
        messages = prompt.messages(inputs, with_schema, schema)
    raise UnparseableReply(f"prompt needs {judge.count_messages(messages)} tokens; the judge's window "
                           f"is {window} with {max_tokens} kept for the reply, even after truncating contexts")


def _shrink(prompt: Prompt, inputs: Mapping[str, object], used: int, budget: int, judge: Judge) -> dict[str, object]:
    texts = [t for f in prompt.truncatable for t in _as_list(inputs[f])]
    movable = sum(judge.count_tokens(t) for t in texts)
    keep = max(0.0, (movable - (used - budget) - 16) / max(movable, 1))
    out = dict(inputs)
    for field in prompt.truncatable:
        value = inputs[field]
        cut = [_cut(t, keep) for t in _as_list(value)]
        out[field] = cut if isinstance(value, list) else cut[0]
    return out


def _as_list(value: Any) -> list[str]:
    return value if isinstance(value, list) else [value]


def _cut(text: str, keep: float) -> str:
    if text.endswith(TRUNCATION_MARK):
        text = text[: -len(TRUNCATION_MARK)]
    return text[: int(len(text) * keep)] + TRUNCATION_MARK
