"""The `ragmeter` command line: the app, its commands in help order, and the entry point that
turns library errors into one line on stderr and an exit code."""

from __future__ import annotations

import errno
import logging
import sqlite3
import sys
from typing import Annotated, Any

import typer

from ragmeter.cli import evaluate, judges, prompts, rag, results, testset, traces
from ragmeter.errors import RagmeterError
from ragmeter.text import plain

#: every command's exit codes: `--help` and docs/runs.md list them from here (a test fails on drift)
EXIT_CODES = {0: "done (gates passed)", 1: "a gate failed",
              2: "a usage, config or data error, or a gate with too few rows to decide",
              3: "a judge or infrastructure failure (errors are one line on stderr)",
              130: "interrupted by Ctrl-C (finished judge replies are cached)",
              143: "stopped by SIGTERM, as SLURM, Kubernetes and CI cancel (finished judge replies are cached)"}

#: errors of the machine, not of the input: exit 3 as a judge failure would (disk full, I/O, quota)
INFRASTRUCTURE_ERRNOS = {errno.ENOSPC, errno.EIO, errno.EDQUOT}

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Evaluate RAG datasets with Ragas-compatible metrics on any judge. Exit codes: "
                       + ", ".join(f"{code} {meaning}" for code, meaning in EXIT_CODES.items()) + ".")


