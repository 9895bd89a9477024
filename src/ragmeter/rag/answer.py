"""`ragmeter answer TESTSET`: run the RAG under test over every row of a test set and write
the rows back with `response`, `retrieved_contexts`, `retrieved_context_ids`,
`retrieved_context_scores`, `answer_latency_seconds` and `answer_error`, ready for
`ragmeter evaluate`.

Answers are cached like judge replies (key: the RAG's identity and the query), so a killed
run resumes and a re-run calls nothing. A `TransientRAGError` is retried with backoff; any
other exception is recorded on its row (`answer_error`, no response: the evaluation marks
the row unscored). Rows are never dropped. The baseline's generator fails as a judge does
(engine/failed_calls.py): a call that failed its retries, or that the server refused, is
that row's error (tried once more at the end, unless refused), and only a generator that
fails many calls in a row and no longer answers a call it answered before stops the run.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragmeter.cache import make_key
from ragmeter.errors import DataError, JudgeUnavailable, RagmeterError, TransientRAGError
from ragmeter.rag.contract import Context, RAGAnswer, normalize
from ragmeter.stats import percentile

if TYPE_CHECKING:
    from ragmeter.engine.failed_calls import FailedCalls

#: answer2: a cached answer holds why generation stopped (an answer1 hit could not say it was cut)
ANSWER_KEY_VERSION = "answer2"


@dataclass
class AnswerRun:
    rows: list[dict[str, Any]]
    manifest: dict[str, Any]
    path: Path | None = None


def load_testset(data: Any) -> tuple[list[dict[str, Any]], str]:
    """Rows with a question (`user_input` text, or a conversation in `messages` / a list
    `user_input`), checked before any call; errors name the file, row and field."""
    from ragmeter.io.data_file import open_data_file

    if isinstance(data, (str, Path)):
        file = open_data_file(data)
        records, source = file.records(), file.source
    else:
        # copies: the answers are added to these rows, never to the caller's own dicts
        records = [dict(r) if isinstance(r, dict) else r
                   for r in (data.to_dict("records") if hasattr(data, "to_dict") else data)]
        source = "<in-memory>"
    if not records:
        raise DataError("no rows to answer", source=source)
    for number, row in enumerate(records, start=1):
        if not isinstance(row, dict):
            raise DataError("each row must be an object", source=source, row=number)
        row.pop("__line__", None)  # the reader's line number, for errors: not a field of the answers file
        query = question_of(row)
        if not query:
            raise DataError("no question: expected `user_input` (text, or a list of turns) or `messages`",
                            source=source, row=number, field="user_input")
    return records, source


def question_of(row: dict[str, Any]) -> str | list[dict[str, str]] | None:
    """The query the RAG gets: the conversation when the row has one, else the question text."""
    turns = row.get("messages") if row.get("messages") else row.get("user_input")
    if isinstance(turns, list) and turns:
        out = []
        for turn in turns:
            if not isinstance(turn, dict) or not isinstance(turn.get("content"), str):
                return None
            role = turn.get("role") or {"human": "user", "ai": "assistant"}.get(turn.get("type", ""), "user")
            out.append({"role": role, "content": turn["content"]})
        return out if out[-1]["role"] == "user" and out[-1]["content"].strip() else None
    text = row.get("user_input")
    return text if isinstance(text, str) and text.strip() else None


#: seconds a RAG call may take before it is abandoned and retried (`--rag-timeout`)
RAG_TIMEOUT = 300.0
#: marks a row whose generator call failed its retries (not refused): it is tried once more at the end
TRY_AGAIN = "_try_again"


async def answer_rows(rows: list[dict[str, Any]], rag: Any, cache: Any, *, concurrency: int = 1,
                      retries: int = 3, backoff: float = 1.0, progress: bool | None = None,
                      timeout: float = RAG_TIMEOUT) -> dict[str, Any]:
    """Answer every row in place (order kept); returns the run's accounting."""
    from ragmeter.engine.failed_calls import FailedCalls
    from ragmeter.engine.progress import row_progress

    gate = asyncio.Semaphore(max(1, concurrency))
    tally: dict[str, Any] = {"answered": 0, "cached": 0, "errors": 0, "retries": 0, "prompt_tokens": 0,
                             "completion_tokens": 0, "answer_seconds": 0.0, "failed_calls": 0, "recovered_calls": 0}
    identity = rag.identity()
    failures = FailedCalls(probe=getattr(rag, "probe", None))
    again: list[tuple[dict[str, Any], int]] = []  # rows whose generator call failed: tried once more at the end

    async def one(row: dict[str, Any], number: int, bar: Any = None, last_try: bool = False) -> None:
        query = question_of(row)
        key = make_key({"rag": identity, "query": query}, ANSWER_KEY_VERSION)
        hit = cache.get(key, "replies")
        if hit is None:
            async with gate:
                hit = await _ask(rag, query, str(row.get("id", number)), f"row {number}", retries, backoff, tally,
                                 timeout, failures)
            try_again = hit.pop(TRY_AGAIN, False)
            if hit["answer_error"] is None:  # errors are not cached: a re-run asks again
                cache.put(key, hit, "replies")
            elif try_again and not last_try:
                again.append((row, number))
        else:
            tally["cached"] += 1
        row.update(hit)
        if bar is not None:
            bar.advance(1)

    with row_progress(len(rows), progress) as bar:
        await asyncio.gather(*(one(row, n, bar) for n, row in enumerate(rows, start=1)))
    await asyncio.gather(*(one(row, n, last_try=True) for row, n in again))
    tally["recovered_calls"] = sum(row["answer_error"] is None for row, _ in again)
    tally["failed_calls"] = len(again) - tally["recovered_calls"]
    faults = getattr(rag, "faults", None)  # the baseline's generator's retries (rag/baseline.py)
    if faults is not None:
        tally["retries"] += faults.counts["retries"]
    tally["errors"] = sum(r["answer_error"] is not None for r in rows)
    tally["cut_at_max_tokens"] = sum(r.get("generation_finish_reason") == "length" for r in rows)
    tally["echo_the_prompt"] = sum(bool(r.get("answer_echoes_prompt")) for r in rows)
    tally["declined"] = sum(bool(r.get("answer_declines")) for r in rows)
    stops = Counter(r["generation_stop"] for r in rows if r.get("generation_stop"))
    tally["generation_stops"] = dict(stops.most_common())
    return tally


