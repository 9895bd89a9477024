"""Language names: one canonical lowercase English name per language, with common aliases.

Built-in prompts exist for the languages in BUILTIN; any other language works from a
prompts folder (exported and translated by hand, or made by `ragmeter prompts adapt`).
"""

from __future__ import annotations

from ragmeter.errors import ConfigError

#: canonical name -> folder of built-in prompts inside the package
BUILTIN = {"english": "en", "spanish": "es"}
ALIASES = {"en": "english", "eng": "english", "es": "spanish", "spa": "spanish", "español": "spanish",
           "espanol": "spanish", "castellano": "spanish"}


def normalize_language(value: str) -> str:
    """'ES', 'es', 'Español' -> 'spanish'. Unknown names pass through lowercased (a prompts
    folder may provide them); names with path characters are refused."""
    name = value.strip().lower()
    if not name or not all(ch.isalpha() or ch in "-_" for ch in name):
        raise ConfigError(f"language '{value}' is not a language name (e.g. english, spanish, french)")
    return ALIASES.get(name, name)


def has_builtin(language: str) -> bool:
    return normalize_language(language) in BUILTIN
