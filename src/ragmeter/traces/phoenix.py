"""Arize Phoenix as a source of traces and a place for scores, through its HTTP API and
Phoenix's own client (`arize-phoenix-client`, the `phoenix` extra).

The address is written `phoenix:http://HOST:PORT`. A key is read from `PHOENIX_API_KEY`,
as Phoenix's tools read it, never from the URL: a URL holding one is refused without
echoing it, since addresses are stored in files and printed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any, TypeVar
from urllib.parse import urlsplit

from ragmeter.errors import ConfigError, ServiceError
from ragmeter.text import redact

PREFIX = "phoenix:"
#: requests one read may make (its pages), and the seconds it may take: a read of 100,000
#: spans at Phoenix's page sizes takes about a hundred pages
MAX_PAGES = 2000
MAX_CALL_SECONDS = 900.0
KEY_ENV = "PHOENIX_API_KEY"
#: trace ids asked for in one request (they travel in the query string)
TRACES_PER_REQUEST = 50
#: annotations sent in one request
ANNOTATIONS_PER_REQUEST = 500
#: spans fetched for one request's traces at most (a RAG trace has tens)
SPANS_PER_REQUEST = 100_000

T = TypeVar("T")


def phoenix_url(spec: str) -> str:
    """`phoenix:http://HOST:PORT` -> the URL, checked: no credentials, no query."""
    url = spec.removeprefix(PREFIX).rstrip("/")
    parts = urlsplit(url)
    if not spec.startswith(PREFIX) or parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError("a Phoenix address is written phoenix:http://HOST:PORT (e.g. phoenix:http://127.0.0.1:6006)")
    if parts.username or parts.password or parts.query or parts.fragment:
        shown = f"{parts.scheme}://{parts.hostname}{f':{parts.port}' if parts.port else ''}{parts.path}"
        raise ConfigError(f"the Phoenix URL {shown} must not hold credentials or a query: set {KEY_ENV} instead")
    return url


class Phoenix:
    """One Phoenix server: spans read, annotations written and read back."""

    def __init__(self, url: str) -> None:
        try:
            from phoenix.client import Client
        except ImportError:
            raise ConfigError("Phoenix needs its client: pip install 'ragmeter[phoenix]'") from None
        import httpx
        from phoenix.client.client import _update_headers

        self.url = url
        self._requests, self._started = 0, 0.0
        http = httpx.Client(base_url=url, headers=_update_headers(None, os.environ.get(KEY_ENV) or None),
                            timeout=60.0, event_hooks={"request": [self._bounded]})
        self.client: Any = Client(http_client=http)  # typed dicts, read as dicts

    def _bounded(self, request: Any) -> None:
        """Each call's pages and time bounded: a Phoenix that keeps sending a next-page cursor
        made `traces` loop without end (2,969 requests in 150 s)."""
        import time

        self._requests += 1
        if self._requests > MAX_PAGES or time.monotonic() - self._started > MAX_CALL_SECONDS:
            raise ServiceError(f"Phoenix at {self.url} kept answering with more pages ({self._requests - 1} "
                               f"requests in {time.monotonic() - self._started:.0f} s for one read): stopped; "
                               "narrow --since/--until or --max-traces")

    def root_spans(self, project: str, start: Any, end: Any, limit: int) -> list[dict[str, Any]]:
        """The project's root spans (one per trace) that started in [start, end)."""
        return self._call(self.client.spans.get_spans, project, project_identifier=project, start_time=start,
                          end_time=end, parent_id="null", limit=limit)

    def trace_spans(self, project: str, trace_ids: list[str]) -> list[dict[str, Any]]:
        """Every span of these traces."""
        spans: list[dict[str, Any]] = []
        for chunk in _chunks(trace_ids, TRACES_PER_REQUEST):
            spans += self._call(self.client.spans.get_spans, project, project_identifier=project,
                                trace_ids=chunk, limit=SPANS_PER_REQUEST)
        return spans

    def annotate(self, annotations: list[dict[str, Any]]) -> int:
        """Span annotations written (an annotation with the same name, span and identifier as
        one already there replaces it); how many were sent."""
        for chunk in _chunks(annotations, ANNOTATIONS_PER_REQUEST):
            self._call(self.client.spans.log_span_annotations, None, span_annotations=chunk, sync=True)
        return len(annotations)

    def annotations(self, project: str, span_ids: list[str]) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for chunk in _chunks(span_ids, TRACES_PER_REQUEST):
            found += self._call(self.client.spans.get_span_annotations, project, span_ids=chunk,
                                project_identifier=project, limit=SPANS_PER_REQUEST)
        return found

    def _call(self, request: Callable[..., Any], project: str | None, **arguments: Any) -> Any:
        """One request; Phoenix's and the network's failures as one line each."""
        import time

        import httpx

        self._requests, self._started = 0, time.monotonic()
        try:
            return request(**arguments)
        except httpx.HTTPStatusError as exc:
            status, text = exc.response.status_code, redact(" ".join(exc.response.text.split())[:200])
            if status == 404 and project is not None:
                raise ConfigError(f"Phoenix at {self.url} has no project '{project}' ({text})") from None
            if status in (401, 403):
                raise ConfigError(f"Phoenix at {self.url} refused the request (HTTP {status}): set {KEY_ENV}") from None
            raise ServiceError(f"Phoenix at {self.url} answered HTTP {status}: {text}") from None
        except httpx.HTTPError as exc:
            raise ServiceError(f"Phoenix at {self.url} is not reachable ({type(exc).__name__}: {exc})") from None
        except (ValueError, UnicodeDecodeError) as exc:  # an HTML page or binary where JSON belongs
            raise ServiceError(f"Phoenix at {self.url} answered with something that is not its JSON "
                               f"({type(exc).__name__}): is the address a Phoenix, or a proxy's page?") from None


def _chunks(items: list[T], size: int) -> Iterator[list[T]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]
