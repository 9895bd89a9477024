"""The baseline RAG's reader prompt: data, like the judges' prompts (`prompts/<lang>/rag.answer.json`;
English and Spanish ship), or the user's own file with the same fields."""

from __future__ import annotations

import hashlib
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from ragmeter.errors import ConfigError

Turn = dict[str, str]


class AnswerPrompt(BaseModel):
    """A system message, a user message with {context} and {question}, and how each
    retrieved document is written into {context} ({number}, {text})."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    name: str = "rag.answer"
    language: str = "english"
    system: str
    user: str
    document: str = "Document {number}:::\n{text}\n"
    #: what the instructions tell the reader to say when the documents do not answer: an answer
    #: saying it declines as told, never echoes the prompt (not sent: outside the version)
    decline: str | None = None

    @field_validator("user")
    @classmethod
    def _fields(cls, value: str) -> str:
        for field in ("{context}", "{question}"):
            if field not in value:
                raise ValueError(f"the user message must contain {field}")
        return value

    @property
    def version(self) -> str:
        text = json.dumps(self.model_dump(exclude={"decline"}), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def messages(self, question: str, contexts: list[str], history: list[Turn] | None = None) -> list[Turn]:
        """System, the earlier turns of a conversation (if any), then the documents and the question."""
        context = "".join(self.document.replace("{number}", str(n)).replace("{text}", text)
                          for n, text in enumerate(contexts, start=1))
        user = self.user.replace("{context}", context).replace("{question}", question)
        return [{"role": "system", "content": self.system}, *(history or []), {"role": "user", "content": user}]


def load_answer_prompt(path: str | Path | None = None, language: str = "english") -> AnswerPrompt:
    """The user's prompt file, or the built-in one for `language`."""
    from ragmeter.prompts.languages import builtin_folders, normalize_language

    if path is not None:
        source = Path(path)
        try:
            data: Any = json.loads(source.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"answer prompt {source}: {exc}") from None
    else:
        language = normalize_language(language)
        code = builtin_folders().get(language)
        if code is None:
            raise ConfigError(f"no built-in answer prompt in {language}; pass --prompt FILE")
        source = Path(f"prompts/{code}/rag.answer.json")
        data = json.loads(resources.files("ragmeter").joinpath(str(source)).read_text(encoding="utf-8"))
    try:
        return AnswerPrompt(**data)
    except (TypeError, ValidationError) as exc:
        raise ConfigError(f"answer prompt {source}: {exc}") from None


_LABEL = re.compile(r"^[ \t]*([^\W\d][^\n:{}]{0,30}?)[ \t]*:", re.M)
_DIGITS = re.compile(r"\d+")


def echoes_prompt(answer: str, prompt: AnswerPrompt) -> bool:
    """Whether an answer repeats its reader prompt: a line starting with one of the template's
    labels ("Question:", "Context:", "Document 2:::"), or five words in a row (reading/echoes.py) of the
    prompt's own text (its instructions, not the question or the documents). A weak generator
    continues the prompt instead of answering it; such answers are said, not dropped. The
    prompt's own decline sentence is what it asks for, so its words are never an echo."""
    fixed = "\n".join((prompt.system, prompt.user, prompt.document))
    labels = {_label(m) for m in _LABEL.finditer(fixed.replace("{number}", "1"))}
    said = {_label(m) for m in _LABEL.finditer(answer)}
    if labels & said:
        return True
    from ragmeter.prompts.reader import instructions
    from ragmeter.reading.echoes import folded, shingles

    return bool(shingles(folded(instructions(fixed, prompt.decline))) & shingles(folded(answer)))


def declines(answer: str, prompt: AnswerPrompt) -> bool:
    """Whether the answer says the prompt's own decline sentence (the documents do not answer)."""
    if not prompt.decline:
        return False
    from ragmeter.reading.echoes import folded

    said, decline = f" {' '.join(folded(answer))} ", f" {' '.join(folded(prompt.decline))} "
    return bool(decline.strip()) and decline in said


def labels_of(template: str) -> list[str]:
    """The labels a template's lines start with ("Context", "Question"), as written."""
    return [m.group(1).strip() for m in _LABEL.finditer(template)]


def _label(match: re.Match[str]) -> str:
    """A label as compared: case folded, any number the same ("Document 3" is "Document 1")."""
    return _DIGITS.sub("#", match.group(1).strip().casefold())

