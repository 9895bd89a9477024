"""A judge's measured speed (`ragmeter bench-judge`), which the dry run turns into seconds.

Each call of a short real run is timed; seconds = overhead + prompt/prefill rate +
completion/decode rate is fitted to them by least squares (terms that come out negative
are dropped and the rest refitted). The mean reply length per prompt is kept too: a dry
run knows each prompt's length exactly but not its reply's. Records live beside the cache
(`judge-speed.json`), keyed by the judge's identity. The bundled judges ship a record
measured on a 2-core CPU (`judge_speeds.json`), used until bench-judge measures this machine.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from ragmeter.accounting import MetricStats
from ragmeter.judges.base import Judge, JudgeReply, JudgeRequest
from ragmeter.judges.records import judge_key, read_records, record_file, write_record
from ragmeter.judges.wrap import WrappedJudge


class CallTiming(BaseModel):
    tag: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float


class JudgeSpeed(BaseModel):
    """Throughput of one judge at concurrency 1, as measured."""

    judge: str
    measured_at: str
    calls: int
    overhead_seconds: float
    prompt_tokens_per_second: float | None
    completion_tokens_per_second: float | None
    #: mean completion tokens per prompt ("faithfulness.statements"), and over all calls
    completion_tokens: dict[str, float]
    mean_completion_tokens: float
    #: prompt tokens per second by prompt ("context_relevance.rating1"): a prompt whose shared
    #: prefix (instruction and examples, evaluated once) is most of it reads faster per token
    prompt_rate_by_tag: dict[str, float] = {}
    #: "bench-judge" (measured on this machine) or "shipped" (a bundled judge's default)
    source: str = "bench-judge"
    #: where a shipped record was measured
    machine: str | None = None
    #: how much slower (above 1) or faster this machine ran the judge in its recent runs than
    #: the fitted rates say: a loaded machine, or one unlike the shipped record's (learn())
    pace: float = Field(default=1.0, gt=0, allow_inf_nan=False)
    #: runs the pace was learned from
    learned_runs: int = 0

    def said(self) -> str:
        """Which speed and pace an estimate uses, as every estimate says it."""
        where = f"the shipped speed ({self.machine})" if self.source == "shipped" else \
            f"the speed bench-judge measured here ({self.measured_at})"
        if not self.learned_runs:
            return where
        return f"{where} at the pace this machine showed in {self.learned_runs} run(s), {self.pace:.2f}x " \
               "(learned on the judge's share of the machine, so a run beside other work does not count as slow)"

    def expected_completion(self, tag: str) -> float:
        return self.completion_tokens.get(tag, self.mean_completion_tokens)

    def seconds(self, prompt_tokens: float, completion_tokens: float, tag: str | None = None) -> float:
        """A call's seconds: its prompt at that prompt's own rate where measured (its per-call
        overhead folded in), else the overall rate plus the overhead; its reply at the decode
        rate; times the pace this machine has shown in its recent runs."""
        return self.pace * self.fitted_seconds(prompt_tokens, completion_tokens, tag)

    def fitted_seconds(self, prompt_tokens: float, completion_tokens: float, tag: str | None = None) -> float:
        """seconds() at the fitted rates alone."""
        write = self.completion_tokens_per_second
        reply = completion_tokens / write if write else 0.0
        if tag in self.prompt_rate_by_tag:
            return prompt_tokens / self.prompt_rate_by_tag[tag] + reply
        rate = self.prompt_tokens_per_second
        return self.overhead_seconds + (prompt_tokens / rate if rate else 0.0) + reply


def fit(judge: str, calls: list[CallTiming]) -> JudgeSpeed:
    """Least squares of seconds on (1, prompt tokens, completion tokens), non-negative."""
    import numpy as np

    if not calls:
        raise ValueError("no judge call was timed")
    x = np.array([[1.0, c.prompt_tokens, c.completion_tokens] for c in calls])
    y = np.array([c.seconds for c in calls])
    keep = [0, 1, 2]
    coef = np.zeros(3)
    while keep:
        solution, *_ = np.linalg.lstsq(x[:, keep], y, rcond=None)
        if (solution >= 0).all():
            coef[keep] = solution
            break
        keep = [k for k, v in zip(keep, solution) if v >= 0]
    by_tag: dict[str, list[int]] = defaultdict(list)
    for c in calls:
        by_tag[c.tag].append(c.completion_tokens)
    rates: dict[str, float] = {}
    write = 1 / coef[2] if coef[2] > 0 else None
    for tag in by_tag:  # each prompt's own prefill rate (overhead folded in), the decode rate taken out
        mine = [c for c in calls if c.tag == tag]
        reading = sum(c.seconds - (c.completion_tokens / write if write else 0.0) for c in mine)
        tokens = sum(c.prompt_tokens for c in mine)
        if reading > 0 and tokens > 0:
            rates[tag] = tokens / reading
    return JudgeSpeed(judge=judge, measured_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                      calls=len(calls), overhead_seconds=float(coef[0]),
                      prompt_tokens_per_second=1 / coef[1] if coef[1] > 0 else None,
                      completion_tokens_per_second=1 / coef[2] if coef[2] > 0 else None,
                      completion_tokens={t: sum(v) / len(v) for t, v in sorted(by_tag.items())},
                      prompt_rate_by_tag={t: round(r, 3) for t, r in sorted(rates.items())},
                      mean_completion_tokens=sum(c.completion_tokens for c in calls) / len(calls))


def speed_file() -> Path:
    return record_file("judge-speed.json", "RAGMETER_JUDGE_SPEED")


def save_speed(identity: dict[str, object], speed: JudgeSpeed) -> Path:
    """Store (replacing an earlier record of the same judge), atomically."""
    return write_record(speed_file(), judge_key(identity), speed.model_dump(mode="json"))


def load_speed(identity: dict[str, object]) -> JudgeSpeed | None:
    """This machine's bench-judge record for the judge, else a bundled judge's shipped one. A
    record that is not a speed (a pace written as text, say) is ignored with one warning, as a
    damaged file is (judges/records.py): the estimate falls back, the run goes on."""
    path = speed_file()
    record = read_records(path).get(judge_key(identity))
    if record:
        try:
            return JudgeSpeed.model_validate(record)
        except ValidationError as exc:
            _warn_once(f"{path}: this judge's record is not a speed ({_first_problem(exc)}): ignored; "
                       "`ragmeter bench-judge` measures it again")
    return shipped_speed(identity)


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    import logging

    if message not in _warned:
        _warned.add(message)
        logging.getLogger("ragmeter").warning(message)


def _first_problem(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(p) for p in error["loc"]) or "record"
    return f"{where}: {error['msg']}"


#: calls a run must have made before its pace is learned: fewer say little
LEARN_FROM_CALLS = 5
#: weight of the newest run in the learned pace (an exponential average over runs)
LEARN_WEIGHT = 0.5


def learn(identity: dict[str, object], by_tag: Mapping[str, MetricStats], share: float | None = None
          ) -> JudgeSpeed | None:
    """After a run of a judge that answers one call at a time (in-process): the seconds its
    calls took (`by_tag`: calls, tokens and seconds by prompt tag, as JudgeSession.by_tag
    keeps them) against what the record predicted for them, prompt by prompt as the dry run
    predicts, folded into the record's pace and stored, so that the next estimate is of this
    machine (a loaded 2-core machine prefilled at 17-24 tokens/s against the shipped record's
    331: estimates of 16 s for 3m35s). `share`: the share of the machine the calls had
    (judges/base.py machine_share); their seconds count as a quiet machine would have taken
    them, so one run beside other work does not double the next quiet estimate (issue 76).
    Returns the updated record, or None when there is none or the run made too few calls."""
    import math

    speed = load_speed(identity)
    made = {tag: s for tag, s in by_tag.items() if s.judge_calls and s.judge_seconds > 0}
    if speed is None or sum(s.judge_calls for s in made.values()) < LEARN_FROM_CALLS:
        return None
    predicted = sum(s.judge_calls * speed.fitted_seconds(s.prompt_tokens / s.judge_calls,
                                                         s.completion_tokens / s.judge_calls, tag)
                    for tag, s in made.items())
    actual = sum(s.judge_seconds for s in made.values()) * (share if share else 1.0)
    if predicted <= 0:
        return None
    ratio = actual / predicted
    pace = math.exp((1 - LEARN_WEIGHT) * math.log(speed.pace) + LEARN_WEIGHT * math.log(ratio)) \
        if speed.learned_runs else ratio
    learned = speed.model_copy(update={"pace": round(pace, 4), "learned_runs": speed.learned_runs + 1})
    save_speed(identity, learned)
    return learned


def learn_from(judge: Judge, by_tag: Mapping[str, MetricStats]) -> JudgeSpeed | None:
    """learn() for a judge that answers one call at a time; a server's call seconds include
    the waits of the requests beside it, which are not its speed."""
    from ragmeter.judges.registry import is_serial

    return learn(judge.identity(), by_tag, judge.machine_share()) if is_serial(judge.backend) else None


def shipped_speed(identity: dict[str, object]) -> JudgeSpeed | None:
    """The shipped record of a bundled judge run in-process (identity `model`: NAME==VERSION)."""
    from ragmeter.judges.registry import backends

    settings = backends().get(str(identity.get("backend")))
    if settings is None or not settings.bundled_models:
        return None
    record = _shipped().get(str(identity.get("model", "")).split("==")[0])
    return JudgeSpeed.model_validate(record) if record else None


@cache
def _shipped() -> dict[str, object]:
    """judge_speeds.json, read once per process (the dry run, the up-front estimate and the
    test set's ETA each ask)."""
    import json
    from importlib import resources

    return json.loads(resources.files("ragmeter.run").joinpath("judge_speeds.json").read_text(encoding="utf-8"))


async def bench_judge(spec: Any, data: Any, rows: int = 5, metrics: list[Any] | None = None,
                      progress: bool | None = None) -> tuple[JudgeSpeed, Path]:
    """Time every call of a short uncached run of `metrics` (default: the six core ones) on
    the first `rows` rows of `data`, fit the speed and store it for this judge (`spec`: a
    judge spec or a Judge)."""
    from ragmeter.cache import NullCache
    from ragmeter.engine.local import run_metrics
    from ragmeter.run.config import RunConfig
    from ragmeter.run.prepare import prepare

    given = spec if isinstance(spec, Judge) else None
    cfg = RunConfig(dataset=str(data) if isinstance(data, (str, Path)) else "<in-memory>",
                    judge=given.describe() if given else spec, metrics=metrics, limit=rows, cache=False)
    ready = prepare(cfg, data=data, judge=given)
    if ready.judge is None:
        raise ValueError("none of these metrics calls a judge: nothing to measure")
    timed = TimedJudge(ready.judge)
    try:
        await run_metrics(ready.dataset, ready.metrics, timed, ready.embedder, NullCache(), progress=progress,
                          prompts=ready.prompts)
    finally:
        for closer in (ready.judge, ready.embedder):
            if closer is not None:
                await closer.aclose()
    speed = fit(ready.judge.describe(), timed.calls)
    return speed, save_speed(ready.judge.identity(), speed)


class TimedJudge(WrappedJudge):
    """Passes every request on and keeps its tokens and seconds."""

    def __init__(self, inner: Judge) -> None:
        super().__init__(inner)
        self.calls: list[CallTiming] = []

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        reply = await self.inner.complete(request)
        self.calls.append(CallTiming(tag=request.tag, prompt_tokens=reply.prompt_tokens,
                                     completion_tokens=reply.completion_tokens, seconds=reply.seconds))
        return reply
