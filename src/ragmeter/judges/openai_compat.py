"""OpenAI-compatible HTTP judge: OpenAI, vLLM, Ollama, llama.cpp's servers.

Chat API by default, asking for `json_schema` output. A server that rejects
`response_format` raises FormatRejected; the session then asks again, and from then on,
with the schema written into the prompt, and extracts and validates replies (session.py).
The judge's identity (hence every cache key) is fixed at construction and never changes
mid-run. `api:
completions` sends a flattened few-shot prompt for base models, constrained with a
GBNF grammar (llama.cpp) and a `json_schema` field where the server understands one.
The API key is read from an environment variable and never logged or stored.

`base_url` may list several replicas ("http://a:8000/v1,http://b:8000/v1"): requests are
spread over them with adaptive concurrency and failover (fleet.py).

Requests whose schema has label fields also ask for `logprobs`/`top_logprobs` (OpenAI,
vLLM and llama.cpp's server return them), from which the label probabilities are read
(label_probs.py); a server that returns none leaves the labels alone, one that returns
them malformed has that reply's labels read without probabilities (said once), and one
that rejects the field is asked again without it. None of these changes the reply's text,
so none is part of the judge's identity.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import httpx

from ragmeter.endpoints import MAX_REPLY_BYTES, ReplyTooLarge, bearer_headers, fast_transport, post_capped
from ragmeter.errors import (
    ConfigError,
    FormatRejected,
    JudgeError,
    JudgeUnavailable,
    RequestRefused,
    TransientJudgeError,
)
from ragmeter.judges.base import DecodingParams, Judge, JudgeReply, JudgeRequest
from ragmeter.judges.fleet import Fleet, Server
from ragmeter.judges.label_probs import from_top_logprobs, label_fields, lenient_steps
from ragmeter.judges.rate_limit import Grant, RateLimiter, estimated_tokens
from ragmeter.judges.reasons import fill_reasons, strip_reasons
from ragmeter.judges.render import MAX_STOPS, completion_text, cut_at_stop, said_stop, transcript_stops
from ragmeter.text import redact, secret_env

if TYPE_CHECKING:
    from ragmeter.judges.settings import HTTPJudgeConfig

TRANSIENT_STATUS = {408, 409, 425, 429}
OVERLOADED = {429, 503}  # the server is busy: halve its concurrency and retry
GONE = {502, 504}  # a proxy found nobody behind it: take the server out for a while
#: the server refused this request, not every request: too long, filtered, invalid for this input
REFUSED = {400, 413, 422}
NO_ANSWER = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
log = logging.getLogger("ragmeter")
TOP_LOGPROBS = 20  # OpenAI's maximum


class OpenAICompatJudge(Judge):
    def __init__(self, base_url: str, model: str, *, backend: str = "openai-compat",
                 api_key_env: str | None = None, api: str = "chat", structured: str = "json_schema",
                 params: DecodingParams | None = None, context_window: int | None = None,
                 logprobs: bool = True, transport: httpx.AsyncBaseTransport | None = None,
                 reasons: str = "all", max_reply_bytes: int = MAX_REPLY_BYTES, rpm: float | None = None,
                 tpm: float | None = None) -> None:
        super().__init__(model, params)
        self.max_reply_bytes = max_reply_bytes
        self.limits = RateLimiter(rpm, tpm)  # one for every call in flight and every replica
        self.reasons = reasons
        self._transport = transport
        self.backend = backend
        self.urls = [u.strip().rstrip("/") for u in base_url.split(",") if u.strip()]
        self.base_url = ",".join(self.urls)
        self.fleet = Fleet(self.urls)
        self.api_key_env, self.api, self.structured = api_key_env, api, structured
        secret_env(api_key_env)  # its value is redacted whatever the variable's name
        self._window = context_window
        self._clients: dict[str, httpx.AsyncClient] = {}
        # Not part of identity: asking changes no reply text, only whether probabilities come
        # with it. Cleared when the server rejects the field.
        self._logprobs = logprobs
        if structured not in ("json_schema", "json_object", "none"):
            raise ConfigError(f"judge structured: '{structured}'; valid: json_schema, json_object, none")
        if api not in ("chat", "completions"):
            raise ConfigError(f"judge api: '{api}'; valid for HTTP judges: chat, completions")

    @classmethod
    def from_config(cls, cfg: HTTPJudgeConfig) -> OpenAICompatJudge:
        api = "chat" if cfg.api == "auto" else cfg.api
        return cls(cfg.needs("base_url"), cfg.needs("model"), backend=cfg.backend, api_key_env=cfg.api_key_env, api=api,
                   structured=cfg.structured, params=cfg.params(), context_window=cfg.context_window,
                   logprobs=cfg.logprobs, reasons=cfg.reasons, max_reply_bytes=cfg.max_reply_bytes, rpm=cfg.rpm,
                   tpm=cfg.tpm)

    @property
    def constrained(self) -> bool:  # type: ignore[override]
        return self.structured == "json_schema"

    @property
    def context_window(self) -> int | None:
        return self._window

    def identity(self) -> dict[str, Any]:
        # a fleet is named by its URLs in any order: listing the replicas differently is the same judge
        return {**super().identity(), "base_url": ",".join(sorted(self.urls)), "api": self.api,
                "structured": self.structured, "context_window": self._window}

    def servers(self) -> list[dict[str, Any]] | None:
        """Each replica's record (requests, overloads, outages, final limit); None for one server."""
        return self.fleet.record() if len(self.urls) > 1 else None

    def describe(self) -> str:
        return f"{self.backend}:{self.base_url}#{self.model}"

    def _headers(self) -> dict[str, str]:
        return bearer_headers(self.api_key_env, f"judge {self.describe()}")

    def client(self, url: str | None = None) -> httpx.AsyncClient:
        url = url or self.urls[0]
        if url not in self._clients:
            self._clients[url] = httpx.AsyncClient(base_url=url, headers=self._headers(), timeout=httpx.Timeout(None),
                                                   transport=self._transport or fast_transport(url))
        return self._clients[url]

    async def check(self) -> None:
        """Before any row: the key is set and the server answers at its URL. In a fleet, the
        replicas that do not answer are taken out (and tried again later); none answering fails."""
        problems = []
        for server in self.fleet.servers:
            problem = await self._check_one(server.url)
            if problem:
                problems.append(problem)
                self.fleet.mark_down(server)
        if len(problems) == len(self.urls):
            raise JudgeUnavailable("; ".join(problems))
        for problem in problems:
            log.warning("%s; the run goes on with the other servers", problem)

    async def _check_one(self, url: str) -> str | None:
        try:
            response = await self.client(url).get("/models", timeout=10.0)
        except httpx.HTTPError as exc:
            return f"cannot reach the judge server at {url}: {type(exc).__name__}: {exc or 'no answer'}"
        if response.status_code in (401, 403):
            raise JudgeError(f"the judge server at {url} refused the API key "
                             f"in ${self.api_key_env} (HTTP {response.status_code})")
        return None

    def writes_transcript(self) -> bool:
        return self.api == "completions"

    def _path(self, request: JudgeRequest) -> str:
        return "/chat/completions" if self.api == "chat" and request.prompt is None else "/completions"

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        if self.reasons == "none" and request.schema is not None and request.prompt is None:
            reply = await self._complete(replace(request, schema=strip_reasons(request.schema)))
            reply.text = fill_reasons(reply.text, request.schema)
            return reply
        return await self._complete(request)

    async def _complete(self, request: JudgeRequest) -> JudgeReply:
        body = self._body(request)
        charge = None
        if self.limits.active:  # the prompt's size is measured only where a limit counts it
            sent = json.dumps(body.get("messages") or body.get("prompt") or "")
            charge = estimated_tokens(len(sent), body["max_tokens"])
        grants: list[Grant] = []
        start = time.perf_counter()
        data = await self._post(self._path(request), body, charge, grants)
        grant = grants[-1] if grants else None
        if data is None:
            raise FormatRejected(f"{self.base_url} refused structured output (response_format)")
        if isinstance(data, str):  # "logprobs": the server rejected them, ask again without
            self._logprobs = False
            return await self._complete(request)
        reply = self._reply(data, request, start)
        if grant is not None and reply.completion_tokens:
            self.limits.give_back(grant, body["max_tokens"] - reply.completion_tokens)
        return reply

    def _reply(self, data: dict[str, Any], request: JudgeRequest, start: float) -> JudgeReply:
        """A completion's JSON as a JudgeReply: text, usage, finish reason and label probabilities."""
        chat = self._path(request) == "/chat/completions"
        choice = _first_choice(data, self.base_url)
        text = (choice.get("message") or {}).get("content") or "" if chat else choice.get("text", "")
        text, found = cut_at_stop(text, (request.stop if chat else transcript_stops(request))[MAX_STOPS:])
        usage = (data.get("usage") if isinstance(data, dict) else None) or {}
        return JudgeReply(text=text, prompt_tokens=usage.get("prompt_tokens", 0),
                          completion_tokens=usage.get("completion_tokens", 0),
                          finish_reason="stop" if found else choice.get("finish_reason") or "stop",
                          seconds=time.perf_counter() - start, stop=found or said_stop(choice),
                          labels=from_top_logprobs(lenient_steps(choice, self.base_url), label_fields(request.schema)))

    def _body(self, request: JudgeRequest) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "temperature": self.params.temperature,
                                "seed": self.params.seed,
                                "max_tokens": request.max_tokens or self.params.max_tokens}
        schema = request.schema
        stop = transcript_stops(request) if self.api == "completions" else request.stop
        if stop:  # OpenAI and TGI take four; the rest are cut here (_reply)
            body["stop"] = list(stop[:MAX_STOPS])
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

    async def _post(self, path: str, body: dict[str, Any], charge: int | None = None,
                    grants: list[Grant] | None = None) -> dict[str, Any] | str | None:
        """POST to the least loaded server that is up; one that does not answer is taken out
        and the request moves to the next at once (fleet.py). Under rpm/tpm limits the request
        is granted (`charge` tokens, the grant appended to `grants`) once it holds a slot, just
        before it is sent: granted earlier, requests queued for a slot went out bunched, 53 in
        one 60 s window at rpm=45.5."""
        tried: set[str] = set()
        while True:
            async with self.fleet.slot(tried) as server:
                if charge is not None and grants is not None:
                    grants.append(await self.limits.acquire(charge))
                try:
                    response = await post_capped(self.client(server.url), path, body, self.max_reply_bytes)
                except ReplyTooLarge as exc:  # a failed call, not retried: the server would send it again
                    raise JudgeUnavailable(f"{exc} from {server.url}{path}") from None
                except NO_ANSWER as exc:
                    self._gone(server, tried, f"{no_answer(exc)} talking to {server.url}")
                    continue
                if response.status_code in GONE and len(self.urls) == 1:  # nowhere else to go: retry it
                    raise TransientJudgeError(f"HTTP {response.status_code} from {server.url}{path}",
                                              status=response.status_code)
                if response.status_code in GONE:
                    self._gone(server, tried, f"HTTP {response.status_code} from {server.url}{path}",
                               response.status_code)
                    continue
                return self._read(server, path, body, response)

    def _gone(self, server: Server, tried: set[str], what: str, status: int | None = None) -> None:
        """Take the server out; raise when no other replica is left to try. A lone server is
        never taken out: a dropped connection or a 502 is then a transient error like a 500,
        retried with backoff on the same server (taking it out only made every request in
        flight fail at once, and the run stop after a few resets)."""
        if len(self.urls) == 1:
            raise TransientJudgeError(what, status=status)
        self.fleet.mark_down(server)
        tried.add(server.url)
        if len(tried) == len(self.urls):
            raise TransientJudgeError(what, status=status)

    def _read(self, server: Server, path: str, body: dict[str, Any],
              response: httpx.Response) -> dict[str, Any] | str | None:
        status, where = response.status_code, f"{server.url}{path}"
        if status in TRANSIENT_STATUS or status >= 500:
            if status in OVERLOADED:
                server.overloaded()
            raise TransientJudgeError(f"HTTP {status} from {where}", status=status,
                                      retry_after=_retry_after(response.headers.get("retry-after")))
        server.succeeded()
        if status == 400 and "response_format" in body and "response_format" in response.text:
            return None
        if status == 400 and "logprobs" in body and "logprobs" in response.text:
            return "logprobs"
        if status in REFUSED:  # one row's prompt, not the judge: that row fails, the run goes on
            raise RequestRefused(f"HTTP {status} from {where}: {redact(response.text)[:300]}")
        if status >= 400:
            raise JudgeError(f"HTTP {status} from {where}: {redact(response.text)[:300]}")  # redact, then cut
        try:
            return response.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise TransientJudgeError(f"an answer from {where} that is not JSON (or not UTF-8)") from None

    async def aclose(self) -> None:
        for client in self._clients.values():
            await client.aclose()
        self._clients = {}


def no_answer(exc: BaseException) -> str:
    """What went wrong, as people say it: aiohttp's transport reports a refused connection as
    httpx's ConnectTimeout, so the cause chain is read for the refusal."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionRefusedError) or "Connection refused" in str(seen) or \
                "Connect call failed" in str(seen):
            return "connection refused"
        seen = seen.__cause__ or seen.__context__
    return type(exc).__name__


def _first_choice(data: object, base_url: str) -> dict[str, Any]:
    """The reply's first choice. A 200 without one (an empty list, or an {"error": ...} body,
    as proxies send when the model behind them failed) is a transient judge error."""
    choices = data.get("choices") if isinstance(data, dict) else None
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return choices[0]
    error = data.get("error") if isinstance(data, dict) else None
    detail = f": {redact(str(error.get('message', error) if isinstance(error, dict) else error))[:200]}" \
        if error else ""
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
