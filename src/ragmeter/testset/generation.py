"""The judge's two jobs in a test set: write a question (and its answer) from chunks, and
critique it: standalone and relevance as a 1-5 rating read at prefill speed (the seed's
prompts, no rationale), groundedness as the faithfulness claim "question answer" against the
chunk. Replies are bounded JSON, like the metrics' judges."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ragmeter.accounting import MetricStats

TEXT_MAX = 300
RATING_SCALE = {1: 1.0, 2: 2.0, 3: 3.0, 4: 4.0, 5: 5.0}
CRITERIA = ("groundedness", "relevance", "standalone")


class QA(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=5, max_length=TEXT_MAX)
    answer: str = Field(min_length=1, max_length=TEXT_MAX)


@dataclass(frozen=True)
class Written:
    """What the writer gave: the question and its answer (None: unanswerable)."""

    question: str
    answer: str | None


class Question(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=5, max_length=TEXT_MAX)


class Conversation(BaseModel):
    """A first turn and a follow-up that depends on it (a `conversational` row)."""

    model_config = ConfigDict(extra="forbid")

    first_question: str = Field(min_length=5, max_length=TEXT_MAX)
    first_answer: str = Field(min_length=1, max_length=TEXT_MAX)
    follow_up: str = Field(min_length=3, max_length=TEXT_MAX)
    answer: str = Field(min_length=1, max_length=TEXT_MAX)


class Critique(BaseModel):
    """The seed's rationale-first reply (groundedness="seed")."""

    model_config = ConfigDict(extra="forbid")

    evaluation: str = Field(max_length=TEXT_MAX)
    rating: Literal[1, 2, 3, 4, 5]


class Rated(BaseModel):
    """A 1-5 rating alone: read from the label's probabilities at prefill speed, no rationale
    decoded first (benchmarks/testset_labels: the rationale-first standalone prompt ranked the
    questions a reader drops for not standing alone at ROC-AUC 0.69, this one 0.86)."""

    model_config = ConfigDict(extra="forbid")

    rating: Literal[1, 2, 3, 4, 5]


@dataclass
class Stages:
    """Where the attempts in flight are, for the progress line: a build spent minutes at
    "0/12 questions" while questions were being written and critiqued (issue 64 item 2)."""

    writing: int = 0
    critiquing: int = 0
    written: int = 0

    @contextmanager
    def attempt(self) -> Iterator[Callable[[], None]]:
        """An attempt from start to end; call the yielded function once its question is written."""
        state = ["writing"]
        self.writing += 1

        def wrote() -> None:
            if state[0] == "writing":
                self.writing, self.critiquing, self.written = self.writing - 1, self.critiquing + 1, self.written + 1
                state[0] = "critiquing"
        try:
            yield wrote
        finally:
            setattr(self, state[0], getattr(self, state[0]) - 1)

    def text(self) -> str:
        busy = [f"{n} {what}" for n, what in ((self.writing, "writing"), (self.critiquing, "critiquing")) if n]
        return f"{self.written} written" + (f" ({', '.join(busy)})" if busy else "")


class Judging:
    """The judge session, the prompts in the chosen language, and per-stage accounting."""

    def __init__(self, session: Any, language: str, stats: dict[str, MetricStats]) -> None:
        self.session, self.language, self.stats = session, language, stats
        #: critiques kept on the rating although --keep-on asked for the probabilities (the judge gave none)
        self.on_rating = 0
        self.stages = Stages()

    def prompt(self, name: str, family: str = "testset") -> Any:
        from ragmeter.prompts.template import builtin_prompt

        return builtin_prompt(family, name, self.language)

    async def ask(self, stage: str, name: str, inputs: dict[str, Any], output: type[BaseModel],
                  max_tokens: int, family: str = "testset") -> Any:
        stats = self.stats.setdefault(stage, MetricStats())
        return await self.session.ask(self.prompt(name, family), inputs, output, stats, max_tokens)


async def write_question(judging: Judging, kind: str, contexts: list[str], subject: str) -> Written:
    """A factoid, multi-hop or unanswerable question from its chunk(s) and the subject line of
    the first (testset/subjects.py)."""
    if kind == "multi_hop":
        reply = await judging.ask("generate", kind, {"subject": subject, "context1": contexts[0],
                                                     "context2": contexts[1]}, QA, 256)
        return Written(reply.parsed.question.strip(), reply.parsed.answer.strip())
    if kind == "unanswerable":
        reply = await judging.ask("generate", kind, {"subject": subject, "context": contexts[0]}, Question, 128)
        return Written(reply.parsed.question.strip(), None)
    reply = await judging.ask("generate", "factoid", {"subject": subject, "context": contexts[0]}, QA, 256)
    return Written(reply.parsed.question.strip(), reply.parsed.answer.strip())


async def rewrite_question(judging: Judging, subject: str, context: str, written: Written, problem: str) -> Written:
    """A new question and answer, written once, told why the first was sent back. The first
    question stands inside the problem, not as a field to edit: shown as one, the small
    writer copied it back unchanged 16 times in 16 (issue 62); told "write a new question,
    name one of these names, not this one", it named the subject in 5 of 11 Spanish ones."""
    reply = await judging.ask("rewrite", "rewrite", {"subject": subject, "context": context,
                                                     "problem": f"{problem} ({written.question})"}, QA, 256)
    return Written(reply.parsed.question.strip(), reply.parsed.answer.strip())


async def write_conversation(judging: Judging, context: str, subject: str) -> tuple[list[dict[str, str]], str]:
    """The turns of a conversational row (first question, its answer, the follow-up) and
    the follow-up's answer (the reference)."""
    reply = await judging.ask("generate", "conversational", {"subject": subject, "context": context},
                              Conversation, 384)
    turn = reply.parsed
    turns = [{"role": "user", "content": turn.first_question.strip()},
             {"role": "assistant", "content": turn.first_answer.strip()},
             {"role": "user", "content": turn.follow_up.strip()}]
    return turns, turn.answer.strip()


def transcript(turns: list[dict[str, str]]) -> str:
    """The conversation as the critiques read it: one 'User:'/'Assistant:' line per turn."""
    return "\n".join(f"{'User' if t['role'] == 'user' else 'Assistant'}: {t['content']}" for t in turns)


#: groundedness as the context_relevance metric's 0/1/2 rating (read as 1/3/5): the question
#: alone against the chunk (groundedness="rating"); kept for unanswerable questions, which have
#: no answer to judge
GROUNDED = {0: 1.0, 1: 3.0, 2: 5.0}


async def critique(judging: Judging, criterion: str, question: str, context: str, audience: str,
                   groundedness: str = "answer", answer: str | None = None) -> dict[str, Any]:
    """One criterion's rating (1-5), its expected value under the judge's label
    probabilities where it gives them, those probabilities, and why."""
    if criterion == "groundedness" and groundedness == "answer" and answer is not None:
        return await _supported(judging, question, answer, context)
    if criterion == "groundedness" and groundedness != "seed":
        return await _answerable(judging, question, context)
    if criterion == "groundedness":
        reply = await judging.ask("critique.groundedness", criterion, {"question": question, "context": context},
                                  Critique, 200)
        return _rated(reply, reply.parsed.evaluation.strip())
    inputs = {"question": question} if criterion == "standalone" else {"question": question, "audience": audience}
    return _rated(await judging.ask(f"critique.{criterion}", criterion, inputs, Rated, 8))


