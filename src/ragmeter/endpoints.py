"""What judges and embedders share about HTTP endpoints: the `URL#MODEL` spec form, URLs
that never carry credentials, and the API key read from an environment variable."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from ragmeter.errors import ConfigError

OPENAI_URL = "https://api.openai.com/v1"
OPENAI_KEY_ENV = "OPENAI_API_KEY"


def safe_url(url: str) -> str:
    """The URL unchanged, or a ValueError (without the secret) when it holds credentials or
    a query: a key there would be stored in the manifest and printed."""
    parts = urlsplit(url)
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError(f"the URL {parts.scheme}://{parts.hostname or ''}{parts.path} must not hold credentials "
                         "or a query (user:key@, ?api-key=...): put the key in an environment variable and name "
                         "it with api_key_env")
    return url


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
    if not api_key_env:
        return {}
    key = os.environ.get(api_key_env)
    if not key:
        raise ConfigError(f"{who} needs an API key: set the environment variable {api_key_env}")
    return {"Authorization": f"Bearer {key}"}
