"""Run metrics over samples: validate first, then bounded-concurrency scoring with
accounting. A row the judge cannot score is unscored with a reason; a call that fails its
retries is that row's failure, tried again at the end (engine/failed_calls.py); a judge that is
down, and other infrastructure failures, stop the run (every finished judge reply is already
in the cache, so a re-run resumes).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ragmeter.accounting import BusyClock, MetricStats
from ragmeter.cache import Cache, NullCache
from ragmeter.embeddings.base import Embedder, EmbeddingSession
from ragmeter.engine.failed_calls import FailedCalls, Held, is_failed
from ragmeter.engine.progress import judge_calls, judge_work, row_progress
from ragmeter.errors import DataError, JudgeUnavailable, UnparseableReply
from ragmeter.faults import FaultLog
from ragmeter.io.readers import Rows
from ragmeter.io.results_file import RowSink
from ragmeter.judges.base import Judge
from ragmeter.judges.retry import RetryPolicy
from ragmeter.judges.session import JudgeSession
from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable
from ragmeter.prompts.prompt_set import PromptSet
from ragmeter.results.tally import Tally
from ragmeter.samples import Sample

TRUNCATION_NOTE = "contexts were shortened to fit the judge's window"
#: finished rows held back, in memory, while an earlier row is still being scored
REORDER_ROWS = 1024


@dataclass
class RunResult:
    """Each metric's scores (a Tally: floats, not rows), counters per metric, and run timings.
    The rows themselves went to the run's sink as they finished."""

    dataset: Rows  # its source, sha256 and length
    metrics: list[Metric]
    tally: Tally
    stats: dict[str, MetricStats]
    prompts: PromptSet
    timings: dict[str, float] = field(default_factory=dict)
    faults: FaultLog = field(default_factory=FaultLog)
    failures: FailedCalls = field(default_factory=FailedCalls)
    #: the judge's calls, tokens and seconds by prompt tag (JudgeSession.by_tag)
    by_tag: dict[str, MetricStats] = field(default_factory=dict)

    def aggregate(self, name: str) -> dict[str, Any]:
        return self.tally.aggregate(name)

    def column(self, name: str) -> list[float | None]:
        return self.tally.column(name)


def check_columns(dataset: Rows, metrics: list[Metric]) -> None:
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


async def run_metrics(dataset: Rows, metrics: list[Metric], judge: Judge | None, embedder: Embedder | None,
                      cache: Cache, *, concurrency: int = 1, policy: RetryPolicy | None = None,
                      progress: bool | None = None, prompts: PromptSet | None = None,
                      faults: FaultLog | None = None, sink: RowSink | None = None, expected: float | None = None,
                      expected_calls: int | None = None) -> RunResult:
    """Score every row of `dataset` (readers.Dataset, or stream.StreamedDataset read a chunk at
    a time); each finished row goes, in dataset order, to `sink.add(id, record, scores)`
    (io/results_file.py), and only its scores stay (a Tally). `expected`, `expected_calls`: the
    run's up-front estimate (seconds, judge calls), for the progress line's ETA until the first
    rows are done (engine/progress.py)."""
    check_columns(dataset, metrics)
    prompts = prompts or PromptSet.build(metrics)
    start, cpu_start = time.perf_counter(), time.process_time()
    clock = BusyClock()
    faults = faults or FaultLog()
    judge_session = JudgeSession(judge, cache, policy, concurrency, clock, faults) if judge else None
    embed_session = EmbeddingSession(embedder, cache, clock) if embedder else None
    await preflight(metrics, judge, embedder)
    stats = {m.label: MetricStats() for m in metrics}
    tally = Tally([m.label for m in metrics])
    failures = FailedCalls(probe=judge_session.probe if judge_session else None)
    by_label = {m.label: m for m in metrics}

    def finished(sample: Sample, record: dict[str, Any], scores: dict[str, Score]) -> None:
        if any(is_failed(s) for s in scores.values()):  # written in its place now, patched after its retry
            failures.held.append(Held(sink.count if sink is not None else 0, sample, record, scores))
        else:
            tally.add(scores)
        if sink is not None:
            sink.add(sample.id, record, scores)

    def retried(row: Held) -> None:
        tally.add(row.scores)
        if sink is not None:
            sink.patch(row.index, row.record, row.scores)

    async def score_again(label: str, sample: Sample) -> Score:
        stats[label].unscored -= 1
        stats[label].failed -= 1
        return await _score_one(by_label[label], sample, judge_session, embed_session, stats[label], prompts,
                                failures)

    with row_progress(len(dataset), progress, work=judge_work(stats), expected=expected, calls=judge_calls(stats),
                      expected_calls=expected_calls) as bar:

        async def scored(metric: Metric, sample: Sample) -> Score:
            score = await _score_one(metric, sample, judge_session, embed_session, stats[metric.label], prompts,
                                     failures)
            bar.advance(1 / len(metrics))  # a share of a row per metric: an ETA after the first judge replies
            return score

        async def score_row(sample: Sample) -> dict[str, Score]:
            results = await asyncio.gather(*(scored(m, sample) for m in metrics))
            return {m.label: s for m, s in zip(metrics, results)}

        try:
            await stream_rows(dataset.iter_rows(), score_row, finished, max(1, concurrency))
            await failures.retry(score_again, concurrency, retried)
        except JudgeUnavailable as exc:
            if isinstance(cache, NullCache):
                raise
            raise JudgeUnavailable(f"{exc}. Finished judge replies are kept in {cache.path}: run again "
                                   "to resume") from None
    wall = time.perf_counter() - start
    judge_s = judge_session.judge_seconds if judge_session else 0.0
    embed_s = embed_session.seconds if embed_session else 0.0
    load_s = judge.load_seconds if judge else 0.0
    timings = {"wall_seconds": wall, "judge_seconds": judge_s, "embed_seconds": embed_s,
               "judge_load_seconds": load_s, "model_busy_seconds": clock.total,
               "overhead_seconds": max(0.0, wall - clock.total),
               # CPU of the whole process: ragmeter's own with an HTTP judge (where wall minus busy
               # time reads near 0 exactly when ragmeter itself is the bottleneck); with an
               # in-process judge it includes the model's threads
               "cpu_seconds": time.process_time() - cpu_start}
    return RunResult(dataset, metrics, tally, stats, prompts, timings, faults, failures,
                     judge_session.by_tag if judge_session else {})


