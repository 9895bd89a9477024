"""Commands about the judge itself: `meta-eval`, `align`, `judge-check`, `bench-judge`, and
`metrics` (what each metric asks of it)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ragmeter.cli.common import DryRun, console, judge_setting, metric_specs, pairs
from ragmeter.errors import RagmeterError
from ragmeter.io.formats import suffixes_text
from ragmeter.judges.registry import DEFAULT_JUDGE
from ragmeter.testset.documents import supported_text
from ragmeter.text import plain, print_table, seconds


def meta_eval(labels: Annotated[Path, typer.Argument(help="rows with a human `label`: binary 0/1, ordinal "
                                                           "(e.g. 1-5) or a pairwise preference")],
              metric: Annotated[str, typer.Option(help="the metric whose agreement to measure")],
              judge: Annotated[str, typer.Option(help="judge spec, as for evaluate")] = DEFAULT_JUDGE,
              judge_opt: Annotated[Optional[list[str]], typer.Option("--judge-opt", help="KEY=VALUE")] = None,
              embeddings: Annotated[str, typer.Option(help="as for evaluate")] = "bundled",
              out: Annotated[Optional[Path], typer.Option(help="folder for meta_eval.json and the scored "
                                                               "rows")] = None,
              limit: Annotated[Optional[int], typer.Option(min=1, help="only the first N rows")] = None,
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
    print_meta_eval(result, console())
    if out:
        print(plain(f"wrote {out / 'meta_eval.json'}"))


def align(run: Annotated[Path, typer.Argument(help="the run folder whose rows were labelled")],
          labels: Annotated[Path, typer.Argument(help="labels.jsonl: {id, metric, label} per line (the labelling "
                                                      "page writes it)")],
          metric: Annotated[str, typer.Option(help="the metric whose prompt to align")],
          judge: Annotated[Optional[str], typer.Option(help="judge spec (default: the run's judge)")] = None,
          judge_opt: Annotated[Optional[list[str]], typer.Option("--judge-opt", help="KEY=VALUE")] = None,
          out: Annotated[Path, typer.Option(help="folder for the aligned prompt files and align.json; "
                                                 "use it with --prompts-dir")] = Path("prompts/aligned"),
          folds: Annotated[int, typer.Option(min=2, help="cross-validation folds")] = 5,
          examples: Annotated[int, typer.Option(min=1, help="few-shot examples in the aligned prompt")] = 4,
          budget: Annotated[Optional[int], typer.Option(min=1, help="the examples' tokens at most (default: a "
                                                                    "quarter of the judge's window)")] = None,
          force: Annotated[bool, typer.Option("--force", help="write the aligned prompt even when it does not "
                                                              "agree better with the labels")] = False) -> None:
    """Few-shot examples (and a threshold, for 0/1 labels) chosen from your labels, with the
    agreement before and after measured by k-fold cross-validation on rows the choice never saw."""
    from ragmeter.meta_eval.align import align as run_align
    from ragmeter.meta_eval.align import print_align

    if judge_opt and judge is None:
        raise typer.BadParameter("--judge-opt needs --judge (the run's judge spec, or another)")
    spec = judge_setting(judge, judge_opt) if judge is not None else None
    result = run_align(run, labels, metric, judge=spec, out=out, folds=folds, examples=examples, budget=budget,
                       force=force)
    print_align(result, console())


def judge_check(data: Annotated[Path, typer.Argument(help=f"your rows ({suffixes_text()}, with contexts), "
                                                          f"or a folder of documents ({supported_text()})")],
                metrics: Annotated[Optional[str], typer.Option(
                    help="comma-separated: faithfulness, llamaindex_faithfulness, context_relevance, "
                         "context_precision, context_recall, response_relevancy (default: faithfulness, and "
                         "context_relevance where rows have questions)")] = None,
                metric_opt: Annotated[Optional[list[str]], typer.Option("--metric-opt", help="METRIC.KEY=VALUE"
                                                                        )] = None,
                judge: Annotated[str, typer.Option(help="judge spec, as for evaluate")] = DEFAULT_JUDGE,
                judge_opt: Annotated[Optional[list[str]], typer.Option("--judge-opt", help="KEY=VALUE")] = None,
                embeddings: Annotated[str, typer.Option(help="as for evaluate")] = "bundled",
                sizes: Annotated[str, typer.Option(help="prompt sizes: contexts in the prompt, comma-separated "
                                                        "(the source among k-1 other rows' contexts)")] = "1,3,5",
                limit: Annotated[Optional[int], typer.Option(min=1, help="only the first N rows (documents: N chunks, "
                                                                  "spread over the documents)")] = None,
                seed: Annotated[int, typer.Option(help="seeds every choice of sentence, distractor and "
                                                       "position")] = 0,
                out: Annotated[Path, typer.Option(help="folder for judge_check.json and each metric's run")
                               ] = Path("judge-check"),
                column: Annotated[Optional[list[str]], typer.Option(help="FIELD=COLUMN, as for evaluate")] = None,
                language: Annotated[str, typer.Option(help="prompt and negation language: auto (the data's: "
                                                           "its manifest, else its text) | english | spanish"
                                                      )] = "auto",
                chunk_size: Annotated[int, typer.Option("--chunk-size", help="documents: chunk size in "
                                                                            "characters")] = 2000,
                concurrency: Annotated[int, typer.Option(help="judge calls in flight")] = 1,
                prompts_dir: Annotated[Optional[Path], typer.Option(
                    "--prompts-dir", help="edited prompt files (`ragmeter prompts export`): check them as a run "
                                          "would use them")] = None,
                no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
                dry_run: DryRun = False) -> None:
    """Can I trust this judge on my data? Scores cases built from your rows whose right score
    is known (copied answers high; unrelated, negated, fact-swapped ones low) and reports
    pass rates with 95% intervals, median scores, ROC-AUC and the failing cases."""
    from ragmeter.judge_check import check_report
    from ragmeter.judge_check import judge_check as check
    from ragmeter.judge_check.console import print_judge_check

    judge_cfg = judge_setting(judge, judge_opt)
    chosen = metric_specs(metrics, metric_opt or [])
    try:
        size_list = tuple(int(k) for k in sizes.split(","))
    except ValueError:
        raise RagmeterError(f"--sizes {sizes}: expected whole numbers, e.g. 1,3,5") from None
    where: dict[str, Any] = dict(sizes=size_list, seed=seed, limit=limit, columns=pairs(column or [], "--column"),
                 chunk_size=chunk_size)
    if dry_run:
        from ragmeter.judge_check import estimate_check
        from ragmeter.results.console import print_estimate

        for found in estimate_check(data, chosen, judge=judge_cfg, language=language, plan_options=where,
                                    embeddings=embeddings, cache=not no_cache, concurrency=concurrency):
            print_estimate(found, console())
        return
    if prompts_dir is not None:
        where["prompts_dir"] = str(prompts_dir)
    result = check(data, chosen, judge=judge_cfg, out=out, language=language, embeddings=embeddings,
                   cache=not no_cache, concurrency=concurrency, **where)
    print_judge_check(result, console())
    page = check_report(out, result)
    print(plain(f"wrote {out / 'judge_check.json'}" + (f" and {page}" if page else "")))


def bench_judge(judge: Annotated[str, typer.Argument(help="the judge spec, as --judge takes it")],
                data: Annotated[Path, typer.Argument(help="rows to time it on: your own data is the best guide")],
                rows: Annotated[int, typer.Option(min=1, help="how many rows (every call is timed)")] = 5,
                metrics: Annotated[Optional[str], typer.Option(help="comma-separated (default: the six core "
                                                                    "metrics)")] = None) -> None:
    """Measure a judge's speed (seconds per call, prompt and reply tokens per second) so that
    `--dry-run` can say how long a run will take."""
    from ragmeter.run.judge_speed import bench_judge as measure

    chosen = [m.strip() for m in metrics.split(",")] if metrics else None
    speed, path = asyncio.run(measure(judge, data, rows, chosen))
    rate = speed.prompt_tokens_per_second
    write = speed.completion_tokens_per_second
    print(plain(f"{speed.judge}: {speed.calls} calls; {seconds(speed.overhead_seconds)} per call + prompt at "
                f"{f'{rate:,.0f} tokens/s' if rate else 'no measurable cost'} + reply at "
                f"{f'{write:,.0f} tokens/s' if write else 'no measurable cost'}; "
                f"replies average {speed.mean_completion_tokens:.0f} tokens"))
    print(plain(f"stored in {path}: `--dry-run` with this judge now gives seconds"))


def list_metrics(markdown: Annotated[bool, typer.Option("--markdown", help="the Markdown table in docs/metrics.md")
                                     ] = False
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
    shown = console()
    print_table(shown, table)
    shown.print("Result columns: a metric's column is its name (ranking metrics: name@k, e.g. ndcg@5; aspect_critic: "
                "aspect_critic_<name>), or the `as:` you give it; beside it <column>_reason and <column>_evidence.",
                markup=False, highlight=False)
