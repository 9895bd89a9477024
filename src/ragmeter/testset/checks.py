"""No-model checks of a written question, run before any critique (free, and the small
judge's critiques miss what they catch): an answer that restates its question, a question
that points at the text it was written from ("the code snippet", "en el contexto"), and a
question that copies the generation prompt's own example (the Eiffel Tower)."""

from __future__ import annotations

import re
from typing import Any

from ragmeter.testset.quality import STOPWORDS

#: a question that points at its source, which whoever asks it has not seen; the generation
#: prompt forbids "according to the passage" and "context": this holds it to that
POINTING = {
    "english": re.compile(
        r"\b(?:(?:the|this|that|above|provided)\s+(?:context|passage|snippet|excerpt|code\s+snippet)"
        r"|in\s+(?:the|this)\s+(?:context|code|example|passage|snippet)"
        r"|the\s+given\s+\w+|(?:mentioned|described|shown|given)\s+(?:in|above)|according\s+to"
        r"|(?:this|these)\s+(?:library|libraries|module|package|tool|program|command|project|software|page|manual))\b",
        re.I),
    "spanish": re.compile(
        r"\b(?:(?:el|este|ese|del)\s+(?:contexto|pasaje|fragmento|extracto)"
        r"|en\s+(?:el|este)\s+(?:contexto|código|ejemplo|pasaje|texto|fragmento)"
        r"|(?:mencionad|descrit|mostrad)[oa]s?\s+(?:en|arriba)|según\s+(?:el|la)\s+(?:contexto|pasaje|documento)"
        r"|(?:esta|este|estas|estos)\s+(?:biblioteca|librería|módulo|paquete|herramienta|programa|comando|orden|"
        r"proyecto|página|manual))\b",
        re.I),
}


def points_at_source(question: str, language: str = "english") -> str | None:
    """The words with which `question` points at the text it was written from, or None."""
    pattern = POINTING.get(language)
    found = pattern.search(question) if pattern else None
    return found.group(0) if found else None


def from_example(question: str, contexts: list[str], prompt: Any) -> list[str]:
    """Names and numbers of the generation prompt's own examples that the question holds and
    its chunks do not: the small generator sometimes writes the example's question again."""
    shown = [str(v) for example in prompt.examples for part in (example.input, example.output) for v in part.values()]
    sentences = [part for text in shown for part in re.split(r"[.?!¿¡:]\s*", text)]
    words = [w for sentence in sentences for w in re.findall(r"\w+", sentence)[1:]]  # a first word is no name
    names = {w.lower() for w in words if (w[0].isupper() and len(w) > 3) or (w.isdigit() and len(w) > 2)}
    asked = {w.lower() for w in re.findall(r"\w+", question)}
    held = {w.lower() for w in re.findall(r"\w+", " ".join(contexts))}
    return sorted((names & asked) - held)


def restates_question(question: str, answer: str, language: str = "english") -> bool:
    """True when every word of the answer comes from its question ("What is the training
    mode for Zstd?" -> "Training mode."): it gives a RAG nothing to find, yet the critiques,
    which read the question alone, let it through. Numbers count as words; an answer that
    starts with yes or no ("Yes, training mode.") answers its question."""
    said = _words(answer, language)
    first = answer.strip().lower().split(maxsplit=1)
    if not said or (first and first[0].strip(".,;:!¡") in {"yes", "no", "sí"}):
        return False
    return said <= _words(question, language)


def _words(text: str, language: str) -> set[str]:
    """Words of three or more letters, or with a digit, stop words aside, a plural s dropped."""
    stop = STOPWORDS.get(language, set())
    return {t[:-1] if len(t) > 3 and t.endswith("s") else t for t in re.findall(r"\w+", text.lower())
            if (len(t) > 2 or any(ch.isdigit() for ch in t)) and t not in stop}