def _version(value: bool) -> None:
    if value:
        from ragmeter import __version__

        print(f"ragmeter {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                                 help="print the version and exit")] = False) -> None:
    """Evaluate RAG datasets with Ragas-compatible metrics on any judge."""


#: (name, function), or (name, (help, its subcommands)) for a group, in the order `ragmeter --help`
#: lists them: every command is registered here and nowhere else
COMMANDS: tuple[tuple[str, Any], ...] = (
    ("run", evaluate.run), ("evaluate", evaluate.evaluate), ("generate", testset.generate),
    ("compare", results.compare_runs), ("report", results.html_report), ("explain", results.explain_run),
    ("calibrate", results.calibrate), ("traces", traces.traces), ("publish", traces.publish),
    ("meta-eval", judges.meta_eval), ("align", judges.align),
    ("judge-check", judges.judge_check), ("testset", testset.testset), ("merge", results.merge),
    ("bench-judge", judges.bench_judge), ("metrics", judges.list_metrics),
    ("index", rag.index), ("answer", rag.answer), ("experiment", rag.experiment),
    ("prompts", (prompts.HELP, (("export", prompts.export), ("adapt", prompts.adapt)))))


def _register(parent: typer.Typer, commands: tuple[tuple[str, Any], ...]) -> None:
    """Commands through `Typer.command`, groups through `Typer.add_typer` (typer lists a
    group after the commands, whatever the order)."""
    for name, entry in commands:
        if isinstance(entry, tuple):
            group = typer.Typer(no_args_is_help=True, help=entry[0])
            _register(group, entry[1])
            parent.add_typer(group, name=name)
        else:
            parent.command(name)(entry)


_register(app, COMMANDS)


class _CurrentStderr(logging.StreamHandler):
    """Writes to sys.stderr as it is at each record, not as it was when the handler was made
    (a redirected stderr, a second in-process call)."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


class _Redacting(logging.Formatter):
    """Log lines with secrets redacted (text.redact), as every printed line is."""

    def format(self, record: logging.LogRecord) -> str:
        from ragmeter.text import redact

        return redact(super().format(record))


def _log_to_stderr() -> None:
    """ragmeter's own notices (a judge server taken out, a batch submitted or finished) as
    `ragmeter: ...` lines on stderr; other libraries' logging is left as it is."""
    logger = logging.getLogger("ragmeter")
    if not logger.handlers:
        handler = _CurrentStderr()
        handler.setFormatter(_Redacting("ragmeter: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False


def os_error_line(exc: OSError) -> str:
    """An OSError as one line: the path (cut to 120 characters) and what the system said."""
    path = str(exc.filename) if exc.filename is not None else ""
    shown = path if len(path) <= 120 else path[:60] + "…" + path[-40:]
    return f"{shown}: {exc.strerror or exc}" if shown else str(exc.strerror or exc)


def main() -> None:
    """Entry point: library errors become one line on stderr and a non-zero exit; Ctrl-C and
    SIGTERM stop the command with its clean-up (cli/signals.py)."""
    from ragmeter.cli import signals

    _log_to_stderr()
    previous = signals.install(signals.command_of(sys.argv[1:]))
    try:
        _main()
    finally:
        if signals.received() is None:
            signals.restore(previous)
        # else the process is stopping: the handlers stay until it ends, so a second signal
        # during the interpreter's own clean-up (threads joined, files closed) still says
        # "still stopping" instead of killing it at Python's default


def _main() -> None:
    try:
        # click returns typer.Exit's code here instead of raising
        code = command()(prog_name="ragmeter", standalone_mode=False)
        if code == 130:  # typer caught a Ctrl-C
            _interrupted()
        if isinstance(code, int) and code:
            sys.exit(code)
    except RagmeterError as exc:
        from ragmeter.errors import JudgeError, ServiceError

        print(f"ragmeter: error: {plain(exc)}", file=sys.stderr)
        sys.exit(3 if isinstance(exc, (JudgeError, ServiceError)) else 2)
    except KeyboardInterrupt:
        _interrupted()
    except MemoryError:
        print("ragmeter: error: out of memory: the data (or the model) needs more than this process may use; "
              "read a smaller file, or raise the job's memory limit", file=sys.stderr)
        sys.exit(3)
    except sqlite3.Error as exc:  # the cache's disk full or its file damaged
        print(f"ragmeter: error: the cache ({plain(exc)}): free space where it lives, or point RAGMETER_CACHE "
              "elsewhere; finished replies already in it are kept", file=sys.stderr)
        sys.exit(3)
    except OSError as exc:  # a path the system refuses (a name too long, a full disk, no permission)
        print(f"ragmeter: error: {plain(os_error_line(exc))}", file=sys.stderr)
        sys.exit(3 if exc.errno in INFRASTRUCTURE_ERRNOS else 2)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except Exception as exc:  # usage errors from typer's click
        code = _usage_error(exc)
        if code is None:
            raise
        sys.exit(code)


def command() -> Any:
    """The click command typer builds from `app`, with help that reads the same everywhere:
    arguments in capitals, bracketed only when optional, flags without a `<bool>` value, and
    docstrings' line breaks joined into sentences.

    What typer (0.29) lacks, and `_tidy` does on the built command: an argument's metavar is
    always wrapped in braces (`{DATA}`, even with `typer.Argument(metavar=...)`), every flag and
    `--help` show `<bool>`, and no setting joins a docstring's wrapped lines. `get_command` and
    the click objects it returns are typer's public API; the usage line of an argument is set
    through click's `get_usage_pieces`, which typer overrides with the braces."""
    from typer.main import get_command

    built = get_command(app)
    _tidy(built)
    return built


def _tidy(cmd: Any) -> None:
    import re

    from typer.core import TyperArgument, TyperOption

    if cmd.help:
        cmd.help = re.sub(r"(?<!\n)\n(?!\n)", " ", cmd.help)
    for param in cmd.params:
        if isinstance(param, TyperArgument) and param.metavar is None:
            param.metavar = param.name.upper() + ("..." if param.nargs != 1 else "")
            setattr(param, "get_usage_pieces", _usage(param))  # noqa: B010 - typer's own method, replaced
        elif isinstance(param, TyperOption) and param.is_flag:
            param.metavar = ""
    help_option = cmd.get_help_option

    def plain_help_option(ctx: Any) -> Any:
        option = help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option

    cmd.get_help_option = plain_help_option
    for sub in getattr(cmd, "commands", {}).values():
        _tidy(sub)


def _usage(param: Any) -> Any:
    """An argument's place in the usage line: NAME, or [NAME] when optional."""
    def pieces(ctx: Any) -> list[str]:
        return [param.metavar if param.required else f"[{param.metavar}]"]
    return pieces


def _interrupted() -> None:
    """Exit 130 (Ctrl-C) or 143 (SIGTERM); the line was said when the signal came, unless
    Ctrl-C reached here another way (click's Abort, a KeyboardInterrupt of its own)."""
    from ragmeter.cli import signals

    if signals.received() is None:
        print(signals.stopping_line(), file=sys.stderr)
    sys.exit(signals.exit_code())


def _usage_error(exc: Exception) -> int | None:
    """A usage error (unknown option, missing argument, bad value) as one line; exit code 2."""
    # typer (>= 0.28) carries its own copy of click; its usage errors are typer.TyperException
    # (with click's exit_code and format_message) and a Ctrl-C in a prompt is typer.Abort
    if isinstance(exc, typer.Abort):
        _interrupted()  # click turns Ctrl-C into Abort
    if type(exc).__name__ == "InvalidURL" and type(exc).__module__.startswith("httpx"):
        print(f"ragmeter: error: a URL httpx cannot use ({plain(exc)}); if HTTP_PROXY, HTTPS_PROXY or ALL_PROXY "
              "is set, check it", file=sys.stderr)
        return 2
    if not isinstance(exc, typer.TyperException):
        return None
    if type(exc).__name__ == "NoArgsIsHelpError":
        return 2  # help was printed already
    context = getattr(exc, "ctx", None)
    command = context.command_path if context is not None else "ragmeter"
    message = " ".join(exc.format_message().split())
    print(f"ragmeter: error: {plain(message)} (see: {command} --help)", file=sys.stderr)
    return exc.exit_code


def exit_codes_markdown() -> str:
    """The exit codes as a Markdown table, for docs/runs.md."""
    return "\n".join(["| exit code | meaning |", "|---|---|", *(f"| {c} | {m} |" for c, m in EXIT_CODES.items())])
