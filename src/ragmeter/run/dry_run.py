"""What a run will cost, before it spends anything: `ragmeter run CONFIG --dry-run`.

The run goes through its real path (the same metrics, prompts, window fitting and cache
keys) with a judge that counts instead of calling: each prompt is rendered and counted
with the judge's own tokenizer where it has one (llama.cpp, Hugging Face), else estimated
at ~3 characters a token and labelled so. Replies already in the cache are subtracted;
nothing is written to it. Where a metric's later prompt holds an earlier reply (the
statements faithfulness extracts, then verifies), the dry run stands in a reply shaped
from the prompt's own few-shot example, so those prompts' lengths are estimates, counted
apart. Seconds come from the judge's measured speed (`ragmeter bench-judge`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from ragmeter.cache import Cache, OverlayCache, make_key
from ragmeter.embeddings.base import Embedder
from ragmeter.judges.base import Judge, JudgeReply, JudgeRequest
from ragmeter.judges.wrap import WrappedJudge
from ragmeter.prompts.prompt_set import PromptSet
from ragmeter.run.judge_speed import JudgeSpeed, load_speed
from ragmeter.text import seconds

if TYPE_CHECKING:
    from ragmeter.run.config import RunConfig
    from ragmeter.run.prepare import Prepared

APPROXIMATE = "estimate: ~3 characters per token (this judge has no local tokenizer)"
EXACT = "exact: the judge's own tokenizer"
SYNTHETIC_MIN = 8  # stand-in strings shorter than this are not traced into later prompts


class Price(BaseModel):
    """US dollars (or any currency) per million tokens."""

    prompt: float
    completion: float


class MetricEstimate(BaseModel):
    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    #: of prompt_tokens: prompts that hold a stand-in for an earlier reply
    estimated_prompt_tokens: int = 0
    max_completion_tokens: int = 0
    expected_completion_tokens: int | None = None
    embed_batches: int = 0
    seconds: float | None = None
    price: float | None = None
    max_price: float | None = None

    def add(self, other: MetricEstimate) -> None:
        for name in ("calls", "cache_hits", "prompt_tokens", "estimated_prompt_tokens", "max_completion_tokens",
                     "embed_batches"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for name in ("expected_completion_tokens", "seconds", "price", "max_price"):
            mine, theirs = getattr(self, name), getattr(other, name)
            setattr(self, name, None if mine is None or theirs is None else mine + theirs)


class Estimate(BaseModel):
    """A dry run's figures per metric and in total."""

    judge: str | None
    rows: int
    tokenizer: str
    concurrency: int
    metrics: dict[str, MetricEstimate]
    total: MetricEstimate
    #: where the seconds come from: the bench-judge record, or why there are none
    speed: str
    #: the language the run would judge in and where it came from (prompts/run_language.py)
    language: str | None = None


@dataclass
class Call:
    tag: str
    prompt_tokens: int
    max_tokens: int
    exact: bool


class CountingJudge(WrappedJudge):
    """Answers every request with a stand-in reply, counting the prompt instead of sending it."""

    def __init__(self, inner: Judge, prompts: PromptSet) -> None:
        super().__init__(inner)
        self.examples = {t.key: t.examples[0].output for t in prompts.templates() if t.examples}
        self.calls: list[Call] = []
        self._stand_ins: set[str] = set()

    async def check(self) -> None:
        """Nothing to check: the dry run calls nothing."""

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        tokens = self.inner.count_messages(request.messages) if request.prompt is None else \
            self.inner.count_tokens(request.prompt)
        row = request.messages[-1]["content"] if request.messages else (request.prompt or "")
        exact = not any(s in row for s in self._stand_ins)
        value = synthesize(request.schema or {}, self.examples.get(request.tag))
        self._stand_ins.update(_strings(value))
        self.calls.append(Call(request.tag, tokens, request.max_tokens or self.params.max_tokens, exact))
        return JudgeReply(json.dumps(value), prompt_tokens=tokens)

    async def aclose(self) -> None:
        """The real judge is closed by whoever built it."""


class NoEmbedder(Embedder):
    """Embeddings cost no judge tokens: the dry run counts batches and computes none."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.name = inner, inner.name

    def identity(self) -> dict[str, Any]:
        return self.inner.identity()

    async def embed(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]


async def dry_run(cfg: RunConfig, *, data: object = None, judge: Judge | None = None, embedder: Embedder | None = None,
                  metrics: list[Any] | None = None) -> Estimate:
    """The estimate for a run config, with no judge call and nothing written but the estimate
    itself (in the cache, where the real run finds it and reports it beside its actuals).
    The keywords are prepare()'s."""
    from ragmeter.cache import open_cache
    from ragmeter.run.prepare import prepare

    ready = prepare(cfg, data=data, judge=judge, embedder=embedder, metrics=metrics)
    cache = open_cache(cfg.cache)
    try:
        figures = await cost_of(ready, cache)
        cache.put(dry_run_key(ready.fingerprint), figures.model_dump(mode="json"), "estimates")
    finally:
        cache.close()
        for closer in (ready.judge, ready.embedder):
            if closer is not None:
                await closer.aclose()
    return figures


def dry_run_key(fingerprint: dict[str, Any]) -> str:
    """Where a dry run leaves its figures for the run it was for (reported beside the actuals)."""
    return make_key({"estimate-of-run": fingerprint})


