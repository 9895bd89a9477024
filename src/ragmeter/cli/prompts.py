"""`ragmeter prompts export|adapt`: judge prompts as files a user can read, edit and translate."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ragmeter.cli.common import console, judge_setting
from ragmeter.judges.registry import DEFAULT_JUDGE

#: the group's line in `ragmeter --help`
HELP = "Export and translate judge prompts."

MetricsOpt = Annotated[Optional[str], typer.Option(help="comma-separated metric names (default: every "
                                                        "metric that sends prompts)")]


def _metrics(names: Optional[str]) -> list[Any]:
    from ragmeter.metrics import REGISTRY, get_metrics

    chosen = [n.strip() for n in names.split(",")] if names else list(REGISTRY)
    return [m for m in get_metrics(chosen) if m.prompt_names]


def export(out: Annotated[Path, typer.Argument(help="folder to write one JSON file per prompt into")],
           metrics: MetricsOpt = None,
           language: Annotated[str, typer.Option(help="english | spanish")] = "english",
           force: Annotated[bool, typer.Option("--force", help="overwrite files that differ")] = False) -> None:
    """Write the built-in prompts as editable JSON files."""
    from ragmeter.prompts.files import export_files, write_prompt_files
    from ragmeter.prompts.languages import normalize_language

    files = export_files(_metrics(metrics), normalize_language(language))
    written = write_prompt_files(files, out, force)
    print(f"wrote {len(written)} prompt files to {out}; edit them and run with --prompts-dir {out} "
          f"--language {normalize_language(language)}")


def adapt(language: Annotated[str, typer.Option(help="target language, e.g. spanish, french")],
          out: Annotated[Path, typer.Option(help="folder for the translated prompt files")],
          judge: Annotated[str, typer.Option(help="the model that translates (any judge spec)")] = DEFAULT_JUDGE,
          judge_opt: Annotated[Optional[list[str]], typer.Option("--judge-opt", help="KEY=VALUE")] = None,
          metrics: MetricsOpt = None,
          instruction: Annotated[bool, typer.Option(
              "--instruction", help="translate the instructions too, line by line")] = False,
          source_dir: Annotated[Optional[Path], typer.Option(
              "--from", help="translate these prompt files instead of the built-in English ones")] = None,
          no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
          force: Annotated[bool, typer.Option("--force", help="overwrite files that differ")] = False) -> None:
    """Translate the few-shot examples (and optionally instructions) one string at a time."""
    from ragmeter.accounting import MetricStats
    from ragmeter.cache import open_cache
    from ragmeter.judges.spec import make_judge
    from ragmeter.prompts.files import dump, file_name, to_file, write_prompt_files
    from ragmeter.prompts.languages import normalize_language

    target = normalize_language(language)
    chosen = _metrics(metrics)
    judge_obj = make_judge(judge_setting(judge, judge_opt))
    cache = open_cache(not no_cache)
    stats = MetricStats()
    try:
        results = asyncio.run(_adapt(chosen, target, judge_obj, cache, instruction, source_dir, stats))
    finally:
        cache.close()
    by_name = {m.prompt_metric: m for m in chosen}
    files = {}
    for result in results:
        t = result.template
        meta = result.record(judge_obj.describe(), str(source_dir) if source_dir else "built-in english",
                             instruction)
        files[file_name(t)] = dump(to_file(t, by_name[t.metric], meta))
    write_prompt_files(files, out, force)
    _print_adapt_table(results, stats, console())
    print(f"wrote {len(files)} prompt files to {out}; review them, then run with --prompts-dir {out} "
          f"--language {target}")


async def _adapt(metrics: list[Any], language: str, judge: Any, cache: Any, instruction: bool,
                 source_dir: Optional[Path], stats: Any) -> list[Any]:
    from ragmeter.metrics import get_metric
    from ragmeter.prompts.adapt import adapt_prompts

    try:
        return await adapt_prompts(metrics, language, judge, cache, instruction=instruction,
                                   source_dir=str(source_dir) if source_dir else None, stats=stats,
                                   metric_for=get_metric)
    finally:
        await judge.aclose()


def _print_adapt_table(results: list[Any], stats: Any, console: Any) -> None:
    from rich.table import Table

    table = Table("prompt", "strings", "translated", "unchanged", "kept original (why)",
                  title=f"{stats.judge_calls} judge calls, {stats.cache_hits} cache hits")
    for r in results:
        why = "; ".join(f"{k.where}: {k.problem}" for k in r.kept[:3]) + (" ..." if len(r.kept) > 3 else "")
        table.add_row(r.template.key, str(len(r.translations)), str(r.changed), str(r.unchanged),
                      f"{len(r.kept)} {why}".strip())
    from ragmeter.text import print_table

    print_table(console, table)
