"""OpenAI-compatible HTTP judge: OpenAI, vLLM, Ollama, llama.cpp's servers.

Chat API by default, asking for `json_schema` output. A server that rejects
`response_format` raises FormatRejected; the session then asks again, and from then on,
with the schema written into the prompt, and extracts and validates replies (session.py).
The judge's identity (hence every cache key) is fixed at construction and never changes
mid-run. `api:
completions` sends a flattened few-shot prompt for base models, constrained with a
GBNF grammar (llama.cpp) and a `json_schema` field where the server understands one.
The API key is read from an environment variable and never logged or stored.

Requests whose schema has label fields also ask for `logprobs`/`top_logprobs` (OpenAI,
vLLM and llama.cpp's server return them), from which the label probabilities are read
(label_probs.py); a server that returns none leaves the labels alone, and one that
rejects the field is asked again without it. Neither changes the reply's text, so
neither is part of the judge's identity.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from ragmeter.endpoints import bearer_headers
from ragmeter.errors import ConfigError, FormatRejected, JudgeError, JudgeUnavailable, TransientJudgeError
from ragmeter.judges.base import DecodingParams, Judge, JudgeReply, JudgeRequest
from ragmeter.judges.label_probs import from_top_logprobs, label_fields, openai_steps
from ragmeter.judges.render import completion_text

TRANSIENT_STATUS = {408, 409, 425, 429}
TOP_LOGPROBS = 20  # OpenAI's maximum


class OpenAICompatJudge(Judge):
    def __init__(self, base_url: str, model: str, *, backend: str = "openai-compat",
                 api_key_env: str | None = None, api: str = "chat", structured: str = "json_schema",
                 params: DecodingParams | None = None, context_window: int | None = None,
                 logprobs: bool = True, transport: httpx.AsyncBaseTransport | None = None) -> None:
        super().__init__(model, params)
        self._transport = transport
        self.backend = backend
        self.base_url = base_url.rstrip("/")
        self.api_key_env, self.api, self.structured = api_key_env, api, structured
        self._window = context_window
        self._client: httpx.AsyncClient | None = None
        # Not part of identity: asking changes no reply text, only whether probabilities come
        # with it. Cleared when the server rejects the field.
        self._logprobs = logprobs
        if structured not in ("json_schema", "json_object", "none"):
            raise ConfigError(f"judge structured: '{structured}'; valid: json_schema, json_object, none")
        if api not in ("chat", "completions"):
            raise ConfigError(f"judge api: '{api}'; valid for HTTP judges: chat, completions")

    @classmethod
    def from_config(cls, cfg: Any) -> OpenAICompatJudge:
        api = "chat" if cfg.api == "auto" else cfg.api
        return cls(cfg.base_url, cfg.model, backend=cfg.backend, api_key_env=cfg.api_key_env, api=api,
                   structured=cfg.structured, params=cfg.params(), context_window=cfg.context_window,
                   logprobs=cfg.logprobs)

    @property
    def constrained(self) -> bool:  # type: ignore[override]
        return self.structured == "json_schema"

    @property
    def context_window(self) -> int | None:
        return self._window

    def identity(self) -> dict[str, Any]:
        return {**super().identity(), "base_url": self.base_url, "api": self.api,
                "structured": self.structured, "context_window": self._window}

    def describe(self) -> str:
        return f"{self.backend}:{self.base_url}#{self.model}"

    def _headers(self) -> dict[str, str]:
        return bearer_headers(self.api_key_env, f"judge {self.describe()}")

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(base_url=self.base_url, headers=self._headers(),
                                             timeout=httpx.Timeout(None), transport=self._transport)
        return self._client

    async def check(self) -> None:
        """Before any row: the key is set and the server answers at its URL."""
        try:
            response = await self.client().get("/models", timeout=10.0)
        except httpx.HTTPError as exc:
            raise JudgeUnavailable(f"cannot reach the judge server at {self.base_url}: "
                                   f"{type(exc).__name__}: {exc or 'no answer'}") from None
        if response.status_code in (401, 403):
            raise JudgeError(f"the judge server at {self.base_url} refused the API key "
                             f"in ${self.api_key_env} (HTTP {response.status_code})")

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        body = self._body(request)
        start = time.perf_counter()
        chat = self.api == "chat" and request.prompt is None
        data = await self._post("/chat/completions" if chat else "/completions", body)
        if data is None:
            raise FormatRejected(f"{self.base_url} refused structured output (response_format)")
        if isinstance(data, str):  # "logprobs": the server rejected them, ask again without
            self._logprobs = False
            return await self.complete(request)
        choice = _first_choice(data, self.base_url)
        text = (choice.get("message") or {}).get("content") or "" if chat else choice.get("text", "")
        usage = (data.get("usage") if isinstance(data, dict) else None) or {}
        return JudgeReply(text=text, prompt_tokens=usage.get("prompt_tokens", 0),
                          completion_tokens=usage.get("completion_tokens", 0),
                          finish_reason=choice.get("finish_reason") or "stop",
                          seconds=time.perf_counter() - start,
                          labels=from_top_logprobs(openai_steps(choice), label_fields(request.schema)))

    def _body(self, request: JudgeRequest) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "temperature": self.params.temperature,
                                "seed": self.params.seed,
                                "max_tokens": request.max_tokens or self.params.max_tokens}
        schema = request.schema
        if request.stop:
            body["stop"] = list(request.stop)
        wants_logprobs = self._logprobs and bool(label_fields(schema))
        if self.api == "completions" or request.prompt is not None:
            body["prompt"] = completion_text(request)
            if wants_logprobs:
                body["logprobs"] = TOP_LOGPROBS
            if schema is not None and self.structured != "none" and request.structured:
                body.update(_completion_constraints(schema))
            return body
        body["messages"] = request.messages
        if wants_logprobs:
            body.update(logprobs=True, top_logprobs=TOP_LOGPROBS)
        if schema is None or not request.structured:
            return body
        if self.structured == "json_schema":
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": "judgement", "schema": schema, "strict": True}}
        elif self.structured == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body

    async def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any] | str | None:
        try:
            response = await self.client().post(path, json=body)
        except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            raise TransientJudgeError(f"{type(exc).__name__} talking to {self.base_url}") from None
        status = response.status_code
        if status in TRANSIENT_STATUS or status >= 500:
            raise TransientJudgeError(f"HTTP {status} from {self.base_url}{path}", status=status,
                                      retry_after=_retry_after(response.headers.get("retry-after")))
        if status == 400 and "response_format" in body and "response_format" in response.text:
            return None
        if status == 400 and "logprobs" in body and "logprobs" in response.text:
            return "logprobs"
        if status >= 400:
            raise JudgeError(f"HTTP {status} from {self.base_url}{path}: {response.text[:300]}")
        try:
            return response.json()
        except json.JSONDecodeError:
            raise TransientJudgeError(f"non-JSON answer from {self.base_url}{path}") from None

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _first_choice(data: Any, base_url: str) -> dict[str, Any]:
    """The reply's first choice. A 200 without one (an empty list, or an {"error": ...} body,
    as proxies send when the model behind them failed) is a transient judge error."""
    choices = data.get("choices") if isinstance(data, dict) else None
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return choices[0]
    error = data.get("error") if isinstance(data, dict) else None
    detail = f": {str(error.get('message', error) if isinstance(error, dict) else error)[:200]}" if error else ""
    raise TransientJudgeError(f"answer from {base_url} has no choices{detail}")


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (seconds or an HTTP date); None when absent or unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _completion_constraints(schema: dict[str, Any]) -> dict[str, Any]:
    """Grammar for llama.cpp servers (GBNF, when llama_cpp is importable) plus json_schema."""
    out: dict[str, Any] = {"json_schema": schema}
    try:
        from llama_cpp.llama_grammar import json_schema_to_gbnf
    except ImportError:
        return out
    out["grammar"] = json_schema_to_gbnf(json.dumps(schema))
    return out
