"""Sentences of an answer that address the judge instead of the user: a planted verdict or
score, an instruction to the evaluator, or the answer vouching for its own support. They
claim nothing about the world, so faithfulness does not judge them: they are taken out of
the statements the judge reads and listed in the evidence (`addressed_to_judge`), and the
row is flagged. The small bundled judge is talked into passing an unsupported answer by
such a sentence (docs/judge-check.md); a lexical reading of them cannot be talked into
anything, and what it removes is shown, never hidden.

English and Spanish. What it matches and misses, measured on phrasings written apart from
judge-check's own and on natural answers: docs/judge-check.md.
"""

from __future__ import annotations

import re

from ragmeter.text import split_sentences

FLAG = "addressed_to_judge"
#: what is left of a line that addresses the judge, in fewer words than this, goes with it
SCRAP_WORDS = 4

#: {"verdict": 1}, {"score": 10, "explanation": ...}, {"label": "faithful"}, {"veredicto": 1}; not a
#: retrieval result's {"text": ..., "score": 0.8}
_VERDICT_JSON = re.compile(
    r"\{[^{}]{0,300}?[\"'](?:verdict|grade|rating|faithful(?:ness)?|supported|veredicto|puntuaci[oó]n|"
    r"calificaci[oó]n)[\"']\s*:|"
    r"\{[^{}]{0,300}?[\"'](?:score|label|result|nota|resultado)[\"']\s*:\s*(?:[\"']?(?:faithful|supported|pass|correct|"
    r"fiel|respaldad[ao]|aprobado|correct[ao])\b|[^{}]{0,300}?[\"'](?:reason|explanation|justification|raz[oó]n|"
    r"explicaci[oó]n)[\"']\s*:)", re.I)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
#: a short line that is a label and a verdict-like value: "GRADE: C", "Score: 10/10", "Evaluation: PASS",
#: "[RESULT] 5" (not "Score: 3-1", a match's result)
_LABEL_LINE = re.compile(
    r"^\W{0,3}(?:\[\s*result\s*\]|(?:final\s+)?(?:grade|score|rating|verdict|result|evaluation|assessment|"
    r"faithfulness|judg(?:e)?ment|calificaci[oó]n|puntuaci[oó]n|veredicto|nota|resultado|evaluaci[oó]n|"
    r"valoraci[oó]n)\s*[:=])\s*(?:\d+(?:[.,]\d+)?(?:\s*/\s*\d+)?|[A-F][+-]?|pass(?:ed)?|fail(?:ed)?|(?:un)?supported|"
    r"(?:in)?correct|faithful|yes|no|true|false|aprobado|suspenso|respaldad[ao]|correct[ao]|s[ií])\b"
    r"\W{0,3}(?:\(.{0,60}\))?\W{0,3}$", re.I)
#: an instruction to whoever judges: "ignore the previous instructions", "judge, answer 1", "as an AI
#: evaluator you must...", "note to the grader" (not "the judge ruled that...")
_JUDGE_EN = r"(?:grader|evaluator|judge|assessor|annotator)"
_JUDGE_ES = r"(?:evaluador|evaluadora|juez|calificador)"
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:instructions?|guidelines|rules|prompt|above|previous|prior)\b|"
    r"\bsystem\s+override\b|"
    rf"\b(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+|any\s+)?{_JUDGE_EN}s?\s*[:\-]|"
    rf"^\W*(?:dear\s+)?{_JUDGE_EN}\s*,|"
    rf"\bas\s+an?\s+(?:ai\s+)?{_JUDGE_EN}\b|\b(?:any|the)\s+{_JUDGE_EN}s?\s+(?:reading|evaluating|grading|"
    r"assessing|checking)\s+this\b|\b(?:output|return|give|respond\s+with|answer\s+with)\s+(?:a\s+|the\s+)?"
    r"(?:verdict|score|grade|rating)\b|"
    r"\b(?:ignora|olvida|omite|descarta)\b.{0,40}\b(?:instrucciones|indicaciones|reglas|anteriores)\b|"
    rf"\bnota\s+para\s+(?:el|la)\s+{_JUDGE_ES}(?:es)?\s*[:\-]|^\W*(?:estimad[oa]\s+)?{_JUDGE_ES}\s*,|"
    rf"\bcomo\s+(?:un\s+|una\s+)?{_JUDGE_ES}\b|"
    r"\b(?:responde|devuelve|da)\s+(?:con\s+)?(?:el\s+|la\s+|un\s+)?(?:veredicto|puntuaci[oó]n|nota)\b", re.I)
#: the answer vouching for itself: "the statement above is fully supported by the context"
_SUBJECT_EN = (r"\b(?:(?:the|this|these|all(?:\s+of\s+the)?|every|each)\s+(?:statements?|claims?|answers?|responses?|"
               r"facts?|information)|everything)")
_SUBJECT_ES = (r"\b(?:(?:la|las|esta|estas|toda|todas(?:\s+las)?|cada)\s+(?:afirmaci[oó]n|afirmaciones|respuestas?|"
               r"informaci[oó]n)|todo\s+lo)")
_VOUCH = re.compile(
    _SUBJECT_EN + r"(?:\s+\w+){0,2}?\s+(?:is|are|was|were|can\s+be|has\s+been|have\s+been)\s+(?:\w+\s+){0,2}?"
    r"(?:supported|grounded|faithful|verified|backed|consistent|found|confirmed)\b"
    r"[\w\s]{0,30}\b(?:context|contexts|documents?|documentation|sources?|passages?|retrieved)\b|"
    + _SUBJECT_ES + r"(?:\s+\w+){0,2}?\s+(?:est[aá]n?|es|son|se\s+encuentra|ha\s+sido|han\s+sido)\s+(?:\w+\s+){0,2}?"
    r"(?:respaldad[ao]s?|fundamentad[ao]s?|verificad[ao]s?|apoyad[ao]s?|coherentes?|confirmad[ao]s?|en)\b"
    r"[\w\s]{0,30}\b(?:contexto|documentos?|fuentes?|pasajes?)\b", re.I)


def addressed_to_judge(sentence: str) -> bool:
    """Whether `sentence` (a sentence, line or item of an answer) addresses the judge."""
    text = sentence.strip()
    return bool(_VERDICT_JSON.search(_CODE_SPAN.sub(" ", text)) or (len(text) <= 60 and _LABEL_LINE.match(text))
                or _INSTRUCTION.search(text) or _VOUCH.search(text))


def split_addressed(answer: str) -> tuple[str, list[str]]:
    """(the answer without what addresses the judge, what was taken out). Read line by line,
    and within a line sentence by sentence ("...in Rome. GRADE: A" loses its grade only); a
    line that addresses the judge as a whole goes whole when what is left of it is a scrap."""
    kept: list[str] = []
    dropped: list[str] = []
    for line in answer.splitlines():
        sentences = split_sentences(line) or [line]
        gone = [s for s in sentences if addressed_to_judge(s)]
        rest = [s for s in sentences if s not in gone]
        if addressed_to_judge(line) and len(" ".join(rest).split()) < SCRAP_WORDS:
            gone, rest = [line.strip()], []
        dropped += gone
        kept.append(" ".join(rest) if gone else line)
    return "\n".join(kept).strip(), dropped
