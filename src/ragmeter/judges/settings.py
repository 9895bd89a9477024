"""Each judge backend's typed settings (the YAML `judge:` mapping) and what the backend can
do. Light: pydantic only; a backend's module is imported when a judge is built
(judges/registry.py)."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ragmeter.endpoints import MAX_REPLY_BYTES, OPENAI_KEY_ENV, OPENAI_URL, safe_url, split_endpoint
from ragmeter.errors import ConfigError
from ragmeter.judges.base import DecodingParams


class JudgeSettings(BaseModel):
    """Settings every backend reads: the model and how it decodes (part of the cache key).
    A backend's own config subclasses this, names its `backend` as a Literal, and says what
    the backend can do in the class variables below, so the run asks instead of knowing."""

    #: where its Judge class lives, "module:Class" (imported only when a judge is built)
    factory: ClassVar[str] = ""
    #: one call at a time, in this process (a local model): the run never overlaps calls
    serial: ClassVar[bool] = False
    #: `model` may be a file or folder path (relative paths in a config are made absolute)
    takes_path: ClassVar[bool] = False
    #: `model` may name a judge ragmeter ships (judges/bundled.py)
    bundled_models: ClassVar[bool] = False
    #: where its batch-API Judge class lives (`ragmeter run --batch`), if the backend has one
    batch_factory: ClassVar[str] = ""

    #: the backend's name (a subclass narrows it to its own Literal)
    backend: str

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    model: str | None = None
    temperature: float = Field(default=0.0, ge=0, le=10)
    seed: int = 42
    max_tokens: int = Field(default=512, ge=1, le=1_000_000)
    context_window: int | None = Field(default=None, ge=256)

    def params(self) -> DecodingParams:
        return DecodingParams(self.temperature, self.seed, self.max_tokens)

    @classmethod
    def from_spec(cls, backend: str, rest: str) -> dict[str, object]:
        """The settings a spec string `backend:rest` gives: by default `rest` is the model."""
        return {"backend": backend, "model": rest or None}

    def needs(self, name: str) -> str:
        """A setting this backend cannot do without, or a ConfigError naming it."""
        value = getattr(self, name)
        if not value:
            raise ConfigError(f"the {getattr(self, 'backend', '?')} judge needs `{name}`")
        return str(value)


class LlamaCppConfig(JudgeSettings):
    """In-process llama.cpp: a bundled judge by name or a GGUF path."""

    factory: ClassVar[str] = "ragmeter.judges.llamacpp.judge:LlamaCppJudge"
    serial: ClassVar[bool] = True
    takes_path: ClassVar[bool] = True
    bundled_models: ClassVar[bool] = True

    backend: Literal["llamacpp"] = "llamacpp"
    api: Literal["auto", "chat", "completions"] = "auto"
    n_threads: int | None = Field(default=None, ge=1)
    #: a bundled judge's verdict probabilities through its shipped Platt line (judges/calibration.py)
    calibrate: bool = True
    #: reasons written: `failing` (only where a verdict is 0), `all`, or `none`; scores are the same
    reasons: Literal["all", "failing", "none"] = "failing"
    #: verdict lists `read` from the label logits after each item (prefill speed), or `decode`d as JSON
    verdicts: Literal["read", "decode"] = "read"
    #: metrics' shared prompt prefixes kept on `disk` across runs (beside the cache; replies are
    #: the same, bitwise), or in `memory` for one run only
    prefixes: Literal["disk", "memory"] = "disk"

    @classmethod
    def from_spec(cls, backend: str, rest: str) -> dict[str, object]:
        """`llamacpp` alone is the default bundled judge."""
        from ragmeter.judges.bundled import DEFAULT_BUNDLED

        return {"backend": backend, "model": rest or DEFAULT_BUNDLED}


class HTTPJudgeConfig(JudgeSettings):
    """An OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp's server)."""

    factory: ClassVar[str] = "ragmeter.judges.openai_compat:OpenAICompatJudge"
    batch_factory: ClassVar[str] = "ragmeter.judges.batch:BatchJudge"

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

    @classmethod
    def from_spec(cls, backend: str, rest: str) -> dict[str, object]:
        """`openai:MODEL`, or `openai-compat:URL#MODEL`."""
        if backend == "openai-compat":
            url, model = split_endpoint(rest, "judge")
            return {"backend": backend, "base_url": url, "model": model}
        if not rest:
            raise ConfigError(f"judge '{backend}:': expected openai:MODEL, e.g. openai:gpt-4o-mini")
        return {"backend": backend, "model": rest, "base_url": OPENAI_URL, "api_key_env": OPENAI_KEY_ENV}

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
            try:
                from urllib.parse import urlsplit

                urlsplit(one).port  # noqa: B018 - read for its check: a port must be 0-65535
            except ValueError:
                raise ValueError(f"'{one[:60]}' has no valid port (1-65535)") from None
            safe_url(one)
        return ",".join(urls)


class HFConfig(JudgeSettings):
    """A local Hugging Face transformers folder."""

    factory: ClassVar[str] = "ragmeter.judges.hf:HFJudge"
    serial: ClassVar[bool] = True
    takes_path: ClassVar[bool] = True

    backend: Literal["hf"]

    @classmethod
    def from_spec(cls, backend: str, rest: str) -> dict[str, object]:
        if not rest:
            raise ConfigError(f"judge '{backend}:': expected hf:/path/to/model")
        return {"backend": backend, "model": rest}


class ScriptedConfig(JudgeSettings):
    """Tests' judge: built from a ScriptedJudge object, never from a spec (no factory)."""

    backend: Literal["scripted"]
