"""Translate prompts into another language with a judge, one string at a time.

Ragas's `adapt_prompts` asks the model to rewrite a whole example object and breaks when
a model merges or splits statements ("number of statements does not match"). Here only
string leaves are translated, each in its own call, so lists keep their lengths and keys
by construction. JSON keys, labels the reply schema fixes (enums, numbers) and tokens in
braces or angle brackets never reach the judge. Each translation must keep the sentence
count, the protected tokens, the line breaks and a plausible length; one re-ask names the
problem, and a string that still fails keeps its original text and is reported, so a
broken translation is never written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model

from ragmeter.accounting import MetricStats
from ragmeter.errors import UnparseableReply
from ragmeter.prompts.template import Example, PromptTemplate, builtin_prompt
from ragmeter.reading.sentences import split_sentences

PROTECTED = re.compile(r"\{[^{}\s]*\}|<[^<>\s][^<>]*>|\[[A-Z]+\]|\[\d+\]")
LINE_MARKUP = re.compile(r"^(\s*(?:#+\s+|[*-]\s+|\d+\.\s+)?)(.*)$")
MAX_TRANSLATION = 2000


@dataclass
class Translation:
    where: str
    source: str
    text: str
    problem: str | None = None  # set when the original was kept

    @property
    def kept_original(self) -> bool:
        return self.problem is not None

    @property
    def unchanged(self) -> bool:
        """Accepted but identical to the source: fine for names, a sign of a weak translator."""
        return self.problem is None and self.text == self.source


@dataclass
class AdaptResult:
    template: PromptTemplate
    translations: list[Translation] = field(default_factory=list)

    @property
    def kept(self) -> list[Translation]:
        return [t for t in self.translations if t.kept_original]

    @property
    def changed(self) -> int:
        return sum(1 for t in self.translations if not t.kept_original and not t.unchanged)

    @property
    def unchanged(self) -> int:
        return sum(1 for t in self.translations if t.unchanged)

    def record(self, judge: str, source: str, instruction: bool) -> dict[str, Any]:
        """The `adapted` block of the written file: who translated what, and what was refused."""
        return {"from": source, "judge": judge, "instruction_translated": instruction,
                "strings": len(self.translations), "translated": self.changed, "unchanged": self.unchanged,
                "kept_original": [{"where": k.where, "text": k.source, "problem": k.problem} for k in self.kept]}


def problems(source: str, text: str) -> str | None:
    """Why `text` is not an acceptable translation of `source`, or None."""
    if not text.strip():
        return "the translation is empty"
    if sorted(PROTECTED.findall(source)) != sorted(PROTECTED.findall(text)):
        return f"protected tokens changed: {PROTECTED.findall(source)} became {PROTECTED.findall(text)}"
    want, got = len(split_sentences(source)), len(split_sentences(text))
    if want != got:
        return f"{want} sentence(s) became {got}"
    if source.count("\n") != text.count("\n"):
        return "line breaks changed"
    if len(source) >= 12 and not 0.3 <= len(text) / len(source) <= 3.0:
        return f"length changed from {len(source)} to {len(text)} characters"
    return None


def requirements(source: str) -> str:
    n = len(split_sentences(source)) or 1
    parts = [f"Exactly {n} sentence{'s' if n > 1 else ''}."]
    tokens = list(dict.fromkeys(PROTECTED.findall(source)))
    if tokens:
        parts.append(f"Copy {', '.join(tokens)} unchanged.")
    return " ".join(parts)


def translation_model(limit: int) -> type[BaseModel]:
    return create_model("Translation", __config__=ConfigDict(extra="forbid"),
                        translation=(str, Field(min_length=1, max_length=limit)))


class Translator:
    """Translates single strings through a JudgeSession (cached, retried, counted)."""

    def __init__(self, session: Any, language: str, stats: MetricStats | None = None) -> None:
        self.session, self.language = session, language
        self.stats = stats or MetricStats()
        self.prompt = builtin_prompt("adapt", "translate", "english")

    async def translate(self, source: str, where: str, max_length: int | None = None) -> Translation:
        limit = min(max_length or MAX_TRANSLATION, 3 * len(source) + 40)
        need = requirements(source)
        problem = None
        for attempt in range(2):
            note = need if attempt == 0 else f"{need} Your previous translation was rejected: {problem}."
            try:
                answer = await self.session.ask(self.prompt, {"language": self.language.capitalize(),
                                                              "requirements": note, "text": source},
                                                translation_model(limit), self.stats,
                                                max_tokens=min(2048, limit // 2 + 64))
            except UnparseableReply as exc:
                problem = f"unusable reply: {exc}"
                continue
            text = answer.parsed.translation.strip()
            problem = problems(source, text)
            if problem is None:
                return Translation(where, source, text)
        return Translation(where, source, source, problem)


async def adapt_prompt(template: PromptTemplate, metric: Any, translator: Translator,
                       instruction: bool = False) -> AdaptResult:
    """A copy of `template` in the translator's language; see the module docstring."""
    result = AdaptResult(template)
    examples = []
    for number, example in enumerate(template.examples, start=1):
        schema = metric.output_model(template.name, example.input).model_json_schema()
        new_input = await _translate_tree(example.input, None, f"example {number} input", translator, result)
        new_output = await _translate_tree(example.output, schema, f"example {number} output", translator, result)
        examples.append(Example(input=new_input, output=new_output))
    text = template.instruction
    if instruction:
        text = await _translate_lines(text, translator, result)
    else:
        text += f"\nWrite every text in the output in {translator.language.capitalize()}."
    result.template = template.model_copy(update={"language": translator.language, "examples": tuple(examples),
                                                  "instruction": text})
    return result


