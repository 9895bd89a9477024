"""PromptTemplate: the data a metric sends to a judge, and how it becomes messages.

Templates live in `prompts/<lang>/<metric>.<name>.json`; the output schema stays in the
metric's Python module because its bounds depend on the row (one verdict per statement).
The template's content hash is its version: part of every cache key and of the manifest.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import cache, cached_property
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from ragmeter.errors import ConfigError
from ragmeter.judges.base import Message
from ragmeter.prompts.languages import builtin_folders, normalize_language


class Example(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    input: dict[str, Any]
    output: dict[str, Any]


class PromptTemplate(BaseModel):
    """Instruction, few-shot examples and the input fields a metric fills in."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metric: str
    name: str
    language: str = "english"
    instruction: str
    input_fields: tuple[str, ...]
    examples: tuple[Example, ...] = ()
    #: Input fields that may be shortened to fit the judge's window (contexts, never the answer).
    truncatable: tuple[str, ...] = ()

    @field_validator("language")
    @classmethod
    def _canonical_language(cls, value: str) -> str:
        try:
            return normalize_language(value)
        except ConfigError as exc:  # pydantic reports ValueErrors with the field's location
            raise ValueError(str(exc)) from None

    @property
    def key(self) -> str:
        return f"{self.metric}.{self.name}"

    @cached_property
    def version(self) -> str:
        """Content hash: any edit to the text or examples changes the cache key (computed
        once: a template is frozen)."""
        blob = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:12]

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> PromptTemplate:
        """A copy whose hash and rendered prefix are its own: pydantic copies the instance's
        __dict__, where both are memoised, so an edited copy kept the original's cache key
        (aspect_critic's votes over reordered examples were all the first order's reply)."""
        copy = super().model_copy(update=update, deep=deep)
        copy.__dict__.pop("version", None)
        copy.__dict__.pop("_prefixes", None)
        return copy

    def messages(self, inputs: Mapping[str, object], schema: dict[str, Any] | None = None,
                 reply_schema: dict[str, Any] | None = None) -> list[Message]:
        """Chat-shaped messages; completion backends flatten them (see judges/render.py).
        `schema` is written into the instruction (for judges that cannot enforce it); the
        examples' replies are shown in `reply_schema`'s field order, the order the judge
        must write them in (a grammar enforces it)."""
        return [*self._prefix(schema, reply_schema), {"role": "user", "content": format_inputs(self.input_fields,
                                                                                               inputs)}]

    def _prefix(self, schema: dict[str, Any] | None, reply_schema: dict[str, Any] | None) -> list[Message]:
        """The instruction and the few-shot examples, built once per pair of schemas: the
        same for every row (schemas are cached objects, judges/session.py; the entry keeps
        them, so an id is never another schema's)."""
        memo = self.__dict__.setdefault("_prefixes", {})
        found = memo.get((id(schema), id(reply_schema)))
        if found is not None and found[0] is schema and found[1] is reply_schema:
            return found[2]
        out: list[Message] = [{"role": "system", "content": with_schema(self.instruction, schema)}]
        for example in self.examples:
            out.append({"role": "user", "content": format_inputs(self.input_fields, example.input)})
            out.append({"role": "assistant", "content": shown_output(example, reply_schema)})
        if len(memo) < 256:
            memo[(id(schema), id(reply_schema))] = (schema, reply_schema, out)
        return out


def with_schema(instruction: str, schema: dict[str, Any] | None) -> str:
    """The instruction, with `schema` written after it for a judge that cannot enforce it."""
    if schema is None:
        return instruction
    return instruction + "\nReply with one JSON object only, matching this JSON schema: " + json.dumps(
        schema, separators=(",", ":"))


def shown_output(example: Example, reply_schema: dict[str, Any] | None) -> str:
    """An example's reply as the judge must write it: keys in `reply_schema`'s order."""
    return dump_output(ordered(example.output, reply_schema, reply_schema) if reply_schema else example.output)


def format_inputs(fields: tuple[str, ...], values: Mapping[str, object]) -> str:
    """`field: value` lines; lists become numbered items so verdicts can refer to them."""
    lines = []
    for name in fields:
        value = values[name]
        if isinstance(value, list):
            lines.append(f"{name}:")
            lines.extend(f"[{i}] {item}" for i, item in enumerate(value, start=1))
        else:
            lines.append(f"{name}: {value}")
    return "\n".join(lines)


def ordered(value: Any, schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """`value` with its object keys in the order `schema` declares them (refs resolved
    against `root`'s $defs); keys the schema does not name keep their place at the end."""
    if "$ref" in schema:
        schema = root.get("$defs", {}).get(schema["$ref"].rsplit("/", 1)[-1], {})
    if isinstance(value, dict) and "properties" in schema:
        props = schema["properties"]
        keys = [k for k in props if k in value] + [k for k in value if k not in props]
        return {k: ordered(value[k], props.get(k, {}), root) for k in keys}
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [ordered(v, schema["items"], root) for v in value]
    return value


def dump_output(output: dict[str, Any]) -> str:
    return json.dumps(output, ensure_ascii=False)


@cache
def builtin_prompt(metric: str, name: str, language: str = "english") -> PromptTemplate:
    """A prompt shipped with ragmeter (`prompts/<lang>/<metric>.<name>.json`)."""
    language = normalize_language(language)
    lang_dir = builtin_folders().get(language)
    if lang_dir is None:
        raise ConfigError(f"no built-in prompts in '{language}' (built-in: {', '.join(builtin_folders())}); export the "
                          f"English ones with `ragmeter prompts export DIR`, translate them, and pass "
                          f"--prompts-dir DIR, or make them with `ragmeter prompts adapt --language {language}`")
    filename = f"{metric}.{name}.json"
    path = resources.files("ragmeter.prompts").joinpath(lang_dir, filename)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"built-in prompt file {lang_dir}/{filename} is missing") from None
    return PromptTemplate(**data)


def builtin_exists(metric: str, name: str, language: str) -> bool:
    lang_dir = builtin_folders().get(normalize_language(language))
    return lang_dir is not None and resources.files("ragmeter.prompts").joinpath(
        lang_dir, f"{metric}.{name}.json").is_file()


def builtin_or_english(metric: str, name: str, language: str) -> PromptTemplate:
    """The built-in prompt in `language`, or the English one where that language has none
    yet (its `language` field then says english)."""
    return builtin_prompt(metric, name, language if builtin_exists(metric, name, language) else "english")
