"""`ragmeter` command line: each command parses, builds a RunConfig and calls one function."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ragmeter.cli_common import console, judge_setting, pairs
from ragmeter.cli_prompts import prompts_app
from ragmeter.cli_rag import register as register_rag_commands
from ragmeter.errors import RagmeterError
from ragmeter.summary import plain

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Evaluate RAG datasets with Ragas-compatible metrics on any judge. Exit codes: 0 done "
                       "(gates passed), 1 a gate failed, 2 a usage, config or data error, 3 a judge or "
                       "infrastructure failure (errors are one line on stderr), 130 interrupted (finished "
                       "judge replies are cached).")

# CI gate options shared by `run` and `evaluate` (gates.py)
FailUnder = Annotated[Optional[str], typer.Option(
    "--fail-under", help="bars per metric, e.g. faithfulness=0.8,context_recall=0.7 (at most, for metrics "
                         "where lower is better); exit 1 when one is missed")]
GateOpt = Annotated[Optional[str], typer.Option("--gate", help="mean | lower: the mean, or the pessimistic end "
                                                               "of its 95% interval, must clear the bar")]
MaxUnscored = Annotated[Optional[float], typer.Option("--max-unscored", help="fail when a metric leaves more "
                                                                             "than this share of rows unscored")]
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
Batch = Annotated[bool, typer.Option("--batch", help="send judge requests through the provider's batch API "
                                                     "(half price; polled; a restart resumes pending batches)")]
DryRun = Annotated[bool, typer.Option("--dry-run", help="call no judge: print per metric the calls, prompt tokens, "
                                                        "seconds and price the run would cost")]


def _gate_overrides(fail_under: Optional[str], gate: Optional[str], max_unscored: Optional[float],
                    baseline: Optional[Path], max_drop: Optional[float], summary_md: Optional[Path],
                    junit: Optional[Path], junit_rows: bool, report: bool) -> dict[str, Any]:
    """The gate flags as config keys; None where a flag was not given (the file's value stays)."""
    from ragmeter.gates import parse_fail_under

    return {"thresholds": parse_fail_under(fail_under) if fail_under else None, "gate": gate,
            "max_unscored": max_unscored, "baseline": str(baseline) if baseline else None, "max_drop": max_drop,
            "summary_md": str(summary_md) if summary_md else None, "junit": str(junit) if junit else None,
            "junit_rows": junit_rows or None, "report": report or None}


def _version(value: bool) -> None:
    if value:
        from ragmeter import __version__

        print(f"ragmeter {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                 help="print the version and exit")] = False) -> None:
    """Evaluate RAG datasets with Ragas-compatible metrics on any judge."""



@app.command()
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
        ray: RayAddress = None, workers: RayWorkers = None, batch: Batch = False) -> None:
    """Evaluate the dataset a config file names; write results and manifest.json."""
    from ragmeter.config import load_config

    gates = _gate_overrides(fail_under, gate, max_unscored, baseline, max_drop, summary_md, junit, junit_rows,
                            report)
    # paths given on the command line are relative to the working directory, not the config file
    paths = {k: gates.pop(k) for k in ("baseline", "summary_md", "junit") if gates[k]}
    overrides: dict[str, Any] = {"limit": limit, "shard": shard, "cache": False if no_cache else None,
                                 "batch": True if batch else None,
                                 "overwrite": True if overwrite else None, **gates}
    cfg = load_config(config, overrides)
    cfg = cfg.model_copy(update={**paths, **({"output": out} if out else {}), **_engine(cfg, ray, workers)})
    _execute(cfg, verbose, dry_run)


@app.command()
def evaluate(data: Annotated[Path, typer.Argument(help="dataset: .jsonl, .json, .csv or .parquet")],
             metrics: Annotated[Optional[str], typer.Option(
                 help="comma-separated metric names, or all, or applicable (every metric whose fields the data "
                      "has)")] = None,
             judge: Annotated[str, typer.Option(
                 help="llamacpp (bundled Qwen) | llamacpp:gemma-270m | llamacpp:PATH.gguf | openai:MODEL | "
                      "openai-compat:URL#MODEL | hf:PATH")] = "llamacpp",
             judge_opt: Annotated[Optional[list[str]], typer.Option(
                 "--judge-opt", help="judge setting KEY=VALUE, e.g. api=completions")] = None,
             metric_opt: Annotated[Optional[list[str]], typer.Option(
                 "--metric-opt", help="metric setting METRIC.KEY=VALUE, e.g. ndcg@k.k=5")] = None,
             embeddings: Annotated[str, typer.Option(help="bundled | sentence-transformers:DIR | "
                                                          "openai-compat:URL#MODEL")] = "bundled",
             out: Annotated[str, typer.Option(help="output folder; {timestamp} gives each run its own")] = "results",
             overwrite: Annotated[bool, typer.Option("--overwrite", help="replace another run's results in the "
                                                                        "output folder")] = False,
             verbose: Annotated[bool, typer.Option("--verbose", "-v", help="judge calls, tokens, cache hits and "
                                                                          "seconds per metric")] = False,
             format: Annotated[str, typer.Option(help="jsonl | csv | parquet")] = "jsonl",
             column: Annotated[Optional[list[str]], typer.Option(
                 help="map a field to your column: FIELD=COLUMN, e.g. user_input=q")] = None,
             concurrency: Annotated[int, typer.Option(help="judge calls in flight")] = 1,
             timeout: Annotated[float, typer.Option(help="seconds per judge call")] = 300.0,
             no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
             limit: Annotated[Optional[int], typer.Option(help="only the first N rows")] = None,
             shard: Annotated[Optional[str], typer.Option(help="I/N: only the rows whose id hashes to shard I of "
                                                               "N (join with `ragmeter merge`)")] = None,
             language: Annotated[str, typer.Option(help="prompt language: english | spanish | any "
                                                        "language --prompts-dir provides")] = "english",
             prompts_dir: Annotated[Optional[Path], typer.Option(
                 "--prompts-dir", help="folder of prompt files (ragmeter prompts export/adapt) that "
                                       "replace the built-in ones")] = None,
             fail_under: FailUnder = None, gate: GateOpt = None, max_unscored: MaxUnscored = None,
             baseline: Baseline = None, max_drop: MaxDrop = None, summary_md: SummaryMd = None,
             junit: Junit = None, junit_rows: JunitRows = False, report: HtmlReport = False,
             dry_run: DryRun = False, ray: RayAddress = None, workers: RayWorkers = None, batch: Batch = False,
             price: Annotated[Optional[str], typer.Option(
                 "--price-per-million", help="PROMPT,COMPLETION price per million tokens, for --dry-run")] = None
             ) -> None:
    """Evaluate a dataset file without a config file."""
    from ragmeter.config import build_config

    judge_cfg = judge_setting(judge, judge_opt)
    cfg = build_config({"dataset": str(data), "output": out, "format": format, "judge": judge_cfg,
                        "embeddings": embeddings, "columns": pairs(column or [], "--column"),
                        "metrics": _metric_specs(metrics, metric_opt or []),
                        "concurrency": concurrency, "timeout": timeout, "cache": not no_cache,
                        "limit": limit, "shard": shard, "language": language, "overwrite": overwrite,
                        "prompts_dir": str(prompts_dir) if prompts_dir else None,
                        "price_per_million": _price(price), "batch": batch,
                        **{k: v for k, v in _gate_overrides(fail_under, gate, max_unscored, baseline, max_drop,
                                                            summary_md, junit, junit_rows, report).items()
                           if v is not None}}, "command line")
    _execute(cfg.model_copy(update=_engine(cfg, ray, workers)), verbose, dry_run)


@app.command()
def generate(input: Annotated[Path, typer.Option("--input", help="Parquet or JSONL with a `text` column")],
             model: Annotated[str, typer.Option(help="llamacpp | llamacpp:PATH.gguf | openai-compat:URL#MODEL | "
                                                     "openai:MODEL | hf:PATH")] = "llamacpp",
             format: Annotated[str, typer.Option(help="special-tokens | chat")] = "special-tokens",
             rows: Annotated[Optional[int], typer.Option(help="only the first N rows")] = None,
             out: Annotated[Path, typer.Option(help="output folder")] = Path("generations"),
             max_tokens: Annotated[int, typer.Option(help="tokens per generation")] = 512,
             model_opt: Annotated[Optional[list[str]], typer.Option("--model-opt", help="KEY=VALUE")] = None,
             no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
             overwrite: Annotated[bool, typer.Option("--overwrite", help="replace generated_response where the "
                                                                        "input has one")] = False) -> None:
    """Generate `generated_response` for each row (Pleias formats); resumable. A generation cut off
    at --max-tokens is marked (generation_finish_reason=length) and left unscored by evaluate."""
    from ragmeter.cache import open_cache
    from ragmeter.generate import check_rows, generate_rows, write_generations
    from ragmeter.io.readers import read_records
    from ragmeter.judges.spec import make_judge

    records, _ = read_records(input)
    records = [{k: v for k, v in r.items() if k != "__line__"} for r in records][:rows]
    check_rows(records, str(input), overwrite)
    judge = make_judge({"spec": model, **pairs(model_opt, "--model-opt")} if model_opt else model)
    cache = open_cache(not no_cache)

    async def go() -> Any:
        try:
            return await generate_rows(records, judge, cache, format, max_tokens=max_tokens)
        finally:
            await judge.aclose()

    try:
        run = asyncio.run(go())
    finally:
        cache.close()
    parquet, samples = write_generations(run.rows, out)
    print(f"{len(run.rows)} rows: {run.generated} generated ({run.tokens} tokens, {run.seconds:.1f} s), "
          f"{run.cached} from cache; wrote {parquet} and {samples}")


@app.command("compare")
def compare_runs(run_a: Annotated[Path, typer.Argument(help="the run folder to compare against (baseline)")],
                 run_b: Annotated[Path, typer.Argument(help="the run folder to compare (candidate)")],
                 metrics: Annotated[Optional[str], typer.Option(help="comma-separated; default: every metric "
                                                                     "both runs have")] = None,
                 out: Annotated[Optional[Path], typer.Option(help="folder for compare.json")] = None,
                 top: Annotated[int, typer.Option(help="rows that changed most, per metric")] = 5) -> None:
    """Paired comparison of two runs: per metric the difference B - A with a 95% paired-bootstrap
    interval, a sign-flip p-value (Holm-adjusted across metrics) and the rows that moved most."""
    from ragmeter.comparison import compare, print_comparison, write_comparison

    names = [m.strip() for m in metrics.split(",") if m.strip()] if metrics else None
    result = compare(run_a, run_b, names, top=top)
    print_comparison(result, console(wide=True))
    if out:
        print(plain(f"wrote {write_comparison(result, out)}"))


@app.command("report")
def html_report(run_a: Annotated[Path, typer.Argument(help="a run folder")],
                run_b: Annotated[Optional[Path], typer.Argument(help="a second run folder, compared with the "
                                                                     "first row by row")] = None,
                out: Annotated[Path, typer.Option(help="the HTML file to write")] = Path("report.html"),
                judge_check: Annotated[Optional[Path], typer.Option(
                    "--judge-check", help="a judge_check.json to show (default: the one beside the run)")] = None
                ) -> None:
    """One self-contained HTML page: summary with intervals and distributions, paired
    differences for two runs, and every row with its evidence (search, sort, filter)."""
    from ragmeter.report import write_report

    print(plain(f"wrote {write_report(run_a, run_b, out, judge_check=judge_check)}"))


@app.command("meta-eval")
def meta_eval(labels: Annotated[Path, typer.Argument(help="rows with a human `label`: binary 0/1, ordinal "
                                                           "(e.g. 1-5) or a pairwise preference")],
              metric: Annotated[str, typer.Option(help="the metric whose agreement to measure")],
              judge: Annotated[str, typer.Option(help="judge spec, as for evaluate")] = "llamacpp",
              judge_opt: Annotated[Optional[list[str]], typer.Option("--judge-opt", help="KEY=VALUE")] = None,
              embeddings: Annotated[str, typer.Option(help="as for evaluate")] = "bundled",
              out: Annotated[Optional[Path], typer.Option(help="folder for meta_eval.json and the scored "
                                                               "rows")] = None,
              limit: Annotated[Optional[int], typer.Option(help="only the first N rows")] = None,
              label_column: Annotated[str, typer.Option("--label-column")] = "label",
              language: Annotated[str, typer.Option(help="prompt language")] = "english",
              concurrency: Annotated[int, typer.Option(help="judge calls in flight")] = 1,
              overwrite: Annotated[bool, typer.Option("--overwrite")] = False) -> None:
    """How well does a metric on this judge agree with your human labels? ROC-AUC, balanced
    accuracy, kappa, Spearman/Kendall or pairwise accuracy, with 95% intervals, beside a
    no-model word-overlap floor on the same rows."""
    from ragmeter.meta_eval import meta_evaluate, print_meta_eval

    judge_cfg = judge_setting(judge, judge_opt)
    result = meta_evaluate(labels, metric, judge=judge_cfg, limit=limit, out=out, label_column=label_column,
                           embeddings=embeddings, language=language, concurrency=concurrency,
                           overwrite=overwrite)
    print_meta_eval(result, console(wide=True))
    if out:
        print(plain(f"wrote {out / 'meta_eval.json'}"))


@app.command("judge-check")
def judge_check(data: Annotated[Path, typer.Argument(help="your rows (.jsonl/.csv/.parquet with contexts), or a "
                                                          "folder of documents (.txt, .md, .html, .pdf)")],
                metrics: Annotated[Optional[str], typer.Option(
                    help="comma-separated: faithfulness, llamaindex_faithfulness, context_relevance, "
                         "context_precision, context_recall, response_relevancy (default: faithfulness, and "
                         "context_relevance where rows have questions)")] = None,
                metric_opt: Annotated[Optional[list[str]], typer.Option("--metric-opt", help="METRIC.KEY=VALUE"
                                                                        )] = None,
                judge: Annotated[str, typer.Option(help="judge spec, as for evaluate")] = "llamacpp",
                judge_opt: Annotated[Optional[list[str]], typer.Option("--judge-opt", help="KEY=VALUE")] = None,
                embeddings: Annotated[str, typer.Option(help="as for evaluate")] = "bundled",
                sizes: Annotated[str, typer.Option(help="prompt sizes: contexts in the prompt, comma-separated "
                                                        "(the source among k-1 other rows' contexts)")] = "1,3,5",
                limit: Annotated[Optional[int], typer.Option(help="only the first N rows (documents: N chunks, "
                                                                  "spread over the documents)")] = None,
                seed: Annotated[int, typer.Option(help="seeds every choice of sentence, distractor and "
                                                       "position")] = 0,
                out: Annotated[Path, typer.Option(help="folder for judge_check.json and each metric's run")
                               ] = Path("judge-check"),
                column: Annotated[Optional[list[str]], typer.Option(help="FIELD=COLUMN, as for evaluate")] = None,
                language: Annotated[str, typer.Option(help="prompt and negation language: english | spanish"
                                                      )] = "english",
                chunk_size: Annotated[int, typer.Option("--chunk-size", help="documents: chunk size in "
                                                                            "characters")] = 2000,
                concurrency: Annotated[int, typer.Option(help="judge calls in flight")] = 1,
                no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
                dry_run: DryRun = False) -> None:
    """Can I trust this judge on my data? Scores cases built from your rows whose right score
    is known (copied answers high; unrelated, negated, fact-swapped ones low) and reports
    pass rates with 95% intervals, median scores, ROC-AUC and the failing cases."""
    from ragmeter.judge_check import check_report
    from ragmeter.judge_check import judge_check as check
    from ragmeter.judge_check.console import print_judge_check

    judge_cfg = judge_setting(judge, judge_opt)
    chosen = _metric_specs(metrics, metric_opt or [])
    try:
        size_list = tuple(int(k) for k in sizes.split(","))
    except ValueError:
        raise RagmeterError(f"--sizes {sizes}: expected whole numbers, e.g. 1,3,5") from None
    where: dict[str, Any] = dict(sizes=size_list, seed=seed, limit=limit, columns=pairs(column or [], "--column"),
                 chunk_size=chunk_size)
    if dry_run:
        from ragmeter.judge_check import estimate_check
        from ragmeter.summary import print_estimate

        for found in estimate_check(data, chosen, judge=judge_cfg, language=language, plan_options=where,
                                    embeddings=embeddings, cache=not no_cache, concurrency=concurrency):
            print_estimate(found, console())
        return
    result = check(data, chosen, judge=judge_cfg, out=out, language=language, embeddings=embeddings,
                   cache=not no_cache, concurrency=concurrency, **where)
    print_judge_check(result, console())
    page = check_report(out, result)
    print(plain(f"wrote {out / 'judge_check.json'}" + (f" and {page}" if page else "")))


@app.command("testset")
def testset(docs: Annotated[Optional[Path], typer.Argument(help="a folder (.txt, .md, .html, .pdf), or a "
                                                                ".jsonl/.parquet/.csv with a `text` column")] = None,
            size: Annotated[Optional[int], typer.Option(help="questions to keep (default 50)")] = None,
            out: Annotated[Optional[Path], typer.Option(help="output folder (default testset/)")] = None,
            judge: Annotated[Optional[str], typer.Option(help="judge spec, as for evaluate")] = None,
            embeddings: Annotated[Optional[str], typer.Option(help="for multi-hop pairs and duplicates")] = None,
            language: Annotated[Optional[str], typer.Option(help="english | spanish")] = None,
            audience: Annotated[Optional[str], typer.Option(help="who the questions should be useful to")] = None,
            types: Annotated[Optional[str], typer.Option(
                help="question mix, e.g. factoid:0.6,multi_hop:0.2,unanswerable:0.2")] = None,
            seed: Annotated[Optional[int], typer.Option()] = None,
            chunk_size: Annotated[Optional[int], typer.Option("--chunk-size")] = None,
            chunk_overlap: Annotated[Optional[int], typer.Option("--chunk-overlap")] = None,
            min_score: Annotated[Optional[int], typer.Option("--min-score", help="keep ratings >= this on every "
                                                                               "critique (default 4)")] = None,
            max_attempts: Annotated[Optional[int], typer.Option(
                "--max-attempts", help="give up after size x this many attempts (default 4)")] = None,
            format: Annotated[Optional[str], typer.Option(help="jsonl | parquet")] = None,
            concurrency: Annotated[Optional[int], typer.Option(help="judge calls in flight")] = None,
            config: Annotated[Optional[Path], typer.Option(help="a YAML file with a `testset:` section")] = None,
            dry_run: Annotated[bool, typer.Option("--dry-run", help="print the judge calls and prompt tokens the run "
                                                                   "would need; call nothing")] = False,
            overwrite: Annotated[bool, typer.Option("--overwrite")] = False) -> None:
    """Generate a test set from your documents: chunk, write questions, critique them
    (groundedness, relevance, standalone), filter, deduplicate, and report on its quality."""
    from ragmeter.testset import generate_testset
    from ragmeter.testset.config import load_testset_config
    from ragmeter.testset.quality import print_quality

    flags = {"docs": str(docs) if docs else None, "size": size, "out": str(out) if out else None, "judge": judge,
             "embeddings": embeddings, "language": language, "audience": audience, "types": types, "seed": seed,
             "chunk_size": chunk_size, "chunk_overlap": chunk_overlap, "min_score": min_score,
             "max_attempts": max_attempts, "format": format, "concurrency": concurrency}
    options = load_testset_config(config, {k: v for k, v in flags.items() if v is not None})
    if dry_run:
        from ragmeter.testset import plan_testset

        keys = ("language", "types", "seed", "chunk_size", "chunk_overlap", "chunk_unit", "max_attempts", "audience")
        plan = plan_testset(options["docs"], options["size"], **{k: options[k] for k in keys})
        print(f"{plan['documents']} documents, {plan['chunks']} chunks; {plan['attempts']['at_least']} to "
              f"{plan['attempts']['at_most']} attempts: {plan['judge_calls']['at_least']} to "
              f"{plan['judge_calls']['at_most']} judge calls, {plan['prompt_tokens_estimate']['at_least']:,} to "
              f"{plan['prompt_tokens_estimate']['at_most']:,} prompt tokens ({plan['token_count']}); "
              "a rejected question stops at its first failed critique, so most runs cost less than the upper bound")
        return
    result = generate_testset(options.pop("docs"), overwrite=overwrite, **options)
    print_quality(result.quality, console())
    print(plain(f"wrote {result.path}, {result.path.parent / 'rejected.jsonl'} and "
                f"{result.path.parent / 'manifest.json'}" if result.path else ""))


@app.command("merge")
def merge(folders: Annotated[list[Path], typer.Argument(help="the shards' run folders (--shard 0/N ... N-1/N)")],
          out: Annotated[Path, typer.Option(help="the merged run folder")],
          overwrite: Annotated[bool, typer.Option("--overwrite")] = False) -> None:
    """Join the run folders of `--shard I/N` runs into one run: rows in dataset order, means and
    intervals recomputed from the rows, judge accounting summed."""
    from ragmeter.merge import merge_runs
    from ragmeter.runs import load_run
    from ragmeter.summary import print_summary

    path = merge_runs(list(folders), out, overwrite)
    print_summary(load_run(out).manifest.model_dump(mode="json"), console())
    print(plain(f"wrote {path} and {out / 'manifest.json'}"))


@app.command("bench-judge")
def bench_judge(judge: Annotated[str, typer.Argument(help="the judge spec, as --judge takes it")],
                data: Annotated[Path, typer.Argument(help="rows to time it on: your own data is the best guide")],
                rows: Annotated[int, typer.Option(help="how many rows (every call is timed)")] = 5,
                metrics: Annotated[Optional[str], typer.Option(help="comma-separated (default: the six core "
                                                                    "metrics)")] = None) -> None:
    """Measure a judge's speed (seconds per call, prompt and reply tokens per second) so that
    `--dry-run` can say how long a run will take."""
    from ragmeter.judge_speed import bench_judge as measure

    chosen = [m.strip() for m in metrics.split(",")] if metrics else None
    speed, path = asyncio.run(measure(judge, data, rows, chosen))
    rate = speed.prompt_tokens_per_second
    write = speed.completion_tokens_per_second
    print(plain(f"{speed.judge}: {speed.calls} calls; {speed.overhead_seconds:.2f} s per call + prompt at "
                f"{f'{rate:,.0f} tokens/s' if rate else 'no measurable cost'} + reply at "
                f"{f'{write:,.0f} tokens/s' if write else 'no measurable cost'}; "
                f"replies average {speed.mean_completion_tokens:.0f} tokens"))
    print(plain(f"stored in {path}: `--dry-run` with this judge now gives seconds"))


@app.command("metrics")
def list_metrics(markdown: Annotated[bool, typer.Option("--markdown", help="the README's Markdown table")] = False
                 ) -> None:
    """List every metric: the fields it needs, what it uses, its settings with their defaults,
    and what it measures."""
    from rich.table import Column, Table

    from ragmeter.metrics import catalog

    if markdown:
        print(catalog.markdown())
        return
    table = Table("needs", "uses", "settings (default)", "what it measures", show_lines=False)
    table.columns.insert(0, Column("metric", no_wrap=True))
    for row in catalog.rows():
        table.add_row(*row)
    console(wide=True).print(table)
    print("Result columns: a metric's column is its name (ranking metrics: name@k, e.g. ndcg@5; aspect_critic: "
          "aspect_critic_<name>), or the `as:` you give it; beside it <column>_reason and <column>_evidence.")


def _metric_specs(names: Optional[str], settings: list[str]) -> Optional[list[Any]]:
    """--metrics a,b plus --metric-opt a.key=value -> config entries (str or {name: settings})."""
    chosen = [m.strip() for m in names.split(",") if m.strip()] if names else []
    options: dict[str, dict[str, Any]] = {}
    for key, value in pairs(settings, "--metric-opt").items():
        metric, dot, setting = key.rpartition(".")
        if not dot or metric not in chosen:
            raise RagmeterError(f"--metric-opt {key}: expected METRIC.SETTING=VALUE for a metric in --metrics")
        options.setdefault(metric, {})[setting] = value
    return [{m: options[m]} if m in options else m for m in chosen] or None


def _engine(cfg: Any, ray: Optional[str], workers: Optional[int]) -> dict[str, Any]:
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


def _execute(cfg: Any, verbose: bool = False, dry_run: bool = False) -> None:
    import warnings

    from rich.console import Console

    if dry_run:
        from ragmeter.dry_run import dry_run as estimate_run
        from ragmeter.summary import print_estimate

        print_estimate(asyncio.run(estimate_run(cfg)), console(wide=True))
        return

    from ragmeter.api import run_config
    from ragmeter.judges.bundled import JudgeValidityWarning
    from ragmeter.summary import print_summary, printable

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JudgeValidityWarning)
        result = asyncio.run(run_config(cfg))
    print_summary(result.manifest, console(wide=verbose), verbose)
    _judge_check_line(result.manifest, cfg)
    for note in result.manifest["prompt_notes"]:
        Console(stderr=True).print(f"[yellow]prompt {printable(note)}[/yellow]", highlight=False)
    for warning in caught:
        Console(stderr=True).print(f"[yellow]{printable(warning.message)}[/yellow]", highlight=False)
    print(plain(f"wrote {result.results_path} and {result.manifest_path}"))
    if result.gates is not None:
        for gate in result.gates.results:
            mark = "[green]pass[/green]" if gate.passed else "[red]FAIL[/red]"
            console().print(f"{mark} {printable(gate.message)}", highlight=False)
        if not result.gates.passed:
            raise typer.Exit(1)


