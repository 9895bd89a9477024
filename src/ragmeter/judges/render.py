"""Flatten chat messages into a completion prompt for base models (no chat template).

The bundled Gemma 3 270M is not instruction-tuned: it follows a few-shot transcript,
and the JSON grammar shapes the reply. Every example ends with `Output: {json}`, and so
does the prompt, leaving the JSON to the model.
"""

from __future__ import annotations

from ragmeter.judges.base import Message

OUTPUT_MARK = "Output:"


def render_completion(messages: list[Message]) -> str:
    parts: list[str] = []
    examples = 0
    for index, message in enumerate(messages):
        role, content = message["role"], message["content"]
        if role == "system":
            parts.append(content.strip() + "\n")
        elif role == "user":
            last = index == len(messages) - 1
            header = "### Task" if last else f"### Example {examples + 1}"
            examples += 0 if last else 1
            parts.append(f"{header}\n{content}\n{OUTPUT_MARK} ")
        else:
            parts[-1] += content.strip() + "\n"
    return "\n".join(parts)
