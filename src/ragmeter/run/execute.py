"""Everything a run does once it is prepared (run/prepare.py), for the CLI and the library
alike: score the rows here or on Ray, write the results file as rows finish, build the
manifest, calibrate against labels, gate, and write the CI files."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from ragmeter.cache import Cache, open_cache
from ragmeter.engine.local import RunResult, run_metrics
from ragmeter.faults import FaultLog
from ragmeter.io.output import prepare_output, remove_other_results
from ragmeter.io.results_file import OnDisk, ResultsFile, RowList
from ragmeter.io.writers import write_json
from ragmeter.judges.base import Judge
from ragmeter.judges.bundled import JudgeValidityWarning
from ragmeter.judges.retry import RetryPolicy
from ragmeter.metrics import Metric
from ragmeter.results.gates import GateReport, GateSettings, evaluate_gates, failed_calls
from ragmeter.results.manifest import Manifest
from ragmeter.results.runs import Run
from ragmeter.run.config import RunConfig
from ragmeter.run.dry_run import dry_run_key
from ragmeter.run.prepare import Prepared, prepare
from ragmeter.run.record import build_manifest
from ragmeter.run.result import EvaluationResult
from ragmeter.run.upfront import Upfront

if TYPE_CHECKING:
    from ragmeter.embeddings.base import Embedder
    from ragmeter.labels.files import Labels

BATCH_IN_FLIGHT = 10**6  # with --batch, every request is asked at once: they are gathered into one batch
BATCH_TIMEOUT = 25 * 3600.0  # a batch has 24 hours to complete


async def run_config(cfg: RunConfig, *, data: object = None, judge: Judge | None = None,
                     embedder: Embedder | None = None, write: bool = True,
                     metrics: list[Metric] | None = None) -> EvaluationResult:
    """Everything a run does, for the CLI and the API alike (arguments as `prepare`). Written
    runs stream: rows are read a chunk at a time and written as they finish."""
    ready = prepare(cfg, data=data, judge=judge, embedder=embedder, metrics=metrics, stream=write)
    cfg, judge, embedder = ready.cfg, ready.judge, ready.embedder
    names = [m.label for m in ready.metrics]
    if ready.language is not None:
        ready.language.say(ready.cfg.progress)
    _say_not_covered(ready)
    if write:  # before any judge call: a folder that cannot take the results fails now
        prepare_output(Path(cfg.output), ready.fingerprint, cfg.overwrite)
    sink: ResultsFile | RowList = ResultsFile(Path(cfg.output), cfg.format, names) if write else RowList(names)
    cache = open_cache(cfg.cache)
    stored_estimate = cache.get(dry_run_key(ready.fingerprint), "estimates")  # from a dry run of this run
    try:
        run = await _score(ready, cache, sink)
        cache.delete(dry_run_key(ready.fingerprint), "estimates")  # reported once, by the run it was for
    except BaseException:
        if isinstance(sink, ResultsFile):
            sink.abort()  # no half-written results file; the cache holds what was judged
        raise
    finally:
        try:
            cache.close()  # may raise on a full disk: the judge and embedder are closed all the same
        finally:
            for closer in (judge, embedder):
                if closer is not None:
                    await closer.aclose()
    note = judge.validity_note() if judge is not None else None
    if note and any(run.stats[m].judge_calls + run.stats[m].cache_hits for m in names):
        warnings.warn(note, JudgeValidityWarning, stacklevel=2)
    manifest = build_manifest(cfg, run, judge, embedder, cache, estimate=stored_estimate,
                              language_from=ready.language.source if ready.language else None)
    if isinstance(sink, ResultsFile):
        result = _written(sink, manifest, cfg.output)
    else:
        result = EvaluationResult(sink.rows, manifest, sink.ids)
    if ready.labels is not None:
        _calibrate(result, ready.labels, cfg.output)
    if ready.gates.active:
        _apply_gates(result, ready.gates, ready.baseline, cfg.output)
    _apply_failed(result, cfg.max_failed)
    if write:
        result.manifest_path = Path(cfg.output) / "manifest.json"
        write_json(result.manifest_path, manifest.as_json())
        write_ci_files(cfg, result)
    return result


def _written(sink: ResultsFile, manifest: Manifest, folder: str) -> EvaluationResult:
    """The results file put in place; the result reads its rows from it when asked."""
    from ragmeter.results.runs import open_results

    path = sink.commit()
    remove_other_results(path.parent, path)
    manifest.results_file = path.name
    opened: list[Run] = []

    def run() -> Run:
        if not opened:
            opened.append(open_results(manifest, path, folder))
        return opened[0]

    return EvaluationResult(OnDisk(sink.rows, lambda: run().rows), manifest, OnDisk(sink.rows, lambda: run().ids),
                            results_path=path, _run=run)


async def _score(ready: Prepared, cache: Cache, sink: ResultsFile | RowList) -> RunResult:
    """The rows scored in this process, or on Ray when the config's engine says so."""
    cfg, faults = ready.cfg, FaultLog(cache, ready.fingerprint)
    if cfg.engine.kind == "ray":
        from ragmeter.engine.ray import RayJob, run_on_ray

        job = RayJob(ready.dataset, ready.metrics, ready.prompts, ready.judge, ready.embedder, ready.judge_config,
                     cfg.embeddings, cfg.cache, cfg.concurrency, RetryPolicy(timeout=cfg.timeout, retries=cfg.retries),
                     cfg.progress)
        return await run_on_ray(job, cache, faults, cfg.engine, sink)
    concurrency, timeout = cfg.concurrency, cfg.timeout
    if ready.judge is not None and ready.judge.queued:  # the batch API: every request in flight, a day to answer
        ready.judge.use_store(cache)
        concurrency, timeout = BATCH_IN_FLIGHT, max(timeout, BATCH_TIMEOUT)
    expected = await _say_upfront(ready, cache) if cfg.progress is not False else None
    done = await run_metrics(ready.dataset, ready.metrics, ready.judge, ready.embedder, cache,
                             concurrency=concurrency, policy=RetryPolicy(timeout=timeout, retries=cfg.retries),
                             progress=cfg.progress, prompts=ready.prompts, faults=faults, sink=sink,
                             expected=expected.seconds if expected else None,
                             expected_calls=expected.calls if expected else None)
    if ready.judge is not None:
        from ragmeter.run.judge_speed import learn_from

        learn_from(ready.judge, done.by_tag)  # the next estimate is of this machine as it runs now
    return done


