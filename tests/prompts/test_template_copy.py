"""An edited copy of a prompt is a prompt of its own: its hash (the cache key) and its messages."""

from __future__ import annotations

from ragmeter.prompts.template import builtin_prompt


def test_a_copy_with_other_examples_has_its_own_version_and_messages():
    base = builtin_prompt("aspect_critic", "verdict", "english")
    inputs = {"criterion": "c", "question": "q", "answer": "a"}
    first = base.messages(inputs)  # memoises the version's inputs and the rendered prefix
    version = base.version
    copy = base.model_copy(update={"examples": tuple(reversed(base.examples))})
    assert copy.version != version
    assert copy.messages(inputs)[1] == first[-3]  # the last example comes first now
    assert base.version == version and base.messages(inputs) == first
