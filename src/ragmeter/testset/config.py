"""The `testset:` section of a config file, merged with command-line flags (flags win).
Paths in the file are relative to it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragmeter.errors import ConfigError, explain_validation
from ragmeter.judges.registry import DEFAULT_JUDGE


class TestsetConfig(BaseModel):
    """A test set's settings, validated once: the config file's `testset:` section, the flags
    of `ragmeter testset`, the keyword arguments of `generate_testset`."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    __test__ = False  # not a pytest test class

    docs: str  # a path, or "<in-memory>" when the API was given documents
    size: int = Field(default=50, ge=1)
    out: str | None = "testset"  # None: keep the test set in memory
    judge: str | dict[str, Any] = DEFAULT_JUDGE
    embeddings: str | dict[str, Any] = "bundled"
    #: "auto": the language of the documents (the covered language whose stop words they hold most)
    language: str = "auto"
    audience: str | None = None
    types: str | dict[str, float] | None = None
    seed: int = 0
    chunk_size: int = Field(default=2000, ge=50)
    chunk_overlap: int = Field(default=200, ge=0)
    chunk_unit: Literal["characters", "tokens"] = "characters"
    min_score: int = Field(default=4, ge=1, le=5)
    keep_on: Literal["rating", "probability", "expected"] = "rating"
    #: attempts per question asked for; None: 4 writing from the chunk, 8 answer-first (an
    #: answer-first attempt asks two calls, a chunk-first one four: the same budget in calls)
    max_attempts: int | None = Field(default=None, ge=1)
    dedup_threshold: float = Field(default=0.92, gt=0, le=1)
    groundedness: Literal["answer", "rating", "seed"] = "answer"
    #: span: a factoid question is written for an answer chosen in its chunk first; chunk: the
    #: question and its answer are written from the chunk, then critiqued (before issue 73)
    write_from: Literal["span", "chunk"] = "span"
    round_trip_k: int = Field(default=3, ge=0)
    critiques: list[Literal["standalone", "relevance"]] = []
    answer_check: Literal["sentence", "answerable", "both"] = "sentence"
    format: Literal["jsonl", "parquet"] = "jsonl"
    concurrency: int = Field(default=1, ge=1, le=256)
    cache: bool | str = True

    @property
    def attempts(self) -> int:
        """max_attempts, or its default for the way questions are written."""
        return self.max_attempts or (8 if self.write_from == "span" else 4)


class TestsetOptions(TypedDict, total=False):
    """Keyword arguments of `generate_testset` (defaults and meaning: TestsetConfig), and the
    objects it may take in place of specs."""

    out: str | Path | None
    judge: Any  # a spec, a settings mapping, or a Judge
    embeddings: Any  # a spec, or an Embedder
    language: str
    audience: str | None
    types: str | dict[str, float] | None
    seed: int
    chunk_size: int
    chunk_overlap: int
    chunk_unit: Literal["characters", "tokens"]
    min_score: int
    keep_on: Literal["rating", "probability", "expected"]
    max_attempts: int
    dedup_threshold: float
    groundedness: Literal["answer", "rating", "seed"]
    write_from: Literal["span", "chunk"]
    round_trip_k: int
    critiques: list[Literal["standalone", "relevance"]]
    answer_check: Literal["sentence", "answerable", "both"]
    format: Literal["jsonl", "parquet"]
    concurrency: int
    cache: bool | str | Path


def testset_config(**settings: Any) -> TestsetConfig:
    """TestsetConfig from keys and values, a bad one as one ConfigError line."""
    try:
        return TestsetConfig(**settings)
    except ValidationError as exc:
        raise ConfigError(f"testset: {explain_validation(exc, list(TestsetConfig.model_fields))}") from None


def load_testset_config(path: Path | None, flags: dict[str, Any]) -> TestsetConfig:
    data: dict[str, Any] = {}
    if path is not None:
        from ragmeter.io.config_files import read_mapping, relative_to

        section = read_mapping(path, "config", "testset, ...").get("testset")
        if not isinstance(section, dict):
            raise ConfigError(f"{path}: no `testset:` section (a mapping of docs, size, out, ...)")
        data = relative_to(section, ("docs", "out"), path.parent)
    data.update(flags)
    if "docs" not in data:
        raise ConfigError("no documents: give DOCS, or `docs:` in the config's testset section")
    return testset_config(**data)
