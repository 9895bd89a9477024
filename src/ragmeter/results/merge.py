"""`ragmeter merge SHARD_DIRS... --out DIR`: one run from the folders of `--shard I/N` runs
(shard.py). Means and intervals are recomputed from the joined rows (never averaged means);
shards of another dataset or config, a shard given twice and missing shards are refused.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from ragmeter.errors import ConfigError, DataError
from ragmeter.faults import KINDS
from ragmeter.shard import parse_shard

#: config keys that may differ between the shards of one run
PER_SHARD = ("output", "shard", "overwrite", "progress", "concurrency", "timeout", "retries", "summary_md", "junit",
             "report", "cache")
#: additive per-metric counters: summed over shards
COUNTERS = ("judge_calls", "prompt_tokens", "completion_tokens", "cache_hits", "reasks", "unparseable", "truncated",
            "embed_calls", "embed_cache_hits", "judge_seconds", "embed_seconds", "seconds")
TIMINGS = ("wall_seconds", "judge_seconds", "embed_seconds", "judge_load_seconds", "model_busy_seconds",
           "overhead_seconds", "cpu_seconds")


def merge_runs(folders: list[str | Path], out: str | Path, overwrite: bool = False) -> Path:
    """One run folder from shard folders: rows in dataset order, aggregates from the rows."""
    from ragmeter.results.runs import load_run

    if not folders:
        raise ConfigError("merge: give the shard folders")
    runs = [load_run(f) for f in folders]
    shards = _check_shards(runs)
    ordered = [run for _, run in sorted(zip(shards, runs), key=lambda t: t[0])]
    rows = [row for run in ordered for row in run.rows]
    ids = [row_id for run in ordered for row_id in run.ids]
    order = _dataset_order(runs[0].manifest.dataset.source, runs[0].manifest.dataset.sha256)
    if order:
        rows = [r for _, r in sorted(zip(ids, rows), key=lambda t: order.get(t[0], len(order)))]
    manifest = merged_manifest(runs, rows)
    return _write(Path(out), rows, manifest, runs[0].manifest.config.get("format", "jsonl"), overwrite)


def _check_shards(runs: list[Any]) -> list[int]:
    first = runs[0].manifest
    count = parse_shard(first.config["shard"])[1] if (first.config or {}).get("shard") else 0
    indexes = []
    for run in runs:
        m = run.manifest
        shard = (m.config or {}).get("shard")
        if not shard:
            raise DataError("not a shard (its run had no --shard)", source=run.source)
        index, split = parse_shard(shard)
        if split != count:
            raise DataError(f"shard {shard} is from a split into {split}, not {count}", source=run.source)
        if m.dataset.sha256 != first.dataset.sha256:
            raise DataError(f"another dataset ({m.dataset.source}, sha256 {str(m.dataset.sha256)[:12]}) than "
                            f"{runs[0].source} ({str(first.dataset.sha256)[:12]})", source=run.source)
        if _same_run(m) != _same_run(first):
            raise DataError(f"another config than {runs[0].source} (metrics, judge, prompts or settings differ)",
                            source=run.source)
        indexes.append(index)
    repeated = [i for i, n in Counter(indexes).items() if n > 1]
    if repeated:
        raise DataError(f"merge: shard {repeated[0]} given twice")
    missing = sorted(set(range(count)) - set(indexes))
    if missing:
        raise DataError(f"merge: shard(s) {', '.join(map(str, missing))} of {count} missing")
    return indexes


def _same_run(manifest: Any) -> Any:
    config = {k: v for k, v in manifest.config.items() if k not in PER_SHARD}
    judge = {k: v for k, v in (manifest.judge or {}).items() if k != "name"}
    metrics = {n: (m.metric, m.version, m.settings) for n, m in manifest.metrics.items()}
    return json.dumps([config, judge, manifest.embeddings, metrics, manifest.prompts], sort_keys=True, default=str)


def _dataset_order(source: str, sha256: str | None) -> dict[str, int]:
    """Row order from the dataset file when it is still there, unchanged; else shard order."""
    from ragmeter.io.readers import load_dataset

    path = Path(source)
    if not path.is_file():
        return {}
    try:
        dataset = load_dataset(path)
    except Exception:  # unreadable now: shard order is still a valid order
        return {}
    return {row_id: n for n, row_id in enumerate(dataset.ids())} if dataset.sha256 == sha256 else {}


def merged_manifest(runs: list[Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    from ragmeter.stats import score_summary

    base = runs[0].manifest.model_dump(mode="json")
    base["config"] = {**base["config"], "shard": None, "output": None}
    base["dataset"]["rows"] = len(rows)
    for name, record in base["metrics"].items():
        reasons = Counter(r.get(f"{name}_reason") for r in rows if r.get(name) is None)
        record.update(score_summary([r.get(name) for r in rows], dict(reasons)))
        for counter in COUNTERS:
            if counter in record:
                record[counter] = round(sum(getattr(r.manifest.metrics[name], counter, 0) or 0 for r in runs), 4)
        modes: Counter[str] = Counter()
        for run in runs:
            modes.update(run.manifest.metrics[name].judgment or {})
        record["judgment"] = dict(modes) or record.get("judgment")
    for timing in TIMINGS:
        base[timing] = round(sum(getattr(r.manifest, timing) for r in runs), 4)
    faults = [r.manifest.faults for r in runs]
    base["faults"] = {k: sum(getattr(f, k) for f in faults) for k in (*KINDS, "processes")}
    base["faults"]["http_errors"] = dict(sum((Counter(f.http_errors) for f in faults), Counter()))
    base["rag_index"] = _rag_index(base, rows)
    base["merged_from"] = [r.source for r in runs]
    base["gates"] = None
    base["estimate"] = None  # a dry run estimates one run, not a shard of it
    return base


def _rag_index(manifest: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    from ragmeter.metrics import CITATION_METRICS
    from ragmeter.results.manifest import index_of

    names = [n for n, m in manifest["metrics"].items() if m["metric"] in CITATION_METRICS]
    return index_of({n: [r.get(n) for r in rows] for n in names})


def _write(out: Path, rows: list[dict[str, Any]], manifest: dict[str, Any], fmt: str, overwrite: bool) -> Path:
    from ragmeter.io.output import prepare_output
    from ragmeter.io.writers import write_json, write_results
    from ragmeter.results.manifest import Manifest

    prepare_output(out, {"merged": manifest["merged_from"]}, overwrite,
                   fingerprint_of=lambda path: {"merged": json.loads(path.read_text()).get("merged_from")})
    path = write_results(rows, out, fmt)
    manifest["results_file"] = path.name
    manifest["config"]["output"] = str(out)
    Manifest.model_validate(manifest)
    write_json(out / "manifest.json", manifest)
    return path
