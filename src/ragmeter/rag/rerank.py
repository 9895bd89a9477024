"""Rerankers for the baseline RAG: retrieve more candidates than k, score each against the
question, keep the best k (seed 004 retrieves 30 and reranks to 7 with ColBERT).

* `judge` / `judge:SPEC`: an LLM rates each candidate 0/1/2 with the `context_relevance`
  metric's prompt (its probability-weighted value when the judge gives probabilities);
  works offline with the bundled judge, one call per candidate.
* `cross-encoder:/dir`: a sentence-transformers CrossEncoder from a local folder
  (e.g. ms-marco-MiniLM-L-6-v2 downloaded beforehand).
"""

from __future__ import annotations

import asyncio
from typing import Any

from ragmeter.errors import ConfigError
from ragmeter.rag.contract import Context

RELEVANCE = {0: 0.0, 1: 0.5, 2: 1.0}


class JudgeReranker:
    def __init__(self, judge: Any, language: str = "english", owns: bool = False) -> None:
        from ragmeter.cache import NullCache
        from ragmeter.judges.session import JudgeSession
        from ragmeter.prompts.template import builtin_prompt

        self.judge, self.owns = judge, owns  # the reader model is closed by its owner, not here
        self.prompt: Any = builtin_prompt("context_relevance", "rating1", language)
        self.session = JudgeSession(judge, NullCache())  # the answers are cached, not the steps

    def identity(self) -> dict[str, Any]:
        return {"rerank": "judge", "judge": self.judge.identity(), "prompt": self.prompt.version}

    async def scores(self, question: str, texts: list[str]) -> list[float]:
        from ragmeter.accounting import MetricStats
        from ragmeter.metrics.judgment import PROBABILITY, weigh
        from ragmeter.metrics.schemas import Rating

        out = []
        for text in texts:
            reply = await self.session.ask(self.prompt, {"question": question, "context": text}, Rating,
                                           MetricStats(), 16)
            out.append(weigh(reply, "rating", reply.parsed.rating, RELEVANCE, PROBABILITY).value)
        return out

    async def aclose(self) -> None:
        if self.owns:
            await self.judge.aclose()


class CrossEncoderReranker:
    def __init__(self, folder: str) -> None:
        from pathlib import Path

        self.folder = Path(folder).expanduser()
        if not self.folder.is_dir():
            raise ConfigError(f"rerank cross-encoder folder not found: {self.folder}")
        self._model: Any = None

    def identity(self) -> dict[str, Any]:
        return {"rerank": "cross-encoder", "model": self.folder.name}

    def _load(self) -> Any:
        if self._model is None:
            from sentence_transformers import CrossEncoder

            self._model = CrossEncoder(str(self.folder), device="cpu", local_files_only=True)
        return self._model

    async def scores(self, question: str, texts: list[str]) -> list[float]:
        model = self._load()
        values = await asyncio.to_thread(model.predict, [(question, t) for t in texts], show_progress_bar=False)
        return [float(v) for v in values]

    async def aclose(self) -> None:
        return None


def make_reranker(spec: str | None, generator: Any, language: str = "english") -> Any:
    """None, `judge` (the reader model judges), `judge:SPEC`, or `cross-encoder:/dir`."""
    if not spec:
        return None
    kind, _, rest = spec.partition(":")
    if kind == "judge":
        from ragmeter.judges.spec import make_judge

        return JudgeReranker(make_judge(rest), language, owns=True) if rest else JudgeReranker(generator, language)
    if kind == "cross-encoder" and rest:
        return CrossEncoderReranker(rest)
    raise ConfigError(f"--rerank '{spec}': expected judge, judge:SPEC or cross-encoder:/dir")


async def rerank(reranker: Any, question: str, candidates: list[Context], k: int) -> list[Context]:
    """The k best candidates by the reranker's score (ties keep retrieval order); the score
    recorded is the reranker's."""
    scores = await reranker.scores(question, [c.text for c in candidates])
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))[:k]
    return [Context(candidates[i].text, candidates[i].id, round(scores[i], 6)) for i in order]
