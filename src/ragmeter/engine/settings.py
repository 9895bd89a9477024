"""Where a run's rows are scored: one settings model for the config file, the CLI and the engines."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


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
