"""What the HTML page shows, as one JSON-ready dict: run summaries, the comparison, and rows.

Rows are compact (short keys, scores as lists in metric order) because a report may hold
100,000 of them; the page renders one page of rows at a time from this data.
"""

from __future__ import annotations

from typing import Any

from ragmeter.runs import Run

BINS = 10


def payload(runs: list[Run], comparison: Any = None) -> dict[str, Any]:
    metrics = _shared_metrics(runs)
    return {"metrics": metrics,
            "higher_is_better": {m: runs[0].manifest.metrics[m].higher_is_better for m in metrics},
            "runs": [_run_summary(run, metrics) for run in runs],
            "comparison": comparison.model_dump(mode="json", exclude={"metrics": {"__all__": {"changed"}}})
            if comparison is not None else None,
            "rows": _rows(runs, metrics)}


def _shared_metrics(runs: list[Run]) -> list[str]:
    return [m for m in runs[0].metrics if all(m in r.metrics for r in runs[1:])]


def _run_summary(run: Run, metrics: list[str]) -> dict[str, Any]:
    m = run.manifest
    return {"source": run.source, "created_at": m.created_at, "ragmeter_version": m.ragmeter_version,
            "judge": m.judge, "embeddings": m.embeddings, "language": m.language,
            "dataset": m.dataset.model_dump(), "prompts": m.prompts, "prompt_notes": m.prompt_notes,
            "rag_index": m.rag_index, "gates": m.gates, "meta_eval": _meta_eval(run),
            "cost": {"judge_calls": sum(r.judge_calls for r in m.metrics.values()),
                     "prompt_tokens": sum(r.prompt_tokens for r in m.metrics.values()),
                     "completion_tokens": sum(r.completion_tokens for r in m.metrics.values()),
                     "cache_hits": sum(r.cache_hits for r in m.metrics.values()),
                     "judge_seconds": m.judge_seconds, "wall_seconds": m.wall_seconds},
            "metrics": {name: {**m.metrics[name].model_dump(include={"mean", "ci95", "n", "unscored",
                                                                      "unscored_reasons", "judge_calls"}),
                               "histogram": histogram([run.score(i, name) for i in run.ids])}
                        for name in metrics}}


def _meta_eval(run: Run) -> dict[str, Any] | None:
    """meta_eval.json beside the run (`ragmeter meta-eval --out`): the judge's agreement."""
    import json
    from pathlib import Path

    path = Path(run.source) / "meta_eval.json"
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def histogram(values: list[float | None], bins: int = BINS) -> list[int]:
    """Counts of scored values in `bins` equal bins over [0, 1] (1.0 in the last bin)."""
    counts = [0] * bins
    for value in values:
        if value is not None:
            counts[min(bins - 1, max(0, int(value * bins)))] += 1
    return counts


#: where each part of a row is found: the run's column mapping first, then these names
#: (Ragas's, the older Ragas names, and the Pleias-style cited files')
FIELDS = {"user_input": ("user_input", "question", "query", "text"),
          "response": ("response", "answer", "generated_response"),
          "retrieved_contexts": ("retrieved_contexts", "contexts"),
          "reference": ("reference", "ground_truth")}


def _rows(runs: list[Run], metrics: list[str]) -> list[dict[str, Any]]:
    first, other = runs[0], (runs[1] if len(runs) > 1 else None)
    shared = set(other.ids) if other else None
    rows = []
    for row_id in first.ids:
        if shared is not None and row_id not in shared:
            continue
        row = {"i": row_id, **_side(first, row_id, metrics, "")}
        if other is not None:
            row.update(_side(other, row_id, metrics, "2"))
        rows.append(row)
    return rows


def _field(run: Run, row: dict[str, Any], canonical: str) -> Any:
    mapped = run.manifest.config.get("columns", {}).get(canonical)
    for name in ((mapped,) if mapped else ()) + FIELDS[canonical]:
        if row.get(name) is not None:
            return row[name]
    return None


def _side(run: Run, row_id: str, metrics: list[str], suffix: str) -> dict[str, Any]:
    """One run's view of a row: question, answer, contexts, reference, scores, reasons, evidence."""
    row = run.row(row_id)
    contexts = _field(run, row, "retrieved_contexts")
    return {f"q{suffix}": _text(_field(run, row, "user_input")), f"a{suffix}": _text(_field(run, row, "response")),
            f"c{suffix}": [_text(c) for c in contexts] if isinstance(contexts, list) else [],
            f"r{suffix}": _text(_field(run, row, "reference")),
            f"s{suffix}": [row.get(m) for m in metrics],
            f"e{suffix}": [[row.get(f"{m}_reason"), row.get(f"{m}_evidence")] for m in metrics]}


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    import json

    return json.dumps(value, ensure_ascii=False)
