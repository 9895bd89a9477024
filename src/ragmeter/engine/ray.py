"""Score a run's rows on a Ray cluster (`--ray ADDRESS`, or `engine: {kind: ray}`).

Each Ray actor builds one judge and one embedder from the run's specs, so a model loads
once per worker, and scores chunks of rows with the same engine a local run uses. Workers
read the run's cache for hits and send their new entries back with each chunk; the driver
commits them to the cache and hands each chunk's rows to the results file in dataset order,
so the results file and manifest are those of a local run. The driver reads the dataset a
chunk at a time as workers free up and holds a few chunks per worker, never the whole file.
A worker that dies loses only the chunk it was scoring, which goes to a fresh worker;
everything else is already cached.
"""

from __future__ import annotations

import asyncio
import math
import os
import socket
import time
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from ragmeter.accounting import MetricStats
from ragmeter.cache import Cache, OverlayCache, open_cache
from ragmeter.engine.local import RunResult, check_columns, preflight
from ragmeter.engine.progress import row_progress
from ragmeter.engine.settings import EngineConfig
from ragmeter.errors import ConfigError, JudgeUnavailable
from ragmeter.faults import FaultLog
from ragmeter.io.readers import Dataset, Rows
from ragmeter.io.results_file import RowSink, Scored
from ragmeter.judges.base import Judge
from ragmeter.judges.retry import RetryPolicy
from ragmeter.judges.spec import JudgeSettings
from ragmeter.metrics.base import Metric
from ragmeter.prompts.prompt_set import PromptSet
from ragmeter.results.tally import Tally

INSTALL = "pip install 'ragmeter[ray]'"
NAMESPACE = "ragmeter"
MAX_ATTEMPTS = 3  # a chunk whose worker died this many times stops the run
HELD_CHUNKS = 3  # chunks the driver holds per worker: one scoring, the next ready, one done early


@dataclass(frozen=True)
class RayJob:
    """What a Ray run needs of a prepared run: the rows, metrics and prompts, the driver's judge
    and embedder (checked before Ray starts), and the specs each worker builds its own from."""

    dataset: Rows
    metrics: list[Metric]
    prompts: PromptSet
    judge: Judge | None
    embedder: Any
    judge_config: JudgeSettings | None  # parsed once by prepare; None when a Judge object was given
    embeddings: str | dict[str, Any]
    cache: str | bool
    concurrency: int
    policy: RetryPolicy
    progress: bool | None


class CollectingCache(OverlayCache):
    """The run's cache for reading; new entries are kept to be sent back to the driver."""

    def drain(self) -> list[tuple[str, str, Any]]:
        entries = [(table, key, value) for (table, key), value in self._memory.items()]
        self._memory.clear()
        return entries


class ScoreList:
    """A chunk's scores, row by row, sent back to the driver."""

    def __init__(self) -> None:
        self.rows: list[Mapping[str, Scored]] = []

    @property
    def count(self) -> int:
        return len(self.rows)

    def add(self, row_id: str, record: dict[str, object], scores: Mapping[str, Scored]) -> None:
        self.rows.append(scores)

    def patch(self, index: int, record: dict[str, object], scores: Mapping[str, Scored]) -> None:
        """A failed call's row scored again at the end of the chunk."""
        self.rows[index] = scores


class ScoringWorker:
    """One Ray actor: a judge, an embedder and a cache reader that live as long as it does."""

    def __init__(self, judge_config: JudgeSettings, embeddings_spec: str | dict[str, Any], metrics: list[Metric],
                 prompts: PromptSet, cache_setting: str | bool, concurrency: int, policy: RetryPolicy) -> None:
        from ragmeter.embeddings import make_embedder
        from ragmeter.judges.spec import make_judge

        self.metrics, self.prompts, self.concurrency, self.policy = metrics, prompts, concurrency, policy
        self.judge = make_judge(judge_config) if any(m.uses_judge for m in metrics) else None
        self.embedder = make_embedder(embeddings_spec) if any(m.uses_embeddings for m in metrics) else None
        self.cache = open_cache(cache_setting)
        self.loop = asyncio.new_event_loop()  # one loop for the actor's life: HTTP clients stay bound to it

    def score(self, chunk: Dataset) -> dict[str, Any]:
        from ragmeter.engine.local import run_metrics

        cache = CollectingCache(self.cache)
        faults = FaultLog()
        cpu = time.process_time()
        scores = ScoreList()
        run = self.loop.run_until_complete(run_metrics(
            chunk, self.metrics, self.judge, self.embedder, cache, concurrency=self.concurrency,
            policy=self.policy, progress=False, prompts=self.prompts, faults=faults, sink=scores))
        return {"scores": scores.rows, "stats": {k: asdict(v) for k, v in run.stats.items()},
                "faults": dict(faults.counts), "entries": cache.drain(),
                "timings": {**run.timings, "cpu_seconds": time.process_time() - cpu,
                            "judge_load_seconds": (self.judge.load_seconds if self.judge else 0.0)}}

    def pid(self) -> int:
        return os.getpid()


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ConfigError(f"--ray needs Ray, which is not installed: {INSTALL}") from None
    return ray


