"""YAML config files (a run, a test set, an experiment grid): one reader, so a missing file,
invalid YAML, non-UTF-8 text or a top level that is not a mapping is the same one line
naming the file, whichever command reads it."""

from __future__ import annotations

from pathlib import Path

from ragmeter.errors import ConfigError


def read_mapping(path: Path, kind: str, keys: str) -> dict[str, object]:
    """The file's top-level mapping; `kind` names the file in errors ("config", "experiment"),
    `keys` says what the mapping holds ("dataset, metrics, judge, ...")."""
    import yaml

    if not path.is_file():
        raise ConfigError(f"{kind} file not found: {path}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
        raise ConfigError(f"{path}: invalid YAML{where}: {problem}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of keys ({keys}), got {type(data).__name__}")
    return data


def relative_to(data: dict[str, object], keys: tuple[str, ...], base: Path) -> dict[str, object]:
    """`data` with the relative paths under `keys` resolved against `base` (the file's folder):
    paths in a config file are relative to that file, not to the working directory."""
    return {k: (config_path(v, base) if k in keys and isinstance(v, str) else v) for k, v in data.items()}


def config_path(value: str, base: Path) -> str:
    """A path from a config file: `~` expanded, a relative one joined to the file's folder and
    normalised, so messages name `runs/x`, not `cfg/../runs/x`."""
    import os

    path = Path(value).expanduser()
    return str(path) if path.is_absolute() else os.path.normpath(base / path)