async def _supported(judging: Judging, question: str, answer: str, context: str) -> dict[str, Any]:
    """Groundedness the way ragmeter judges faithfulness: "question answer" as one claim against
    the chunk, P(supported) read at prefill speed (calibrated where the judge has a line),
    written on the 1-5 scale as P at 5 and 1 - P at 1. On benchmarks/testset_labels it ranked
    the questions a reader drops for a wrong or missing answer at ROC-AUC 0.91 (English), where
    the question-only rating ranked them below chance (0.36); docs/testsets.md."""
    from ragmeter.metrics.schemas import verdicts

    claim = f"{question.strip()} {answer.strip()}"
    reply = await judging.ask("critique.groundedness", "verdicts", {"contexts": [context], "statements": [claim]},
                              verdicts(1), 64, family="faithfulness")
    verdict = reply.parsed.verdicts[0]
    p = float((reply.probs.get("verdicts.0.verdict") or {}).get("1", verdict.verdict))
    reason = f": {verdict.reason}" if verdict.reason else ""
    return {"score": 5 if p >= 0.5 else 1, "expected": round(1 + 4 * p, 4), "dist": {5.0: p, 1.0: 1 - p},
            "rationale": f"the chunk supports the answer with probability {p:.2f}{reason}"}


async def _answerable(judging: Judging, question: str, context: str) -> dict[str, Any]:
    from ragmeter.metrics.judgment import PROBABILITY, weigh
    from ragmeter.metrics.schemas import Rating

    reply = await judging.ask("critique.groundedness", "rating1", {"question": question, "context": context},
                              Rating, 16, family="context_relevance")
    weighed = weigh(reply, "rating", reply.parsed.rating, GROUNDED, PROBABILITY)
    probs = f" (probabilities {weighed.probs})" if weighed.probs else ""
    return {"score": int(GROUNDED[reply.parsed.rating]), "expected": round(weighed.value, 4),
            "dist": _on_scale(weighed.probs, GROUNDED),
            "rationale": f"the context answers the question: {reply.parsed.rating} of 0-2{probs}"}


def _rated(reply: Any, rationale: str | None = None) -> dict[str, Any]:
    """A 1-5 rating with its expected value and probabilities."""
    from ragmeter.metrics.judgment import PROBABILITY, weigh

    weighed = weigh(reply, "rating", reply.parsed.rating, RATING_SCALE, PROBABILITY)
    probs = f" (probabilities {weighed.probs})" if weighed.probs else ""
    return {"score": reply.parsed.rating, "expected": round(weighed.value, 4),
            "dist": _on_scale(weighed.probs, RATING_SCALE),
            "rationale": rationale or f"rated {reply.parsed.rating} of 1-5{probs}"}


def _on_scale(probs: dict[str, float] | None, scale: Any) -> dict[float, float] | None:
    """The judge's label probabilities as {rating on the 1-5 scale: probability}, None when
    the judge gives none (a server without logprobs)."""
    if not probs:
        return None
    out: dict[float, float] = {}
    for key, p in probs.items():
        out[float(scale[json.loads(key)])] = out.get(float(scale[json.loads(key)]), 0.0) + p
    return out


def passes(kind: str, criterion: str, result: dict[str, Any], min_score: int, keep_on: str = "rating") -> bool:
    """At least `min_score` (read as `keeps` says); for an unanswerable question groundedness
    is inverted: the corpus must NOT answer it (at most 6 - min_score)."""
    if kind == "unanswerable" and criterion == "groundedness":
        return keeps(result, 6 - min_score, keep_on, at_most=True)
    return keeps(result, min_score, keep_on)


def keeps(result: dict[str, Any], bar: float, keep_on: str = "rating", at_most: bool = False) -> bool:
    """Whether a critique reaches `bar` (at most `bar`, for `at_most`), on `keep_on`: the
    judge's rating; or the probability of the ratings that reach it, at least 0.5; or the
    expected rating. The last two need the judge's label probabilities (else the rating).
    On 120 ClapNQ rows with the bundled judge, at bar 4, they keep 16, 6 and 3 rows, of
    which 81%, 83% and 67% are answerable (docs/testsets.md): the rating is the default."""
    def reaches(value: float) -> bool:
        return value <= bar if at_most else value >= bar

    dist = result.get("dist")
    if keep_on == "rating" or not dist:
        return reaches(result["score"])
    if keep_on == "probability":
        return sum(p for value, p in dist.items() if reaches(value)) >= 0.5
    return reaches(result["expected"])