async def preflight(metrics: list[Metric], judge: Judge | None, embedder: Embedder | None) -> None:
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


async def stream_rows(rows: Iterator[tuple[Sample, dict[str, Any]]], score_row: Any, finished: Any,
                      in_flight: int) -> None:
    """`in_flight` rows scored at once, read from `rows` only as slots free up; each handed to
    `finished` in dataset order (rows done early wait, at most REORDER_ROWS of them, behind a
    slow one). The first failure stops the run: rows in flight are cancelled."""
    slots = asyncio.Semaphore(in_flight)
    done: dict[int, tuple[Sample, dict[str, Any], dict[str, Score]]] = {}
    changed = asyncio.Event()
    failures: list[BaseException] = []
    tasks: set[asyncio.Task[None]] = set()
    started = next_out = 0

    async def one(index: int, sample: Sample, record: dict[str, Any]) -> None:
        try:
            done[index] = (sample, record, await score_row(sample))
        except BaseException as exc:  # noqa: BLE001 - handed to the loop below, which re-raises it
            failures.append(exc)
        finally:
            slots.release()
            changed.set()

    def hand_over() -> None:
        nonlocal next_out
        while next_out in done:
            finished(*done.pop(next_out))
            next_out += 1

    async def wait() -> None:
        changed.clear()
        await changed.wait()

    try:
        for index, (sample, record) in enumerate(rows):
            while True:
                _raise_first(failures)
                hand_over()
                if len(done) < REORDER_ROWS and not slots.locked():
                    break
                await wait()
            await slots.acquire()
            task = asyncio.create_task(one(index, sample, record))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            started += 1
        while True:  # every started row handed over (a row that failed raises instead)
            _raise_first(failures)
            hand_over()
            if next_out >= started:
                break
            await wait()
    finally:
        for task in list(tasks):
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _raise_first(failures: list[BaseException]) -> None:
    if failures:
        exc = failures[0]
        raise exc.with_traceback(exc.__traceback__)


async def _score_one(metric: Metric, sample: Sample, judge: JudgeSession | None,
                     embeddings: EmbeddingSession | None, stats: MetricStats, prompts: PromptSet,
                     failures: FailedCalls | None = None) -> Score:
    missing = sample.missing(metric.required)
    if sample.response_problem and {"response", "cited_response"} & set(metric.required):
        score = Score(None, sample.response_problem)
    elif missing:
        score = Score(None, f"empty field(s): {', '.join(missing)}")
    else:
        ctx = MetricContext(judge, embeddings, stats, prompts)
        try:
            score = await metric.score(sample, ctx)
            if failures is not None and metric.uses_judge:
                failures.answered()
        except JudgeUnavailable as exc:
            if failures is None:
                raise
            score = await failures.failed_call(exc)
            stats.failed += 1
        except Unscorable as exc:
            score = Score(None, str(exc), exc.evidence)
        except UnparseableReply as exc:
            if failures is not None:
                failures.answered()  # it answered, badly: not down
            score = Score(None, f"judge reply unparseable: {exc}", {"raw_reply": exc.raw[:500]})
        if ctx.truncated:
            score = Score(score.value, score.reason, {**score.evidence, "note": TRUNCATION_NOTE})
    if score.value is not None and math.isfinite(score.value) and -1e-9 <= score.value <= 1 + 1e-9:
        score = Score(min(1.0, max(0.0, score.value)), score.reason, score.evidence)  # float noise only
    if score.value is not None and not (math.isfinite(score.value) and 0.0 <= score.value <= 1.0):
        raise AssertionError(f"{metric.label} produced {score.value} for row {sample.id}: a bug in ragmeter")
    stats.unscored += int(not score.scored)
    return score
