"""Run folders with chosen scores (a valid manifest.json + results.jsonl), for testing what
reads runs (compare, gates, the report, your own CI scripts) without a judge; ragmeter's own
tests and benchmarks/bench_compare.py use them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragmeter.results.manifest import Manifest
from ragmeter.stats import score_summary


def metric_record(values: list[float | None], higher_is_better: bool = True, ci: bool = True,
                  metric: str = "faithfulness") -> dict[str, Any]:
    unscored = sum(v is None for v in values)
    summary = score_summary(values, {"no reply": unscored} if unscored else {}, resamples=500)
    return {**summary, "ci95": summary["ci95"] if ci else None,
            "judge_calls": len(values), "prompt_tokens": 100 * len(values), "completion_tokens": 10 * len(values),
            "cache_hits": 0, "reasks": 0, "unparseable": 0, "truncated": 0, "embed_calls": 0,
            "embed_cache_hits": 0, "judge_seconds": 0.5 * len(values), "embed_seconds": 0.0,
            "seconds": 0.5 * len(values), "version": "1", "metric": metric, "settings": {},
            "required": ["user_input", "response"], "higher_is_better": higher_is_better}


def _direction(label: str) -> bool:
    """A built-in metric's own direction (a manifest saying otherwise is refused), else higher."""
    from ragmeter.metrics.registry import builtin_direction

    found = builtin_direction(label)
    return True if found is None else found


def write_run(folder: Path, scores: dict[str, list[float | None]], ids: list[str] | None = None,
              higher_is_better: dict[str, bool] | None = None, dataset_sha: str = "d" * 64,
              rows: list[dict[str, Any]] | None = None, ci: bool = True) -> Path:
    """A run folder whose metric columns hold `scores` (None: unscored)."""
    n = len(next(iter(scores.values())))
    ids = ids or [f"q{i}" for i in range(n)]
    base = rows or [{"id": i, "user_input": f"question {i}?", "response": f"answer {i}.",
                     "retrieved_contexts": [f"context of {i}."]} for i in ids]
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for index, row in enumerate(base):
        row = dict(row)
        for name, values in scores.items():
            row[name] = values[index]
            row[f"{name}_reason"] = None if values[index] is None else f"{name} reason {row['id']}"
            row[f"{name}_evidence"] = {"verdicts": [{"statement": "s", "verdict": 1, "reason": "r"}]}
        lines.append(json.dumps(row, ensure_ascii=False))
    (folder / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    hib = higher_is_better or {}
    manifest: dict[str, Any] = {"ragmeter_version": "test", "created_at": "2026-11-22T00:00:00+00:00", "python": "3.11",
                "config": {"dataset": "data.jsonl", "columns": {}}, "judge": {"name": "scripted"},
                "dataset": {"source": "data.jsonl", "sha256": dataset_sha, "rows": n}, "embeddings": None,
                "language": "english", "prompts_dir": None,
                "prompts": {m: {"verdicts": {"version": "abc123", "file": "built-in", "note": None}}
                            for m in scores},
                "prompt_notes": [], "cache": "cache.sqlite", "truncation_policy": "-",
                "metrics": {m: metric_record(v, hib.get(m, _direction(m)), ci, m) for m, v in scores.items()},
                "rag_index": None,
                "faults": {"retries": 0, "timeouts": 0, "reasks": 0, "unparseable": 0,
                           "structured_output_refused": 0, "http_errors": {}, "processes": 1},
                "wall_seconds": 1.0, "judge_seconds": 0.5, "embed_seconds": 0.0, "judge_load_seconds": 0.1,
                "model_busy_seconds": 0.6, "overhead_seconds": 0.01, "cpu_seconds": 1.0,
                "results_file": "results.jsonl"}
    Manifest.model_validate(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder
