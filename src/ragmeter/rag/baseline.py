"""ragmeter's baseline RAG, the seeds' pipeline: embed the question, take the top-k chunks
from a FAISS index, write them numbered into the reader prompt, and generate with any
judge backend (bundled, GGUF, OpenAI-compatible, hf). A reference system to compare yours
against, and a bench for trying chunk sizes, embeddings, k and reader models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragmeter.faults import FaultLog
from ragmeter.judges.base import Judge, JudgeReply, JudgeRequest
from ragmeter.judges.retry import RetryPolicy
from ragmeter.rag.contract import Context, RAGAnswer
from ragmeter.rag.index import VectorIndex, load_index
from ragmeter.rag.prompt import AnswerPrompt, Turn, load_answer_prompt
from ragmeter.rag.stops import ANSWER_END, answer_end, template_stops


class BaselineRAG:
    """Top-k retrieval + one generation. Its identity (index content, embeddings, k, reader
    model, prompt) keys the answer cache, so changing any of them re-answers. The generation
    is sent as a judge's call is (judges/retry.py): retried with backoff on a transient error;
    after the retries, or refused (an HTTP 400), it raises JudgeUnavailable, the row's failure
    (rag/answer.py), not the run's end."""

    def __init__(self, index: str | Path | VectorIndex, generator: Judge, *, embedder: Any = None, k: int = 5,
                 prompt: AnswerPrompt | None = None, max_tokens: int = 512, reranker: Any = None,
                 candidates: int | None = None, policy: RetryPolicy | None = None) -> None:
        from ragmeter.embeddings import make_embedder
        from ragmeter.errors import ConfigError

        if k < 1:
            raise ConfigError("k must be at least 1")
        self.index = index if isinstance(index, VectorIndex) else load_index(index)
        self.embedder = embedder or make_embedder(self.index.manifest.get("embeddings_spec") or "bundled")
        self.index.check_embedder(self.embedder.identity())
        self.generator, self.k, self.max_tokens = generator, k, max_tokens
        self.prompt = prompt or load_answer_prompt()
        #: with a reranker, this many chunks are retrieved and the best k kept
        self.reranker, self.candidates = reranker, max(k, candidates or 3 * k) if reranker else k
        self.policy = policy or RetryPolicy()
        #: the generator's retries and HTTP errors, for the answers' manifest
        self.faults = FaultLog()
        #: the last generation the generator answered: what probe() sends again
        self._last_answered: JudgeRequest | None = None
        #: whether the generator continues a transcript (a base model): check() asks it once
        self._transcript: bool | None = None

    def identity(self) -> dict[str, Any]:
        rerank = {"reranker": self.reranker.identity(), "candidates": self.candidates} if self.reranker else {}
        return {"rag": "ragmeter-baseline", "index": self.index.identity(), "k": self.k, **rerank,
                "generator": self.generator.identity(), "prompt": self.prompt.version, "max_tokens": self.max_tokens,
                "answer_end": ANSWER_END}

    def describe(self) -> str:
        rerank = f", reranked from {self.candidates}" if self.reranker else ""
        return f"baseline RAG (k={self.k}{rerank}, index {self.index.path}, generator {self.generator.describe()})"

    async def check(self) -> None:
        import asyncio

        await self.embedder.check()
        await self.generator.check()
        # asked once, off the event loop: an in-process generator loads its model to answer
        self._transcript = await asyncio.to_thread(self.generator.writes_transcript)

    async def retrieve(self, query: str, question: str | None = None) -> list[Context]:
        """Top-k by cosine; with a reranker, the best k of `candidates` by its score for `question`."""
        from ragmeter.rag.rerank import rerank

        vector = (await self.embedder.embed([query]))[0]
        hits = self.index.search([vector], self.candidates)[0]
        found = [Context(h.text, h.id, round(h.score, 6)) for h in hits]
        return await rerank(self.reranker, question or query, found, self.k) if self.reranker else found

    async def __call__(self, query: str | list[Turn]) -> RAGAnswer:
        question, history = split_query(query)
        # a follow-up ("and who kept it?") is searched with the user's earlier turns
        search = " ".join([t["content"] for t in history if t["role"] == "user"] + [question])
        contexts = await self.retrieve(search, question)
        messages = self.prompt.messages(question, [c.text for c in contexts], history)
        transcript = self._transcript if self._transcript is not None else self.generator.writes_transcript()
        reply = await self._generate(JudgeRequest(messages, None, self.max_tokens, "rag.answer", self.policy.timeout,
                                                  stop=template_stops(self.prompt) if transcript else ()))
        text, finish, stop = answer_end(reply, transcript)
        return RAGAnswer(text, list(contexts), reply.prompt_tokens, reply.completion_tokens, finish, stop)

    async def _generate(self, request: JudgeRequest) -> JudgeReply:
        from ragmeter.judges.retry import call_with_retry

        reply = await call_with_retry(lambda: self.generator.complete(request), self.policy,
                                      f"generator {self.generator.describe()}", self.faults)
        self._last_answered = request
        return reply

    async def probe(self) -> bool:
        """Whether the generator answers the last generation it answered, sent again: after
        many failed rows in a row, whether it is down or the rows' prompts fail
        (engine/failed_calls.py)."""
        if self._last_answered is None:
            return False
        try:
            await self._generate(self._last_answered)
        except Exception:  # noqa: BLE001 - any failure of the generator is a no
            return False
        return True

    def echoes(self, answer: str) -> bool:
        """Whether the answer repeats the reader prompt's own words (rag/prompt.py: echoes_prompt)."""
        from ragmeter.rag.prompt import echoes_prompt

        return echoes_prompt(answer, self.prompt)

    def declines(self, answer: str) -> bool:
        """Whether the answer says the prompt's decline sentence (rag/prompt.py: declines)."""
        from ragmeter.rag.prompt import declines

        return declines(answer, self.prompt)

    async def aclose(self) -> None:
        if self.reranker is not None:
            await self.reranker.aclose()
        await self.embedder.aclose()
        await self.generator.aclose()


def split_query(query: str | list[Turn]) -> tuple[str, list[Turn]]:
    """(the question, the turns before it)."""
    if isinstance(query, str):
        return query, []
    return query[-1]["content"], [{"role": t["role"], "content": t["content"]} for t in query[:-1]]