async def run_on_ray(job: RayJob, cache: Cache, faults: FaultLog, settings: EngineConfig,
                     sink: RowSink | None = None) -> RunResult:
    """Score `job` over Ray; the same RunResult a local run returns, the rows to `sink` in
    dataset order (as engine/local.py)."""
    ray = import_ray()
    if job.judge_config is None and any(m.uses_judge for m in job.metrics):
        raise ConfigError("a Ray run builds each worker's judge from a judge spec; "
                          "give the judge as a spec or settings mapping, not a Judge object")
    check_columns(job.dataset, job.metrics)
    await preflight(job.metrics, job.judge, job.embedder)  # a dead judge server fails before Ray starts
    started = connect(ray, settings)
    try:
        return await _score(ray, job, cache, faults, settings, sink)
    finally:
        if started:
            ray.shutdown()


def connect(ray: Any, settings: EngineConfig) -> bool:
    """Join the cluster at `address` (checked first, so a wrong address fails at once, naming
    it), or start a local one; True when this call started it."""
    if ray.is_initialized():
        return False
    address = settings.address
    if address in (None, "local"):
        cpus = max(settings.workers or 1, os.cpu_count() or 1)
        ray.init(num_cpus=cpus, include_dashboard=False, namespace=NAMESPACE, log_to_driver=False,
                 configure_logging=False)
        return True
    _check_reachable(address)
    try:
        ray.init(address=address, namespace=NAMESPACE, log_to_driver=False, configure_logging=False)
    except (ConnectionError, RuntimeError) as exc:
        raise ConfigError(f"cannot reach the Ray cluster at {address}: {str(exc).splitlines()[0][:200]}") from None
    return True


def _check_reachable(address: str) -> None:
    """host:port (or ray://host:port) answers a TCP connect within 5 s."""
    if address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=5):
            return
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot reach the Ray cluster at {address}: "
                          f"{getattr(exc, 'strerror', None) or exc}") from None


async def _score(ray: Any, job: RayJob, cache: Cache, faults: FaultLog, settings: EngineConfig,
                 sink: RowSink | None) -> RunResult:
    dataset, metrics = job.dataset, job.metrics
    workers = settings.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    size = settings.chunk_rows or max(1, min(64, math.ceil(len(dataset) / (workers * 4))))
    actor = ray.remote(num_cpus=1)(ScoringWorker)
    args = (job.judge_config, job.embeddings, metrics, job.prompts, job.cache, job.concurrency, job.policy)
    generation = iter(range(10**9))

    def spawn(slot: int) -> Any:
        return actor.options(name=f"ragmeter-worker-{slot}-{next(generation)}").remote(*args)

    pool = [spawn(i) for i in range(min(workers, math.ceil(len(dataset) / size)) or 1)]
    try:
        return await _schedule(ray, job, cache, faults, _chunks(job.dataset, size), pool, spawn, sink)
    finally:
        for worker in pool:
            ray.kill(worker)


def _chunks(dataset: Rows, size: int) -> Iterator[Dataset]:
    """The rows `size` at a time, read as they are needed (a streamed file is never whole)."""
    samples: list[Any] = []
    records: list[dict[str, Any]] = []
    for sample, record in dataset.iter_rows():
        samples.append(sample)
        records.append(record)
        if len(samples) == size:
            yield Dataset(samples, records, dataset.source, dataset.fields_present, dataset.sha256)
            samples, records = [], []
    if samples:
        yield Dataset(samples, records, dataset.source, dataset.fields_present, dataset.sha256)


