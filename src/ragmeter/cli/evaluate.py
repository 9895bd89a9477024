"""`ragmeter run` and `ragmeter evaluate`: flags become a RunConfig, one call runs it, the
summary, the judge check's line and the gates are printed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ragmeter.cli.common import DryRun, console, judge_setting, metric_specs, pairs
from ragmeter.errors import RagmeterError
from ragmeter.io.formats import suffixes_text
from ragmeter.run.config import default
from ragmeter.text import plain

if TYPE_CHECKING:
    from ragmeter.results.manifest import Manifest
    from ragmeter.run.config import RunConfig
    from ragmeter.run.result import EvaluationResult

# CI gate options shared by `run` and `evaluate` (results/gates.py)
FailUnder = Annotated[Optional[str], typer.Option(
    "--fail-under", help="bars per metric, METRIC=NUMBER, comma-separated (e.g. faithfulness=0.8; at most, "
                         "for metrics where lower is better); exit 1 when one is missed")]
GateOpt = Annotated[Optional[str], typer.Option("--gate", help="mean | lower | calibrated: the mean, the "
                                                               "pessimistic end of its 95% interval, or that of "
                                                               "the human-mean estimate (--labels), must clear "
                                                               "the bar")]
LabelsOpt = Annotated[Optional[Path], typer.Option("--labels", help="labels.jsonl of human labels on some rows: "
                                                                    "each labelled metric also gets an estimate "
                                                                    "of what people would say")]
MaxUnscored = Annotated[Optional[float], typer.Option("--max-unscored", help="fail when a metric leaves more "
                                                                             "than this share of rows unscored")]
MaxFlagged = Annotated[Optional[str], typer.Option("--max-flagged", help=(
    "FLAG=ROWS[,...]: fail when a metric flags more rows than this, e.g. addressed_to_judge=0 (an answer that "
    "votes for itself), no_claim, contexts_disagree"))]
MaxFailed = Annotated[Optional[float], typer.Option("--max-failed", help=(
    "exit 3 when more than this share of (row, metric) pairs stayed failed after their judge calls' "
    "retries and a last try at the end (default 0.05); those rows are unscored and a re-run retries them"))]
Baseline = Annotated[Optional[Path], typer.Option("--baseline", help="a run folder: fail when a metric is "
                                                                     "significantly worse (paired test)")]
MaxDrop = Annotated[Optional[float], typer.Option("--max-drop", help="with --baseline: a significant drop up to "
                                                                     "this much still passes (default 0)")]
SummaryMd = Annotated[Optional[Path], typer.Option("--summary-md", help="write a Markdown summary (e.g. for "
                                                                        "$GITHUB_STEP_SUMMARY)")]
Junit = Annotated[Optional[Path], typer.Option("--junit", help="write JUnit XML: one test case per gate")]
JunitRows = Annotated[bool, typer.Option("--junit-rows", help="JUnit: also one test case per row and "
                                                              "thresholded metric")]
HtmlReport = Annotated[bool, typer.Option("--report", help="write report.html beside the results")]
RayAddress = Annotated[Optional[str], typer.Option(
    "--ray", help="score on Ray: local (start one here), auto (the running cluster) or HOST:PORT")]
RayWorkers = Annotated[Optional[int], typer.Option("--workers", help="Ray workers, each with its own judge "
                                                                    "(default: the cluster's CPUs)")]
Price = Annotated[Optional[str], typer.Option(
    "--price-per-million", help="PROMPT,COMPLETION price per million tokens, for --dry-run")]
Batch = Annotated[bool, typer.Option("--batch", help="send judge requests through the provider's batch API "
                                                     "(half price; polled; a restart resumes pending batches)")]


def _gate_overrides(fail_under: Optional[str], gate: Optional[str], max_unscored: Optional[float],
                    baseline: Optional[Path], max_drop: Optional[float], summary_md: Optional[Path],
                    junit: Optional[Path], junit_rows: bool, report: bool, labels: Optional[Path],
                    max_flagged: Optional[str] = None) -> dict[str, Any]:
    """The gate flags as config keys; None where a flag was not given (the file's value stays)."""
    from ragmeter.results.gates import parse_fail_under, parse_max_flagged

    return {"thresholds": parse_fail_under(fail_under) if fail_under else None, "gate": gate,
            "max_flagged": parse_max_flagged(max_flagged) if max_flagged else None,
            "labels": str(labels) if labels else None,
            "max_unscored": max_unscored, "baseline": str(baseline) if baseline else None, "max_drop": max_drop,
            "summary_md": str(summary_md) if summary_md else None, "junit": str(junit) if junit else None,
            "junit_rows": junit_rows or None, "report": report or None}


def run(config: Annotated[Path, typer.Argument(help="YAML config: dataset, output, judge, metrics, ...")],
        out: Annotated[Optional[str], typer.Option("--out", help="override output folder")] = None,
        no_cache: Annotated[bool, typer.Option("--no-cache", help="call the judge for everything")] = False,
        limit: Annotated[Optional[int], typer.Option("--limit", help="only the first N rows")] = None,
        shard: Annotated[Optional[str], typer.Option("--shard", help="I/N: only the rows whose id hashes to shard "
                                                                   "I of N (join with `ragmeter merge`)")] = None,
        overwrite: Annotated[bool, typer.Option("--overwrite", help="replace another run's results in the "
                                                                   "output folder")] = False,
        verbose: Annotated[bool, typer.Option("--verbose", "-v", help="judge calls, tokens, cache hits and "
                                                                     "seconds per metric")] = False,
        fail_under: FailUnder = None, gate: GateOpt = None, max_unscored: MaxUnscored = None,
        baseline: Baseline = None, max_drop: MaxDrop = None, summary_md: SummaryMd = None, junit: Junit = None,
        junit_rows: JunitRows = False, report: HtmlReport = False, dry_run: DryRun = False,
        ray: RayAddress = None, workers: RayWorkers = None, batch: Batch = False, price: Price = None,
        labels: LabelsOpt = None, max_failed: MaxFailed = None, max_flagged: MaxFlagged = None) -> None:
    """Evaluate the dataset a config file names; write results and manifest.json."""
    from ragmeter.run.config import load_config

    gates = _gate_overrides(fail_under, gate, max_unscored, baseline, max_drop, summary_md, junit, junit_rows,
                            report, labels, max_flagged)
    # paths given on the command line are relative to the working directory, not the config file
    paths = {k: gates.pop(k) for k in ("baseline", "summary_md", "junit", "labels") if gates[k]}
    overrides: dict[str, Any] = {"limit": limit, "shard": shard, "cache": False if no_cache else None,
                                 "batch": True if batch else None, "price_per_million": _price(price),
                                 "overwrite": True if overwrite else None, "max_failed": max_failed, **gates}
    cfg = load_config(config, overrides)
    cfg = cfg.model_copy(update={**paths, **({"output": out} if out else {}), **_engine(cfg, ray, workers)})
    _execute(cfg, verbose, dry_run)


def evaluate(data: Annotated[Path, typer.Argument(help=f"dataset: {suffixes_text()}")],
             metrics: Annotated[Optional[str], typer.Option(
                 help="comma-separated metric names, or all, or applicable (every metric whose fields the data "
                      "has)")] = None,
             judge: Annotated[str, typer.Option(
                 help="llamacpp (bundled Qwen) | llamacpp:gemma-270m | llamacpp:PATH.gguf | openai:MODEL | "
                      "openai-compat:URL#MODEL | hf:PATH")] = default("judge"),
             judge_opt: Annotated[Optional[list[str]], typer.Option(
                 "--judge-opt", help="judge setting KEY=VALUE, e.g. api=completions")] = None,
             metric_opt: Annotated[Optional[list[str]], typer.Option(
                 "--metric-opt", help="metric setting METRIC.KEY=VALUE, e.g. ndcg@k.k=5")] = None,
             embeddings: Annotated[str, typer.Option(help="bundled | sentence-transformers:DIR | "
                                                          "openai-compat:URL#MODEL")] = default("embeddings"),
             out: Annotated[str, typer.Option(
                 help="output folder; {timestamp} gives each run its own")] = default("output"),
             overwrite: Annotated[bool, typer.Option("--overwrite", help="replace another run's results in the "
                                                                        "output folder")] = False,
             verbose: Annotated[bool, typer.Option("--verbose", "-v", help="judge calls, tokens, cache hits and "
                                                                          "seconds per metric")] = False,
             format: Annotated[str, typer.Option(help="jsonl | csv | parquet")] = default("format"),
             column: Annotated[Optional[list[str]], typer.Option(
                 help="map a field to your column: FIELD=COLUMN, e.g. user_input=q")] = None,
             concurrency: Annotated[int, typer.Option(help="judge calls in flight")] = default("concurrency"),
             timeout: Annotated[float, typer.Option(help="seconds per judge call")] = default("timeout"),
             no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
             limit: Annotated[Optional[int], typer.Option(help="only the first N rows")] = None,
             shard: Annotated[Optional[str], typer.Option(help="I/N: only the rows whose id hashes to shard I of "
                                                               "N (join with `ragmeter merge`)")] = None,
             language: Annotated[str, typer.Option(help="prompt language: auto (the data's: the manifest beside "
                                                        "it, else its rows' text) | english | spanish | any "
                                                        "language --prompts-dir provides")] = default("language"),
             prompts_dir: Annotated[Optional[Path], typer.Option(
                 "--prompts-dir", help="folder of prompt files (ragmeter prompts export/adapt) that "
                                       "replace the built-in ones")] = None,
             layout: Annotated[str, typer.Option(
                 help="instruction (each prompt as written) | row (a row's chunks first, read once for all "
                      "its context metrics) | auto (row-first for long chunks)")] = default("layout"),
             fail_under: FailUnder = None, gate: GateOpt = None, max_unscored: MaxUnscored = None,
             baseline: Baseline = None, max_drop: MaxDrop = None, summary_md: SummaryMd = None,
             junit: Junit = None, junit_rows: JunitRows = False, report: HtmlReport = False,
             dry_run: DryRun = False, ray: RayAddress = None, workers: RayWorkers = None, batch: Batch = False,
             price: Price = None, labels: LabelsOpt = None, max_failed: MaxFailed = None,
             max_flagged: MaxFlagged = None,
             reasons: Annotated[Optional[str], typer.Option(
                 help="failing (the in-process default: a reason only where a verdict is 0) | all | none; "
                      "scores are the same (= --judge-opt reasons=...)")] = None
             ) -> None:
    """Evaluate a dataset file without a config file."""
    from ragmeter.run.config import build_config

    given = [o.partition("=")[2] for o in judge_opt or [] if o.partition("=")[0].strip() == "reasons"]
    if reasons and given and given[-1] != reasons:
        from ragmeter.errors import ConfigError

        raise ConfigError(f"--reasons {reasons} and --judge-opt reasons={given[-1]} disagree: give one")
    judge_cfg = judge_setting(judge, [*(judge_opt or []), *([f"reasons={reasons}"] if reasons else [])])
    cfg = build_config({"dataset": str(data), "output": out, "format": format, "judge": judge_cfg,
                        "embeddings": embeddings, "columns": pairs(column or [], "--column"),
                        "metrics": metric_specs(metrics, metric_opt or []),
                        "concurrency": concurrency, "timeout": timeout, "cache": not no_cache,
                        "limit": limit, "shard": shard, "language": language, "overwrite": overwrite,
                        "prompts_dir": str(prompts_dir) if prompts_dir else None, "layout": layout,
                        "price_per_million": _price(price), "batch": batch,
                        **({"max_failed": max_failed} if max_failed is not None else {}),
                        **{k: v for k, v in _gate_overrides(fail_under, gate, max_unscored, baseline, max_drop,
                                                            summary_md, junit, junit_rows, report, labels,
                                                            max_flagged).items()
                           if v is not None}}, "command line")
    _execute(cfg.model_copy(update=_engine(cfg, ray, workers)), verbose, dry_run)


def _engine(cfg: RunConfig, ray: Optional[str], workers: Optional[int]) -> dict[str, Any]:
    """--ray/--workers over the config's `engine:`."""
    if ray is None and workers is None:
        return {}
    if ray is None and cfg.engine.kind != "ray":
        raise RagmeterError("--workers is for Ray runs: add --ray local (or auto, or HOST:PORT)")
    engine = cfg.engine.model_copy(update={"kind": "ray", **({"address": ray} if ray else {}),
                                           **({"workers": workers} if workers else {})})
    return {"engine": engine}


def _price(value: Optional[str]) -> Optional[dict[str, float]]:
    if value is None:
        return None
    parts = value.split(",")
    try:
        prompt, completion = (float(p) for p in parts)
    except ValueError:
        raise RagmeterError(f"--price-per-million {value}: expected PROMPT,COMPLETION, e.g. 0.15,0.60") \
            from None
    return {"prompt": prompt, "completion": completion}


def _execute(cfg: RunConfig, verbose: bool = False, dry_run: bool = False) -> None:
    import warnings

    from rich.console import Console

    if dry_run:
        from ragmeter.results.console import print_estimate
        from ragmeter.run.dry_run import dry_run as dry_run_of  # `dry_run` is the flag here

        print_estimate(asyncio.run(dry_run_of(cfg)), console())
        return

    from ragmeter.judges.bundled import JudgeValidityWarning
    from ragmeter.results.console import print_summary
    from ragmeter.run.execute import run_config
    from ragmeter.text import printable

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JudgeValidityWarning)
        result = asyncio.run(run_config(cfg))
    print_summary(result.manifest, console(), verbose)
    _judge_check_line(result.manifest, cfg)
    for note in result.manifest.prompt_notes:
        Console(stderr=True).print(f"[yellow]prompt {printable(note)}[/yellow]", highlight=False)
    for warning in caught:
        Console(stderr=True).print(f"[yellow]{printable(warning.message)}[/yellow]", highlight=False)
    print(plain(f"wrote {result.results_path} and {result.manifest_path}"))
    _failed_calls(result)
    if result.gates is not None:
        for gate in [g for g in result.gates.results if g.kind != "failed"]:
            mark = "[green]pass[/green]" if gate.passed else "[red]FAIL[/red]"
            console().print(f"{mark} {printable(gate.message)}", highlight=False)
        if not result.gates.passed:
            raise typer.Exit(result.gates.exit_code)


