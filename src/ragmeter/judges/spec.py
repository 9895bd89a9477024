"""Judge spec strings and YAML dicts -> typed settings -> Judge instances. The backends are
found in judges/registry.py; their settings classes live in judges/settings.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError

from ragmeter.errors import ConfigError, explain_validation
from ragmeter.judges.registry import DEFAULT_JUDGE, backends, build, settings_class
from ragmeter.judges.settings import (
    HFConfig,
    HTTPJudgeConfig,
    JudgeSettings,
    LlamaCppConfig,
    ScriptedConfig,
)

if TYPE_CHECKING:
    from ragmeter.judges.base import Judge

#: a parsed judge is one backend's typed settings (a JudgeSettings: the YAML `judge:` mapping)
__all__ = ["DEFAULT_JUDGE", "HFConfig", "HTTPJudgeConfig", "JudgeSettings", "LlamaCppConfig",
           "ScriptedConfig", "judge_settings", "make_judge", "parse_judge_spec"]


def judge_settings(origin: str = "judge", **settings: object) -> JudgeSettings:
    """The backend's typed config, or one ConfigError line that names the bad key and never
    echoes a value (a value may be a key pasted in the wrong place)."""
    return settings_from(settings, origin)


def settings_from(settings: dict[str, object], origin: str = "judge") -> JudgeSettings:
    """`judge_settings` for a mapping read from a file or a spec (keys are not Python names)."""
    settings = dict(settings)
    if "api_key" in settings:
        raise ConfigError(f"{origin}: api_key is not a setting (a key in a config is stored and shared with "
                          "it): put the key in an environment variable and name it with api_key_env")
    backend = settings.setdefault("backend", DEFAULT_JUDGE)
    model = settings_class(backend if isinstance(backend, str) else repr(backend), origin)
    known = set(model.model_fields)
    unused = sorted(set(settings) - known)
    every = {f for config in backends().values() for f in config.model_fields}
    if unused and set(unused) <= every:
        raise ConfigError(f"{origin}: the {backend} judge does not use {', '.join(unused)}; "
                          f"its settings: {', '.join(sorted(known - {'backend'}))}")
    try:
        return model.model_validate(settings)
    except ValidationError as exc:
        raise ConfigError(f"{origin}: {explain_validation(exc, sorted(known))}") from None


def parse_judge_spec(spec: str | dict[str, object] | JudgeSettings | None) -> JudgeSettings:
    """`llamacpp` (the default bundled judge), `llamacpp:qwen-coder-1.5b` or `llamacpp:gemma-270m`
    (a bundled judge by name), `llamacpp:/m.gguf`, `openai:gpt-4o-mini`, `openai-compat:URL#model`,
    `hf:/dir`."""
    if isinstance(spec, JudgeSettings):
        return spec
    if spec is None:
        return LlamaCppConfig()
    if isinstance(spec, dict):
        if "spec" in spec:
            named = spec["spec"]
            if not isinstance(named, str):
                raise ConfigError(f"judge: spec must be a string like 'openai:gpt-4o-mini', not {type(named).__name__}")
            base = parse_judge_spec(named)
            given = base.model_dump(exclude_unset=True)
            clash = sorted(k for k, v in spec.items() if k not in ("spec", "backend") and k in given and given[k] != v)
            if clash:  # `--judge-opt base_url=` would silently replace the URL the spec names
                raise ConfigError(f"judge {named}: the spec already gives {', '.join(clash)}; give it once (in the "
                                  "spec, or as a setting)")
            settings = {**given, **{k: v for k, v in spec.items() if k != "spec"}}
            return settings_from(settings, f"judge {named}")
        return settings_from(spec)
    backend, _, rest = spec.partition(":")
    if backend not in backends():
        raise ConfigError(f"unknown judge backend '{backend}' in '{spec}'; valid: {list(backends())}")
    return settings_from(settings_class(backend).from_spec(backend, rest))


def make_judge(spec: str | dict[str, object] | JudgeSettings | None) -> Judge:
    """Build the judge a spec names. Heavy backends are imported only when chosen."""
    return build(parse_judge_spec(spec))
