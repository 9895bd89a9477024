"""Language names: one canonical lowercase English name per language, with common aliases.

The names, codes and aliases are the readers' table's (reading/languages.py): a language
has built-in prompts where the table names its code and prompts/<code>/ exists. Any other
language works from a prompts folder (exported and translated by hand, or made by
`ragmeter prompts adapt`); its readers are covered only once the table has its entry.
"""

from __future__ import annotations

from importlib import resources

from ragmeter.errors import ConfigError
from ragmeter.reading.languages import covered


def builtin_folders() -> dict[str, str]:
    """Canonical name -> folder of built-in prompts inside the package, for each language
    of the table that has one."""
    root = resources.files("ragmeter.prompts")
    return {name: entry.code for name, entry in covered().items() if root.joinpath(entry.code).is_dir()}


def normalize_language(value: str) -> str:
    """'ES', 'es', 'Español' -> 'spanish'. Unknown names pass through lowercased (a prompts
    folder may provide them); names with path characters are refused."""
    name = value.strip().lower()
    if not name or not all(ch.isalpha() or ch in "-_" for ch in name):
        raise ConfigError(f"language '{value}' is not a language name (e.g. english, spanish, french)")
    aliases = {alias: entry.name for entry in covered().values() for alias in entry.aliases}
    return aliases.get(name, name)


def has_builtin(language: str) -> bool:
    return normalize_language(language) in builtin_folders()
