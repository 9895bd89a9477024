"""Terminal summary of a run, read from the manifest (one source of truth).

The table fits 80 columns (metric, mean, 95% CI, n, unscored); judge calls, tokens, cache
hits and seconds come with `verbose` and are always in the manifest. Everything printed
that came from data or config passes through `printable` (no rich markup, no control
characters: a label such as `[bold red]X[/]` or an id holding an escape sequence is shown
as text, never obeyed by the terminal).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for the annotation only: report is imported by the CLI before any run
    from ragmeter.manifest import Manifest

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(value: Any) -> str:
    """Text from data or config, safe for rich and the terminal: control characters shown as
    escapes, markup escaped."""
    from rich.markup import escape

    return escape(plain(value))


def plain(value: Any) -> str:
    """Control characters shown as escapes, for print() (no rich markup to escape)."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], str(value))


def print_summary(manifest: Manifest | dict[str, Any], console: Any, verbose: bool = False) -> None:
    from rich.table import Column, Table

    from ragmeter.manifest import Manifest

    run = manifest if isinstance(manifest, Manifest) else Manifest.model_validate(manifest)
    judge = run.judge["name"] if run.judge else "-"
    columns = [Column("metric", no_wrap=True, overflow="fold"), Column("mean", no_wrap=True),
               Column("95% CI", no_wrap=True), Column("n", no_wrap=True), Column("unscored", no_wrap=True)]
    if verbose:
        columns += [Column(c, no_wrap=True) for c in ("judge calls", "prompt tok", "compl. tok", "cache hits",
                                                       "seconds")]
    table = Table(*columns, title=printable(f"ragmeter {run.ragmeter_version} · {run.dataset.rows} rows · "
                                            f"judge {judge}"))
    for name, m in run.metrics.items():
        mean = "-" if m.mean is None else f"{m.mean:.4f}"
        ci = "-" if not m.ci95 else f"{m.ci95[0]:.3f}-{m.ci95[1]:.3f}"
        cells = [printable(name), mean, ci, str(m.n), str(m.unscored)]
        if verbose:
            cells += [str(m.judge_calls), str(m.prompt_tokens), str(m.completion_tokens), str(m.cache_hits),
                      f"{m.seconds:.1f}"]
        table.add_row(*cells)
    console.print(table)
    _print_index(run.rag_index, console)
    _print_timing(run, console)
    for name, m in run.metrics.items():
        for reason, count in m.unscored_reasons.items():
            console.print(f"[yellow]{printable(name)}: {count} unscored: {printable(reason)}[/yellow]")


def _print_index(index: dict[str, Any] | None, console: Any) -> None:
    if not index or index["value"] is None:
        return
    console.print(printable(f"RAG Index {index['value']:.4f} (95% CI {index['ci95'][0]:.3f}-{index['ci95'][1]:.3f}) "
                            f"over {len(index['components'])} metric(s): {', '.join(index['components'])}"
                            + (f"; no scores for {', '.join(index['missing'])}" if index["missing"] else "")),
                  highlight=False)


def _print_timing(run: Manifest, console: Any) -> None:
    if run.model_busy_seconds == 0:
        console.print(f"wall {run.wall_seconds:.1f} s · no judge or embedder calls: all of it was "
                      "ragmeter (reading data, computing metrics, loading their libraries)", highlight=False)
        return
    console.print(f"wall {run.wall_seconds:.1f} s · in judge {run.judge_seconds:.1f} s · "
                  f"embeddings {run.embed_seconds:.1f} s · model load {run.judge_load_seconds:.1f} s · "
                  f"ragmeter overhead {run.overhead_seconds:.2f} s "
                  f"({100 * run.overhead_seconds / max(run.wall_seconds, 1e-9):.1f}% of wall) · "
                  f"process CPU {run.cpu_seconds:.1f} s", highlight=False)
