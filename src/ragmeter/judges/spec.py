"""Judge spec strings and YAML dicts -> Judge instances, with lazy backend imports."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from ragmeter.endpoints import OPENAI_KEY_ENV, OPENAI_URL, safe_url, split_endpoint
from ragmeter.errors import ConfigError, explain_validation
from ragmeter.judges.base import DecodingParams, Judge

BACKENDS = ("llamacpp", "openai", "openai-compat", "hf", "scripted")
_DECODING = {"backend", "model", "temperature", "seed", "max_tokens", "context_window"}
_HTTP = _DECODING | {"base_url", "api_key_env", "api", "structured", "logprobs"}
#: The settings each backend reads: any other one set by the user is an error, not ignored.
BACKEND_KEYS = {"llamacpp": _DECODING | {"api", "n_threads"}, "openai": _HTTP, "openai-compat": _HTTP,
                "hf": _DECODING, "scripted": _DECODING}


class JudgeConfig(BaseModel):
    """Everything that selects and tunes a judge; the YAML `judge:` mapping."""

    model_config = ConfigDict(extra="forbid")

    backend: str = "llamacpp"
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    api: str = "auto"                 # auto | chat | completions
    structured: str = "json_schema"  # json_schema | json_object | none (HTTP backends)
    logprobs: bool = True             # HTTP backends: ask for top_logprobs on label fields
    temperature: float = 0.0
    seed: int = 42
    max_tokens: int = 512
    context_window: int | None = None
    n_threads: int | None = None

    def params(self) -> DecodingParams:
        return DecodingParams(self.temperature, self.seed, self.max_tokens)

    @field_validator("base_url")
    @classmethod
    def _no_credentials_in_url(cls, url: str | None) -> str | None:
        """A key in a URL would be stored in the manifest and printed: refuse it (without
        echoing it) and say where keys go."""
        return url if url is None else safe_url(url)


def judge_config(origin: str = "judge", **settings: Any) -> JudgeConfig:
    """A JudgeConfig, or one ConfigError line that names the bad key and never echoes a value
    (a value may be a key pasted in the wrong place)."""
    if "api_key" in settings:
        raise ConfigError(f"{origin}: api_key is not a setting (a key in a config is stored and shared with "
                          "it): put the key in an environment variable and name it with api_key_env")
    try:
        cfg = JudgeConfig(**settings)
    except ValidationError as exc:
        raise ConfigError(f"{origin}: {explain_validation(exc, list(JudgeConfig.model_fields))}") from None
    unused = sorted(set(settings) - BACKEND_KEYS.get(cfg.backend, set(JudgeConfig.model_fields)))
    if unused:
        raise ConfigError(f"{origin}: the {cfg.backend} judge does not use {', '.join(unused)}; "
                          f"its settings: {', '.join(sorted(BACKEND_KEYS[cfg.backend] - {'backend'}))}")
    return cfg


def parse_judge_spec(spec: str | dict[str, Any] | JudgeConfig | None) -> JudgeConfig:
    """`llamacpp` (the default bundled judge), `llamacpp:qwen-coder-1.5b` or `llamacpp:gemma-270m`
    (a bundled judge by name), `llamacpp:/m.gguf`, `openai:gpt-4o-mini`, `openai-compat:URL#model`,
    `hf:/dir`."""
    if isinstance(spec, JudgeConfig):
        return spec
    if spec is None:
        return JudgeConfig()
    if isinstance(spec, dict):
        if "spec" in spec:
            base = parse_judge_spec(spec["spec"])
            settings = {**base.model_dump(exclude_unset=True), **{k: v for k, v in spec.items() if k != "spec"}}
            return judge_config(f"judge {spec['spec']}", **settings)
        return judge_config(**spec)
    backend, _, rest = spec.partition(":")
    if backend not in BACKENDS:
        raise ConfigError(f"unknown judge backend '{backend}' in '{spec}'; valid: {list(BACKENDS)}")
    if backend == "openai-compat":
        url, model = split_endpoint(rest, "judge")
        return judge_config(backend=backend, base_url=url, model=model)
    if backend == "openai":
        if not rest:
            raise ConfigError(f"judge '{spec}': expected openai:MODEL, e.g. openai:gpt-4o-mini")
        return JudgeConfig(backend=backend, model=rest, base_url=OPENAI_URL, api_key_env=OPENAI_KEY_ENV)
    if backend == "hf" and not rest:
        raise ConfigError(f"judge '{spec}': expected hf:/path/to/model")
    if backend == "llamacpp" and not rest:
        from ragmeter.judges.bundled import DEFAULT_BUNDLED

        rest = DEFAULT_BUNDLED
    return JudgeConfig(backend=backend, model=rest or None)


def make_judge(spec: str | dict[str, Any] | JudgeConfig | None) -> Judge:
    """Build the judge a spec names. Heavy backends are imported only when chosen."""
    cfg = parse_judge_spec(spec)
    if cfg.backend == "llamacpp":
        from ragmeter.judges.bundled import DEFAULT_BUNDLED
        from ragmeter.judges.llamacpp import LlamaCppJudge

        cfg = cfg if cfg.model else cfg.model_copy(update={"model": DEFAULT_BUNDLED})
        return LlamaCppJudge.from_config(cfg)
    if cfg.backend in ("openai", "openai-compat"):
        from ragmeter.judges.openai_compat import OpenAICompatJudge

        return OpenAICompatJudge.from_config(cfg)
    if cfg.backend == "hf":
        from ragmeter.judges.hf import HFJudge

        return HFJudge.from_config(cfg)
    raise ConfigError(f"judge backend '{cfg.backend}' cannot be built from a spec "
                      "(the scripted judge is for tests: pass a ScriptedJudge object)")
