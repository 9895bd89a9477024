"""Ctrl-C and SIGTERM (and SIGHUP, SIGUSR1, SIGQUIT) stop every command the same way: one line
at once, then the run's own clean-up (cached replies flushed, no half-written results file),
then exit 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM).

SIGTERM is what SLURM, Kubernetes and CI send on cancel; by default Python dies of it at
once, losing the cache entries held for the next timed flush and leaving temporary files.
Here both signals raise KeyboardInterrupt in the main thread, which every command already
unwinds through its `finally` blocks, and set judges.base.STOPPING, so an in-process model
stops at its next token or prompt batch instead of finishing a call nobody will read. A
second signal while stopping is ignored (with a word); a third stops at once.
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType
from typing import Any

#: the signals that stop a command this way: Ctrl-C, SIGTERM, and those that killed a run at
#: once with no line and a .partial file left (issue 65 item 9): SIGHUP (a closed terminal or
#: SSH session), SIGUSR1 (SLURM's `--signal`, sent ahead of the time limit), SIGQUIT; the
#: last three exist on POSIX only
_STOPS = [getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGUSR1", "SIGQUIT")
          if hasattr(signal, name)]
#: exit code by signal: 128 + the signal's number, as shells report a process killed by it
EXIT_CODES = {signum: 128 + int(signum) for signum in _STOPS}
NAMES = {signum: "Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name for signum in _STOPS}
STOPPING_LINE = "ragmeter: stopping on {name}{cached}"
CACHED = "; finished judge replies are cached, run again to resume"
#: commands that call no judge: their stop says nothing of judge replies (issue 65 item 11)
NO_JUDGE = frozenset({"compare", "report", "calibrate", "merge", "traces", "publish", "prompts", "metrics",
                      "label", "index"})

_received: list[int] = []
_command: list[str] = []


def command_of(argv: list[str]) -> str | None:
    """The command a command line runs: its first word that is not an option."""
    return next((word for word in argv if not word.startswith("-")), None)


def install(command: str | None = None) -> dict[int, Any]:
    """Both signals handled as described above (the main thread only: Python's rule); returns
    the handlers they had, for restore(). `command`: what runs, for the line said on a stop."""
    from ragmeter.judges.base import STOPPING

    _command[:] = [command] if command else []
    _received.clear()
    STOPPING.clear()
    previous: dict[int, Any] = {}
    if threading.current_thread() is not threading.main_thread():
        return previous
    for signum in EXIT_CODES:
        if signal.getsignal(signum) is not signal.SIG_IGN:  # a background job's ignored SIGINT stays ignored
            previous[signum] = signal.signal(signum, _on_signal)
    return previous


def restore(previous: dict[int, Any]) -> None:
    """The handlers install() replaced (a command run in-process, by a test or a notebook)."""
    for signum, handler in previous.items():
        signal.signal(signum, handler)


def received() -> int | None:
    """The first stop signal this process got, or None."""
    return _received[0] if _received else None


def exit_code() -> int:
    return EXIT_CODES.get(signal.Signals(_received[0]), 130) if _received else 130


def stopping_line() -> str:
    """The one line said when a stop begins (printed by the handler, or by the entry point
    when Ctrl-C reached it another way)."""
    signum = signal.Signals(_received[0]) if _received else signal.SIGINT
    cached = "" if _command and _command[0] in NO_JUDGE else CACHED
    return STOPPING_LINE.format(name=NAMES.get(signum, signum.name), cached=cached)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    from ragmeter.judges.base import STOPPING

    _received.append(signum)
    STOPPING.set()
    if len(_received) == 1:
        _say(stopping_line())
        _interrupt()
        return
    if len(_received) == 2:
        _say("ragmeter: still stopping (closing the judge, writing the cache); once more to stop at once")
        return
    _say("ragmeter: stopped at once; replies of the last moments may not be cached")
    import os

    os._exit(exit_code())


def _interrupt() -> None:
    """KeyboardInterrupt in the main thread. Inside a running event loop it is raised from a
    callback of its own, which the loop lets through to asyncio.run's clean-up; raised in the
    handler it would land in whichever task was running (an HTTP client's write, say), which
    keeps it as that task's exception and logs "Task exception was never retrieved"."""
    import asyncio

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        raise KeyboardInterrupt from None
    loop.call_soon_threadsafe(_raise_interrupt)


def _raise_interrupt() -> None:
    raise KeyboardInterrupt


def _say(line: str) -> None:
    """A whole line on stderr, on a line of its own even when a progress bar was drawing."""
    try:
        lead = "\n" if sys.stderr.isatty() else ""
        sys.stderr.write(f"{lead}{line}\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed or broken stderr must not stop the clean-up
        pass
