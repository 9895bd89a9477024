"""Run metrics over samples: validate first, then bounded-concurrency scoring with
accounting. Infrastructure failures stop the run (every finished judge reply is already
in the cache, so a re-run resumes); a row the judge cannot score is unscored with a reason.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ragmeter.accounting import BusyClock, MetricStats
from ragmeter.cache import Cache, NullCache
from ragmeter.embeddings.base import Embedder, EmbeddingSession
from ragmeter.engine.progress import judge_work, row_progress
from ragmeter.errors import DataError, JudgeUnavailable, UnparseableReply
from ragmeter.faults import FaultLog
from ragmeter.io.readers import Dataset
from ragmeter.judges.base import Judge
from ragmeter.judges.retry import RetryPolicy
from ragmeter.judges.session import JudgeSession
from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable
from ragmeter.prompts.prompt_set import PromptSet
from ragmeter.samples import Sample
from ragmeter.stats import score_summary

TRUNCATION_NOTE = "contexts were shortened to fit the judge's window"


@dataclass
class RunResult:
    """Scores per row and metric, counters per metric, and run timings."""

    dataset: Dataset
    metrics: list[Metric]
    scores: list[dict[str, Score]]
    stats: dict[str, MetricStats]
    prompts: PromptSet
    timings: dict[str, float] = field(default_factory=dict)
    faults: FaultLog = field(default_factory=FaultLog)

    def aggregate(self, name: str) -> dict[str, Any]:
        reasons = Counter(row[name].reason for row in self.scores if not row[name].scored)
        # which judgment mode each scored row used (metrics/judgment.py); absent for metrics without one
        modes = Counter(row[name].evidence.get("judgment") for row in self.scores if row[name].scored)
        modes.pop(None, None)
        return {**score_summary(self.column(name), dict(reasons)), **({"judgment": dict(modes)} if modes else {})}

    def column(self, name: str) -> list[float | None]:
        return [row[name].value for row in self.scores]


def check_columns(dataset: Dataset, metrics: list[Metric]) -> None:
    """A required column absent from the whole dataset fails before any judge call."""
    needed: dict[str, list[str]] = {}
    for metric in metrics:
        for missing in metric.missing_fields(dataset.fields_present):
            needed.setdefault(missing, []).append(metric.label)
    if needed:
        problems = [f"column '{f}' (required by {', '.join(labels[:3])}"
                    f"{f' and {len(labels) - 3} more' if len(labels) > 3 else ''})" for f, labels in needed.items()]
        found = sorted(dataset.fields_present) or "none"
        raise DataError(f"missing {'; '.join(problems)}. Canonical fields found: {found}. "
                        "Map your column names with `columns:` in the config or --column FIELD=NAME, "
                        "or choose --metrics applicable", source=dataset.source)


async def run_metrics(dataset: Dataset, metrics: list[Metric], judge: Judge | None, embedder: Embedder | None,
                      cache: Cache, *, concurrency: int = 1, policy: RetryPolicy | None = None,
                      progress: bool | None = None, prompts: PromptSet | None = None,
                      faults: FaultLog | None = None) -> RunResult:
    check_columns(dataset, metrics)
    prompts = prompts or PromptSet.build(metrics)
    start, cpu_start = time.perf_counter(), time.process_time()
    clock = BusyClock()
    faults = faults or FaultLog()
    judge_session = JudgeSession(judge, cache, policy, concurrency, clock, faults) if judge else None
    embed_session = EmbeddingSession(embedder, cache, clock) if embedder else None
    await _preflight(metrics, judge, embedder)
    stats = {m.label: MetricStats() for m in metrics}
    scores: list[dict[str, Score]] = [{} for _ in dataset.samples]

    with row_progress(len(dataset), progress, work=judge_work(stats)) as bar:

        async def scored(metric: Metric, sample: Sample) -> Score:
            score = await _score_one(metric, sample, judge_session, embed_session, stats[metric.label], prompts)
            bar.advance(1 / len(metrics))  # a share of a row per metric: an ETA after the first judge replies
            return score

        async def score_row(index: int) -> None:
            sample = dataset.samples[index]
            results = await asyncio.gather(*(scored(m, sample) for m in metrics))
            scores[index] = {m.label: s for m, s in zip(metrics, results)}

        try:
            await _run_workers(score_row, len(dataset), max(1, concurrency))
        except JudgeUnavailable as exc:
            if isinstance(cache, NullCache):
                raise
            raise JudgeUnavailable(f"{exc}. Finished judge replies are kept in {cache.path}: run again "
                                   "to resume") from None
    wall = time.perf_counter() - start
    judge_s = judge_session.judge_seconds if judge_session else 0.0
    embed_s = embed_session.seconds if embed_session else 0.0
    load_s = getattr(judge, "load_seconds", 0.0)
    timings = {"wall_seconds": wall, "judge_seconds": judge_s, "embed_seconds": embed_s,
               "judge_load_seconds": load_s, "model_busy_seconds": clock.total,
               "overhead_seconds": max(0.0, wall - clock.total),
               # CPU of the whole process: ragmeter's own with an HTTP judge (where wall minus busy
               # time reads near 0 exactly when ragmeter itself is the bottleneck); with an
               # in-process judge it includes the model's threads
               "cpu_seconds": time.process_time() - cpu_start}
    return RunResult(dataset, metrics, scores, stats, prompts, timings, faults)


async def _preflight(metrics: list[Metric], judge: Judge | None, embedder: Embedder | None) -> None:
    """Missing keys, unreachable servers and missing model files fail here, before any row."""
    if any(m.uses_judge for m in metrics):
        if judge is None:
            raise DataError("these metrics need a judge, none was given")
        await judge.check()
    if any(m.uses_embeddings for m in metrics):
        if embedder is None:
            names = ", ".join(m.label for m in metrics if m.uses_embeddings)
            raise DataError(f"{names} need(s) embeddings, none were given")
        await embedder.check()


async def _run_workers(score_row: Any, total: int, workers: int) -> None:
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(total):
        queue.put_nowait(index)

    async def worker() -> None:
        while not queue.empty():
            index = queue.get_nowait()
            await score_row(index)

    tasks = [asyncio.create_task(worker()) for _ in range(min(workers, total))]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _score_one(metric: Metric, sample: Sample, judge: JudgeSession | None,
                     embeddings: EmbeddingSession | None, stats: MetricStats, prompts: PromptSet) -> Score:
    missing = sample.missing(metric.required)
    if sample.response_problem and {"response", "cited_response"} & set(metric.required):
        score = Score(None, sample.response_problem)
    elif missing:
        score = Score(None, f"empty field(s): {', '.join(missing)}")
    else:
        ctx = MetricContext(judge, embeddings, stats, prompts)
        try:
            score = await metric.score(sample, ctx)
        except Unscorable as exc:
            score = Score(None, str(exc), exc.evidence)
        except UnparseableReply as exc:
            score = Score(None, f"judge reply unparseable: {exc}", {"raw_reply": exc.raw[:500]})
        if ctx.truncated:
            score = Score(score.value, score.reason, {**score.evidence, "note": TRUNCATION_NOTE})
    if score.value is not None and math.isfinite(score.value) and -1e-9 <= score.value <= 1 + 1e-9:
        score = Score(min(1.0, max(0.0, score.value)), score.reason, score.evidence)  # float noise only
    if score.value is not None and not (math.isfinite(score.value) and 0.0 <= score.value <= 1.0):
        raise AssertionError(f"{metric.label} produced {score.value} for row {sample.id}: a bug in ragmeter")
    stats.unscored += int(not score.scored)
    return score
