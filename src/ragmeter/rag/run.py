"""Answer a test set end to end: your RAG (a callable, a URL, an adapter) or the baseline
over its index, through the cache, into an answers file and its manifest."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragmeter.judges.registry import DEFAULT_JUDGE
from ragmeter.judges.retry import RetryPolicy
from ragmeter.rag.answer import AnswerRun

if TYPE_CHECKING:
    from ragmeter.prompts.run_language import Followed


def build_index(*args: Any, **kwargs: Any) -> Any:
    """See rag/index.py: chunk, embed and store documents in a FAISS index."""
    from ragmeter.rag.index import build_index as build

    return build(*args, **kwargs)


def answer(testset: Any, rag: Any = None, **options: Any) -> AnswerRun:
    """Answer every row of `testset` (a path, a list of dicts or a DataFrame) with `rag` (a
    callable, `module:function`, an http URL) or the baseline (`index=...`); see `aanswer`."""
    return asyncio.run(aanswer(testset, rag, **options))


async def aanswer(testset: Any, rag: Any = None, *, index: str | Path | None = None,
                  generator: str | dict | Any = DEFAULT_JUDGE, embeddings: str | dict | None = None, k: int = 5,
                  prompt: str | Path | None = None, language: str = "auto", max_tokens: int = 512,
                  rerank: str | None = None, rerank_candidates: int | None = None,
                  rag_id: str | None = None, out: str | Path | None = None, format: str = "jsonl",
                  concurrency: int = 1, retries: int = 3, backoff: float = 1.0, cache: bool | str | Path = True,
                  progress: bool | None = None, overwrite: bool = False, rag_timeout: float = 300.0,
                  limit: int | None = None) -> AnswerRun:
    """Rows of `testset` with `response`, `retrieved_contexts` (+ ids, scores), latency and
    `answer_error`; written to `out`/answers.<format> with a manifest when `out` is given.
    `limit`: only the first N rows (a trial before a long run); `retries` and `backoff`
    (seconds, doubled each time): how a failed call of the RAG or the baseline's generator is
    tried again. `language`: the baseline's reader prompt's, "auto" to follow the test set's
    (its manifest, else its questions' text: prompts/run_language.py)."""
    from ragmeter.cache import open_cache
    from ragmeter.errors import ConfigError
    from ragmeter.rag.answer import answer_rows, answers_manifest, load_testset, write_answers

    if (rag is None) == (index is None):
        raise ConfigError("give either a RAG to test (--rag) or an index for the baseline RAG (--index)")
    if format not in ("jsonl", "parquet"):
        raise ConfigError("--format must be jsonl or parquet")
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit must be at least 1, got {limit}")
    rows, source = load_testset(testset)
    rows = rows[:limit]
    followed = _language(language, testset, rows, progress)
    policy = RetryPolicy(timeout=rag_timeout, retries=retries, backoff=backoff)
    target = _target(rag, rag_id) if rag is not None else _baseline(
        index, generator, embeddings, k, prompt, followed.name, max_tokens, rerank, rerank_candidates, policy)
    if out is not None:
        _prepare(Path(out), source, target, overwrite)
    started = time.perf_counter()
    store = open_cache(str(cache) if isinstance(cache, Path) else cache)
    try:
        await target.check()
        _say_cost(target, rows, store, progress)
        tally = await answer_rows(rows, target, store, concurrency=concurrency, retries=retries, backoff=backoff,
                                  progress=progress, timeout=rag_timeout)
    finally:
        store.close()
        await target.aclose()
    _learn(target, tally)
    manifest = answers_manifest(rows, target, source, tally, time.perf_counter() - started)
    manifest["language"] = followed.record()  # what evaluate and judge-check on these answers follow
    path = write_answers(Path(out), rows, manifest, format) if out is not None else None
    return AnswerRun(rows, manifest, path)


def plan_answers(testset: Any, rag: Any = None, *, index: str | Path | None = None,
                 generator: str | dict | Any = DEFAULT_JUDGE, embeddings: str | dict | None = None, k: int = 5,
                 prompt: str | Path | None = None, language: str = "auto", max_tokens: int = 512,
                 cache: bool | str | Path = True, limit: int | None = None) -> Any:
    """What `answer` would take, calling nothing (rag/cost.py): an AnswerCost for the
    baseline, None for a RAG of your own."""
    from ragmeter.cache import open_cache
    from ragmeter.rag.answer import load_testset
    from ragmeter.rag.cost import baseline_cost

    rows, _ = load_testset(testset)
    if rag is not None:
        return None
    followed = _language(language, testset, rows[:limit], progress=False)
    target = _baseline(index, generator, embeddings, k, prompt, followed.name, max_tokens, None, None)
    store = open_cache(str(cache) if isinstance(cache, Path) else cache)
    try:
        found = baseline_cost(target, rows[:limit], store)
    finally:
        store.close()
    if found is not None:
        found.language = followed.line()
    return found


def _language(given: str, testset: object, rows: list[dict[str, Any]], progress: bool | None) -> Followed:
    """The language the answers are in (prompts/run_language.py), said on stderr where it was not given."""
    from ragmeter.prompts.run_language import follow_language, row_texts

    followed = follow_language(given, testset, row_texts(rows, ("user_input",)))
    followed.say(progress)
    return followed


def _say_cost(target: Any, rows: list[dict[str, Any]], store: Any, progress: bool | None) -> None:
    from ragmeter.rag.cost import baseline_cost
    from ragmeter.run.upfront import SAY_ABOVE  # as a run says its estimate: over a minute

    if progress is False:
        return
    found = baseline_cost(target, rows, store)
    if found is not None and found.seconds is not None and found.seconds[1] > SAY_ABOVE:
        import sys

        from ragmeter.text import plain

        print(plain(f"ragmeter: {found.line()}"), file=sys.stderr)


def _learn(target: Any, tally: dict[str, Any]) -> None:
    """The baseline's generation seconds folded into its generator's learned pace, as a run's
    judge calls are (run/judge_speed.py), so the next estimate is of this machine as it runs."""
    from ragmeter.accounting import MetricStats
    from ragmeter.rag.baseline import BaselineRAG
    from ragmeter.run.judge_speed import learn_from

    if isinstance(target, BaselineRAG) and tally.get("answer_seconds"):
        learn_from(target.generator, {"rag.answer": MetricStats(
            judge_calls=tally["answered"], prompt_tokens=tally["prompt_tokens"],
            completion_tokens=tally["completion_tokens"], judge_seconds=tally["answer_seconds"])})


def _target(rag: Any, rag_id: str | None) -> Any:
    from ragmeter.rag.targets import CallableRAG, resolve_target

    if isinstance(rag, str):
        return resolve_target(rag, rag_id)
    if hasattr(rag, "identity") and hasattr(rag, "check"):  # a BaselineRAG or a target already built
        return rag
    return CallableRAG(rag, rag_id)


def _baseline(index: Any, generator: Any, embeddings: Any, k: int, prompt: Any, language: str,
              max_tokens: int, rerank: str | None, candidates: int | None,
              policy: RetryPolicy | None = None) -> Any:
    from ragmeter.embeddings import make_embedder
    from ragmeter.judges.spec import make_judge
    from ragmeter.rag.baseline import BaselineRAG
    from ragmeter.rag.prompt import load_answer_prompt
    from ragmeter.rag.rerank import make_reranker

    judge = generator if not isinstance(generator, (str, dict)) else make_judge(generator)
    embedder = make_embedder(embeddings) if isinstance(embeddings, (str, dict)) else embeddings
    reranker = rerank if rerank is None or not isinstance(rerank, str) else make_reranker(rerank, judge, language)
    return BaselineRAG(index, judge, embedder=embedder, k=k, prompt=load_answer_prompt(prompt, language),
                       max_tokens=max_tokens, reranker=reranker, candidates=candidates, policy=policy)


def _prepare(out: Path, source: str, target: Any, overwrite: bool) -> None:
    """Before any call: writable, and not holding answers from another test set or RAG."""
    import json

    from ragmeter.io.output import prepare_output

    def fingerprint_of(manifest: Path) -> Any:
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        rag = {k: v for k, v in (data.get("rag") or {}).items() if k != "name"}
        return {"kind": data.get("kind"), "testset": data.get("testset"), "rag": rag}

    prepare_output(out, {"kind": "answers", "testset": source, "rag": target.identity()}, overwrite,
                   fingerprint_of=fingerprint_of)
