"""What judges and embedders share about HTTP endpoints: the `URL#MODEL` spec form, URLs
that never carry credentials, the API key read from an environment variable, and the
connection pool requests go through."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from ragmeter.errors import ConfigError

OPENAI_URL = "https://api.openai.com/v1"
OPENAI_KEY_ENV = "OPENAI_API_KEY"


def safe_url(url: str) -> str:
    """The URL unchanged, or a ValueError (without the secret) when it holds credentials or
    a query: a key there would be stored in the manifest and printed."""
    parts = urlsplit(url)
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError(f"the URL {shown_url(url)} must not hold credentials "
                         "or a query (user:key@, ?api-key=...): put the key in an environment variable and name "
                         "it with api_key_env")
    return url


def shown_url(url: str) -> str:
    """A refused URL as an error names it: scheme, host and path, without the credentials or
    the query, and a path segment shaped like a token (`/v1/<gateway token>`) redacted."""
    from ragmeter.text import redact_urls

    parts = urlsplit(url)
    return redact_urls(f"{parts.scheme}://{parts.hostname or ''}{parts.path}")


def split_endpoint(rest: str, what: str) -> tuple[str, str]:
    """`http://HOST:PORT/v1#MODEL` -> (URL, MODEL), checked."""
    url, _, model = rest.partition("#")
    if not url.startswith(("http://", "https://")) or not model:
        raise ConfigError(f"{what}: expected openai-compat:http://HOST:PORT/v1#MODEL")
    try:
        return safe_url(url), model
    except ValueError as exc:
        raise ConfigError(f"{what}: {exc}") from None


def bearer_headers(api_key_env: str | None, who: str) -> dict[str, str]:
    """The Authorization header from the named variable; the key itself is never stored."""
    from ragmeter.text import secret_env

    if not api_key_env:
        return {}
    secret_env(api_key_env)
    key = os.environ.get(api_key_env)
    if not key:
        raise ConfigError(f"{who} needs an API key: set the environment variable {api_key_env}")
    return {"Authorization": f"Bearer {key}"}


def fast_transport(url: str) -> Any:
    """httpx's API over aiohttp's connection pool (httpx-aiohttp, as the openai client's
    DefaultAioHttpClient) for requests to `url`: a sixth of httpx's own CPU a request against
    a local server at 64 requests at once (benchmarks/bench_scale.py), so one process drives a
    fast judge server instead of being what bounds it. A proxy named in the environment
    (HTTPS_PROXY, NO_PROXY, ...) is used as httpx would, looked up once here: aiohttp's own
    lookup reads ~/.netrc on a thread for every request. Certificates are checked as httpx
    does; the session opens in the loop that first uses it."""
    import urllib.request

    import aiohttp
    import httpx
    from httpx_aiohttp import AiohttpTransport

    def session() -> aiohttp.ClientSession:
        connector = aiohttp.TCPConnector(limit=100, keepalive_timeout=5.0, ssl=httpx.create_ssl_context())
        return aiohttp.ClientSession(connector=connector)

    parts = urlsplit(url)
    found = urllib.request.getproxies_environment()
    proxy = found.get(parts.scheme) or found.get("all")  # ALL_PROXY where no scheme's own is set, as httpx
    if proxy and urllib.request.proxy_bypass_environment(parts.hostname or ""):  # type: ignore[attr-defined]
        proxy = None
    return AiohttpTransport(client=session, proxy=checked_proxy(proxy, parts.scheme) if proxy else None)


def checked_proxy(proxy: str, scheme: str) -> Any:
    """httpx's Proxy for the environment's proxy URL, or one ConfigError line naming the
    variable (never its value, which may hold a password)."""
    import httpx

    try:
        made = httpx.Proxy(proxy)
        if not made.url.host:
            raise ValueError("no host")
    except (httpx.InvalidURL, ValueError) as exc:
        raise ConfigError(f"the proxy in {scheme.upper()}_PROXY (or {scheme}_proxy, or ALL_PROXY where neither is "
                          f"set) is not a URL ragmeter can use ({type(exc).__name__}): fix it, or unset it") from None
    return made


#: the largest reply read from a judge server by default (a chat reply with top logprobs on
#: 512 tokens is about 1 MB); a server that sends more has its call fail, memory untouched
MAX_REPLY_BYTES = 16 * 2**20


class ReplyTooLarge(Exception):
    """A server's answer over the cap: read no further."""


async def post_capped(client: Any, path: str, body: dict[str, Any], cap: int = MAX_REPLY_BYTES) -> Any:
    """POST and read the answer up to `cap` bytes (streamed: a 100 MB answer never lands in
    memory), as an httpx.Response; ReplyTooLarge past the cap."""
    import httpx

    async with client.stream("POST", path, json=body) as response:
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > cap:
            raise ReplyTooLarge(f"an answer of {int(declared):,} bytes (the cap is {cap:,})")
        chunks, size = [], 0
        async for chunk in response.aiter_bytes():  # decoded: a compressed bomb is capped too
            size += len(chunk)
            if size > cap:
                raise ReplyTooLarge(f"an answer over {cap:,} bytes (the cap)")
            chunks.append(chunk)
    headers = {k: v for k, v in response.headers.items() if k.lower() not in ("content-encoding", "content-length",
                                                                            "transfer-encoding")}
    return httpx.Response(response.status_code, headers=headers, content=b"".join(chunks), request=response.request)