async def _schedule(ray: Any, job: RayJob, cache: Cache, faults: FaultLog, chunks: Iterator[Dataset],
                    pool: list[Any], spawn: Any, sink: RowSink | None) -> RunResult:
    """Chunks to idle workers as they are read; finished chunks to `sink` in dataset order. At
    most HELD_CHUNKS per worker are held (in flight, or done and waiting for an earlier one),
    so the driver's memory does not grow with the dataset. A dead worker's chunk goes to its
    replacement."""
    metrics = job.metrics
    stats = {m.label: MetricStats() for m in metrics}
    tally = Tally([m.label for m in metrics])
    timings: dict[str, float] = {}
    start, cpu = time.perf_counter(), time.process_time()
    held: dict[int, Dataset] = {}  # chunk number -> its rows, until handed over
    finished: dict[int, list[dict[str, Any]]] = {}
    queue: deque[int] = deque()
    attempts: dict[int, int] = {}
    pending: dict[Any, tuple[int, int]] = {}
    idle, read, emitted, exhausted = deque(range(len(pool))), 0, 0, False
    with row_progress(len(job.dataset), job.progress) as bar:
        while True:
            while not exhausted and not queue and len(held) < HELD_CHUNKS * len(pool):
                part = next(chunks, None)
                if part is None:
                    exhausted = True
                    break
                held[read] = part
                queue.append(read)
                read += 1
            while queue and idle:
                slot, chunk = idle.popleft(), queue.popleft()
                pending[pool[slot].score.remote(held[chunk])] = (slot, chunk)
            if not pending:
                break
            done, _ = await asyncio.to_thread(ray.wait, list(pending), num_returns=1)
            slot, chunk = pending.pop(done[0])
            try:
                out = ray.get(done[0])
            except ray.exceptions.RayActorError:  # the worker died: a fresh one takes its chunk
                attempts[chunk] = attempts.get(chunk, 0) + 1
                if attempts[chunk] >= MAX_ATTEMPTS:
                    first = held[chunk].samples[0].id
                    raise JudgeUnavailable(f"Ray workers died {MAX_ATTEMPTS} times scoring the {len(held[chunk])} "
                                           f"rows from id {first}") from None
                faults.add("worker_restarts")
                pool[slot] = spawn(slot)
                queue.appendleft(chunk)
                idle.append(slot)
                continue
            except ray.exceptions.RayTaskError as exc:
                raise exc.as_instanceof_cause() from None
            finished[chunk] = _absorb(out, stats, timings, faults, cache)
            bar.advance(len(held[chunk]))
            idle.append(slot)
            while emitted in finished:  # hand over in order
                part, scores = held.pop(emitted), finished.pop(emitted)
                for sample, record, row in zip(part.samples, part.records, scores):
                    tally.add(row)
                    if sink is not None:
                        sink.add(sample.id, record, row)
                emitted += 1
    wall = time.perf_counter() - start
    busy = timings.get("model_busy_seconds", 0.0) / max(1, len(pool))
    timings.update(wall_seconds=wall, overhead_seconds=max(0.0, wall - busy),
                   cpu_seconds=time.process_time() - cpu + timings.get("cpu_seconds", 0.0))
    return RunResult(job.dataset, metrics, tally, stats, job.prompts, timings, faults)


def _absorb(out: dict[str, Any], stats: dict[str, MetricStats], timings: dict[str, float], faults: FaultLog,
            cache: Cache) -> list[dict[str, Any]]:
    """One finished chunk: its cache entries committed, its counts summed; its scores."""
    for table, key, value in out["entries"]:
        cache.put(key, value, table)
    for label, counts in out["stats"].items():
        for name, value in counts.items():
            setattr(stats[label], name, getattr(stats[label], name) + value)
    for kind, n in out["faults"].items():
        faults.add(kind, n)
    for name in ("judge_seconds", "embed_seconds", "model_busy_seconds", "cpu_seconds"):
        timings[name] = timings.get(name, 0.0) + out["timings"].get(name, 0.0)
    timings["judge_load_seconds"] = max(timings.get("judge_load_seconds", 0.0), out["timings"]["judge_load_seconds"])
    return out["scores"]
