"""How a sentence's polarity is flipped, per language: the rules the judge check's negated
cases are made by (CheckList's rule: no model). A language's vocabulary names its rule
(reading/languages.py); a language without one gets no negated cases, and says so."""

from __future__ import annotations

import re

from ragmeter.reading.words import word_spans

_EN_NEGATED = [  # a sentence already negative becomes positive: the first match is undone
    (re.compile(r"\bcannot\b", re.I), "can"),
    (re.compile(r"\bcan't\b", re.I), "can"),
    (re.compile(r"\bwon't\b", re.I), "will"),
    (re.compile(r"\b(is|are|was|were|do|does|did|has|have|had|could|would|should|must|may|might|will|can)"
                r"(?:n't| not)\b", re.I), r"\1"),
    (re.compile(r"\bnever\b", re.I), "always"),
]
_EN_AUX = re.compile(r"\b(is|are|was|were|can|could|will|would|should|must|may|might|shall)\b(?! not\b)", re.I)
_EN_HAVE = re.compile(r"\b(has|have|had)\b(?! not\b)(\s+(\w+))?", re.I)
_EN_DO = {"has": "does not have", "have": "do not have", "had": "did not have"}

_ES_NEGATION = re.compile(r"\bno\s+", re.I)
_ES_VERBS = frozenset([
    "es", "son", "era", "eran", "fue", "fueron", "será", "serán", "sería", "serían", "está", "están",
    "estaba", "estaban", "estará", "estarán", "tiene", "tienen", "tenía", "tenían", "tendrá", "tendrán",
    "puede", "pueden", "podía", "podían", "podrá", "podrán", "debe", "deben", "debía", "hay", "había",
    "habrá", "ha", "han", "hace", "hacen", "hizo", "hicieron", "permite", "permiten", "usa", "usan",
    "utiliza", "utilizan", "incluye", "incluyen", "contiene", "contienen", "requiere", "requieren", "ofrece",
    "ofrecen", "existe", "existen", "forma", "forman", "llega", "llegan", "se"])
_ES_CLITICS = frozenset(["se", "lo", "la", "le", "les", "los", "las", "me", "te", "nos"])


def negate_english(sentence: str) -> str | None:
    """An auxiliary negated ("is" -> "is not"), or a negative made positive."""
    for pattern, positive in _EN_NEGATED:
        if pattern.search(sentence):
            return pattern.sub(positive, sentence, count=1)
    aux = _EN_AUX.search(sentence)
    have = _EN_HAVE.search(sentence)
    if have and (aux is None or have.start() < aux.start()):
        following = (have.group(3) or "").lower()
        if following == "been" or following.endswith(("ed", "en")):  # an auxiliary: has been, had used
            return sentence[:have.end(1)] + " not" + sentence[have.end(1):]
        return sentence[:have.start()] + _keep_case(have.group(1), _EN_DO[have.group(1).lower()]) + \
            sentence[have.end(1):]
    if aux:
        return sentence[:aux.end()] + " not" + sentence[aux.end():]
    return None


def negate_spanish(sentence: str) -> str | None:
    """"no" taken out, or put before the first verb (with its clitics: "no se usa")."""
    match = _ES_NEGATION.search(sentence)
    if match:
        rest = sentence[match.end():]
        return sentence[:match.start()] + (rest[:1].upper() + rest[1:] if match.start() == 0 else rest)
    words = word_spans(sentence)
    for index, word in enumerate(words):
        if word.group().lower() not in _ES_VERBS:
            continue
        start = index
        while start > 0 and words[start - 1].group().lower() in _ES_CLITICS:
            start -= 1  # "se usa" -> "no se usa"
        at = words[start].start()
        if at == 0:
            return "No " + sentence[0].lower() + sentence[1:]
        return sentence[:at] + "no " + sentence[at:]
    return None


def _keep_case(original: str, replacement: str) -> str:
    return replacement[0].upper() + replacement[1:] if original[:1].isupper() else replacement
