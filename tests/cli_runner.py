"""Run the `ragmeter` command in this process, as a user's shell would see it: the same
entry point (`ragmeter.cli.app.main`, with its one-line errors and exit codes), stdout and
stderr apart, the exit status. Tests use a real process only where one is the point
(signals, umask, a console script on PATH)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path


def run_cli(*args: str, cwd: Path | None = None,
            env: dict[str, str | None] | None = None) -> subprocess.CompletedProcess:
    """`ragmeter ARGS` in-process; `env` changes the environment for the call only (None: unset)."""
    from ragmeter.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_cwd, saved_argv = dict(os.environ), os.getcwd(), sys.argv
    code = 0
    try:
        for key, value in (env or {}).items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        if cwd is not None:
            os.chdir(cwd)
        sys.argv = ["ragmeter", *args]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["ragmeter", *args], code, out.getvalue(), err.getvalue())
