"""The public library entry points: `evaluate` (sync) and `aevaluate` (async)."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from ragmeter.cache import Cache, open_cache
from ragmeter.engine.local import RunResult, run_metrics
from ragmeter.faults import FaultLog
from ragmeter.io.output import prepare_output, remove_other_results
from ragmeter.io.results_file import OnDisk, ResultsFile, RowList
from ragmeter.io.writers import write_json
from ragmeter.judges.base import Judge
from ragmeter.judges.bundled import JudgeValidityWarning
from ragmeter.judges.registry import DEFAULT_JUDGE
from ragmeter.judges.retry import RetryPolicy
from ragmeter.metrics import Metric, get_metrics
from ragmeter.results.compare import Comparison
from ragmeter.results.gates import MIN_ROWS_FOR_INTERVAL, GateMode, GateReport, GateSettings, evaluate_gates
from ragmeter.results.runs import Run
from ragmeter.run.config import OutputFormat, RunConfig
from ragmeter.run.dry_run import estimate_key
from ragmeter.run.prepare import Prepared, prepare
from ragmeter.run.record import build_manifest

if TYPE_CHECKING:
    from ragmeter.run.dry_run import Estimate

BATCH_IN_FLIGHT = 10**6  # with --batch, every request is asked at once: they are gathered into one batch
BATCH_TIMEOUT = 25 * 3600.0  # a batch has 24 hours to complete


@dataclass
class EvaluationResult:
    """Rows with scores and evidence, the manifest, and where they were written (if anywhere)."""

    #: a list, or for a written run a sequence read from the results file when first used
    rows: Sequence[dict[str, Any]]
    #: manifest.json's content as written (the dict `json.load` gives; checked against results.manifest.Manifest)
    manifest: dict[str, Any]
    #: each row's id, in the rows' order
    ids: Sequence[str]
    results_path: Path | None = None
    manifest_path: Path | None = None
    #: the config's gates (thresholds, max_unscored, baseline), None when it sets none
    gates: GateReport | None = None
    #: compare(baseline, this run) when the config names a baseline
    comparison: Comparison | None = None
    #: a written run: its folder's Run, opened when first asked for
    _run: Any = field(default=None, repr=False)

    def summary(self) -> dict[str, dict[str, Any]]:
        return self.manifest["metrics"]

    def passes(self, gate: GateMode = "mean", min_rows: int = MIN_ROWS_FOR_INTERVAL,
               **thresholds: float) -> GateReport:
        """Gate these scores, e.g. `assert result.passes(faithfulness=0.8)`: falsy when a bar
        is missed; its repr lists the failures and each failing metric's worst rows."""
        settings = GateSettings(thresholds=thresholds, gate=gate, min_rows=min_rows)
        settings.check_metrics(list(self.manifest["metrics"]))
        report = evaluate_gates(settings, self.manifest["metrics"])
        return report.with_worst_rows(list(self.rows), list(self.ids))

    def as_run(self, source: str = "<in-memory>") -> Run:
        """This result as a finished run (what `load_run` returns for its folder): for
        `compare(result.as_run(), "runs/baseline")` and the report without writing it first."""
        from ragmeter.results.manifest import Manifest

        if self._run is not None:
            return self._run()
        return Run.from_rows(Manifest.model_validate(self.manifest), list(self.rows), list(self.ids), source)

    def to_pandas(self) -> Any:
        import pandas as pd

        return pd.DataFrame(list(self.rows))

    def __repr__(self) -> str:
        means = ", ".join(f"{name}={m['mean']:.4f}" if m["mean"] is not None else f"{name}=-"
                          for name, m in self.manifest["metrics"].items())
        where = f", written to {self.results_path}" if self.results_path else ""
        return f"<EvaluationResult {len(self.rows)} rows: {means}{where}>"


