"""The run record beside the results: version, config, judge identity, prompt versions,
per-metric aggregates and accounting, and run timings. Scripts and CI read it."""

from __future__ import annotations

import datetime as dt
import hashlib
import platform
from typing import Any

from pydantic import BaseModel, ConfigDict

from ragmeter import __version__
from ragmeter.config import RunConfig
from ragmeter.engine import RunResult

TRUNCATION_POLICY = ("when a prompt does not fit the judge's window (minus the reply budget), every retrieved "
                     "context in it keeps its beginning and loses its end by the same ratio, marked ' [...]'; "
                     "questions, answers and statements are never cut; such rows are counted as 'truncated'")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MetricRecord(_Strict):
    """One metric's aggregate, accounting and identity in manifest.json."""

    mean: float | None
    ci95: tuple[float, float] | None
    n: int
    unscored: int
    unscored_reasons: dict[str, int]
    judgment: dict[str, int] | None = None  # rows per judgment mode, for metrics that have one
    judge_calls: int
    prompt_tokens: int
    completion_tokens: int
    cache_hits: int
    reasks: int
    unparseable: int
    truncated: int
    embed_calls: int
    embed_cache_hits: int
    judge_seconds: float
    embed_seconds: float
    seconds: float
    version: str
    metric: str
    settings: dict[str, Any]
    required: list[str]
    higher_is_better: bool


class DatasetRecord(_Strict):
    source: str
    sha256: str | None
    rows: int


class Faults(_Strict):
    retries: int
    timeouts: int
    reasks: int
    unparseable: int
    structured_output_refused: int
    #: Ray workers that died mid-run and were replaced (ray_engine.py)
    worker_restarts: int = 0
    http_errors: dict[str, int]
    processes: int


class Manifest(_Strict):
    """manifest.json as a type: the summary printer and the CLI read this, and a run checks
    its own manifest against it before writing, so the documented format cannot drift."""

    ragmeter_version: str
    created_at: str
    python: str
    config: dict[str, Any]
    dataset: DatasetRecord
    judge: dict[str, Any] | None
    embeddings: dict[str, Any] | None
    language: str
    prompts_dir: str | None
    prompts: dict[str, dict[str, dict[str, Any]]]
    prompt_notes: list[str]
    cache: str
    truncation_policy: str
    metrics: dict[str, MetricRecord]
    rag_index: dict[str, Any] | None
    faults: Faults
    wall_seconds: float
    judge_seconds: float
    embed_seconds: float
    judge_load_seconds: float
    model_busy_seconds: float
    overhead_seconds: float
    cpu_seconds: float
    results_file: str | None = None
    #: gate outcomes when the run had gates (gates.py): {passed, mode, results: [...]}
    gates: dict[str, Any] | None = None
    #: the shard folders `ragmeter merge` joined into this run
    merged_from: list[str] | None = None
    #: the dry run's estimate for this run (`--dry-run`), with the actuals beside it
    estimate: dict[str, Any] | None = None


def build_manifest(cfg: RunConfig, run: RunResult, judge: Any, embedder: Any, cache: Any,
                   estimate: dict[str, Any] | None = None) -> dict[str, Any]:
    """The manifest as the JSON object written to manifest.json (checked against Manifest);
    `estimate`: a dry run's, reported beside the actuals."""
    record = _manifest_dict(cfg, run, judge, embedder, cache)
    if estimate:
        record["estimate"] = beside_actuals(estimate, record)
    Manifest.model_validate(record)
    return record


def _manifest_dict(cfg: RunConfig, run: RunResult, judge: Any, embedder: Any, cache: Any) -> dict[str, Any]:
    metrics: dict[str, Any] = {}
    for metric in run.metrics:
        stats = run.stats[metric.label].as_dict()
        metrics[metric.label] = {**run.aggregate(metric.label), **stats, "version": metric_version(metric, run),
                                "metric": metric.name, "settings": metric.options.model_dump(mode="json"),
                                "required": list(metric.required), "higher_is_better": metric.higher_is_better}
    timings = {k: round(v, 4) for k, v in run.timings.items()}
    return {
        "ragmeter_version": __version__,
        "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "config": cfg.model_dump(mode="json"),
        "dataset": {"source": run.dataset.source, "sha256": run.dataset.sha256, "rows": len(run.dataset)},
        "judge": judge_record(judge) if judge else None,
        "embeddings": embedder.identity() if embedder else None,
        "language": run.prompts.language,
        "prompts_dir": run.prompts.prompts_dir,
        "prompts": {m.label: {n: r.record() for n, r in run.prompts.for_metric(m.prompt_metric).items()}
                    for m in run.metrics if m.prompt_names},
        "prompt_notes": run.prompts.notes(),
        "cache": str(cache.path),
        "truncation_policy": TRUNCATION_POLICY,
        "metrics": metrics,
        "rag_index": rag_index(run),
        "faults": run.faults.record(),
        **timings,
    }


def beside_actuals(stored: dict[str, Any] | None, manifest: dict[str, Any]) -> dict[str, Any] | None:
    """The stored estimate with the run's actual calls, tokens and seconds per metric."""
    if not stored:
        return None
    actual = {name: {"calls": m["judge_calls"], "cache_hits": m["cache_hits"], "prompt_tokens": m["prompt_tokens"],
                     "completion_tokens": m["completion_tokens"], "judge_seconds": m["judge_seconds"]}
              for name, m in manifest["metrics"].items()}
    return {**stored, "actual": actual, "actual_wall_seconds": manifest["wall_seconds"]}


def judge_record(judge: Any) -> dict[str, Any]:
    """The judge's name and identity, never its key; a fleet adds each replica's record."""
    servers = judge.servers() if hasattr(judge, "servers") else None
    batches = getattr(judge, "batches", None)
    calibrated = {key: rule.record() for key, rule in judge.calibration().items()}
    return {"name": judge.describe(), **judge.identity(), "api_key_env": getattr(judge, "api_key_env", None),
            **({"calibration": calibrated} if calibrated else {}),
            **({"servers": servers} if servers else {}), **({"batches": batches} if batches is not None else {})}


def metric_version(metric: Any, run: RunResult) -> str:
    """The metric's code version plus a digest of its prompt versions: editing a prompt
    changes the metric's version as well as every cache key."""
    versions = [r.template.version for _, r in sorted(run.prompts.for_metric(metric.prompt_metric).items())]
    if not versions:
        return metric.version
    return f"{metric.version}+{hashlib.sha256(':'.join(versions).encode()).hexdigest()[:8]}"


def rag_index(run: RunResult) -> dict[str, Any] | None:
    """Pleias's RAG Index: the mean of the citation-family metrics this run has scores for,
    with the components named and a bootstrap interval. None when the run has none."""
    from ragmeter.metrics import CITATION_METRICS

    names = [m.label for m in run.metrics if m.name in CITATION_METRICS]
    return index_of({n: run.column(n) for n in names})


def index_of(columns: dict[str, list[float | None]]) -> dict[str, Any] | None:
    """The RAG Index over these citation metrics' score columns (None without any)."""
    from ragmeter.stats import index_with_ci

    names = list(columns)
    if not names:
        return None
    index = index_with_ci(columns)
    if index is None:
        return {"value": None, "components": [], "missing": names}
    return {**index, "missing": [n for n in names if n not in index["components"]]}
