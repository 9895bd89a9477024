"""The run record written beside the results: the typed Manifest built once from the run's
config, the engine's result, the judge and the cache."""

from __future__ import annotations

import datetime as dt
import hashlib
import platform
from typing import TYPE_CHECKING, Any

from ragmeter import __version__
from ragmeter.engine.local import RunResult
from ragmeter.results.manifest import Manifest, index_of
from ragmeter.run.config import RunConfig
from ragmeter.text import redact_urls, redact_value

if TYPE_CHECKING:
    from ragmeter.cache import Cache
    from ragmeter.embeddings.base import Embedder
    from ragmeter.judges.base import Judge
    from ragmeter.metrics.base import Metric

TRUNCATION_POLICY = ("when a prompt does not fit the judge's window (minus the reply budget), every retrieved "
                     "context in it keeps its beginning and loses its end by the same ratio, marked ' [...]'; "
                     "questions, answers and statements are never cut; such rows are counted as 'truncated'")


def build_manifest(cfg: RunConfig, run: RunResult, judge: Judge | None, embedder: Embedder | None, cache: Cache,
                   estimate: dict[str, object] | None = None, language_from: str | None = None) -> Manifest:
    """The run's manifest, typed once; what comes later (the results file, labels, gates) is
    set on it and it is written as it stands. `estimate`: a dry run's, beside the actuals."""
    record = _manifest_dict(cfg, run, judge, embedder, cache)
    for key in ("config", "judge", "embeddings"):  # a gateway token in a judge's URL is not written
        record[key] = redact_value(record[key], redact_urls)
    manifest = Manifest.model_validate(record)
    if language_from is not None:
        manifest.language_from = language_from
    if estimate:
        manifest.estimate = beside_actuals(estimate, manifest)
    return manifest


def _manifest_dict(cfg: RunConfig, run: RunResult, judge: Judge | None, embedder: Embedder | None,
                   cache: Cache) -> dict[str, object]:
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
        **({"reading": found} if (found := reading_record(run.metrics, run.prompts.language)) else {}),
        "cache": str(cache.path),
        "truncation_policy": TRUNCATION_POLICY,
        "metrics": metrics,
        "rag_index": rag_index(run),
        "faults": {**run.faults.record(), **run.failures.record()},
        **timings,
    }


def reading_record(metrics: list[Metric], language: str) -> dict[str, str | bool | list[str]] | None:
    """Whether the readers know the run's language, for the metrics whose scores read its
    words (faithfulness); None where no metric does."""
    from ragmeter.reading.languages import not_covered

    readers = [m.label for m in metrics if m.reads_language]
    if not readers:
        return None
    gap = not_covered(language)
    return {"language": language, "covered": gap is None, "metrics": readers, **({"note": gap} if gap else {})}


def beside_actuals(stored: dict[str, object] | None, manifest: Manifest) -> dict[str, object] | None:
    """The stored estimate with the run's actual calls, tokens and seconds per metric."""
    if not stored:
        return None
    actual = {name: {"calls": m.judge_calls, "cache_hits": m.cache_hits, "prompt_tokens": m.prompt_tokens,
                     "completion_tokens": m.completion_tokens, "judge_seconds": m.judge_seconds}
              for name, m in manifest.metrics.items()}
    return {**stored, "actual": actual, "actual_wall_seconds": manifest.wall_seconds}


def judge_record(judge: Judge) -> dict[str, object]:
    """The judge's name and identity, never its key; a fleet adds each replica's record."""
    servers, batches = judge.servers(), judge.batches
    calibrated = {key: rule.record() for key, rule in judge.calibration().items()}
    return {"name": judge.describe(), **judge.identity(), "api_key_env": judge.api_key_env,
            "reasons": judge.reasons,
            **({"calibration": calibrated} if calibrated else {}),
            **({"servers": servers} if servers else {}), **({"batches": batches} if batches is not None else {})}


def metric_version(metric: Metric, run: RunResult) -> str:
    """The metric's code version plus a digest of its prompt versions: editing a prompt
    changes the metric's version as well as every cache key."""
    versions = [r.template.version for _, r in sorted(run.prompts.for_metric(metric.prompt_metric).items())]
    if not versions:
        return metric.version
    return f"{metric.version}+{hashlib.sha256(':'.join(versions).encode()).hexdigest()[:8]}"


def rag_index(run: RunResult) -> dict[str, object] | None:
    """Pleias's RAG Index: the mean of the citation-family metrics this run has scores for,
    with the components named and a bootstrap interval. None when the run has none."""
    from ragmeter.metrics import CITATION_METRICS

    names = [m.label for m in run.metrics if m.name in CITATION_METRICS]
    return index_of({n: run.column(n) for n in names})
