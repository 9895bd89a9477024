"""Helpers the command modules share: KEY=VALUE options, --metrics with --metric-opt, the
--dry-run flag and the console to print to."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from ragmeter.errors import RagmeterError

DryRun = Annotated[bool, typer.Option("--dry-run", help="call no judge: print per metric the calls, prompt tokens, "
                                                        "seconds and price the run would cost")]


def pairs(items: list[str], flag: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise RagmeterError(f"{flag} expects KEY=VALUE, got '{item}'")
        out[key.strip()] = scalar(value.strip())
    return out


def judge_setting(judge: str, judge_opt: list[str] | None, flag: str = "--judge-opt") -> str | dict[str, Any]:
    """--judge (or --model) with its KEY=VALUE settings: the spec string, or a mapping. The one
    place the CLI turns flags into a judge setting."""
    return {"spec": judge, **pairs(judge_opt, flag)} if judge_opt else judge


def scalar(value: str) -> Any:
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return value


def console() -> Any:
    """The terminal's width (80 columns off a terminal): every table folds to fit it."""
    from rich.console import Console

    return Console()


def metric_specs(names: Optional[str], settings: list[str]) -> Optional[list[Any]]:
    """--metrics a,b plus --metric-opt a.key=value -> config entries (str or {name: settings})."""
    chosen = [m.strip() for m in names.split(",") if m.strip()] if names else []
    options: dict[str, dict[str, Any]] = {}
    for key, value in pairs(settings, "--metric-opt").items():
        # the metric is the chosen name the key starts with: the rest is its setting, dotted
        # where the setting is a step's (faithfulness.copies.mode=off)
        metric = max((m for m in chosen if key.startswith(f"{m}.")), key=len, default=key.partition(".")[0])
        setting = key[len(metric) + 1:]
        if not setting or metric not in chosen:
            named = f" (name it: --metrics {metric})" if "." in key and not chosen else ""
            raise RagmeterError(f"--metric-opt {key}: expected METRIC.SETTING=VALUE for a metric in --metrics{named}")
        options.setdefault(metric, {})[setting] = value
    return [{m: options[m]} if m in options else m for m in chosen] or None