def _say_not_covered(ready: Prepared) -> None:
    """One line before the first call where the run's language has no readers' vocabulary."""
    from ragmeter.run.record import reading_record

    found = reading_record(ready.metrics, ready.prompts.language) if ready.prompts is not None else None
    if found and not found["covered"]:
        readers = found["metrics"] if isinstance(found["metrics"], list) else []
        from rich.console import Console

        from ragmeter.text import printable

        Console(stderr=True).print(
            f"[yellow]ragmeter: {printable(found['note'])}: {', '.join(readers)} read no votes to the judge "
            "or negations in it (add its vocabulary: docs/architecture.md, add a language)[/yellow]", highlight=False)


async def _say_upfront(ready: Prepared, cache: Cache) -> Upfront | None:
    """The run's estimate, printed on stderr before the first call when over a minute."""
    from dataclasses import replace

    from rich.console import Console

    from ragmeter.run.dry_run import cost_of
    from ragmeter.run.upfront import SAY_ABOVE, upfront
    from ragmeter.text import printable

    found = await upfront(ready.dataset, ready.judge, lambda sample: cost_of(replace(ready, dataset=sample), cache))
    if found is not None and found.seconds > SAY_ABOVE:
        Console(stderr=True).print(f"ragmeter: {printable(found.line())}", highlight=False)
    return found


def _calibrate(result: EvaluationResult, labels: Labels, source: str) -> None:
    """What people would say, per labelled metric, into the manifest (gate `calibrated` reads it)."""
    from ragmeter.labels.calibrate import calibrate_run

    for name, found in calibrate_run(result.as_run(source), labels).items():
        result.manifest.metrics[name].calibrated = found.model_dump(mode="json")
    result.manifest.labels = labels.source


def _apply_gates(result: EvaluationResult, gates: GateSettings, baseline: Run | None, source: str) -> None:
    """Gate outcomes (and the comparison with the baseline) into the result and its manifest."""
    from ragmeter.results.compare import compare

    if baseline is not None:
        this = result.as_run(source)
        result.comparison = compare(baseline, this, [m for m in this.metrics if m in baseline.metrics] or None)
    result.gates = evaluate_gates(gates, result.manifest.metrics, result.comparison)
    result.manifest.gates = {"passed": result.gates.passed, "mode": gates.gate,
                                "results": [g.model_dump(mode="json") for g in result.gates.results]}


def _apply_failed(result: EvaluationResult, limit: float) -> None:
    """The run-level `max_failed` rule, beside the gates (a run with no gates gets a report
    holding only it, when some pair failed)."""
    found = failed_calls(result.manifest, limit)
    if found is None:
        return
    results = [*(result.gates.results if result.gates is not None else []), found]
    result.gates = GateReport(results=results, worst=result.gates.worst if result.gates is not None else {})
    recorded = result.manifest.gates or {"mode": None}
    result.manifest.gates = {**recorded, "passed": result.gates.passed,
                                "results": [g.model_dump(mode="json") for g in results]}


def write_ci_files(cfg: RunConfig, result: EvaluationResult) -> None:
    """The Markdown summary, JUnit XML and compare.json the config asks for."""
    from ragmeter.results.ci_files import junit_xml, markdown_summary, write_text
    from ragmeter.results.compare import write_comparison

    if cfg.summary_md:
        write_text(cfg.summary_md, markdown_summary(result.manifest, result.gates, result.comparison))
    if cfg.junit:
        from ragmeter.results.gates import GateReport

        higher = {n: m.higher_is_better for n, m in result.manifest.metrics.items()}
        rows = list(result.rows) if cfg.junit_rows else None
        ids = list(result.ids) if cfg.junit_rows else None
        gates = result.gates if result.gates is not None else GateReport(results=[])  # a failed report is falsy
        write_text(cfg.junit, junit_xml(gates, rows, ids, cfg.thresholds, higher))
    if result.comparison is not None:
        write_comparison(result.comparison, cfg.output)
    if cfg.report:
        from ragmeter.report import write_report

        write_report(result.as_run(cfg.output), out=Path(cfg.output) / "report.html")