class RunOptions(TypedDict, total=False):
    """Keyword arguments every entry point takes (defaults in DEFAULTS): what a run reads and
    judges with."""

    judge: str | dict | Judge  # "llamacpp" (the bundled Qwen), a spec, a settings mapping, or a Judge
    embeddings: str | dict | Any  # "bundled", a spec, or an embedder
    columns: dict[str, str] | None  # FIELD -> your column
    cache: bool | str | Path  # True: the per-user cache; False: none; a path: that file
    concurrency: int  # judge calls in flight
    limit: int | None  # only the first N rows
    language: str  # the built-in prompts' language: "english" | "spanish"
    prompts_dir: str | Path | None  # exported or translated prompt files that replace the built-in ones


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


DEFAULTS: dict[str, Any] = {"judge": DEFAULT_JUDGE, "embeddings": "bundled", "columns": None, "cache": True,
                            "concurrency": 1, "limit": None, "language": "english", "prompts_dir": None,
                            "price_per_million": None, "out": None, "format": "jsonl", "timeout": 300.0,
                            "retries": 3, "progress": None, "overwrite": False, "labels": None}


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


async def run_config(cfg: RunConfig, *, data: Any = None, judge: Judge | None = None,
                     embedder: Any = None, write: bool = True, metrics: list[Metric] | None = None) -> EvaluationResult:
    """Everything a run does, for the CLI and the API alike (arguments as `prepare`). Written
    runs stream: rows are read a chunk at a time and written as they finish."""
    ready = prepare(cfg, data=data, judge=judge, embedder=embedder, metrics=metrics, stream=write)
    cfg, judge, embedder = ready.cfg, ready.judge, ready.embedder
    names = [m.label for m in ready.metrics]
    if write:  # before any judge call: a folder that cannot take the results fails now
        prepare_output(Path(cfg.output), ready.fingerprint, cfg.overwrite)
    sink: ResultsFile | RowList = ResultsFile(Path(cfg.output), cfg.format, names) if write else RowList(names)
    cache = open_cache(cfg.cache)
    stored_estimate = cache.get(estimate_key(ready.fingerprint), "estimates")  # from a dry run of this run
    try:
        run = await _score(ready, cache, sink)
        cache.delete(estimate_key(ready.fingerprint), "estimates")  # reported once, by the run it was for
    except BaseException:
        if isinstance(sink, ResultsFile):
            sink.abort()  # no half-written results file; the cache holds what was judged
        raise
    finally:
        cache.close()
        for closer in (judge, embedder):
            if closer is not None:
                await closer.aclose()
    note = judge.validity_note() if judge is not None else None
    if note and any(run.stats[m].judge_calls + run.stats[m].cache_hits for m in names):
        warnings.warn(note, JudgeValidityWarning, stacklevel=2)
    manifest = build_manifest(cfg, run, judge, embedder, cache, estimate=stored_estimate)
    if isinstance(sink, ResultsFile):
        result = _written(sink, manifest, cfg.output)
    else:
        result = EvaluationResult(sink.rows, manifest, sink.ids)
    if ready.labels is not None:
        _calibrate(result, ready.labels, cfg.output)
    if ready.gates.active:
        _apply_gates(result, ready.gates, ready.baseline, cfg.output)
    if write:
        result.manifest_path = Path(cfg.output) / "manifest.json"
        write_json(result.manifest_path, manifest)
        write_ci_files(cfg, result)
    return result


def _written(sink: ResultsFile, manifest: dict[str, Any], folder: str) -> EvaluationResult:
    """The results file put in place; the result reads its rows from it when asked."""
    from ragmeter.results.manifest import Manifest
    from ragmeter.results.runs import open_results

    path = sink.commit()
    remove_other_results(path.parent, path)
    manifest["results_file"] = path.name
    opened: list[Run] = []

    def run() -> Run:
        if not opened:
            opened.append(open_results(Manifest.model_validate(manifest), path, folder))
        return opened[0]

    return EvaluationResult(OnDisk(sink.rows, lambda: run().rows), manifest, OnDisk(sink.rows, lambda: run().ids),
                            results_path=path, _run=run)


