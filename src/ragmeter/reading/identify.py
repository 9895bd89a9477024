"""Which language a text is written in, read by a maintained identifier (py3langid: langid.py's
naive Bayes over byte n-grams, 97 languages, no model download), never guessed from the
stop words of the languages ragmeter covers: by those, French, German and Portuguese read as
Spanish (issue 74). Every "auto" language in ragmeter comes from here: a test set's corpus, a
run's rows, the baseline's answers.

A language is named whether or not ragmeter has prompts or readers for it; what a caller
does with one it does not cover is the caller's to say (reading/languages.py: not covered).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ragmeter.reading.languages import covered, vocabulary
from ragmeter.reading.words import tokens

#: characters read: a corpus or a run's rows are sampled to this much text
SAMPLE_CHARS = 20_000
#: the identifier's probability below which it has not told the language (a name, a number)
SURE = 0.5
#: English names of the codes the identifier returns, for the languages people most often ask about
NAMES = {
    "af": "afrikaans", "ar": "arabic", "bg": "bulgarian", "bn": "bengali", "ca": "catalan", "cs": "czech",
    "cy": "welsh", "da": "danish", "de": "german", "el": "greek", "en": "english", "eo": "esperanto",
    "es": "spanish", "et": "estonian", "eu": "basque", "fa": "persian", "fi": "finnish", "fr": "french",
    "ga": "irish", "gl": "galician", "he": "hebrew", "hi": "hindi", "hr": "croatian", "hu": "hungarian",
    "hy": "armenian", "id": "indonesian", "is": "icelandic", "it": "italian", "ja": "japanese",
    "ka": "georgian", "kk": "kazakh", "ko": "korean", "la": "latin", "lt": "lithuanian", "lv": "latvian",
    "mk": "macedonian", "ms": "malay", "mt": "maltese", "nl": "dutch", "no": "norwegian", "nn": "norwegian",
    "pl": "polish", "pt": "portuguese", "ro": "romanian", "ru": "russian", "sk": "slovak", "sl": "slovenian",
    "sq": "albanian", "sr": "serbian", "sv": "swedish", "sw": "swahili", "ta": "tamil", "th": "thai",
    "tl": "tagalog", "tr": "turkish", "uk": "ukrainian", "ur": "urdu", "vi": "vietnamese", "zh": "chinese",
}


@dataclass(frozen=True)
class Identified:
    """A text's language: its English name (the code where the table has none), its ISO 639
    code and the identifier's probability."""

    name: str
    code: str
    probability: float

    def said(self) -> str:
        return f"{self.name} (P {self.probability:.2f})"


def identify(text: str) -> Identified | None:
    """The language `text` is written in, or None where the identifier cannot tell (below SURE:
    a name, a number, a few words shared by many languages)."""
    sample = text[:SAMPLE_CHARS].strip()
    if not sample:
        return None
    code, probability = _identifier().classify(sample)
    if probability < SURE:
        return None
    return Identified(NAMES.get(code, code), code, round(float(probability), 4))


def identify_all(texts: list[str]) -> Identified | None:
    """The language of many short texts read together (a run's questions and answers): one
    text long enough to tell, where one question alone often is not."""
    sample, size = [], 0
    for text in texts:
        if size >= SAMPLE_CHARS:
            break
        sample.append(text[: SAMPLE_CHARS - size])
        size += len(sample[-1]) + 1
    return identify("\n".join(sample))


def knows(code: str) -> bool:
    """Whether the identifier can name the language of this ISO 639 code (a language ragmeter
    has an entry for may be one it was never trained on: a toy language in a test)."""
    return code in _identifier().nb_classes


@lru_cache(maxsize=1)
def _identifier() -> Any:
    """The identifier with probabilities normalised (0.6 s to load, once per process)."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def written_in(text: str, language: str) -> bool:
    """Whether `text` reads as written in `language`: the identifier names that language. Where
    it cannot tell (a short sentence: "The vehicle is priced at 20,000 euros.") or does not know
    the language (an entry for one it was never trained on), the entries' stop words tell: the
    most are `language`'s, and they are at least WRITTEN_IN_SHARE of its words (never so for
    names and numbers alone). False for a language without an entry."""
    found = vocabulary(language)
    if found is None:
        return False
    said = identify(text) if knows(found.code) else None
    return _most_stop_words(text, language) if said is None else said.code == found.code


def language_mismatch(text: str, language: str) -> bool:
    """True when `text` reads as another language than the asked one: the identifier names
    another (a French question in a Spanish test set, which the stop words of English and
    Spanish read as Spanish). Where it cannot tell or does not know the language, another
    entry's stop words outnumber the asked language's. False where the asked language has no
    entry."""
    found = vocabulary(language)
    if found is None:
        return False
    said = identify(text) if knows(found.code) else None
    return _stop_words_of_another(text, language) if said is None else said.code != found.code


#: the share of a text's words that are its language's stop words, at least, for it to read as
#: written in that language by them (running prose holds 30-50 %; another language's text a few)
WRITTEN_IN_SHARE = 0.1


def _most_stop_words(text: str, language: str) -> bool:
    """The covered language whose stop words `text` holds most is `language`, and they are at
    least WRITTEN_IN_SHARE of its words."""
    size, counts = _stop_counts(text)
    best = max(counts, key=lambda name: (counts[name], name == "english"), default=None)
    return bool(size) and best == language and counts[language] >= WRITTEN_IN_SHARE * size


def _stop_words_of_another(text: str, language: str) -> bool:
    """Another covered language's stop words outnumber `language`'s in `text`."""
    _, counts = _stop_counts(text)
    return any(count > counts[language] for name, count in counts.items() if name != language)


def _stop_counts(text: str) -> tuple[int, dict[str, int]]:
    """`text`'s word count, and how many of its words are each covered language's stop words."""
    words = [t.lower() for t in tokens(text)]
    return len(words), {name: sum(w in v.stop_words for w in words) for name, v in covered().items()}
