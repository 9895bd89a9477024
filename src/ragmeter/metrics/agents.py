"""Multi-turn and agent metrics over `messages` (Ragas MultiTurnSample).

- agent_goal_accuracy: the judge states the user's goal and the end state the conversation
  reached, then compares the end state with the reference outcome (or, without reference,
  with the goal it inferred). 1/0.
- tool_call_accuracy (no judge): reference calls paired with the agent's calls, by position
  (order-sensitive, default) or by name (not); a pair scores the share of the reference's
  arguments the call got equal; the sum is divided by max(#reference, #made), so missing
  and extra calls both cost. Ragas instead multiplies by an all-or-nothing name-sequence
  match.
- topic_adherence: topics of the conversation, whether the AI answered each, and whether
  each is a reference topic; precision = answered on-reference / answered, recall =
  answered on-reference / on-reference; F1.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from ragmeter.metrics.base import Metric, MetricContext, Score, Unscorable, count
from ragmeter.metrics.factual_correctness import f_beta
from ragmeter.metrics.schemas import ShortText, verdicts
from ragmeter.samples import Sample, ToolCall, Turn

SPEAKER = {"human": "Human", "ai": "AI", "tool": "Tool"}


def transcript(messages: list[Turn]) -> str:
    lines = []
    for turn in messages:
        if turn.content.strip():
            lines.append(f"{SPEAKER[turn.type]}: {' '.join(turn.content.split())}")
        for call in turn.tool_calls:
            args = ", ".join(f"{k}={v}" for k, v in call.args.items())
            lines.append(f"AI: called tool {call.name}({args})")
    return "\n".join(lines)


class Workflow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    user_goal: str = Field(max_length=200)
    end_state: str = Field(max_length=200)


class Comparison(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = Field(max_length=150)
    verdict: Literal[0, 1]


class AgentGoalAccuracy(Metric):
    name = "agent_goal_accuracy"
    description = "Did the agent reach the reference outcome? Judge infers the end state and compares (Ragas)."
    required: tuple[str, ...] = ("messages", "reference")
    prompt_names = ("workflow", "compare")
    use_reference = True

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return Workflow if prompt_name == "workflow" else Comparison

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        flow = await self.ask(ctx, "workflow", {"conversation": transcript(sample.messages or [])})
        desired = sample.reference if self.use_reference else flow.user_goal
        out = await self.ask(ctx, "compare", {"desired_outcome": desired, "reached_outcome": flow.end_state})
        return Score(float(out.verdict), "goal reached" if out.verdict else "goal not reached",
                     {"user_goal": flow.user_goal, "end_state": flow.end_state, "desired_outcome": desired,
                      "reason": out.reason})


class AgentGoalAccuracyWithoutReference(AgentGoalAccuracy):
    name = "agent_goal_accuracy_without_reference"
    description = "Did the agent reach the goal the user expressed? Judge infers goal and end state (Ragas)."
    required = ("messages",)
    prompts_of = "agent_goal_accuracy"
    use_reference = False


class ToolOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    order_sensitive: bool = True


def arg_accuracy(made: ToolCall, wanted: ToolCall) -> float:
    if made.name != wanted.name:
        return 0.0
    if not wanted.args:
        return 1.0
    return sum(str(made.args.get(k)) == str(v) and k in made.args for k, v in wanted.args.items()) / len(wanted.args)


def pair_calls(made: list[ToolCall], wanted: list[ToolCall], ordered: bool) -> list[tuple[ToolCall, ToolCall | None]]:
    if ordered:
        return [(w, made[i] if i < len(made) else None) for i, w in enumerate(wanted)]
    free = list(made)
    pairs: list[tuple[ToolCall, ToolCall | None]] = []
    for w in wanted:
        best = max(free, key=lambda m: arg_accuracy(m, w), default=None)
        if best is not None and best.name == w.name:
            free.remove(best)
            pairs.append((w, best))
        else:
            pairs.append((w, None))
    return pairs


class ToolCallAccuracy(Metric[ToolOptions]):
    name = "tool_call_accuracy"
    description = ("Did the agent make the reference tool calls with the right arguments? Missing and extra "
                   "calls both cost; order-sensitive by default (no judge).")
    required = ("messages", "reference_tool_calls")
    uses_judge = False

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        made = [c for t in sample.messages or [] if t.type == "ai" for c in t.tool_calls]
        wanted = list(sample.reference_tool_calls or [])
        pairs = pair_calls(made, wanted, self.options.order_sensitive)
        scores = [arg_accuracy(m, w) if m is not None else 0.0 for w, m in pairs]
        value = sum(scores) / max(len(wanted), len(made))
        return Score(value, f"{len(made)} call(s) made, {len(wanted)} expected",
                     {"pairs": [{"expected": w.model_dump(), "made": m.model_dump() if m else None, "score": s}
                                for (w, m), s in zip(pairs, scores)],
                      "extra_calls": max(0, len(made) - sum(m is not None for _, m in pairs))})


class TopicOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mode: Literal["precision", "recall", "f1"] = "f1"


Topics = create_model("Topics", __config__=ConfigDict(extra="forbid"), topics=(list[ShortText], Field(max_length=8)))


class TopicAdherence(Metric[TopicOptions]):
    name = "topic_adherence"
    description = ("Does the AI answer on-topic questions and only those? Precision/recall/F1 of answered "
                   "topics against the reference topics (Ragas).")
    required = ("messages", "reference_topics")
    prompt_names = ("topics", "answered", "classify")

    def default_label(self) -> str:
        return self.name if self.options.mode == "f1" else f"{self.name}_{self.options.mode}"

    def output_model(self, prompt_name: str, inputs: Mapping[str, object]) -> type[BaseModel]:
        return Topics if prompt_name == "topics" else verdicts(count(inputs["topics"]))

    async def score(self, sample: Sample, ctx: MetricContext) -> Score:
        conversation = transcript(sample.messages or [])
        topics = [t for t in (await self.ask(ctx, "topics", {"conversation": conversation})).topics if t.strip()]
        if not topics:
            raise Unscorable("the judge found no topics in the conversation")
        answered = [v.verdict for v in (await self.ask(ctx, "answered", {"conversation": conversation,
                                                                         "topics": topics})).verdicts]
        on_topic = [v.verdict for v in (await self.ask(ctx, "classify", {"reference_topics": sample.reference_topics,
                                                                         "topics": topics})).verdicts]
        value, p, r = adherence(answered, on_topic, self.options.mode)
        evidence = {"topics": [{"topic": t, "answered": a, "reference_topic": o}
                               for t, a, o in zip(topics, answered, on_topic)], "precision": p, "recall": r}
        return Score(value, f"{self.options.mode} {value:.3f}", evidence)


def adherence(answered: list[int], on_topic: list[int], mode: str) -> tuple[float, float | None, float | None]:
    tp = sum(a and o for a, o in zip(answered, on_topic))
    fp = sum(a and not o for a, o in zip(answered, on_topic))
    fn = sum(o and not a for a, o in zip(answered, on_topic))
    p = tp / (tp + fp) if tp + fp else None
    r = tp / (tp + fn) if tp + fn else None
    if mode in ("precision", "f1") and p is None:
        raise Unscorable("the AI answered none of the topics: precision is undefined")
    if mode in ("recall", "f1") and r is None:
        raise Unscorable("no topic of the conversation is a reference topic: recall is undefined")
    value = p if mode == "precision" else r if mode == "recall" else f_beta(p, r, 1.0)  # type: ignore[arg-type]
    return value, p, r  # type: ignore[return-value]
