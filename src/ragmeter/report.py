"""Terminal summary of a run, read from the manifest (one source of truth)."""

from __future__ import annotations

from typing import Any


def print_summary(manifest: dict[str, Any], console: Any) -> None:
    from rich.table import Column, Table

    table = Table(Column("metric", no_wrap=True), "mean", "95% CI", "n", "unscored", "judge calls", "prompt tok", "compl. tok",
                  "cache hits", "seconds", title=f"ragmeter {manifest['ragmeter_version']} · "
                  f"{manifest['dataset']['rows']} rows · judge {manifest['judge']['name'] if manifest['judge'] else '-'}")
    for name, m in manifest["metrics"].items():
        mean = "-" if m["mean"] is None else f"{m['mean']:.4f}"
        ci = "-" if not m.get("ci95") else f"{m['ci95'][0]:.3f}-{m['ci95'][1]:.3f}"
        table.add_row(name, mean, ci, str(m["n"]), str(m["unscored"]), str(m["judge_calls"]),
                      str(m["prompt_tokens"]), str(m["completion_tokens"]), str(m["cache_hits"]),
                      f"{m['seconds']:.1f}")
    console.print(table)
    index = manifest.get("rag_index")
    if index and index["value"] is not None:
        console.print(f"RAG Index {index['value']:.4f} (95% CI {index['ci95'][0]:.3f}-{index['ci95'][1]:.3f}) "
                      f"over {len(index['components'])} metric(s): {', '.join(index['components'])}"
                      + (f"; no scores for {', '.join(index['missing'])}" if index["missing"] else ""),
                      highlight=False)
    if manifest["model_busy_seconds"] == 0:
        console.print(f"wall {manifest['wall_seconds']:.1f} s · no judge or embedder calls: all of it was "
                      "ragmeter (reading data, computing metrics, loading their libraries)", highlight=False)
    else:
        console.print(f"wall {manifest['wall_seconds']:.1f} s · in judge {manifest['judge_seconds']:.1f} s · "
                      f"embeddings {manifest['embed_seconds']:.1f} s · model load {manifest['judge_load_seconds']:.1f} s · "
                      f"ragmeter overhead {manifest['overhead_seconds']:.2f} s "
                      f"({100 * manifest['overhead_seconds'] / max(manifest['wall_seconds'], 1e-9):.1f}% of wall)")
    for name, m in manifest["metrics"].items():
        for reason, count in m["unscored_reasons"].items():
            console.print(f"[yellow]{name}: {count} unscored: {reason}[/yellow]")
