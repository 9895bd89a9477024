"""Reasons written later: a run with `reasons: failing` (the in-process default) or `none`
kept every score but not every reason. `explain` asks the run's judge again for the chosen
rows with `reasons: all`, from the same prompts, and puts the new evidence into the run
folder in place. A verdict's probability is read before its reason, so the scores come back
the same; a row whose score would change is left as it was and counted."""

from __future__ import annotations

import json
import operator
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragmeter.errors import ConfigError
from ragmeter.judges.reasons import UNWRITTEN_PREFIX
from ragmeter.judges.registry import DEFAULT_JUDGE

_WHERE = re.compile(r"^\s*(\w+)\s*(<=|>=|<|>|==|!=)\s*(-?[0-9.]+)\s*$")
_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
        "!=": operator.ne}


@dataclass
class Explained:
    """What `explain` did, per metric: rows given reasons, judge calls, rows left as they were."""

    rows: dict[str, int] = field(default_factory=dict)
    judge_calls: dict[str, int] = field(default_factory=dict)
    changed: dict[str, int] = field(default_factory=dict)
    #: the run folder's own report.html, written again with the new reasons (None: there was none)
    report: Path | None = None


def explain(run: str | Path, metrics: list[str] | None = None, ids: list[str] | None = None,
            where: str | None = None, judge: Any = None) -> Explained:
    """Write the missing reasons of `run`'s rows: those `ids`, or those where `where` holds
    (`faithfulness < 0.5`), else every row with a reason not written; for `metrics` (default:
    every metric with one). `judge`: a spec (default: the run's own), or a Judge object."""
    from ragmeter.io.writers import write_json, write_results
    from ragmeter.results.runs import load_run

    folder = Path(run)
    loaded = load_run(folder)
    manifest = loaded.manifest
    config = manifest.config
    chosen = metrics or list(manifest.metrics)
    unknown = [m for m in chosen if m not in manifest.metrics]
    if unknown:
        raise ConfigError(f"{folder}: no metric {', '.join(unknown)} in this run "
                          f"(it has: {', '.join(manifest.metrics)})")
    condition = _condition(where, list(manifest.metrics)) if where else None
    missing = [i for i in ids or [] if i not in set(loaded.ids)]
    if missing:
        raise ConfigError(f"{folder}: no row {', '.join(missing[:5])}{' …' if len(missing) > 5 else ''} in this "
                          f"run ({len(missing)} of the {len(ids or [])} ids given)")
    rows = loaded.rows
    done = Explained()
    for label in chosen:
        picked = [n for n, row in enumerate(rows) if _wanted(row, label, loaded.ids[n], ids, condition)]
        if picked:
            _explain_metric(label, picked, rows, manifest, config, judge, done)
    if not any(done.rows.values()):
        return done
    path = write_results(rows, folder, Path(manifest.results_file or "results.jsonl").suffix.lstrip("."))
    earlier = manifest.explained or {}
    manifest.explained = {**earlier, **{m: {key: (earlier.get(m) or {}).get(key, 0) + getattr(done, key)[m]
                                            for key in ("rows", "judge_calls", "changed")} for m in done.rows}}
    manifest.results_file = path.name
    write_json(folder / "manifest.json", manifest.as_json())
    if (folder / "report.html").is_file():  # the page beside the run would show the old reasons
        from ragmeter.report import write_report

        done.report = write_report(folder, out=folder / "report.html")
    return done


def _wanted(row: dict[str, Any], label: str, row_id: str, ids: list[str] | None,
            condition: Any) -> bool:
    if UNWRITTEN_PREFIX not in json.dumps(row.get(f"{label}_evidence"), ensure_ascii=False):
        return False
    if ids is not None:
        return row_id in ids
    return condition(row) if condition is not None else True


def _condition(where: str, metrics: list[str]) -> Any:
    match = _WHERE.match(where)
    if not match or match.group(1) not in metrics:
        raise ConfigError(f"--where '{where}': expected METRIC OP NUMBER, e.g. 'faithfulness < 0.5', with a "
                          f"metric of this run ({', '.join(metrics)})")
    name, op, number = match.group(1), _OPS[match.group(2)], float(match.group(3))
    return lambda row: isinstance(row.get(name), (int, float)) and op(row[name], number)


def _explain_metric(label: str, picked: list[int], rows: list[dict[str, Any]], manifest: Any,
                    config: dict[str, Any], judge: Any, done: Explained) -> None:
    from ragmeter.api import evaluate

    record = manifest.metrics[label]
    spec = judge if judge is not None else config.get("judge", DEFAULT_JUDGE)
    asked = {"spec": spec, "reasons": "all"} if isinstance(spec, str) else \
        {**spec, "reasons": "all"} if isinstance(spec, dict) else spec
    data = [{k: v for k, v in rows[n].items() if not k.startswith(label)} for n in picked]
    result = evaluate(data, [{record.metric: record.settings}], judge=asked, columns=config.get("columns") or None,
                      language=config.get("language", "english"), prompts_dir=config.get("prompts_dir"),
                      cache=config.get("cache", True), progress=False)
    name = record.metric
    done.rows[label] = done.changed[label] = 0
    done.judge_calls[label] = result.manifest.metrics[name].judge_calls
    for n, new in zip(picked, result.rows):
        if new[name] != rows[n][label]:
            done.changed[label] += 1
            continue
        rows[n][f"{label}_reason"], rows[n][f"{label}_evidence"] = new[f"{name}_reason"], new[f"{name}_evidence"]
        done.rows[label] += 1
