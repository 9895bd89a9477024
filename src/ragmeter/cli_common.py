"""Helpers every command module shares: KEY=VALUE options and the console to print to."""

from __future__ import annotations

from typing import Any

from ragmeter.errors import RagmeterError


def pairs(items: list[str], flag: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise RagmeterError(f"{flag} expects KEY=VALUE, got '{item}'")
        out[key.strip()] = scalar(value.strip())
    return out


def judge_setting(judge: str, judge_opt: list[str] | None) -> Any:
    """--judge with its --judge-opt KEY=VALUE settings: the spec string, or a mapping."""
    return {"spec": judge, **pairs(judge_opt, "--judge-opt")} if judge_opt else judge


def scalar(value: str) -> Any:
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return value


def console(wide: bool = False) -> Any:
    """The terminal's width (80 columns off a terminal), at least 150 for `wide` tables."""
    from rich.console import Console

    found = Console()
    return Console(width=150) if wide and found.width < 150 else found
