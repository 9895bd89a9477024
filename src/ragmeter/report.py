"""Terminal summary of a run, read from the manifest (one source of truth)."""

from __future__ import annotations

from typing import Any


def print_summary(manifest: dict[str, Any], console: Any) -> None:
    from rich.table import Column, Table

    table = Table(Column("metric", no_wrap=True), "mean", "n", "unscored", "judge calls", "prompt tok", "compl. tok",
                  "cache hits", "seconds", title=f"ragmeter {manifest['ragmeter_version']} · "
                  f"{manifest['dataset']['rows']} rows · judge {manifest['judge']['name'] if manifest['judge'] else '-'}")
    for name, m in manifest["metrics"].items():
        mean = "-" if m["mean"] is None else f"{m['mean']:.4f}"
        table.add_row(name, mean, str(m["n"]), str(m["unscored"]), str(m["judge_calls"]),
                      str(m["prompt_tokens"]), str(m["completion_tokens"]), str(m["cache_hits"]),
                      f"{m['seconds']:.1f}")
    console.print(table)
    console.print(f"wall {manifest['wall_seconds']:.1f} s · in judge {manifest['judge_seconds']:.1f} s · "
                  f"embeddings {manifest['embed_seconds']:.1f} s · model load {manifest['judge_load_seconds']:.1f} s · "
                  f"ragmeter overhead {manifest['overhead_seconds']:.2f} s "
                  f"({100 * manifest['overhead_seconds'] / max(manifest['wall_seconds'], 1e-9):.1f}% of wall)")
    for name, m in manifest["metrics"].items():
        for reason, count in m["unscored_reasons"].items():
            console.print(f"[yellow]{name}: {count} unscored: {reason}[/yellow]")