async def _translate_tree(value: Any, schema: dict[str, Any] | None, where: str, translator: Translator,
                          result: AdaptResult, defs: dict[str, Any] | None = None) -> Any:
    """Translate the string leaves of a JSON value; the schema marks which are fixed labels."""
    if schema is not None:
        defs = defs if defs is not None else schema.get("$defs", {})
        schema = _resolve(schema, defs)
    if isinstance(value, dict):
        props = (schema or {}).get("properties", {})
        return {k: await _translate_tree(v, props.get(k) if schema is not None else None, f"{where}.{k}",
                                         translator, result, defs) for k, v in value.items()}
    if isinstance(value, list):
        items = (schema or {}).get("items") if schema is not None else None
        return [await _translate_tree(v, items, f"{where}[{i}]", translator, result, defs)
                for i, v in enumerate(value)]
    if isinstance(value, str) and not (schema and ("enum" in schema or "const" in schema)):
        done = await translator.translate(value, where, (schema or {}).get("maxLength"))
        result.translations.append(done)
        return done.text
    return value


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        return defs[schema["$ref"].rsplit("/", 1)[-1]]
    for option in schema.get("anyOf", []):
        if option.get("type") != "null":
            return _resolve(option, defs)
    return schema


async def _translate_lines(text: str, translator: Translator, result: AdaptResult) -> str:
    """Instructions line by line, keeping headings, bullets and numbering as they are."""
    lines = []
    for number, line in enumerate(text.split("\n"), start=1):
        prefix, body = LINE_MARKUP.match(line).groups()  # type: ignore[union-attr]
        if any(ch.isalpha() for ch in body):
            done = await translator.translate(body, f"instruction line {number}")
            result.translations.append(done)
            body = done.text
        lines.append(prefix + body)
    return "\n".join(lines)


async def adapt_prompts(metrics: list[Any], language: str, judge: Any, cache: Any, *, instruction: bool = False,
                        source_language: str = "english", source_dir: str | None = None,
                        stats: MetricStats | None = None, metric_for: Any = None) -> list[AdaptResult]:
    """Adapt every prompt of `metrics` from the source prompts (built-in, or a folder whose
    files `metric_for`, ragmeter.metrics.get_metric, checks)."""
    from ragmeter.judges.session import JudgeSession
    from ragmeter.prompts.prompt_set import PromptSet

    source = PromptSet.build(metrics, source_language, source_dir, metric_for)
    translator = Translator(JudgeSession(judge, cache), language, stats)
    await judge.check()
    results, done = [], set()
    for metric in metrics:
        for name in metric.prompt_names:
            if (metric.prompt_metric, name) not in done:  # metrics may share prompts
                done.add((metric.prompt_metric, name))
                results.append(await adapt_prompt(source.get(metric.prompt_metric, name), metric, translator,
                                                  instruction))
    return results
