"""Flatten chat messages into a completion prompt for base models (no chat template).

The bundled Gemma 3 270M is not instruction-tuned: it follows a few-shot transcript,
and the JSON grammar shapes the reply. Every example ends with `Output: {json}`, and so
does the prompt, leaving the JSON to the model.
"""

from __future__ import annotations

from ragmeter.judges.base import JudgeRequest, Message

OUTPUT_MARK = "Output:"
#: where a base model's free text ends in the transcript: the next example's or task's header,
#: or the next output mark; neither can be part of the reply, by the transcript's construction
TRANSCRIPT_STOPS = ("\n### ", f"\n{OUTPUT_MARK}")
#: stop strings a completions server takes at most (OpenAI's and TGI's limit): the rest are cut
#: from the reply by the client
MAX_STOPS = 4


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


def completion_text(request: JudgeRequest) -> str:
    """The text a completion backend sends: the raw prompt if given, else the rendered messages."""
    return request.prompt if request.prompt is not None else render_completion(request.messages)


def transcript_stops(request: JudgeRequest) -> tuple[str, ...]:
    """The request's stop strings, and where it is free text rendered as a transcript (no raw
    prompt, no schema), the transcript's own ends: a base model never ends its turn itself."""
    if request.prompt is not None or request.schema is not None or not request.messages:
        return request.stop
    return request.stop + tuple(s for s in TRANSCRIPT_STOPS if s not in request.stop)


def first_stop(text: str, stop: tuple[str, ...]) -> str | None:
    """The stop string found first in `text` (None where none is)."""
    found = [(i, s) for s in stop if s and (i := text.find(s)) >= 0]
    return min(found)[1] if found else None


def cut_at_stop(text: str, stop: tuple[str, ...]) -> tuple[str, str | None]:
    """The text before the first stop string, and that string (None where none was found)."""
    found = first_stop(text, stop)
    return (text[:text.find(found)], found) if found else (text, None)


def said_stop(choice: dict[str, object]) -> str | None:
    """The stop string a server says ended a completion (vLLM's `stop_reason`; a token id
    there, or no field, says nothing of which string)."""
    value = choice.get("stop_reason")
    return value if isinstance(value, str) else None
