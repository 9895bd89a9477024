"""The run record beside the results: version, config, judge identity, prompt versions,
per-metric aggregates and accounting, and run timings. Scripts and CI read it."""

from __future__ import annotations

import datetime as dt
import platform
from typing import Any

from ragmeter import __version__
from ragmeter.config import RunConfig
from ragmeter.engine import RunResult

TRUNCATION_POLICY = ("when a prompt does not fit the judge's window (minus the reply budget), every retrieved "
                     "context in it keeps its beginning and loses its end by the same ratio, marked ' [...]'; "
                     "questions, answers and statements are never cut; such rows are counted as 'truncated'")


def build_manifest(cfg: RunConfig, run: RunResult, judge: Any, embedder: Any, cache: Any) -> dict[str, Any]:
    metrics: dict[str, Any] = {}
    for metric in run.metrics:
        stats = run.stats[metric.name].as_dict()
        metrics[metric.name] = {**run.aggregate(metric.name), **stats, "version": metric.version,
                                "required": list(metric.required), "higher_is_better": metric.higher_is_better}
    timings = {k: round(v, 4) for k, v in run.timings.items()}
    return {
        "ragmeter_version": __version__,
        "created_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "config": cfg.model_dump(mode="json"),
        "dataset": {"source": run.dataset.source, "sha256": run.dataset.sha256, "rows": len(run.dataset)},
        "judge": {"name": judge.describe(), **judge.identity(),
                  "api_key_env": getattr(judge, "api_key_env", None)} if judge else None,
        "embeddings": embedder.identity() if embedder else None,
        "prompts": {m.name: {p.name: p.version for p in m.prompts()} for m in run.metrics},
        "cache": str(cache.path),
        "truncation_policy": TRUNCATION_POLICY,
        "metrics": metrics,
        **timings,
    }
