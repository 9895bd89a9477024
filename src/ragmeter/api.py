"""The public library entry points: `evaluate` (sync), `aevaluate` (async) and `estimate`.
They turn their arguments into a RunConfig; the run itself is run/execute.py's."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from ragmeter.judges.base import Judge
from ragmeter.metrics import Metric, get_metrics
from ragmeter.run.config import OutputFormat, RunConfig, default
from ragmeter.run.result import EvaluationResult

if TYPE_CHECKING:
    from ragmeter.run.dry_run import Estimate


class RunOptions(TypedDict, total=False):
    """Keyword arguments every entry point takes (defaults in DEFAULTS): what a run reads and
    judges with."""

    judge: str | dict | Judge  # "llamacpp" (the bundled Qwen), a spec, a settings mapping, or a Judge
    embeddings: str | dict | Any  # "bundled", a spec, or an embedder
    columns: dict[str, str] | None  # FIELD -> your column
    cache: bool | str | Path  # True: the per-user cache; False: none; a path: that file
    concurrency: int  # judge calls in flight
    limit: int | None  # only the first N rows
    language: str  # the prompts' language: "auto" (the data's) | "english" | "spanish"
    prompts_dir: str | Path | None  # exported or translated prompt files that replace the built-in ones
    layout: str  # "instruction" | "row" | "auto": where context-reading prompts put the row (prompts/row_first.py)


class EstimateOptions(RunOptions, total=False):
    """Keyword arguments of `estimate`."""

    price_per_million: dict[str, float] | None  # {"prompt": X, "completion": Y}, for the estimate's price


class EvaluateOptions(RunOptions, total=False):
    """Keyword arguments of `evaluate` and `aevaluate`."""

    out: str | Path | None  # write results and manifest.json here (None: keep them in memory)
    format: OutputFormat  # "jsonl" | "csv" | "parquet"
    timeout: float  # seconds per judge call
    retries: int  # per judge call, with backoff
    progress: bool | None  # the progress line (None: when stderr is a terminal)
    overwrite: bool  # replace another run's results in `out`
    labels: str | Path | None  # labels.jsonl: human labels on some rows -> what people would say (docs/act.md)
    max_failed: float  # the share of (row, metric) pairs whose judge calls may stay failed; more fails passes()
    max_flagged: dict[str, int]  # per flag (addressed_to_judge, no_claim), the most rows a metric may flag: a gate


#: the keyword arguments RunConfig also has take its defaults, so a run from Python and one
#: from YAML agree
DEFAULTS: dict[str, Any] = {
    **{key: default(key) for key in ("judge", "embeddings", "columns", "cache", "concurrency", "limit", "language",
                                     "prompts_dir", "layout", "format", "timeout", "retries", "progress", "overwrite",
                                     "labels", "max_failed", "max_flagged")},
    "price_per_million": None, "out": None}


def evaluate(data: Any, metrics: list[Any] | None = None, **options: Unpack[EvaluateOptions]) -> EvaluationResult:
    """Evaluate a path, list of dicts, DataFrame or datasets.Dataset (see `aevaluate`)."""
    return run_sync(aevaluate(data, metrics, **options))


async def aevaluate(data: Any, metrics: list[Any] | None = None,
                    **options: Unpack[EvaluateOptions]) -> EvaluationResult:
    """Score `data` with `metrics` (default: the six core metrics) using `judge` and `embeddings`.
    `language` picks the built-in prompts; `prompts_dir` replaces them with exported or
    translated files (see `ragmeter prompts`). Keyword arguments: `EvaluateOptions`."""
    given = _options(options, EvaluateOptions, "evaluate")
    out = given.pop("out")
    cfg, objects = _api_config(data, metrics, output=str(out) if out else "results", **given)
    from ragmeter.run.execute import run_config

    return await run_config(cfg, data=data, write=out is not None, **objects)


def estimate(data: Any, metrics: list[Any] | None = None, **options: Unpack[EstimateOptions]) -> Estimate:
    """What `evaluate` with these arguments would cost, calling no judge: per metric the
    calls, prompt tokens, cache hits, and (after `ragmeter bench-judge`) seconds and price
    (a dry_run.Estimate; see docs/runs.md, "What a run will cost"). Keyword arguments:
    `EstimateOptions`."""
    from ragmeter.run.dry_run import dry_run

    cfg, objects = _api_config(data, metrics, progress=False, **_options(options, EstimateOptions, "estimate"))
    return run_sync(dry_run(cfg, data=data, **objects))


def _options(given: Any, schema: Any, name: str) -> dict[str, Any]:
    """The keyword arguments with their defaults; a name the function does not take fails as
    Python's own keyword check would (a TypedDict is not checked at run time)."""
    keys = schema.__required_keys__ | schema.__optional_keys__  # the inherited ones too
    unknown = sorted(set(given) - keys)
    if unknown:
        raise TypeError(f"{name}() got an unexpected keyword argument '{unknown[0]}'")
    return {**{k: DEFAULTS[k] for k in keys}, **given}


def run_sync(coro: Any) -> Any:
    """Run `coro` to completion and return its result. Inside a running event loop (Jupyter,
    where people call `evaluate()` as in a script) it runs on a worker thread with its own
    loop, and this call waits for it; `aevaluate` stays for those who await."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragmeter") as worker:
        return worker.submit(asyncio.run, coro).result()


def _api_config(data: Any, metrics: list[Any] | None, **fields: Any) -> tuple[RunConfig, dict[str, Any]]:
    """The RunConfig the API's arguments make, and the objects given in place of specs (a
    Judge, an embedder, Metric instances)."""
    judge, embeddings = fields.pop("judge"), fields.pop("embeddings")
    cache, prompts_dir = fields.pop("cache"), fields.pop("prompts_dir")
    if fields.get("labels") is not None:
        fields["labels"] = str(fields["labels"])
    cfg = RunConfig(dataset=str(data) if isinstance(data, (str, Path)) else "<in-memory>",
                    judge=judge if isinstance(judge, (str, dict)) else judge.describe(),
                    embeddings=embeddings if isinstance(embeddings, (str, dict)) else "custom",
                    metrics=[_config_entry(m) for m in metrics] if metrics else None,
                    cache=str(cache) if isinstance(cache, Path) else cache,
                    prompts_dir=str(prompts_dir) if prompts_dir else None,
                    **{**fields, "columns": fields.get("columns") or {}})
    objects = get_metrics(metrics) if metrics and any(isinstance(m, Metric) for m in metrics) else None
    return cfg, {"judge": None if isinstance(judge, (str, dict)) else judge,
                 "embedder": None if isinstance(embeddings, (str, dict)) else embeddings, "metrics": objects}


def _config_entry(metric: Any) -> Any:
    """A Metric instance (your own) is recorded in the config by its class and label."""
    if isinstance(metric, Metric):
        return f"{type(metric).__module__}.{type(metric).__qualname__} as {metric.label}"
    return metric


