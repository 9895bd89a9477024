"""The run configuration: one pydantic object for YAML files and CLI flags alike.

Precedence is CLI > file > defaults (the CLI builds the same object). Unknown keys are
errors that list the valid ones. Relative paths resolve against the config file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ragmeter.errors import ConfigError, explain_validation

OutputFormat = Literal["jsonl", "csv", "parquet"]


class EngineConfig(BaseModel):
    """Where rows are scored: in this process (`local`) or on a Ray cluster (`ray`)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["local", "ray"] = "local"
    #: Ray: "local" or None starts Ray on this machine; "auto" joins the running cluster; or host:port
    address: str | None = None
    #: Ray actors, each with its own judge and embedder (default: the cluster's CPUs)
    workers: int | None = Field(default=None, ge=1)
    #: rows per task (default: enough for four tasks per worker, at most 64)
    chunk_rows: int | None = Field(default=None, ge=1)


class RunConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dataset: str
    #: a folder; "{timestamp}" in it gives each run its own (io/output.py)
    output: str = "results"
    format: OutputFormat = "jsonl"
    judge: str | dict[str, Any] = "llamacpp"
    embeddings: str | dict[str, Any] = "bundled"
    #: None: the six core metrics, or the citation family for a cited (Pleias-style) file
    metrics: list[str | dict[str, Any]] | None = None
    columns: dict[str, str] = Field(default_factory=dict)
    concurrency: int = Field(default=1, ge=1, le=256)
    timeout: float = Field(default=300.0, gt=0)
    retries: int = Field(default=3, ge=0, le=10)
    cache: str | bool = True
    limit: int | None = Field(default=None, ge=1)
    #: "I/N": only the rows whose id hashes to shard I of N (shard.py; join with `ragmeter merge`)
    shard: str | None = None
    progress: bool | None = None
    language: str = "english"
    prompts_dir: str | None = None
    #: replace another run's results in `output` (a re-run of the same run always may)
    overwrite: bool = False
    # CI gates (results/gates.py): bars per metric, mean or interval, unscored share, a baseline run
    thresholds: dict[str, float] = Field(default_factory=dict)
    gate: Literal["mean", "lower"] = "mean"
    max_unscored: float | None = Field(default=None, ge=0, le=1)
    baseline: str | None = None
    max_drop: float = Field(default=0.0, ge=0, le=1)
    # files beside the results: a Markdown summary, JUnit XML, the HTML report
    summary_md: str | None = None
    junit: str | None = None
    junit_rows: bool = False
    report: bool = False
    engine: EngineConfig = Field(default_factory=EngineConfig)
    #: send judge requests through the provider's batch API (judges/batch.py), polled this often
    batch: bool = False
    batch_poll_seconds: float = Field(default=30.0, gt=0)
    #: {prompt: X, completion: Y} per million tokens: the dry run prices the run (dry_run.py)
    price_per_million: dict[str, float] | None = None

    @field_validator("price_per_million")
    @classmethod
    def _price(cls, value: dict[str, float] | None) -> dict[str, float] | None:
        if value is not None and (set(value) != {"prompt", "completion"} or min(value.values()) < 0):
            raise ValueError("price_per_million takes {prompt: X, completion: Y}, both >= 0")
        return value

    @field_validator("thresholds")
    @classmethod
    def _bars(cls, value: dict[str, float]) -> dict[str, float]:
        for name, bar in value.items():
            if not 0 <= bar <= 1:
                raise ValueError(f"threshold {name}={bar} is outside [0, 1] (scores are in [0, 1])")
        return value

    def gate_settings(self) -> Any:
        from ragmeter.results.gates import GateSettings

        return GateSettings(thresholds=self.thresholds, gate=self.gate, max_unscored=self.max_unscored,
                            baseline=self.baseline, max_drop=self.max_drop)

    @field_validator("shard")
    @classmethod
    def _shard(cls, value: str | None) -> str | None:
        from ragmeter.shard import parse_shard

        if value is None:
            return None
        try:
            index, count = parse_shard(value)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
        return f"{index}/{count}"

    @field_validator("language")
    @classmethod
    def _language(cls, value: str) -> str:
        from ragmeter.prompts.languages import normalize_language

        try:
            return normalize_language(value)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None


def valid_keys() -> list[str]:
    return list(RunConfig.model_fields)


def build_config(data: dict[str, Any], origin: str = "config") -> RunConfig:
    try:
        return RunConfig(**data)
    except ValidationError as exc:
        raise ConfigError(f"{origin}: {explain_validation(exc, valid_keys())}") from None


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> RunConfig:
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of keys (dataset, metrics, judge, ...), "
                          f"got {type(data).__name__}")
    data.update({k: v for k, v in (overrides or {}).items() if v is not None})
    return resolve_paths(build_config(data, str(path)), path.parent)


def resolve_paths(cfg: RunConfig, base: Path) -> RunConfig:
    """Paths in a config file are relative to that file, not to the working directory."""
    def rel(value: str) -> str:
        p = Path(value).expanduser()
        return str(p if p.is_absolute() else (base / p))

    update: dict[str, Any] = {"dataset": rel(cfg.dataset), "output": rel(cfg.output)}
    for key in ("prompts_dir", "baseline", "summary_md", "junit"):
        if getattr(cfg, key):
            update[key] = rel(getattr(cfg, key))
    if isinstance(cfg.cache, str):
        update["cache"] = rel(cfg.cache)
    if isinstance(cfg.judge, str) and cfg.judge.startswith(("llamacpp:", "hf:")):
        from ragmeter.judges.bundled import BUNDLED

        backend, _, model = cfg.judge.partition(":")
        update["judge"] = cfg.judge if model in BUNDLED else f"{backend}:{rel(model)}"
    return cfg.model_copy(update=update)
