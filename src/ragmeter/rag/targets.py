"""`--rag TARGET`: a Python callable (`package.module:function`) or a RAG served over HTTP.

HTTP contract (documented in docs/rag.md): ragmeter POSTs JSON
`{"question": str, "messages": [{"role", "content"}, ...] | null, "id": str}` and expects
`{"answer": str, "contexts": [str | {"text": str, "id": str, "score": float}]}`.
5xx, 429 and connection errors are transient (retried); other statuses are the row's error.
"""

from __future__ import annotations

import hashlib
import inspect
import os
from typing import Any

from ragmeter.errors import ConfigError, TransientRAGError
from ragmeter.rag.prompt import Turn


class CallableRAG:
    """A user's function, with an identity for the answer cache: the name given by the user
    (`rag_id`), else the function's qualified name and a hash of its source code."""

    def __init__(self, fn: Any, rag_id: str | None = None, name: str | None = None) -> None:
        if not callable(fn):
            raise ConfigError(f"--rag {name or fn!r} is not callable")
        self.fn, self.name = fn, name or getattr(fn, "__qualname__", type(fn).__name__)
        self.rag_id = rag_id or f"{self.name}@{_source_hash(fn)}"

    def identity(self) -> dict[str, Any]:
        return {"rag": "callable", "id": self.rag_id}

    def describe(self) -> str:
        return f"{self.name} (cache id {self.rag_id})"

    async def check(self) -> None:
        """Nothing to check before the first row: a callable is up when it imports."""

    async def __call__(self, query: str | list[Turn]) -> Any:

        if inspect.iscoroutinefunction(self.fn) or inspect.iscoroutinefunction(type(self.fn).__call__):
            return await self.fn(query)
        result = await in_daemon_thread(self.fn, query)
        return await result if inspect.isawaitable(result) else result

    async def aclose(self) -> None:
        return None


#: a RAG service's key, sent as `Authorization: Bearer KEY` when set; never stored or printed
RAG_KEY_ENV = "RAGMETER_RAG_API_KEY"


async def in_daemon_thread(fn: Any, *args: Any) -> Any:
    """`fn(*args)` in a daemon thread of its own: unlike asyncio.to_thread's pool, which the
    loop waits for on exit, a call that hangs can be abandoned (a timeout, Ctrl-C) and does not
    keep the process alive."""
    import asyncio
    import threading

    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not done.done():
            done.set_result(value) if ok else done.set_exception(value)

    def work() -> None:
        try:
            value, ok = fn(*args), True
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting task, which decides
            value, ok = exc, False
        if not loop.is_closed():
            loop.call_soon_threadsafe(settle, ok, value)

    threading.Thread(target=work, name="ragmeter-rag-call", daemon=True).start()
    return await done


class HttpRAG:
    """A RAG behind a URL; checked before the first row. A key in the URL (user:key@, ?token=)
    would land in the answers' manifest and in error messages: it is refused, without echoing
    it; the key goes in RAGMETER_RAG_API_KEY instead."""

    def __init__(self, url: str, rag_id: str | None = None, timeout: float = 120.0) -> None:
        from ragmeter.endpoints import safe_url, shown_url

        try:
            safe_url(url)
        except ValueError:
            raise ConfigError(f"--rag {shown_url(url)}: the URL must not hold "
                              f"credentials or a query (user:key@, ?token=...): put the key in {RAG_KEY_ENV}, "
                              "sent as an Authorization: Bearer header") from None
        self.url, self.timeout = url, timeout
        self.rag_id = rag_id or url
        self._client: Any = None

    def identity(self) -> dict[str, Any]:
        return {"rag": "http", "id": self.rag_id}

    def describe(self) -> str:
        return f"RAG at {self.url}"

    def _http(self) -> Any:
        import httpx

        if self._client is None:
            from ragmeter.endpoints import bearer_headers

            headers = bearer_headers(RAG_KEY_ENV, "the RAG") if os.environ.get(RAG_KEY_ENV) else {}
            self._client = httpx.AsyncClient(timeout=self.timeout, headers=headers)
        return self._client

    async def check(self) -> None:
        """Fail before the first row when nothing answers at the URL (any HTTP status is 'up')."""
        import httpx

        try:
            await self._http().request("OPTIONS", self.url, timeout=10.0)
        except httpx.HTTPError as exc:
            raise ConfigError(f"the RAG at {self.url} is not reachable: {type(exc).__name__}: {exc}") from None

    async def __call__(self, query: str | list[Turn], row_id: str = "") -> Any:
        import httpx

        question = query if isinstance(query, str) else query[-1]["content"]
        payload = {"question": question, "messages": None if isinstance(query, str) else query, "id": row_id}
        try:
            response = await self._http().post(self.url, json=payload)
        except httpx.HTTPError as exc:
            raise TransientRAGError(f"{self.url}: {type(exc).__name__}: {exc}") from None
        if response.status_code == 429 or response.status_code >= 500:
            raise TransientRAGError(f"{self.url}: HTTP {response.status_code}")
        if response.status_code >= 400:
            raise RuntimeError(f"{self.url}: HTTP {response.status_code}: {response.text[:200]}")
        try:
            return response.json()
        except ValueError:
            raise RuntimeError(f"{self.url}: the reply is not JSON: {response.text[:200]!r}") from None

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()


def resolve_target(target: str, rag_id: str | None = None) -> CallableRAG | HttpRAG:
    """`http(s)://...` -> HttpRAG; `module.path:attribute` -> the imported callable."""
    if target.startswith(("http://", "https://")):
        return HttpRAG(target, rag_id)
    return CallableRAG(import_target(target), rag_id, target)


def import_target(target: str) -> Any:
    """`package.module:attr.sub` -> the object; errors name the module and the attribute.
    The working directory is importable, as for `python -m`."""
    import importlib
    import os
    import sys

    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise ConfigError(f"--rag '{target}': expected module:function (e.g. mypkg.rag:answer) or an http URL")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"--rag '{target}': cannot import module '{module_name}': {exc}") from None
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise ConfigError(f"--rag '{target}': module '{module_name}' has no attribute '{attribute}'")
        obj = getattr(obj, part)
    return obj


def _source_hash(fn: Any) -> str:
    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError):
        source = repr(fn)
    return hashlib.sha256(source.encode()).hexdigest()[:12]
