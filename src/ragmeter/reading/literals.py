"""Literal details a claim states that its contexts must hold as written: web addresses,
code spans, flags, paths, identifiers, versions and numbers.

A small judge reads an answer copied from a page with one detail changed (an invented image
URL, `Debian-split(1)` for `dpkg-split(1)`, `--version` of the wrong program) as supported:
the copied majority carries it (issue 48). These details need no judgment: a URL, a flag
or an identifier is in the retrieved text or it is not. Prose words are never literals
here: a paraphrase ("well known", "three") must stay the judge's to read.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ragmeter.reading.languages import Vocabulary, abbreviations, vocabulary
from ragmeter.reading.shapes import CODE_SPAN as _CODE_SPAN
from ragmeter.reading.shapes import NUMBER as _NUMBER
from ragmeter.reading.shapes import URL as _URL

#: flags (`--train`, `-z`), paths (`/usr/bin`, `a/b.c`), dotted or snake_case names
#: (`xmltodict.parse`, `process_namespaces`), names with a manual section (`dpkg-split(1)`),
#: versions (`1.2.3`), and words with a digit inside (`sha256`, `utf-8`)
_SHAPED = re.compile(
    r"(?<![\w-])(?:--?[A-Za-z][\w-]*"
    r"|[\w.-]*/[\w./-]+"
    r"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?"
    r"|\w*_\w+"
    r"|[\w-]+\(\d\)"
    r"|\d+(?:\.\d+){2,}"
    r"|[A-Za-z]+[-]?\d[\w-]*)",
    re.UNICODE)
_SOFT_HYPHEN = re.compile(r"[\u2010\u00ad]\s+")
#: Markdown emphasis (`__Label__`, `**Label**`) is markup around words, not an identifier
_EMPHASIS = re.compile(r"(?<![\w*])(__|\*\*)(?=\S)(.+?)(?<=\S)\1(?![\w*])")
#: HTML tags are markup, not details (`</code>` is no path); their attributes' URLs are read first
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")


def literals(claim: str) -> list[str]:
    """The literal details of `claim`, in order, each once (a manual page's hyphenation
    undone first: `core‐\n utils/` is one address; a blank to fill, `___`, is no detail)."""
    claim = _SOFT_HYPHEN.sub("", claim)
    found = [url.rstrip(".,:;!?") for url in _URL.findall(claim)]
    found += [span.strip() for _, span in _CODE_SPAN.findall(claim) if not _URL.search(span)]
    rest = _EMPHASIS.sub(r"\2", _TAG.sub(" ", _URL.sub(" ", _CODE_SPAN.sub(" ", claim))))
    for token in _SHAPED.findall(rest.replace("`", " ")):
        token = token.rstrip(".-/")
        if token.lower().rstrip(".") in abbreviations() or len(token) < 2 or token.strip("-").isdigit() or \
                not any(c.isalnum() for c in token):  # "___" (a blank to fill) is no name
            continue
        found.append(token)
    found += [n for n in _NUMBER.findall(rest) if len(n.replace(".", "").replace(",", "")) >= 2]
    seen: set[str] = set()
    out = []
    for detail in found:
        if detail and "___" not in detail and detail.lower() not in seen:
            seen.add(detail.lower())
            out.append(detail)
    return out


def negation_pattern(language: str) -> re.Pattern[str] | None:
    """The language's negating words and endings ("not", "n't", "nunca"), or None where it
    has no vocabulary (reading/languages.py)."""
    found = vocabulary(language)
    return _negating(found) if found is not None else None


@lru_cache(maxsize=16)
def _negating(found: Vocabulary) -> re.Pattern[str]:
    words = "|".join(re.escape(w) for w in found.negations)
    endings = "".join(f"|{re.escape(e)}\\b" for e in found.negation_endings)
    return re.compile(rf"\b(?:{words})\b{endings}", re.IGNORECASE)


def negations(text: str, language: str) -> int:
    """How many negations `text` holds in `language`: "not", "never", "no", "nunca"... (0
    where the language is not covered)."""
    pattern = negation_pattern(language)
    return len(pattern.findall(text)) if pattern else 0


def missing(claim: str, contexts: list[str], question: str | None = None) -> list[str]:
    """The literal details of `claim` that appear in none of `contexts` (case and spacing
    aside; a number also as the same value written another way, 95 for 95.0). A detail the
    question names is the question's, never one the answer invented ("the option `-u` is not
    documented here" declines; "the 5 and the 1 in a 5/1 ARM are ..." repeats what was asked):
    the judge reads those. What the answer adds counts: "the version released on March 27,
    2021 is 0.16.0" against chunks with neither states 0.16.0 (issue 72)."""
    return missing_each([claim], contexts, question)[0]


def missing_each(claims: list[str], contexts: list[str], question: str | None = None) -> list[list[str]]:
    """`missing` for each of several claims against the same contexts, read once."""
    haystack = _normal(" ".join(contexts))
    numbers = {v for n in _NUMBER.findall(haystack) for v in _values(n)}
    asked = _normal(question or "")
    return [_absent(claim, haystack, numbers, asked) for claim in claims]


def _absent(claim: str, haystack: str, numbers: set[float], asked: str) -> list[str]:
    out = []
    for literal in literals(claim):
        if _normal(literal).removesuffix("()") in haystack or (asked and _normal(literal) in asked):
            continue
        if _NUMBER.fullmatch(literal) and _values(literal) & numbers:
            continue
        out.append(literal)
    return out


def _normal(text: str) -> str:
    """Lowercase, one space for any run of whitespace, a manual page's hyphenation undone."""
    return " ".join(_SOFT_HYPHEN.sub("", text).lower().split())


def _values(number: str) -> set[float]:
    """What a written number can mean: 1,000 and 1.000 a thousand (English, Spanish) or one,
    95.0 and 95,0 ninety-five; a version (1.2.3) is compared as written only."""
    groups = re.split(r"[.,]", number)
    out = set()
    if len(groups) == 1 or all(len(g) == 3 for g in groups[1:]):
        out.add(float("".join(groups)))
    if len(groups) == 2:
        out.add(float(".".join(groups)))
    return out
