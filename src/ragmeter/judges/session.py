"""The one path from a metric to a judge: fit, cache, retry, validate, re-ask once, count.

Metrics call `JudgeSession.ask`; backends never see the cache and metrics never see the
backend. Unparseable and truncated replies are counted per metric. One verb, "ask", and
the steps of a call named by what they add: `_uncached` (a cache miss), `_fitted` (the
prompt fitted to the window), `_parsed` (validated, re-asked once), `_sent` (one request
with its retries, counted). Reply schemas and parsing: judges/replies.py.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from ragmeter.accounting import BusyClock, MetricStats
from ragmeter.cache import KEY_VERSION, Cache
from ragmeter.errors import FormatRejected, UnparseableReply
from ragmeter.faults import FaultLog
from ragmeter.judges.base import ClaimEvidence, Judge, JudgeReply, JudgeRequest, Message, Prompt
from ragmeter.judges.label_probs import align
from ragmeter.judges.reasons import SERVES, mode_for, unwritten
from ragmeter.judges.replies import NoReply, output_schema, parse_reply, redacted, schema_json, schema_labels
from ragmeter.judges.retry import RetryPolicy, call_with_retry
from ragmeter.judges.window import fit_to_window
from ragmeter.text import canonical_json, secret_values

M = TypeVar("M", bound=BaseModel)


@dataclass
class Answer:
    """A validated reply, whether its inputs had to be shortened to fit the window, and the
    label probabilities the backend gave: JSON path ("verdicts.0.verdict") -> {label: p}
    (empty when it gave none)."""

    parsed: Any
    truncated: bool
    cached: bool
    probs: dict[str, dict[str, float]]
    #: Per claim, token PMI given the evidence (judges/llamacpp/token_evidence.py), where it was read.
    evidence: list[dict[str, Any] | None] | None = None


class JudgeSession:
    def __init__(self, judge: Judge, cache: Cache, policy: RetryPolicy | None = None,
                 concurrency: int = 1, clock: BusyClock | None = None, faults: FaultLog | None = None) -> None:
        self.judge, self.cache = judge, cache
        self.faults = faults or FaultLog()
        self.clock = clock or BusyClock()
        self.policy = policy or RetryPolicy()
        self._slots = asyncio.Semaphore(concurrency)
        self.judge_seconds = 0.0
        #: Set when the server refuses structured output: from then on the schema is written
        #: into every prompt instead. The judge's identity (the cache key) does not change.
        self.format_rejected = False
        #: Replies being computed, by cache key: an identical request asked meanwhile (two rows
        #: with the same context, say) waits for that reply instead of calling the judge again.
        self._inflight: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._identity_json: str | None = None  # the judge's identity never changes mid-run
        self._calibration = judge.calibration()  # fixed at construction, like the identity
        #: the last request the judge answered: what probe() sends again
        self.last_answered: JudgeRequest | None = None
        self._secrets = secret_values()  # what every reply is redacted of, read once, not per call
        #: calls, tokens and seconds by prompt tag, as the dry run counts them (run/judge_speed.py: learn)
        self.by_tag: dict[str, MetricStats] = {}

    async def ask(self, prompt: Prompt, inputs: Mapping[str, object], output: type[M],
                  stats: MetricStats, max_tokens: int | None = None, evidence: tuple[str, str] | None = None) -> Answer:
        """`evidence`: (claims field, evidence field) whose token PMI the metric wants recorded."""
        schema = output_schema(output)
        max_tokens = max_tokens or self.judge.params.max_tokens
        reads = self._reads(prompt, evidence)
        # The key holds what determines the messages (prompt version, inputs, schema, the
        # judge's identity and window), so a cache hit needs no tokenizer and no model load.
        lines = self._labels_by(prompt) + ((("token_evidence", *reads),) if reads else ())
        keys = [self._key(f"{prompt.key}@{prompt.version}", inputs, output, max_tokens, mode, lines)
                for mode in SERVES[mode_for(self.judge.reasons, schema)]]
        key = keys[0]
        hit = next((found for k in keys if (found := self.cache.get(k)) is not None), None)
        if hit is None and key in self._inflight:
            hit = await asyncio.shield(self._inflight[key])
        if hit is not None:
            stats.cache_hits += 1
            stats.truncated += int(hit["truncated"])
            return Answer(output.model_validate(unwritten(hit["parsed"], self.judge.reasons)), hit["truncated"], True,
                          self._calibrated(prompt, hit["probs"], hit.get("evidence")), hit.get("evidence"))
        pending: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._inflight[key] = pending
        try:
            answer, record = await self._uncached(prompt, inputs, output, schema, max_tokens, stats, key, reads)
        except BaseException as exc:
            pending.set_exception(exc if isinstance(exc, Exception) else asyncio.CancelledError())
            pending.exception()  # retrieved here, so an error nobody else awaited is not logged again
            raise
        finally:
            del self._inflight[key]
        pending.set_result(record)
        parsed = output.model_validate(unwritten(record["parsed"], self.judge.reasons)) \
            if self.judge.reasons != "all" else answer.parsed
        return Answer(parsed, answer.truncated, False, self._calibrated(prompt, answer.probs, answer.evidence),
                      answer.evidence)

    async def read_tokens(self, prompt: Prompt, inputs: Mapping[str, object], reads: tuple[str, str],
                          stats: MetricStats) -> tuple[dict[str, object] | None, bool, Any]:
        """Token evidence alone, no reply (judges/llamacpp/token_evidence.py): the PMI of the `reads[0]`
        text given the `reads[1]` field, cached like a reply; with whether the prompt was cut
        to fit and the judge's line for this prompt version (or None). Only for judges that
        read prompt tokens (`judge.reads_tokens`)."""
        key = self._key(f"{prompt.key}@{prompt.version}", inputs, NoReply, 1, "all", (("token_evidence", *reads),))
        hit = self.cache.get(key)
        if hit is not None:
            stats.cache_hits += 1
            return (hit["evidence"] or [None])[0], hit["truncated"], self._rule(prompt)
        with self.clock.busy():
            messages, truncated = fit_to_window(prompt, inputs, self.judge, {}, 1)
            evidence = self._evidence(prompt, inputs, None, True, reads)
            reply = await self._sent(JudgeRequest(messages, None, 1, prompt.key, self.policy.timeout,
                                                  evidence=evidence), stats)
        self.cache.put(key, {"parsed": {}, "truncated": truncated, "probs": {}, "evidence": reply.evidence})
        return (reply.evidence or [None])[0], truncated, self._rule(prompt)

    def _rule(self, prompt: Prompt) -> Any:
        """The judge's Platt line for this exact prompt version, or None (judges/calibration.py)."""
        from ragmeter.judges.calibration import line_for

        return line_for(self._calibration, prompt.key, prompt.version)

    def _lines(self, prompt: Prompt) -> tuple[tuple[str, float, float], ...]:
        """That line as the backend writes labels by it."""
        rule = self._rule(prompt)
        return () if rule is None else ((rule.field, rule.slope, rule.intercept),)

    def _labels_by(self, prompt: Prompt) -> tuple[tuple[Any, ...], ...]:
        """What the labels are written by, for the cache key: the line, and the combiner's
        weights where the judge reads token evidence (they move each claim's line)."""
        rule = self._rule(prompt)
        combined = rule.combiner_request() if rule is not None and self.judge.reads_tokens else None
        return self._lines(prompt) + ((combined,) if combined else ())

    def _reads(self, prompt: Prompt, asked: tuple[str, str] | None) -> tuple[str, str] | None:
        """(claims field, evidence field) whose token evidence the judge reads for this request:
        where the metric asks for it or a combiner for this prompt version needs it, and the
        judge can read prompt tokens."""
        if not self.judge.reads_tokens:
            return None
        rule = self._rule(prompt)
        if rule is not None and rule.combiner is not None:
            return rule.combiner["claims"], rule.combiner["evidence"]
        return asked

    def _evidence(self, prompt: Prompt, inputs: Mapping[str, object], schema: dict[str, object] | None,
                  structured: bool, reads: tuple[str, str] | None) -> ClaimEvidence | None:
        """What the backend needs to read the claims' token evidence: the claims, and the
        messages with the evidence field empty."""
        if reads is None:
            return None
        claims, held = reads
        with_schema = None if self.judge.constrained and structured else schema
        bare = prompt.messages({**inputs, held: [] if isinstance(inputs[held], list) else ""}, with_schema, schema)
        found = inputs[claims]
        rule = self._rule(prompt)
        return ClaimEvidence(tuple(found) if isinstance(found, list) else (str(found),), tuple(bare),
                             rule.combiner_request() if rule is not None else None)

    def _calibrated(self, prompt: Prompt, probs: dict[str, dict[str, float]],
                    evidence: Sequence[Mapping[str, float] | None] | None = None) -> dict[str, dict[str, float]]:
        """The label probabilities through the judge's Platt line for this exact prompt version
        (with the claims' token evidence where a combiner was fitted: judges/calibration.py);
        the cache keeps them raw."""
        rule = self._rule(prompt)
        if rule is None or not probs:
            return probs
        from ragmeter.judges.calibration import calibrate

        return calibrate(probs, rule, evidence if self.judge.reads_tokens else None)

    def _key(self, prompt: str, inputs: Mapping[str, object], output: type[BaseModel], max_tokens: int,
              reasons: str = "all", lines: tuple[tuple[Any, ...], ...] = ()) -> str:
        """make_key({"judge", "prompt", "inputs", "schema", "max_tokens"}), the same string,
        with the judge's identity and the schema serialised once instead of per call; a reply
        written with fewer reasons (`reasons`), or with labels written by a Platt line
        (`lines`: the text after the label follows it), has a key of its own."""
        if self._identity_json is None:
            self._identity_json = canonical_json(self.judge.identity())
        written = "" if reasons == "all" else f',"reasons":"{reasons}"'
        by = f',"labels_by":{canonical_json([list(line) for line in lines])}' if lines else ""
        text = (f'{{"inputs":{canonical_json(inputs)},"judge":{self._identity_json}{by},"max_tokens":{max_tokens},'
                f'"prompt":{canonical_json(prompt)}{written},"schema":{schema_json(output)}}}')
        return f"{KEY_VERSION}:{hashlib.sha256(text.encode()).hexdigest()}"

    async def _uncached(self, prompt: Prompt, inputs: Mapping[str, object], output: type[M],
                       schema: dict[str, object], max_tokens: int, stats: MetricStats,
                       key: str, reads: tuple[str, str] | None = None) -> tuple[Answer, dict[str, object]]:
        """A reply from the judge, and the record the cache keeps of it."""
        with self.clock.busy():
            try:
                parsed, reply, truncated = await self._fitted(prompt, inputs, schema, output, max_tokens, stats,
                                                                   reads)
            except FormatRejected:
                self.format_rejected = True
                self.faults.add("structured_output_refused")
                parsed, reply, truncated = await self._fitted(prompt, inputs, schema, output, max_tokens, stats,
                                                                   reads)
            stats.truncated += int(truncated)
        dumped = parsed.model_dump(mode="json")
        probs = align(dumped, reply.labels, schema_labels(output)) if reply.labels else {}
        record = {"parsed": dumped, "truncated": truncated, "probs": probs,
                  **({"evidence": reply.evidence} if reply.evidence is not None else {})}
        self.cache.put(key, record)
        return Answer(parsed, truncated, False, probs, reply.evidence), record

    async def _fitted(self, prompt: Prompt, inputs: Mapping[str, object], schema: dict[str, object],
                           output: type[M], max_tokens: int, stats: MetricStats,
                           reads: tuple[str, str] | None = None) -> tuple[M, JudgeReply, bool]:
        structured = not self.format_rejected
        messages, truncated = fit_to_window(prompt, inputs, self.judge, schema, max_tokens, structured)
        parsed, reply = await self._parsed(messages, schema, output, max_tokens, stats, prompt.key, structured,
                                              self._lines(prompt),
                                              self._evidence(prompt, inputs, schema, structured, reads),
                                              getattr(prompt, "row_first", False))
        return parsed, reply, truncated

    async def _parsed(self, messages: list[Message], schema: dict[str, object], output: type[M],
                         max_tokens: int, stats: MetricStats, tag: str,
                         structured: bool = True,
                         lines: tuple[tuple[str, float, float], ...] = (),
                         evidence: ClaimEvidence | None = None, row_prefix: bool = False) -> tuple[M, JudgeReply]:
        def request(msgs: list[Message]) -> JudgeRequest:
            return JudgeRequest(msgs, schema, max_tokens, tag, self.policy.timeout, structured=structured,
                                label_lines=lines, evidence=evidence if msgs is messages else None,
                                row_prefix=row_prefix)

        reply = await self._sent(request(messages), stats)
        try:
            return parse_reply(reply, output), reply
        except UnparseableReply as first:
            stats.reasks += 1
            self.faults.add("reasks")
            retry = messages + [{"role": "assistant", "content": reply.text},
                                {"role": "user", "content": f"That reply was invalid: {first}. Reply again "
                                                            "with one JSON object matching the schema."}]
            second = await self._sent(request(retry), stats)
            try:
                return parse_reply(second, output), second
            except UnparseableReply:
                stats.unparseable += 1
                self.faults.add("unparseable")
                raise

    async def probe(self) -> bool:
        """Whether the judge answers the last request it answered in this session, sent again
        (no cache) with the retries any call gets: failures around it are then the rows', not
        the judge's. One try alone said "down" for a judge that fails one call in five."""
        if self.last_answered is None:
            return False
        request = self.last_answered
        try:
            async with self._slots:
                await call_with_retry(lambda: self.judge.complete(request), self.policy,
                                      f"judge {self.judge.describe()}", self.faults)
        except Exception:  # noqa: BLE001 - any failure of the judge is a no
            return False
        return True

    async def _sent(self, request: JudgeRequest, stats: MetricStats) -> JudgeReply:
        async with self._slots:
            reply = await call_with_retry(lambda: self.judge.complete(request), self.policy,
                                          f"judge {self.judge.describe()}", self.faults)
        reply = redacted(reply, self._secrets)
        self.last_answered = request
        for counted in (stats, self.by_tag.setdefault(request.tag, MetricStats())):  # by metric, by prompt
            counted.judge_calls += 1
            counted.prompt_tokens += reply.prompt_tokens
            counted.completion_tokens += reply.completion_tokens
            counted.judge_seconds += reply.seconds
        self.judge_seconds += reply.seconds
        return reply
