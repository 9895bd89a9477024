"""Judge spec strings and YAML dicts -> Judge instances, with lazy backend imports."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from ragmeter.errors import ConfigError
from ragmeter.judges.base import DecodingParams, Judge

BACKENDS = ("llamacpp", "openai", "openai-compat", "hf", "scripted")


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
            rest = {k: v for k, v in spec.items() if k != "spec"}
            return parse_judge_spec(spec["spec"]).model_copy(update=_validated(rest))
        return JudgeConfig(**spec)
    backend, _, rest = spec.partition(":")
    if backend not in BACKENDS:
        raise ConfigError(f"unknown judge backend '{backend}' in '{spec}'; valid: {list(BACKENDS)}")
    if backend == "openai-compat":
        url, _, model = rest.partition("#")
        if not url.startswith(("http://", "https://")) or not model:
            raise ConfigError(f"judge '{spec}': expected openai-compat:http://HOST:PORT/v1#MODEL")
        return JudgeConfig(backend=backend, base_url=url, model=model)
    if backend == "openai":
        if not rest:
            raise ConfigError(f"judge '{spec}': expected openai:MODEL, e.g. openai:gpt-4o-mini")
        return JudgeConfig(backend=backend, model=rest, base_url="https://api.openai.com/v1",
                           api_key_env="OPENAI_API_KEY")
    if backend == "hf" and not rest:
        raise ConfigError(f"judge '{spec}': expected hf:/path/to/model")
    if backend == "llamacpp" and not rest:
        from ragmeter.judges.bundled import DEFAULT_BUNDLED

        rest = DEFAULT_BUNDLED
    return JudgeConfig(backend=backend, model=rest or None)


def _validated(update: dict[str, Any]) -> dict[str, Any]:
    return JudgeConfig(**update).model_dump(include=set(update))


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
