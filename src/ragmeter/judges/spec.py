"""Judge spec strings and YAML dicts -> Judge instances, with lazy backend imports."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ragmeter.endpoints import MAX_REPLY_BYTES, OPENAI_KEY_ENV, OPENAI_URL, safe_url, split_endpoint
from ragmeter.errors import ConfigError, explain_validation
from ragmeter.judges.base import DecodingParams, Judge

BACKENDS = ("llamacpp", "openai", "openai-compat", "hf", "scripted")


class _JudgeSettings(BaseModel):
    """Settings every backend reads: the model and how it decodes (part of the cache key)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    model: str | None = None
    temperature: float = Field(default=0.0, ge=0, le=10)
    seed: int = 42
    max_tokens: int = Field(default=512, ge=1, le=1_000_000)
    context_window: int | None = Field(default=None, ge=256)

    def params(self) -> DecodingParams:
        return DecodingParams(self.temperature, self.seed, self.max_tokens)

    def needs(self, name: str) -> str:
        """A setting this backend cannot do without, or a ConfigError naming it."""
        value = getattr(self, name)
        if not value:
            raise ConfigError(f"the {getattr(self, 'backend', '?')} judge needs `{name}`")
        return str(value)


class LlamaCppConfig(_JudgeSettings):
    """In-process llama.cpp: a bundled judge by name or a GGUF path."""

    backend: Literal["llamacpp"] = "llamacpp"
    api: Literal["auto", "chat", "completions"] = "auto"
    n_threads: int | None = Field(default=None, ge=1)
    #: a bundled judge's verdict probabilities through its shipped Platt line (judges/calibration.py)
    calibrate: bool = True
    #: reasons written: `failing` (only where a verdict is 0), `all`, or `none`; scores are the same
    reasons: Literal["all", "failing", "none"] = "failing"
    #: verdict lists `read` from the label logits after each item (prefill speed), or `decode`d as JSON
    verdicts: Literal["read", "decode"] = "read"


class HTTPJudgeConfig(_JudgeSettings):
    """An OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp's server)."""

    backend: Literal["openai", "openai-compat"]
    #: one URL, or several replicas of the same model, comma-separated or as a list
    base_url: str | list[str] | None = None
    api_key_env: str | None = None
    api: Literal["auto", "chat", "completions"] = "auto"
    structured: Literal["json_schema", "json_object", "none"] = "json_schema"
    logprobs: bool = True  # ask for top_logprobs on label fields
    #: `none`: the schema sent has no reason fields, so a paid judge writes fewer tokens; scores are the same
    reasons: Literal["all", "none"] = "all"
    #: a server answer larger than this fails its call (read no further): memory stays bounded
    max_reply_bytes: int = Field(default=MAX_REPLY_BYTES, ge=1024)
    #: a paid API's requests and tokens per minute, honoured across concurrency and replicas
    rpm: float | None = Field(default=None, gt=0)
    tpm: float | None = Field(default=None, gt=0)

    @field_validator("base_url")
    @classmethod
    def _no_credentials_in_url(cls, url: str | list[str] | None) -> str | None:
        """A key in a URL would be stored in the manifest and printed: refuse it (without
        echoing it) and say where keys go. Several URLs become one comma-separated string."""
        if url is None:
            return None
        urls = [u.strip() for u in (url.split(",") if isinstance(url, str) else url) if u.strip()]
        for one in urls:
            if not one.startswith(("http://", "https://")):
                raise ValueError(f"'{one[:60]}' is not an http(s) URL")
            safe_url(one)
        return ",".join(urls)


class HFConfig(_JudgeSettings):
    """A local Hugging Face transformers folder."""

    backend: Literal["hf"]


class ScriptedConfig(_JudgeSettings):
    backend: Literal["scripted"]


#: One typed config per backend, chosen by `backend`; the YAML `judge:` mapping.
JudgeConfig = LlamaCppConfig | HTTPJudgeConfig | HFConfig | ScriptedConfig
_CONFIGS: dict[str, type[_JudgeSettings]] = {"llamacpp": LlamaCppConfig, "openai": HTTPJudgeConfig,
                                             "openai-compat": HTTPJudgeConfig, "hf": HFConfig,
                                             "scripted": ScriptedConfig}


def judge_config(origin: str = "judge", **settings: Any) -> JudgeConfig:
    """The backend's typed config, or one ConfigError line that names the bad key and never
    echoes a value (a value may be a key pasted in the wrong place)."""
    if "api_key" in settings:
        raise ConfigError(f"{origin}: api_key is not a setting (a key in a config is stored and shared with "
                          "it): put the key in an environment variable and name it with api_key_env")
    backend = settings.setdefault("backend", "llamacpp")
    model = _CONFIGS.get(backend) if isinstance(backend, str) else None
    if model is None:
        raise ConfigError(f"{origin}: unknown judge backend '{backend}'; valid: {list(BACKENDS)}")
    known = set(model.model_fields)
    unused = sorted(set(settings) - known)
    every = {f for config in _CONFIGS.values() for f in config.model_fields}
    if unused and set(unused) <= every:
        raise ConfigError(f"{origin}: the {backend} judge does not use {', '.join(unused)}; "
                          f"its settings: {', '.join(sorted(known - {'backend'}))}")
    try:
        return model(**settings)  # type: ignore[return-value]
    except ValidationError as exc:
        raise ConfigError(f"{origin}: {explain_validation(exc, sorted(known))}") from None


def parse_judge_spec(spec: str | dict[str, Any] | JudgeConfig | None) -> JudgeConfig:
    """`llamacpp` (the default bundled judge), `llamacpp:qwen-coder-1.5b` or `llamacpp:gemma-270m`
    (a bundled judge by name), `llamacpp:/m.gguf`, `openai:gpt-4o-mini`, `openai-compat:URL#model`,
    `hf:/dir`."""
    if isinstance(spec, _JudgeSettings):
        return spec
    if spec is None:
        return LlamaCppConfig()
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
        return judge_config(backend=backend, model=rest, base_url=OPENAI_URL, api_key_env=OPENAI_KEY_ENV)
    if backend == "hf" and not rest:
        raise ConfigError(f"judge '{spec}': expected hf:/path/to/model")
    if backend == "llamacpp" and not rest:
        from ragmeter.judges.bundled import DEFAULT_BUNDLED

        rest = DEFAULT_BUNDLED
    return judge_config(backend=backend, model=rest or None)


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
