"""labels.jsonl: one human label per line, for a row of a run and one of its metrics.

    {"id": "q07", "metric": "faithfulness", "label": 1, "labeller": "ana", "dataset_sha256": "9f2c..."}

`label` is 0 or 1 (faithful / not, relevant / not), or a rating with its `scale`
(`"scale": [1, 5]`), read as a share of the scale so it sits beside the metric's 0-1 score.
Everything is checked before any estimate: the file, the line and the field are named.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragmeter.errors import DataError


@dataclass
class Labels:
    """Labels by metric and row id (0-1), and what the file held that the run could not use."""

    by_metric: dict[str, dict[str, float]] = field(default_factory=dict)
    binary: dict[str, bool] = field(default_factory=dict)
    unknown_ids: dict[str, list[str]] = field(default_factory=dict)
    source: str = "<in-memory>"

    def count(self, metric: str) -> int:
        return len(self.by_metric.get(metric, {}))


def read_labels(path: str | Path, ids: list[str], metrics: list[str], dataset: str | None) -> Labels:
    """The labels in `path` for a run over rows `ids` with `metrics`, on the dataset whose
    sha256 is `dataset`: refused when the file was made for another dataset or names a metric
    the run lacks; ids the run lacks are counted and named. Checked before any judge call."""
    source = Path(path)
    if not source.is_file():
        raise DataError("labels file not found", source=str(source))
    labels = Labels(source=str(source))
    known = set(ids)
    given: dict[str, dict[str, list[float]]] = {}
    try:
        text = source.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text (byte {exc.start})", source=str(source)) from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        entry = _entry(line, str(source), number)
        if dataset and entry.get("dataset_sha256") and entry["dataset_sha256"] != dataset:
            raise _bad(f"labelled on another dataset (sha256 {str(entry['dataset_sha256'])[:12]}, this run's "
                       f"{dataset[:12]})", str(source), number, "dataset_sha256")
        metric = entry["metric"]
        if metric not in metrics:
            raise _bad(f"metric '{metric}' is not in the run ({', '.join(metrics)})", str(source), number, "metric")
        value, binary = _value(entry, str(source), number)
        if labels.binary.setdefault(metric, binary) != binary:
            raise _bad(f"{metric} mixes 0/1 labels and ratings: label it one way", str(source), number, "label")
        if entry["id"] not in known:
            labels.unknown_ids.setdefault(metric, []).append(entry["id"])
            continue
        given.setdefault(metric, {}).setdefault(entry["id"], []).append(value)
    # a row labelled by several people counts once, with the mean of their labels
    labels.by_metric = {m: {i: sum(v) / len(v) for i, v in rows.items()} for m, rows in given.items()}
    if not labels.by_metric and not labels.unknown_ids:
        raise DataError("no labels in the file", source=str(source))
    return labels


def _entry(line: str, source: str, number: int) -> dict[str, Any]:
    try:
        entry = json.loads(line)
    except json.JSONDecodeError as exc:
        raise _bad(f"not JSON ({exc.msg})", source, number) from None
    if not isinstance(entry, dict):
        raise _bad("each line must be an object", source, number)
    for key in ("id", "metric", "label"):
        if entry.get(key) is None:
            raise _bad(f"no {key}", source, number, key)
    entry["id"], entry["metric"] = str(entry["id"]), str(entry["metric"])
    return entry


def _value(entry: dict[str, Any], source: str, number: int) -> tuple[float, bool]:
    """The label as a 0-1 value, and whether it is a 0/1 label."""
    label, scale = entry["label"], entry.get("scale")
    if isinstance(label, bool) or not isinstance(label, (int, float)):
        raise _bad(f"label {label!r} is not a number", source, number, "label")
    if scale is None:
        if label not in (0, 1):
            raise _bad(f"label {label!r}: a 0/1 label, or give the rating's scale (\"scale\": [1, 5])", source,
                       number, "label")
        return float(label), True
    if not (isinstance(scale, list) and len(scale) == 2 and all(isinstance(s, (int, float)) for s in scale)
            and scale[0] < scale[1]):
        raise _bad(f"scale {scale!r}: expected [lowest, highest]", source, number, "scale")
    if not scale[0] <= label <= scale[1]:
        raise _bad(f"label {label!r} is outside its scale {scale}", source, number, "label")
    return (label - scale[0]) / (scale[1] - scale[0]), False


def _bad(message: str, source: str, line: int, field: str | None = None) -> DataError:
    return DataError(message, source=source, row=line, unit="line", field=field)