def _judge_check_line(manifest: dict[str, Any], cfg: Any) -> None:
    """What the last judge check of this judge found, or a hint to run one: a mean means
    little until the judge has been seen to score copied answers high and unrelated ones low."""
    from ragmeter.judge_check.records import last_check

    if not any(m.get("judge_calls", 0) + m.get("cache_hits", 0) for m in manifest["metrics"].values()):
        return
    found = last_check(manifest.get("judge"))
    if found is None:
        console().print(plain(f"hint: this judge has not been checked yet: ragmeter judge-check {cfg.dataset} "
                              "(see README: Can I trust the judge on my data?)"), highlight=False, markup=False)
        return
    parts = [f"{name} passes {m['pass_rate']:.0%} of cases" + (f" (worst: {m['worst'][0]} {m['worst'][1]:.0%})"
                                                                if m.get("worst") else "")
             for name, m in found["metrics"].items() if m.get("pass_rate") is not None]
    console().print(plain(f"judge check ({found['checked_at']}, {found['data']}): " + "; ".join(parts)),
                    highlight=False, markup=False)


app.add_typer(prompts_app, name="prompts")
register_rag_commands(app)


def _log_to_stderr() -> None:
    """ragmeter's own notices (a judge server taken out, a batch submitted or finished) as
    `ragmeter: ...` lines on stderr; other libraries' logging is left as it is."""
    import logging

    logger = logging.getLogger("ragmeter")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("ragmeter: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


def main() -> None:
    """Entry point: library errors become one line on stderr and a non-zero exit."""
    _log_to_stderr()
    try:
        code = app(standalone_mode=False)  # click returns typer.Exit's code here instead of raising
        if isinstance(code, int) and code:
            sys.exit(code)
    except RagmeterError as exc:
        from ragmeter.errors import JudgeError

        print(f"ragmeter: error: {plain(exc)}", file=sys.stderr)
        sys.exit(3 if isinstance(exc, JudgeError) else 2)
    except KeyboardInterrupt:
        print("ragmeter: interrupted; finished judge replies are cached, run again to resume", file=sys.stderr)
        sys.exit(130)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except Exception as exc:  # usage errors from typer's click
        code = _usage_error(exc)
        if code is None:
            raise
        sys.exit(code)


def _usage_error(exc: Exception) -> int | None:
    """A usage error (unknown option, missing argument, bad value) as one line; exit code 2."""
    import click
    from typer._click import exceptions as typer_click  # typer >= 0.20 vendors its own click

    if isinstance(exc, (click.exceptions.Abort, typer_click.Abort if hasattr(typer_click, "Abort") else ())):
        return 130
    if not isinstance(exc, (click.ClickException, typer_click.ClickException)):
        return None
    if type(exc).__name__ == "NoArgsIsHelpError":
        return 2  # help was printed already
    context = getattr(exc, "ctx", None)
    command = context.command_path if context is not None else "ragmeter"
    message = " ".join(exc.format_message().split())
    print(f"ragmeter: error: {plain(message)} (see: {command} --help)", file=sys.stderr)
    return exc.exit_code


if __name__ == "__main__":
    main()
