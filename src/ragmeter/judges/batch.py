"""Judge requests through an OpenAI-compatible batch endpoint (`--batch`), at the half
price providers charge for it.

Requests are gathered while the run asks them. Every row's first prompt is asked at once,
so one batch holds them all; a metric's second prompt goes in the next batch. After
`quiet_seconds` with no new request, the gathered requests are written as a JSONL file,
uploaded (POST /files, purpose "batch") and submitted (POST /batches). The batch is
polled every `poll_seconds` until it ends, and its output file is read back; each line
answers the request with the same custom_id.

A request's custom_id is a hash of its body. Each submitted id is stored in the run's
cache (table "batches") with its batch, so a run stopped while a batch is pending and
started again polls that batch instead of paying for it twice. Replies that validate go
to the cache as any judge's do. The batch judge has the same identity as the judge it
batches for: a reply is the same reply whichever way it was paid for.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from ragmeter.cache import Cache, make_key
from ragmeter.errors import JudgeError, TransientJudgeError
from ragmeter.judges.base import JudgeReply, JudgeRequest
from ragmeter.judges.openai_compat import OpenAICompatJudge
from ragmeter.text import redact

if TYPE_CHECKING:
    from ragmeter.judges.settings import HTTPJudgeConfig

ENDED = {"completed", "failed", "expired", "cancelled"}
log = logging.getLogger("ragmeter")
MAX_REQUESTS = 50_000  # OpenAI's limit per batch


class BatchJudge(OpenAICompatJudge):
    """An OpenAICompatJudge whose requests go through /batches instead of one POST each."""

    queued = True

    def __init__(self, *args: Any, poll_seconds: float = 30.0, quiet_seconds: float = 1.0,
                 completion_window: str = "24h", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.poll_seconds, self.quiet_seconds, self.window = poll_seconds, quiet_seconds, completion_window
        self._store: Cache | None = None
        self._queue: dict[str, tuple[str, dict[str, Any], list[asyncio.Future[dict[str, Any]]]]] = {}
        self._last = 0.0
        self._flusher: asyncio.Task[None] | None = None
        self._watching: dict[str, dict[str, list[asyncio.Future[dict[str, Any]]]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: batches submitted and resumed by this process, for the manifest
        self.batches: dict[str, str] = {}

    @classmethod
    def from_config(cls, cfg: HTTPJudgeConfig, poll_seconds: float = 30.0) -> BatchJudge:
        api = "chat" if cfg.api == "auto" else cfg.api
        return cls(cfg.needs("base_url"), cfg.needs("model"), backend=cfg.backend, api_key_env=cfg.api_key_env, api=api,
                   structured=cfg.structured, params=cfg.params(), context_window=cfg.context_window,
                   logprobs=cfg.logprobs, poll_seconds=poll_seconds)

    def use_store(self, cache: Cache) -> None:
        """Where submitted requests are remembered across restarts: the run's cache."""
        self._store = cache

    def describe(self) -> str:
        return f"{super().describe()} (batch API)"

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        body, path, start = self._body(request), self._path(request), time.perf_counter()
        custom_id = make_key({"path": path, "body": body}, "b1")
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        known = self._store.get(custom_id, "batches") if self._store is not None else None
        if known is not None:
            self._watch(known["batch"], {custom_id: [future]})
        elif custom_id in self._queue:
            self._queue[custom_id][2].append(future)
        else:
            self._queue[custom_id] = (path, body, [future])
            self._last = time.monotonic()
            if self._flusher is None or self._flusher.done():
                self._flusher = asyncio.create_task(self._flush_when_quiet())
        return self._reply(await future, request, start)

    async def _flush_when_quiet(self) -> None:
        while time.monotonic() - self._last < self.quiet_seconds and len(self._queue) < MAX_REQUESTS:
            await asyncio.sleep(min(self.quiet_seconds, 0.05))
        queued, self._queue = self._queue, {}
        for path in sorted({p for p, _, _ in queued.values()}):
            mine = {cid: entry for cid, entry in queued.items() if entry[0] == path}
            try:
                batch = await self._submit(path, {cid: body for cid, (_, body, _) in mine.items()})
            except Exception as exc:  # every waiting request learns why, and may be retried
                for _, _, futures in mine.values():
                    for f in futures:
                        if not f.done():
                            f.set_exception(exc)
                continue
            self._watch(batch, {cid: futures for cid, (_, _, futures) in mine.items()})

    async def _submit(self, path: str, bodies: dict[str, dict[str, Any]]) -> str:
        lines = "".join(json.dumps({"custom_id": cid, "method": "POST", "url": f"/v1{path}", "body": body}) + "\n"
                        for cid, body in bodies.items())
        client = self.client()
        upload = await client.post("/files", data={"purpose": "batch"},
                                   files={"file": ("ragmeter-requests.jsonl", lines.encode(), "application/jsonl")})
        file_id = self._json(upload, "upload the requests (POST /files)")["id"]
        created = await client.post("/batches", json={"input_file_id": file_id, "endpoint": f"/v1{path}",
                                                      "completion_window": self.window})
        batch = self._json(created, "create the batch (POST /batches)")["id"]
        for cid in bodies:
            if self._store is not None:
                self._store.put(cid, {"batch": batch}, "batches")
        self.batches[batch] = "submitted"
        log.info("batch %s: %d requests submitted to %s; polling every %g s (a run stopped now resumes it)",
                 batch, len(bodies), self.base_url, self.poll_seconds)
        return batch

    def _watch(self, batch: str, waiting: dict[str, list[asyncio.Future[dict[str, Any]]]]) -> None:
        """Wait for `batch` to end (one poller per batch) and answer these requests from it."""
        known = self._watching.setdefault(batch, {})
        first = not known
        for cid, futures in waiting.items():
            known.setdefault(cid, []).extend(futures)
        self.batches.setdefault(batch, "resumed")
        if first and self.batches[batch] == "resumed":
            log.info("batch %s: submitted by an earlier run, polled again", batch)
        if first:
            task = asyncio.create_task(self._poll(batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _poll(self, batch: str) -> None:
        status: str = "unknown"
        answers: dict[str, dict[str, Any] | Exception] = {}
        failure: Exception = TransientJudgeError(f"batch {batch} could not be read")
        try:
            info = await self._status(batch)
            while info.get("status") not in ENDED:
                await asyncio.sleep(self.poll_seconds)
                info = await self._status(batch)
            status = info["status"]
            answers = await self._results(info)
            failure = TransientJudgeError(f"batch {batch} ended {status} without answering this request; "
                                          "it is sent again")
        except Exception as exc:  # noqa: BLE001 - handed to every request waiting on this batch
            failure = exc
        self.batches[batch] = status
        waiting = self._watching.pop(batch, {})
        answered = sum(1 for cid in waiting if not isinstance(answers.get(cid, failure), Exception))
        log.info("batch %s %s: %d of %d requests answered", batch, status, answered, len(waiting))
        self._answer(waiting, answers, failure)

    def _answer(self, waiting: dict[str, list[asyncio.Future[dict[str, Any]]]],
                answers: dict[str, dict[str, Any] | Exception], failure: Exception) -> None:
        """Each waiting request gets its line, its line's error, or the batch's failure. A
        request left unanswered is forgotten by the store, so its retry goes in a new batch."""
        for cid, futures in waiting.items():
            answer = answers.get(cid, failure)
            if isinstance(answer, Exception) and self._store is not None:
                self._store.delete(cid, "batches")
            for future in futures:
                if future.done():
                    continue
                if isinstance(answer, Exception):
                    future.set_exception(answer)
                else:
                    future.set_result(answer)

    async def _status(self, batch: str) -> dict[str, Any]:
        return self._json(await self.client().get(f"/batches/{batch}"), f"read batch {batch}")

    async def _results(self, info: dict[str, Any]) -> dict[str, dict[str, Any] | Exception]:
        """custom_id -> the completion's JSON, or the error that line carries."""
        out: dict[str, dict[str, Any] | Exception] = {}
        for key in ("output_file_id", "error_file_id"):
            if not info.get(key):
                continue
            response = await self.client().get(f"/files/{info[key]}/content")
            if response.status_code >= 400:
                raise TransientJudgeError(f"HTTP {response.status_code} reading {key} of batch {info.get('id')}")
            for line in response.text.splitlines():
                if line.strip():
                    record = json.loads(line)
                    out[record["custom_id"]] = _answer(record)
        return out

    def _json(self, response: Any, what: str) -> dict[str, Any]:
        if response.status_code in (408, 409, 425, 429) or response.status_code >= 500:
            raise TransientJudgeError(f"HTTP {response.status_code} from {self.base_url} trying to {what}",
                                      status=response.status_code)
        if response.status_code >= 400:
            raise JudgeError(f"the batch API at {self.base_url} refused to {what}: HTTP {response.status_code} "
                             f"{redact(response.text)[:300]}")
        return response.json()


def _answer(record: dict[str, Any]) -> dict[str, Any] | Exception:
    """One output line: the completion, or an error to raise for that request."""
    response = record.get("response") or {}
    status = response.get("status_code", 200 if response.get("body") else None)
    if record.get("error") or status is None or status >= 400:
        detail = redact(str(record.get("error") or response.get("body")))[:300]  # redact, then cut
        if status is None or status == 429 or status >= 500:
            return TransientJudgeError(f"batch line {record.get('custom_id')}: HTTP {status}: {detail}", status=status)
        return JudgeError(f"batch line {record.get('custom_id')}: HTTP {status}: {detail}")
    return response["body"]