def _failed_calls(result: EvaluationResult) -> None:
    """Say how many (row, metric) pairs stayed failed; exit 3 when more than `--max-failed`
    allows (the run-level rule results/gates.py applies for every entry point)."""
    from rich.console import Console

    from ragmeter.text import printable

    found = next((g for g in (result.gates.results if result.gates is not None else []) if g.kind == "failed"), None)
    if found is None:
        return
    Console(stderr=True).print(f"[yellow]{printable(found.message)}[/yellow]", highlight=False)
    if not found.passed:
        Console(stderr=True).print(printable(f"more than --max-failed {found.bar:.0%}: exit 3"), highlight=False)
        raise typer.Exit(3)


def _judge_check_line(manifest: Manifest, cfg: Any) -> None:
    """What the last judge check of this judge found, or a hint to run one: a mean means
    little until the judge has been seen to score copied answers high and unrelated ones low."""
    from ragmeter.judge_check.records import last_check

    if not any(m.judge_calls + m.cache_hits for m in manifest.metrics.values()):
        return
    found = last_check(manifest.judge)
    if found is None:
        console().print(plain(f"hint: this judge has not been checked yet: ragmeter judge-check {cfg.dataset} "
                              "(see README: Can I trust the judge on my data?)"), highlight=False, markup=False)
        return
    parts = [f"{name} passes {m['pass_rate']:.0%} of cases" + (f" (worst: {m['worst'][0]} {m['worst'][1]:.0%})"
                                                                if m.get("worst") else "")
             for name, m in found["metrics"].items() if m.get("pass_rate") is not None]
    console().print(plain(f"judge check ({found['checked_at']}, {found['data']}): " + "; ".join(parts)),
                    highlight=False, markup=False)
