"""A judge's reply as data: the reply schema a prompt's output model makes (closed, cached
per model), its label fields, and the reply text parsed into that model (the first JSON
object, validated; never a guessed value), with known secrets redacted first."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ragmeter.errors import UnparseableReply
from ragmeter.judges.base import JudgeReply
from ragmeter.judges.label_probs import label_fields
from ragmeter.text import canonical_json

M = TypeVar("M", bound=BaseModel)


class NoReply(BaseModel):
    """The reply of a request that only reads prompt tokens (JudgeSession.read_tokens)."""


def redacted(reply: JudgeReply, known: list[str] | None = None) -> JudgeReply:
    """The reply with known secrets redacted (text.redact) before it is parsed, cached or
    written: a server or proxy that echoes the Authorization header into a reply must not put
    the key into results, raw replies, the cache or the report."""
    from dataclasses import replace

    from ragmeter.text import redact

    text = redact(reply.text, known)
    return reply if text == reply.text else replace(reply, text=text)


@lru_cache(maxsize=1024)
def output_schema(output: type[BaseModel]) -> dict[str, object]:
    """The pydantic model's JSON schema, closed (no extra keys) for strict backends. Cached
    per model (the bounded models are themselves cached per bound, schemas.py): generating
    it was 57% of ragmeter's own time per judge call. Callers must not change it."""
    schema = output.model_json_schema()
    for node in [schema, *schema.get("$defs", {}).values()]:
        if node.get("type") == "object":
            node["additionalProperties"] = False
    return schema


@lru_cache(maxsize=1024)
def schema_json(output: type[BaseModel]) -> str:
    return canonical_json(output_schema(output))


@lru_cache(maxsize=1024)
def schema_labels(output: type[BaseModel]) -> dict[str, tuple[str, ...]]:
    """The output's label fields (label_probs.py), found once per model."""
    return label_fields(output_schema(output))


def parse_reply(reply: JudgeReply, output: type[M]) -> M:
    """Extract the JSON object from the reply text and validate it; never guess a value."""
    if reply.finish_reason == "length":
        raise UnparseableReply("reply was cut off at max_tokens", reply.text)
    found = first_json_object(reply.text)
    if found is None:
        from_text = getattr(output, "from_text", None)  # a reply format some judges are trained on
        if from_text is not None:
            return from_text(reply.text)
        raise UnparseableReply("no JSON object in the reply", reply.text)
    try:
        return output.model_validate(found)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'reply'}: {e['msg']}" for e in exc.errors()[:3])
        raise UnparseableReply(problems, reply.text) from None


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


#: strict=False: a raw newline inside a string is a harmless slip, not a wrong answer
_DECODER = json.JSONDecoder(strict=False)


def first_json_object(text: str) -> Any | None:
    """The first balanced {...} in the text, parsed (models wrap JSON in prose or code fences)."""
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    start = text.find("{")
    while start != -1:
        try:
            return _DECODER.raw_decode(text, start)[0]
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
    return None


_RESULT = re.compile(r"\[RESULT\]\s*\(?([1-5])\)?")


def prometheus_result(text: str) -> tuple[str, int] | None:
    """(feedback, score) of a reply in the Prometheus text format `Feedback: ... [RESULT] n`
    (judges trained on it write it instead of JSON), or None."""
    found = _RESULT.search(text)
    if found is None:
        return None
    return text[:found.start()].strip().removeprefix("Feedback:").strip(), int(found.group(1))
