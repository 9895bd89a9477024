"""`ragmeter generate`: a `generated_response` for every row of a Pleias-style file.

Two prompt formats, as in the Pleias evaluator:
* `special-tokens`: the row's `text` (query and `<|source_start|>` blocks) is continued
  verbatim after `<|analysis_start|>`, the way Pleias models are trained; generation stops
  at `<|answer_end|>`;
* `chat`: the row's `text` is sent as one user message to a chat model (vLLM, Ollama,
  llama.cpp's server, OpenAI).
Any judge backend generates (the bundled llama.cpp model works, slowly and badly).
Replies are cached like judge replies, so a re-run regenerates only unfinished rows.
Writes `generations.parquet` (the input rows plus `generated_response` and
`generation_finish_reason`) and `samples.txt` (a few generations to read).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from ragmeter.cache import Cache, make_key
from ragmeter.errors import DataError
from ragmeter.judges.base import Judge, JudgeRequest
from ragmeter.judges.retry import RetryPolicy, call_with_retry

FORMATS = ("special-tokens", "chat")
ANALYSIS_START, ANSWER_END = "<|analysis_start|>", "<|answer_end|>"
SAMPLES_SHOWN = 5


@dataclass
class GenerationRun:
    rows: list[dict[str, Any]]
    generated: int
    cached: int
    seconds: float
    tokens: int


def request_for(text: str, fmt: str, max_tokens: int) -> JudgeRequest:
    if fmt == "special-tokens":
        prompt = text if text.rstrip().endswith(ANALYSIS_START) else text.rstrip() + ANALYSIS_START
        return JudgeRequest([], None, max_tokens, "generate", prompt=prompt, stop=(ANSWER_END,))
    return JudgeRequest([{"role": "user", "content": text}], None, max_tokens, "generate")


def response_from(reply_text: str, finish: str, fmt: str) -> str:
    """Special tokens: put back the tags the prompt and the stop string took, so the
    response parses on its own."""
    if fmt != "special-tokens":
        return reply_text
    text = ANALYSIS_START + reply_text
    return text + ANSWER_END if finish == "stop" and "<|answer_start|>" in reply_text else text


def check_rows(records: list[dict[str, Any]], source: str, overwrite: bool = False) -> None:
    """Every row has its prompt; none has a response this run would silently replace."""
    for number, record in enumerate(records, start=1):
        value = record.get("text")
        if not isinstance(value, str) or not value.strip():
            raise DataError("expected the prompt text (query and sources)", source=source, row=number, field="text")
        if record.get("generated_response") is not None and not overwrite:
            raise DataError("already has a generated_response; pass --overwrite to replace it",
                            source=source, row=number, field="generated_response")


async def generate_rows(records: list[dict[str, Any]], judge: Judge, cache: Cache, fmt: str, *,
                        max_tokens: int = 512, policy: RetryPolicy | None = None) -> GenerationRun:
    import time

    if fmt not in FORMATS:
        raise DataError(f"unknown format '{fmt}'; use one of {', '.join(FORMATS)}")
    policy = policy or RetryPolicy()
    await judge.check()
    start, generated, cached, tokens = time.perf_counter(), 0, 0, 0
    out = []
    for record in records:
        request = request_for(record["text"], fmt, max_tokens)
        key = make_key({"generate": judge.identity(), "format": fmt, "prompt": request.prompt,
                        "messages": request.messages, "max_tokens": max_tokens})
        hit = cache.get(key)
        if hit is None:
            reply = await call_with_retry(partial(judge.complete, request), policy, f"model {judge.describe()}")
            hit = {"text": reply.text, "finish_reason": reply.finish_reason}
            cache.put(key, hit)  # committed per row: a killed run resumes here
            generated, tokens = generated + 1, tokens + reply.completion_tokens
        else:
            cached += 1
        out.append({**record, "generated_response": response_from(hit["text"], hit["finish_reason"], fmt),
                    "generation_finish_reason": hit["finish_reason"]})
    return GenerationRun(out, generated, cached, time.perf_counter() - start, tokens)


def write_generations(rows: list[dict[str, Any]], out_dir: Path) -> tuple[Path, Path]:
    from ragmeter.io.writers import atomic_write_bytes, parquet_bytes

    parquet, samples = out_dir / "generations.parquet", out_dir / "samples.txt"
    atomic_write_bytes(parquet, parquet_bytes(rows))
    atomic_write_bytes(samples, sample_text(rows).encode("utf-8"))
    return parquet, samples


def sample_text(rows: list[dict[str, Any]], shown: int = SAMPLES_SHOWN) -> str:
    parts = []
    for number, row in enumerate(rows[:shown], start=1):
        parts.append(f"=== row {number} ({row['generation_finish_reason']}) ===\n--- prompt (end) ---\n"
                     f"{row['text'][-600:]}\n--- generated_response ---\n{row['generated_response']}\n")
    return "\n".join(parts)
