"""Row progress: bar, rows done, rate and ETA on a terminal; silent otherwise."""

from __future__ import annotations

from contextlib import contextmanager
from collections.abc import Iterator
from typing import Any


class _Silent:
    def advance(self) -> None:
        return None


@contextmanager
def row_progress(total: int, enabled: bool | None = None, console: Any = None) -> Iterator[Any]:
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    console = console or Console(stderr=True)
    if enabled is None:
        enabled = console.is_terminal
    if not enabled:
        yield _Silent()
        return
    columns = (TextColumn("rows"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("rows", total=total, rate="")

        class _Bar:
            def advance(self) -> None:
                bar.advance(task)
                speed = bar.tasks[0].speed
                bar.update(task, rate=f"{speed:.2f} rows/s" if speed else "")

        yield _Bar()