async def _ask(rag: Any, query: Any, row_id: str, where: str, retries: int, backoff: float,
               tally: dict[str, Any], timeout: float = RAG_TIMEOUT,
               failures: FailedCalls | None = None) -> dict[str, Any]:
    from ragmeter.rag.targets import HttpRAG

    started = time.perf_counter()
    for attempt in range(retries + 1):
        try:
            async with asyncio.timeout(timeout):  # a hung call is abandoned (rag/targets.py) and retried
                raw = await (rag(query, row_id=row_id) if isinstance(rag, HttpRAG) else rag(query))
            break
        except (TransientRAGError, TimeoutError) as exc:
            if isinstance(exc, TimeoutError):
                exc = TransientRAGError(f"no answer within {timeout:g} s (--rag-timeout)")
            if attempt == retries:
                return _failed(f"TransientRAGError after {attempt + 1} attempts: {exc}", started)
            tally["retries"] += 1
            await asyncio.sleep(backoff * 2 ** attempt)
        except JudgeUnavailable as exc:  # the generator's call failed its retries, or was refused
            return await _generator_failed(exc, failures, started)
        except RagmeterError:
            raise
        except Exception as exc:  # the user's code failed on this row: recorded, not fatal
            return _failed(f"{type(exc).__name__}: {exc}", started)
        except SystemExit as exc:  # sys.exit() in the user's code ends that row, not ragmeter
            return _failed(f"SystemExit: the RAG called sys.exit({exc.code!r})", started)
    if failures is not None:
        failures.answered()
    answer: RAGAnswer = normalize(raw, where)
    tally["answered"] += 1
    tally["prompt_tokens"] += answer.prompt_tokens
    tally["completion_tokens"] += answer.completion_tokens
    tally["answer_seconds"] += time.perf_counter() - started
    contexts = [c for c in answer.contexts if isinstance(c, Context)]  # all of them, after normalize
    ids = [c.id for c in contexts]
    scores = [c.score for c in contexts]
    return {"response": answer.answer, "retrieved_contexts": [c.text for c in contexts],
            "retrieved_context_ids": ids if all(i is not None for i in ids) and ids else None,
            "retrieved_context_scores": scores if all(s is not None for s in scores) and scores else None,
            "answer_latency_seconds": round(time.perf_counter() - started, 4), "answer_error": None,
            "answer_tokens": {"prompt": answer.prompt_tokens, "completion": answer.completion_tokens},
            # "length": cut at the generator's max tokens, left unscored by evaluate (io/readers.py)
            "generation_finish_reason": answer.finish_reason,
            "generation_stop": answer.stop,
            "answer_echoes_prompt": rag.echoes(answer.answer) if hasattr(rag, "echoes") else None,
            "answer_declines": rag.declines(answer.answer) if hasattr(rag, "declines") else None}


async def _generator_failed(exc: JudgeUnavailable, failures: FailedCalls | None, started: float) -> dict[str, Any]:
    """The row's error for a generator call that failed (its reason redacted, as a judge's is);
    raises when the breaker says the generator is down (engine/failed_calls.py)."""
    from ragmeter.engine.failed_calls import failed_score
    from ragmeter.errors import RequestRefused

    score = await failures.failed_call(exc) if failures is not None else failed_score(exc)
    failed = _failed(f"generator call {score.reason.removeprefix('judge call ')}", started)
    return {**failed, TRY_AGAIN: not isinstance(exc, RequestRefused)}


def _failed(message: str, started: float) -> dict[str, Any]:
    return {"response": None, "retrieved_contexts": None, "retrieved_context_ids": None,
            "retrieved_context_scores": None, "answer_latency_seconds": round(time.perf_counter() - started, 4),
            "answer_error": message[:500], "answer_tokens": None}


def answers_manifest(rows: list[dict[str, Any]], rag: Any, source: str, tally: dict[str, Any],
                     seconds: float) -> dict[str, Any]:
    from ragmeter import __version__

    latencies = [r["answer_latency_seconds"] for r in rows if r.get("answer_latency_seconds") is not None]
    return {"kind": "answers", "ragmeter_version": __version__,
            "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "testset": source, "rag": {"name": rag.describe(), **rag.identity()}, "rows": len(rows),
            **tally, "latency_seconds": {"p50": _round(percentile(latencies, 50)),
                                         "p95": _round(percentile(latencies, 95)),
                                         "note": "per row, as first answered (a cached row keeps its latency)"},
            "wall_seconds": round(seconds, 2)}


def write_answers(out: Path, rows: list[dict[str, Any]], manifest: dict[str, Any], fmt: str = "jsonl") -> Path:
    from ragmeter.io.writers import atomic_write_bytes, jsonl_bytes, make_folder, parquet_bytes, write_json

    make_folder(out)
    path = out / f"answers.{fmt}"
    if fmt == "parquet":
        atomic_write_bytes(path, parquet_bytes(rows))
    else:
        atomic_write_bytes(path, jsonl_bytes(rows))
    write_json(out / "manifest.json", {**manifest, "answers_file": path.name})
    return path


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
