"""Rule-based edits that turn a sentence a context supports into one it does not.

No model builds a check case (CheckList's rule): a negation flips the sentence's polarity
(English and Spanish), and a swap puts a number or a name from another row in place of the
sentence's own. Each returns None where its rules do not apply, so a case is made only when
the edit is sure to change what the sentence claims.
"""

from __future__ import annotations

import random
import re

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

_NUMBER = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)*(?![\w])")
# A capitalised word (or run of them) that does not open the sentence: a name, a product, a place.
_ENTITY = re.compile(r"(?<=[\s(\"'])(?:[A-ZÁÉÍÓÚÑ][\w-]*[a-záéíóúñ0-9][\w-]*|[A-Z]{2,}[\w-]*)"
                     r"(?:\s+(?:[A-ZÁÉÍÓÚÑ][\w-]*))*")


def negate(sentence: str, language: str = "english") -> str | None:
    """The sentence with its polarity flipped by the first rule that applies, or None."""
    return _negate_es(sentence) if language == "spanish" else _negate_en(sentence)


def _negate_en(sentence: str) -> str | None:
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


def _negate_es(sentence: str) -> str | None:
    match = _ES_NEGATION.search(sentence)
    if match:
        rest = sentence[match.end():]
        return sentence[:match.start()] + (rest[:1].upper() + rest[1:] if match.start() == 0 else rest)
    words = list(re.finditer(r"[\wáéíóúñü]+", sentence, re.I))
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


def numbers(text: str) -> list[str]:
    return [m.group() for m in _NUMBER.finditer(text)]


def entities(text: str) -> list[str]:
    return [m.group() for m in _ENTITY.finditer(text) if len(m.group()) > 1]


def swap_fact(sentence: str, context: str, pool_numbers: list[str], pool_entities: list[str],
              rng: random.Random) -> tuple[str, str, str] | None:
    """The sentence with its first number (else its first name) replaced by one from the
    pool that the context never mentions: (new sentence, old, new), or None."""
    for pattern, pool in ((_NUMBER, pool_numbers), (_ENTITY, pool_entities)):
        match = next((m for m in pattern.finditer(sentence) if len(m.group()) > 1 or pattern is _NUMBER), None)
        if match is None:
            continue
        choices = sorted({p for p in pool if p != match.group() and p not in context})
        if not choices:
            continue
        new = rng.choice(choices)
        return sentence[:match.start()] + new + sentence[match.end():], match.group(), new
    return None


def changed_words(before: str, after: str) -> str:
    """What an edit changed, in words a person reads at a glance: '"is" -> "is not"' (an
    inserted word is shown with the word before it), several changes joined by "; "."""
    import difflib

    old, new = before.split(), after.split()
    parts = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        lead = old[i1 - 1:i1] if i1 > 0 and tag != "replace" else []
        parts.append(f'"{" ".join(lead + old[i1:i2])}" -> "{" ".join(lead + new[j1:j2])}"')
    return "; ".join(parts)