async def cost_of(ready: Prepared, cache: Cache) -> Estimate:
    """Run `ready` (prepare.Prepared) through the counting judge, one metric at a time (so each
    call is the metric's), against a read-only view of `cache`."""
    from ragmeter.engine.local import run_metrics

    overlay = OverlayCache(cache)
    speed = load_speed(ready.judge.identity()) if ready.judge is not None else None
    price = Price.model_validate(ready.cfg.price_per_million) if ready.cfg.price_per_million else None
    embedder = NoEmbedder(ready.embedder) if ready.embedder is not None else None
    exact = True
    per_metric: dict[str, MetricEstimate] = {}
    for metric in ready.metrics:
        judge = CountingJudge(ready.judge, ready.prompts) if ready.judge is not None else None
        run = await run_metrics(ready.dataset, [metric], judge, embedder, overlay,
                                concurrency=ready.cfg.concurrency, progress=False, prompts=ready.prompts)
        exact = exact and (judge is None or judge.exact_tokens)
        stats = run.stats[metric.label]
        per_metric[metric.label] = _figures(judge.calls if judge else [], stats.cache_hits, stats.embed_calls,
                                            speed, price, _parallel(ready))
    total = MetricEstimate(expected_completion_tokens=0, seconds=0.0 if speed else None,
                           price=0.0 if price else None, max_price=0.0 if price else None)
    for figures in per_metric.values():
        total.add(figures)
    return Estimate(judge=ready.judge.describe() if ready.judge else None, rows=len(ready.dataset),
                    tokenizer=EXACT if exact else APPROXIMATE, concurrency=_parallel(ready),
                    metrics=per_metric, total=total, speed=_speed_note(speed, ready),
                    language=ready.language.line() if ready.language else None)


def _parallel(ready: Prepared) -> int:
    """Requests served at once: one for an in-process model (one model answers one request at
    a time), --concurrency for a server (assuming it keeps up)."""
    from ragmeter.judges.registry import is_serial

    return 1 if ready.judge is None or is_serial(ready.judge.backend) else ready.cfg.concurrency


def _figures(calls: list[Call], cache_hits: int, embed_batches: int, speed: JudgeSpeed | None,
             price: Price | None, parallel: int) -> MetricEstimate:
    prompt = sum(c.prompt_tokens for c in calls)
    most = sum(c.max_tokens for c in calls)
    expected = [min(c.max_tokens, speed.expected_completion(c.tag)) for c in calls] if speed else None
    out = MetricEstimate(calls=len(calls), cache_hits=cache_hits, prompt_tokens=prompt,
                         estimated_prompt_tokens=sum(c.prompt_tokens for c in calls if not c.exact),
                         max_completion_tokens=most, embed_batches=embed_batches)
    if speed is not None and expected is not None:
        out.expected_completion_tokens = round(sum(expected))
        out.seconds = sum(speed.seconds(c.prompt_tokens, e, c.tag) for c, e in zip(calls, expected)) / parallel
    if price is not None:
        completion = out.expected_completion_tokens if out.expected_completion_tokens is not None else most
        out.price = (prompt * price.prompt + completion * price.completion) / 1e6
        out.max_price = (prompt * price.prompt + most * price.completion) / 1e6
    return out


def _speed_note(speed: JudgeSpeed | None, ready: Prepared) -> str:
    if ready.judge is None:
        return "no judge calls"
    if speed is None:
        spec = ready.cfg.judge if isinstance(ready.cfg.judge, str) else "SPEC"
        data = ready.cfg.dataset if ready.cfg.dataset != "<in-memory>" else "DATA"
        return f"no measured speed for this judge: run `ragmeter bench-judge {spec} {data}` to get seconds"
    rates = (f"prompt at {_rate(speed.prompt_tokens_per_second)}, reply at "
             f"{_rate(speed.completion_tokens_per_second)}")
    if speed.source == "shipped":
        return f"{speed.said()}; {rates}; `ragmeter bench-judge` measures this machine's"
    return f"{speed.said()} over {speed.calls} calls: {seconds(speed.overhead_seconds)} per call, {rates}"


def _rate(value: float | None) -> str:
    return "no measurable cost" if value is None else f"{value:,.0f} tokens/s"


def synthesize(schema: dict[str, Any], example: object = None, root: dict[str, Any] | None = None) -> Any:
    """A value that fits `schema`, shaped like `example` (the prompt's few-shot reply) where
    it can be: its strings, its labels and as many list items as the schema allows."""
    root = root or schema
    if "$ref" in schema:
        schema = root.get("$defs", {}).get(schema["$ref"].rsplit("/", 1)[-1], {})
    if "anyOf" in schema:
        options = [o for o in schema["anyOf"] if o.get("type") != "null"] or schema["anyOf"]
        return synthesize(options[0], example, root)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return example if example in schema["enum"] else schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        given = example if isinstance(example, dict) else {}
        return {k: synthesize(v, given.get(k), root) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        items = example if isinstance(example, list) else []
        count = max(schema.get("minItems", 0), min(len(items) or 1, schema.get("maxItems", len(items) or 1)))
        return [synthesize(schema.get("items", {}), items[i % len(items)] if items else None, root)
                for i in range(count)]
    if kind == "string":
        text = example if isinstance(example, str) else "a stand-in for the judge's reply"
        return text[: schema["maxLength"]] if "maxLength" in schema else text
    if kind in ("integer", "number"):
        low = schema.get("minimum", 0)
        value = example if isinstance(example, (int, float)) and not isinstance(example, bool) else low
        return min(max(value, low), schema.get("maximum", value))
    if kind == "boolean":
        return example if isinstance(example, bool) else False
    return example


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value] if len(value) >= SYNTHETIC_MIN else []
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []
