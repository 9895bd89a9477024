"""Few-shot examples from labelled rows, for `ragmeter align` (align.py).

A labelled row becomes an example of one of the metric's judgment prompts (the prompts a
metric names in `aligned_prompts`): the inputs the judge was sent for that row, and the
reply the person's label implies: every label field of the reply at the top of its scale
for a 1, at the bottom for a 0. A 0 on a row whose reply holds several items (statements,
contexts) is ambiguous, since the label does not say which item failed: such a row is
an example only when the judge already said 0 for some item.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from ragmeter.accounting import MetricStats
from ragmeter.errors import JudgeUnavailable, UnparseableReply
from ragmeter.judges.base import Prompt
from ragmeter.judges.label_probs import label_fields
from ragmeter.judges.replies import output_schema
from ragmeter.judges.session import JudgeSession
from ragmeter.metrics.base import Metric, MetricContext, Unscorable
from ragmeter.prompts.prompt_set import PromptSet
from ragmeter.prompts.template import Example, dump_output, format_inputs
from ragmeter.samples import Sample


@dataclass
class Call:
    """One judgment prompt as the judge was sent it for a row, and its parsed reply."""

    prompt: str
    inputs: dict[str, object]
    reply: dict[str, object]


@dataclass
class RowScore:
    """A row's score under one prompt set, and the judgment calls that made it."""

    value: float | None
    calls: list[Call] = field(default_factory=list)


class RecordingContext(MetricContext):
    """A MetricContext that keeps each judgment prompt's inputs and reply (the rest as usual)."""

    def __init__(self, session: JudgeSession, prompts: PromptSet, watched: tuple[str, ...],
                 stats: MetricStats) -> None:
        super().__init__(session, None, stats, prompts)
        self.watched = watched
        self.calls: list[Call] = []

    async def answer(self, prompt: Prompt, inputs: Mapping[str, object], output: type[BaseModel],
                     max_tokens: int | None = None, evidence: tuple[str, str] | None = None) -> Any:
        found = await super().answer(prompt, inputs, output, max_tokens, evidence)
        name = prompt.key.rpartition(".")[2]  # a template's or its row-first reading's (prompts/row_first.py)
        if name in self.watched:
            self.calls.append(Call(name, dict(inputs), found.parsed.model_dump(mode="json")))
        return found


async def score_rows(metric: Metric, samples: Sequence[Sample], prompts: PromptSet, session: JudgeSession,
                     stats: MetricStats) -> list[RowScore]:
    """Each sample's score with `prompts` (cached like any run: the run's own calls are hits).
    A flaky judge is a run's (engine/failed_calls.py): a row whose call failed its retries is
    scored again once the others are done, unscored if it fails again; a reply that does not
    match its schema after the session asked again leaves its row unscored, as in a run; only
    a judge that is down stops the work."""
    from ragmeter.engine.failed_calls import FailedCalls

    failures = FailedCalls(probe=session.probe)

    async def one(sample: Sample, last_try: bool = False) -> RowScore | None:
        ctx = RecordingContext(session, prompts, metric.aligned_prompts, stats)
        try:
            scored = RowScore((await metric.score(sample, ctx)).value, ctx.calls)
        except Unscorable:
            return RowScore(None, ctx.calls)
        except UnparseableReply:  # asked again by the session and still wrong: unscored, as in a run
            failures.answered()  # it answered, badly: not down
            return RowScore(None, ctx.calls)
        except JudgeUnavailable as exc:
            await failures.failed_call(exc)  # raises when the judge is down
            return RowScore(None, ctx.calls) if last_try else None
        failures.answered()
        return scored

    first = list(await asyncio.gather(*(one(s) for s in samples)))
    return [row if row is not None else await one(sample, last_try=True) or RowScore(None, [])
            for row, sample in zip(first, samples)]


def example_of(metric: Metric, call: Call, label: float) -> Example | None:
    """The example a labelled call makes (module doc), or None where the label is ambiguous."""
    schema = output_schema(metric.output_model(call.prompt, call.inputs))
    levels = {name: sorted(json.loads(t) for t in texts) for name, texts in label_fields(schema).items()}
    slots = _label_slots(call.reply, levels)
    if not slots:
        return None
    wanted = {key: _nearest(levels[key], label) for _, key, _ in slots}
    if len(slots) > 1 and all(wanted[key] == levels[key][0] for key in wanted):
        named = any(value == levels[key][0] for _, key, value in slots)
        return _valid(metric, call, call.reply) if named else None
    reply = json.loads(json.dumps(call.reply))
    for node, key, value in _label_slots(reply, levels):
        if value != wanted[key]:
            node[key] = wanted[key]
            if isinstance(node.get("reason"), str):
                node["reason"] = ""  # the judge's reason argued for the other label
    return _valid(metric, call, reply)


def _nearest(scale: list[Any], label: float) -> Any:
    """The level of `scale` a 0-1 label stands for (1 -> the top, 0 -> the bottom)."""
    return min(scale, key=lambda level: abs(level - (scale[0] + label * (scale[-1] - scale[0]))))


def _label_slots(node: object, levels: Mapping[str, list[Any]]) -> list[tuple[dict[str, Any], str, Any]]:
    """(object, key, value) for every label field in a reply, in reading order."""
    found: list[tuple[dict[str, Any], str, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in levels and not isinstance(value, (dict, list)):
                found.append((node, key, value))
            else:
                found += _label_slots(value, levels)
    elif isinstance(node, list):
        for item in node:
            found += _label_slots(item, levels)
    return found


def _valid(metric: Metric, call: Call, reply: dict[str, object]) -> Example | None:
    try:
        metric.output_model(call.prompt, call.inputs).model_validate(reply)
    except ValidationError:
        return None
    return Example(input=call.inputs, output=reply)


def example_tokens(example: Example, fields: tuple[str, ...], count: Any) -> int:
    """The example's size in the judge's tokens (`count` is the judge's count_tokens)."""
    return int(count(format_inputs(fields, example.input) + "\n" + dump_output(example.output)))


def choose(candidates: Mapping[str, float], labels: Mapping[str, float], size: Mapping[str, int], k: int,
           budget: int, seed: int) -> list[str]:
    """Up to `k` row ids among `candidates` (id -> how far the judge's score was from the
    label): the largest disagreements first, as many of each label as there are, their sizes
    within `budget` tokens; in the prompt, the labels alternate."""
    rng = random.Random(seed)
    by_label: dict[bool, list[str]] = {True: [], False: []}
    for row in sorted(candidates, key=lambda r: (-candidates[r], rng.random())):
        by_label[labels[row] >= 0.5].append(row)
    chosen: list[str] = []
    used = 0
    turn = rng.random() < 0.5
    while len(chosen) < k and (by_label[True] or by_label[False]):
        pool = by_label[turn] or by_label[not turn]
        row = pool.pop(0)
        if used + size[row] <= budget:
            chosen.append(row)
            used += size[row]
        turn = not turn
    return chosen
