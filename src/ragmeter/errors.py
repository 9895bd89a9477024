"""Error types. Every error a user can cause carries enough context to fix it."""

from __future__ import annotations

from typing import Any


class RagmeterError(Exception):
    """Base class: the CLI prints these as one line and exits non-zero."""


class ConfigError(RagmeterError):
    """The run configuration (YAML or CLI flags) is invalid."""


class DataError(RagmeterError):
    """A dataset problem, located by file, row (1-based) and field where known."""

    def __init__(self, message: str, *, source: str | None = None, row: int | None = None,
                 field: str | None = None, unit: str = "row") -> None:
        self.source, self.row, self.field = source, row, field
        where = [p for p in (source, f"{unit} {row}" if row is not None else None,
                             f"field '{field}'" if field else None) if p]
        super().__init__(f"{': '.join([', '.join(where), message]) if where else message}")


class JudgeError(RagmeterError):
    """The judge failed in a way that retrying will not fix (bad key, bad request)."""


class TransientJudgeError(JudgeError):
    """Timeouts, connection errors, 429 and 5xx: worth retrying with backoff.
    `retry_after`: seconds the server asked to wait (its Retry-After header), if any."""

    def __init__(self, message: str, retry_after: float | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.retry_after, self.status = retry_after, status


class FormatRejected(JudgeError):
    """The server refused structured output (`response_format`): the session asks again with
    the schema written into the prompt, and does so for every later request."""


class JudgeUnavailable(JudgeError):
    """The judge could not be reached before any row was processed, or retries ran out."""


class RequestRefused(JudgeUnavailable):
    """The server refused this one request (HTTP 400, 413 or 422: a prompt over the model's
    context, a content filter): the row's failure, counted against `max_failed`, never the
    run's end. Asking again gets the same refusal, so it is not retried."""


class ServiceError(RagmeterError):
    """A service other than the judge (a trace store such as Phoenix) could not be reached or
    failed: an infrastructure failure (exit 3), not the user's data."""


class TransientRAGError(RagmeterError):
    """Raise this from your RAG callable for a failure worth retrying (a timeout, a 503):
    `ragmeter answer` retries it with backoff; any other exception is recorded on the row."""


class UnparseableReply(RagmeterError):
    """The judge's reply did not validate against the output schema (after one re-ask)."""

    def __init__(self, message: str, raw: str = "") -> None:
        super().__init__(message)
        self.raw = raw


def key_hint(key: str, valid: list[str] | None) -> str:
    """ " (did you mean 'temperature'?)" for a near miss, else the list of valid keys."""
    if not valid:
        return ""
    from difflib import get_close_matches

    close = get_close_matches(key, valid, n=1, cutoff=0.75)
    if close:
        return f" (did you mean '{close[0]}'?)"
    return f" (valid keys: {', '.join(valid)})"


def explain_validation(exc: Any, valid_keys: list[str] | None = None, limit: int = 5) -> str:
    """A pydantic ValidationError as one readable line: which key, what is wrong."""
    parts = []
    for error in exc.errors()[:limit]:
        where = ".".join(str(p) for p in error["loc"]) or "file"
        if error["type"] == "extra_forbidden":
            parts.append(f"unknown key '{where}'{key_hint(where, valid_keys)}")
        elif error["type"] == "missing":
            parts.append(f"missing required key '{where}'")
        else:
            message = error["msg"].removeprefix("Value error, ")  # pydantic's prefix says nothing
            parts.append(f"{where}: {message}" if error["loc"] else message)  # a rule across keys names them
    return "; ".join(parts)
