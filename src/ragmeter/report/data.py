"""What the HTML page shows: run summaries and the comparison (one JSON object), and each
run's rows as they are in its results file.

Rows are not parsed and re-encoded here: a JSONL run's own lines go into the page as one
JSON array (a report may hold 100,000 rows), and the page's script reads the question,
answer, scores and evidence out of them, drawing one page of rows at a time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragmeter.results.runs import Run

BINS = 10
#: where each part of a row is found: the run's column mapping first, then these names
#: (Ragas's, the older Ragas names, and the Pleias-style cited files')
FIELDS = {"user_input": ["user_input", "question", "query", "text"],
          "response": ["response", "answer", "generated_response"],
          "retrieved_contexts": ["retrieved_contexts", "contexts"],
          "reference": ["reference", "ground_truth"]}


def summary(runs: list[Run], comparison: Any = None, judge_check: dict[str, Any] | None = None,
            shown: tuple[list[str] | None, dict[str, Any] | None] = (None, None)) -> dict[str, Any]:
    """`judge_check`: a judge_check.json's content; by default the one beside the first run
    (or two folders up: a judge check's own metric runs are in its `runs/<metric>/`);
    `shown`: the ids the page holds when not all and why (report/sample.py)."""
    metrics = [m for m in runs[0].metrics if all(m in r.metrics for r in runs[1:])]
    own_runs = Path(runs[0].source).parent.name == "runs"  # judge-check/runs/<metric>
    found = judge_check if judge_check is not None else (
        _beside(runs[0], "judge_check.json") or (_beside(runs[0], "../../judge_check.json") if own_runs else None))
    return {"metrics": metrics, "judge_check": found,
            "higher_is_better": {m: runs[0].manifest.metrics[m].higher_is_better for m in metrics},
            "runs": [_run_summary(run, metrics, shown[0]) for run in runs], "rows_shown": shown[1],
            "comparison": comparison.model_dump(mode="json", exclude={"metrics": {"__all__": {"changed"}}})
            if comparison is not None else None}


def _run_summary(run: Run, metrics: list[str], shown: list[str] | None) -> dict[str, Any]:
    m = run.manifest
    mapped = m.config.get("columns", {})
    return {"source": run.source, "created_at": m.created_at, "ragmeter_version": m.ragmeter_version,
            "judge": m.judge, "embeddings": m.embeddings, "language": m.language,
            "dataset": m.dataset.model_dump(), "prompts": m.prompts, "prompt_notes": m.prompt_notes,
            "rag_index": m.rag_index, "gates": m.gates, "meta_eval": _beside(run, "meta_eval.json"),
            "ids": run.ids if shown is None else [i for i in shown if run.position(i) is not None],
            "fields": {k: ([mapped[k]] if k in mapped else []) + names for k, names in FIELDS.items()},
            "cost": {"judge_calls": sum(r.judge_calls for r in m.metrics.values()),
                     "prompt_tokens": sum(r.prompt_tokens for r in m.metrics.values()),
                     "completion_tokens": sum(r.completion_tokens for r in m.metrics.values()),
                     "cache_hits": sum(r.cache_hits for r in m.metrics.values()),
                     "judge_seconds": m.judge_seconds, "wall_seconds": m.wall_seconds},
            "metrics": {name: {**m.metrics[name].model_dump(include={"mean", "ci95", "n", "unscored",
                                                                      "unscored_reasons", "judge_calls",
                                                                      "calibrated", "flags"}),
                               "histogram": histogram(run.scores[name])}
                        for name in metrics}}


def _beside(run: Run, name: str) -> dict[str, Any] | None:
    """A JSON file written beside the run: meta_eval.json (`ragmeter meta-eval --out`: the
    judge's agreement with people), judge_check.json (`ragmeter judge-check`)."""
    import json

    path = Path(run.source) / name
    if not path.is_file():
        return None
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def histogram(values: list[float | None], bins: int = BINS) -> list[int]:
    """Counts of scored values in `bins` equal bins over [0, 1] (1.0 in the last bin)."""
    counts = [0] * bins
    for value in values:
        if value is not None:
            counts[min(bins - 1, max(0, int(value * bins)))] += 1
    return counts


def rows_json(run: Run, shown: list[str] | None = None) -> bytes:
    """The run's rows (those `shown`, in that order, or all) as one JSON array, from its
    lines as they are."""
    indexes = None if shown is None else [n for n in map(run.position, shown) if n is not None]
    return b"[" + b",".join(run.json_lines(indexes)) + b"]"
