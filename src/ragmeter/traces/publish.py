"""`ragmeter publish RUN --to phoenix:URL`: a run's scores back on the traces they came from,
as Phoenix span annotations on each trace's root span, so Phoenix's own views filter and
sort traces by faithfulness.

One annotation per row and metric: its `score`; a `label` (`pass`/`fail`) where the run had
a bar for the metric (the run's `--fail-under`, or publish's own; a row at or above it
passes, at or below for a metric where lower is better); the row's reason as the
`explanation`; the run's judge and folder as metadata. Annotations carry an `identifier`
(`ragmeter` by default): Phoenix keeps one annotation per name, span and identifier, so
publishing again replaces, never duplicates; another identifier keeps both (two judges).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragmeter.errors import ConfigError, DataError
from ragmeter.results.runs import Run, load_run
from ragmeter.traces.phoenix import Phoenix, phoenix_url

#: an explanation longer than this is cut (at a word) before it is sent
MAX_EXPLANATION = 2000


@dataclass
class Published:
    url: str
    annotations: int
    rows: int  # rows with a root span id
    without_span: int  # rows that did not come from a trace
    unscored: int  # row-metric pairs without a score (nothing sent for them)


def publish_run(run_path: str | Path, target: str, *, metrics: list[str] | None = None,
                bars: dict[str, float] | None = None, identifier: str = "ragmeter") -> Published:
    """Every scored row's metrics as annotations on its root span (`span_id`)."""
    url = phoenix_url(target)
    run = load_run(run_path)
    names = metrics or run.metrics
    unknown = [m for m in names if m not in run.metrics]
    if unknown:
        raise ConfigError(f"--metrics: {', '.join(unknown)} not in the run ({', '.join(run.metrics)})")
    if not identifier.strip():
        raise ConfigError("--identifier must not be empty")
    bars = {**run.manifest.config.get("thresholds", {}), **(bars or {})}
    annotations, without_span, unscored = [], 0, 0
    for row_id in run.ids:
        row = run.row(row_id)
        span_id = row.get("span_id")
        if not span_id:
            without_span += 1
            continue
        for metric in names:
            score = run.score(row_id, metric)
            if score is None:
                unscored += 1
                continue
            annotations.append(annotation(run, row, metric, score, bars.get(metric), identifier, str(run_path)))
    if without_span == len(run.ids):
        raise DataError("no row has a span_id: publish needs a run over traces (ragmeter traces, or an OTLP "
                        "or Phoenix spans file)", source=str(run_path))
    if annotations:
        Phoenix(url).annotate(annotations)
    return Published(url, len(annotations), len(run.ids) - without_span, without_span, unscored)


def annotation(run: Run, row: dict[str, Any], metric: str, score: float, bar: float | None,
               identifier: str, folder: str) -> dict[str, Any]:
    """One row's metric as a Phoenix span annotation."""
    record = run.manifest.metrics[metric]
    result: dict[str, Any] = {"score": score}
    if bar is not None:
        passed = score >= bar if record.higher_is_better else score <= bar
        result["label"] = "pass" if passed else "fail"
    reason = row.get(f"{metric}_reason")
    if reason:
        result["explanation"] = _cut(str(reason))
    judge = run.manifest.judge or {}
    return {"name": metric, "span_id": str(row["span_id"]), "identifier": identifier,
            "annotator_kind": "LLM" if record.judge_calls or record.cache_hits else "CODE",
            "result": result,
            "metadata": {"ragmeter_run": folder, "row_id": str(row.get("id", "")),
                         "judge": str(judge.get("name") or judge.get("spec") or "")}}


def _cut(text: str) -> str:
    if len(text) <= MAX_EXPLANATION:
        return text
    return text[:MAX_EXPLANATION].rsplit(" ", 1)[0] + " …"
