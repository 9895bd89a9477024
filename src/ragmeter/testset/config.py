"""The `testset:` section of a config file, merged with command-line flags (flags win).
Paths in the file are relative to it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragmeter.errors import ConfigError, explain_validation


class TestsetConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    __test__ = False  # not a pytest test class

    docs: str
    size: int = Field(default=50, ge=1)
    out: str = "testset"
    judge: str | dict[str, Any] = "llamacpp"
    embeddings: str | dict[str, Any] = "bundled"
    language: str = "english"
    audience: str | None = None
    types: str | dict[str, float] | None = None
    seed: int = 0
    chunk_size: int = Field(default=2000, ge=50)
    chunk_overlap: int = Field(default=200, ge=0)
    chunk_unit: str = "characters"
    min_score: int = Field(default=4, ge=1, le=5)
    max_attempts: int = Field(default=4, ge=1)
    dedup_threshold: float = Field(default=0.92, gt=0, le=1)
    groundedness: str = "rating"
    format: str = "jsonl"
    concurrency: int = Field(default=1, ge=1, le=256)
    cache: bool | str = True


def load_testset_config(path: Path | None, flags: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if path is not None:
        import yaml

        if not path.is_file():
            raise ConfigError(f"config file not found: {path}")
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        section = loaded.get("testset") if isinstance(loaded, dict) else None
        if not isinstance(section, dict):
            raise ConfigError(f"{path}: no `testset:` section (a mapping of docs, size, out, ...)")
        data = dict(section)
        for key in ("docs", "out"):
            if isinstance(data.get(key), str) and not Path(data[key]).is_absolute():
                data[key] = str(path.parent / data[key])
    data.update(flags)
    if "docs" not in data:
        raise ConfigError("no documents: give DOCS, or `docs:` in the config's testset section")
    try:
        return TestsetConfig(**data).model_dump()
    except ValidationError as exc:
        raise ConfigError(f"testset: {explain_validation(exc, list(TestsetConfig.model_fields))}") from None