async def _score(ready: Prepared, cache: Cache, sink: Any) -> RunResult:
    """The rows scored in this process, or on Ray when the config's engine says so."""
    cfg, faults = ready.cfg, FaultLog(cache, ready.fingerprint)
    if cfg.engine.kind == "ray":
        from ragmeter.engine.ray import RayJob, run_on_ray

        job = RayJob(ready.dataset, ready.metrics, ready.prompts, ready.judge, ready.embedder, ready.judge_config,
                     cfg.embeddings, cfg.cache, cfg.concurrency, RetryPolicy(timeout=cfg.timeout, retries=cfg.retries),
                     cfg.progress)
        return await run_on_ray(job, cache, faults, cfg.engine, sink)
    concurrency, timeout = cfg.concurrency, cfg.timeout
    use_store = getattr(ready.judge, "use_store", None)
    if use_store is not None:  # the batch API: every request in flight, a day to answer
        use_store(cache)
        concurrency, timeout = BATCH_IN_FLIGHT, max(timeout, BATCH_TIMEOUT)
    expected = await _say_estimate(ready, cache) if cfg.progress is not False else None
    return await run_metrics(ready.dataset, ready.metrics, ready.judge, ready.embedder, cache,
                             concurrency=concurrency, policy=RetryPolicy(timeout=timeout, retries=cfg.retries),
                             progress=cfg.progress, prompts=ready.prompts, faults=faults, sink=sink, expected=expected)


async def _say_estimate(ready: Prepared, cache: Cache) -> float | None:
    """The run's estimated seconds, printed on stderr before the first call when over a minute."""
    from rich.console import Console

    from ragmeter.run.upfront import SAY_ABOVE, upfront_estimate
    from ragmeter.text import printable

    found = await upfront_estimate(ready, cache)
    if found is not None and found.seconds > SAY_ABOVE:
        Console(stderr=True).print(f"ragmeter: {printable(found.line())}", highlight=False)
    return found.seconds if found is not None else None


def _calibrate(result: EvaluationResult, labels: Any, source: str) -> None:
    """What people would say, per labelled metric, into the manifest (gate `calibrated` reads it)."""
    from ragmeter.labels.estimate import calibrate_run

    for name, found in calibrate_run(result.as_run(source), labels).items():
        result.manifest["metrics"][name]["calibrated"] = found.model_dump(mode="json")
    result.manifest["labels"] = labels.source


def _apply_gates(result: EvaluationResult, gates: GateSettings, baseline: Run | None, source: str) -> None:
    """Gate outcomes (and the comparison with the baseline) into the result and its manifest."""
    from ragmeter.results.compare import compare

    if baseline is not None:
        this = result.as_run(source)
        result.comparison = compare(baseline, this, [m for m in this.metrics if m in baseline.metrics] or None)
    result.gates = evaluate_gates(gates, result.manifest["metrics"], result.comparison)
    result.manifest["gates"] = {"passed": result.gates.passed, "mode": gates.gate,
                                "results": [g.model_dump(mode="json") for g in result.gates.results]}


def write_ci_files(cfg: RunConfig, result: EvaluationResult) -> None:
    """The Markdown summary, JUnit XML and compare.json the config asks for."""
    from ragmeter.results.ci_files import junit_xml, markdown_summary, write_text
    from ragmeter.results.compare import write_comparison

    if cfg.summary_md:
        write_text(cfg.summary_md, markdown_summary(result.manifest, result.gates, result.comparison))
    if cfg.junit:
        from ragmeter.results.gates import GateReport

        higher = {n: m["higher_is_better"] for n, m in result.manifest["metrics"].items()}
        rows = list(result.rows) if cfg.junit_rows else None
        ids = list(result.ids) if cfg.junit_rows else None
        gates = result.gates if result.gates is not None else GateReport(results=[])  # a failed report is falsy
        write_text(cfg.junit, junit_xml(gates, rows, ids, cfg.thresholds, higher))
    if result.comparison is not None:
        write_comparison(result.comparison, cfg.output)
    if cfg.report:
        from ragmeter.report import write_report

        write_report(result.as_run(cfg.output), out=Path(cfg.output) / "report.html")

