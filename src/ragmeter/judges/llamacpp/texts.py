"""Lists of free text with their JSON written by ragmeter (in-process llama.cpp): a reply
such as `{"questions": [3 strings], "noncommittal": 0|1}` or `{"statements": [at most n
strings]}` is not decoded under a grammar token by token. ragmeter writes the skeleton
(`{"questions": ["`, `", "`, `"], "noncommittal": `) as prefill, the model samples only
each string's text, greedily, up to its closing quote, and a small-integer field is read
from the label logits after its key (verdicts.py does the same for verdict lists).

Where a list's length is the model's choice, the token that closes a string says it: a
closing `",` goes on, `"]` ends the list; a bare `"` is followed by one read of the logits
(the best token starting with `,` against the best starting with `]`). Same greedy text as
the grammar would allow, minus the JSON tokens nobody needs sampled (measured on the
quickstart's response_relevancy: docs/benchmarks.md).
"""

from __future__ import annotations

import json
import time
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragmeter.judges.label_probs import LabelDist
from ragmeter.judges.llamacpp import native
from ragmeter.judges.llamacpp.verdicts import Writer, choose, closing_quote, label_dist, string_content

if TYPE_CHECKING:
    import threading

    from llama_cpp import Llama

    from ragmeter.judges.base import Halt

#: tokens per character allowed for a string's text before it is cut (plus a margin)
TOKENS_PER_CHAR = 0.4


@dataclass(frozen=True)
class Part:
    """One property of the reply: a list of strings (`labels` empty) or a small-int label."""

    field: str
    labels: tuple[str, ...] = ()
    min_items: int = 0
    max_items: int = 0
    max_chars: int = 0


def text_plan(schema: dict[str, Any] | None) -> tuple[Part, ...] | None:
    """The parts when `schema` is an object of bounded string lists and small-int enums with
    at least one list (schemas.questions, statements, entities), else None."""
    props = (schema or {}).get("properties")
    if not props:
        return None
    plan: list[Part] = []
    for field, node in props.items():
        items = node.get("items", {})
        values = node.get("enum")
        if node.get("type") == "array" and items.get("type") == "string" and node.get("maxItems"):
            plan.append(Part(field, (), int(node.get("minItems", 0)), int(node["maxItems"]),
                             int(items.get("maxLength") or 200)))
        elif values and len(values) >= 2 and all(isinstance(v, int) and 0 <= v <= 9 for v in values):
            plan.append(Part(field, tuple(json.dumps(v) for v in values)))
        else:
            return None
    return tuple(plan) if any(not p.labels for p in plan) else None


def decode_texts(llm: Llama, plan: tuple[Part, ...], lines: tuple[tuple[str, float, float], ...],
                 deadline: float | None = None,
                 halt: Halt | threading.Event | None = None) -> tuple[str, list[LabelDist], int, str]:
    """(reply JSON text, label distributions, tokens sampled, finish reason), the prompt
    already loaded into `llm`."""
    from ragmeter.judges.llamacpp.decode import line_for

    writer = Writer(llm)
    reply: dict[str, Any] = {}
    found: list[LabelDist] = []
    sampled = 0
    for k, part in enumerate(plan):
        key = ("{" if k == 0 else ", ") + json.dumps(part.field) + ": "
        if part.labels:
            writer.add(key)
            dist = label_dist(llm, list(part.labels))
            label = choose(dist, line_for(lines, part.field, 0), list(part.labels)) if dist else part.labels[0]
            reply[part.field] = json.loads(label)
            found += [{"field": part.field, **dist}] if dist else []
            writer.add(label, read=False)
            continue
        writer.add(key + "[", read=False)
        texts, used, finish = _text_list(llm, writer, part, deadline, halt)
        reply[part.field] = texts
        sampled += used
        if finish != "stop":
            return json.dumps(reply, ensure_ascii=False), found, sampled, finish
    return json.dumps(reply, ensure_ascii=False), found, sampled, "stop"


def _text_list(llm: Llama, writer: Writer, part: Part, deadline: float | None,
               halt: Halt | threading.Event | None) -> tuple[list[str], int, str]:
    """The list's strings and its closing `]`, written into `writer`. The token that closes a
    string is kept as the model wrote it (`",` say) where it agrees with what follows: with
    the skeleton retokenized instead, Qwen went on repeating a question it had finished."""
    texts: list[str] = []
    sampled = 0
    go_on: bool | None = part.min_items > 0 or _prefers(llm, writer, b'"', b"]")
    piece = '"' if go_on else "]"
    while go_on:
        if halt is not None and halt.is_set():
            return texts, sampled, "stopped"
        if deadline is not None and time.monotonic() > deadline:
            return texts, sampled, "timeout"
        writer.add(piece)
        item = _string(llm, writer, part.max_chars)
        sampled += item.sampled
        texts.append(string_content(item.raw, part.max_chars))
        go_on = _goes_on(part, len(texts), item.tail)
        follow = "" if go_on is None else ', "' if go_on else "]"
        written = ""
        if item.closing is not None and follow.startswith(item.tail):
            llm.eval([item.closing])
            writer.took([item.closing], item.closing_text)
            written = item.tail
        else:
            writer.add(item.rest + '"', read=False)
        if go_on is None:
            go_on = _prefers(llm, writer, b",", b"]")
        piece = (', "' if go_on else "]")[len(written):]
    writer.add(piece, read=False)
    return texts, sampled, "stop"


def _goes_on(part: Part, count: int, tail: str) -> bool | None:
    """After `count` strings: another (True), the end (False), or the model's call (None)."""
    if count >= part.max_items:
        return False
    if count < part.min_items:
        return True
    return tail.strip().startswith(",") if tail.strip() else None


def _prefers(llm: Llama, writer: Writer, yes: bytes, no: bytes) -> bool:
    """Where the reply stands: is the best token whose text begins (after spaces) with one of
    `yes` more likely than the best beginning with one of `no`? (`"` against `]` where a list
    may be empty, `,` against `]` after an item.)"""
    import numpy as np

    from ragmeter.judges.llamacpp.decode import last_logits

    writer.add("")
    logits = last_logits(llm)
    first = _first_bytes(llm)

    def best(chars: bytes) -> float:
        mask = np.isin(first, np.frombuffer(chars, dtype=np.uint8))
        return float(logits[mask].max()) if mask.any() else float("-inf")

    return best(yes) > best(no)


_FIRST: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def _first_bytes(llm: Llama) -> Any:
    """Each token's first byte after leading spaces (0 where none), read once per model
    (0.13 s for Qwen's 151,936 tokens)."""
    found = _FIRST.get(llm)
    if found is None:
        import ctypes

        import llama_cpp
        import numpy as np

        buf = ctypes.create_string_buffer(64)
        found = np.zeros(llm.n_vocab(), dtype=np.uint8)
        for i in range(len(found)):
            size = llama_cpp.llama_token_to_piece(native.vocab(llm), i, buf, 64, 0, False)
            piece = buf.raw[:max(0, size)].lstrip()
            found[i] = piece[0] if piece else 0
        _FIRST[llm] = found
    return found


@dataclass(frozen=True)
class _Item:
    raw: str  # the JSON string content as the model wrote it
    tail: str  # what its closing token held after the quote
    closing: int | None  # that token (sampled, not yet evaluated), if a quote ended the string
    closing_text: str
    rest: str  # the part of `raw` inside the closing token
    sampled: int


def _string(llm: Llama, writer: Writer, max_chars: int) -> _Item:
    """Greedy text from inside an opening quote up to its closing quote (or a raw newline,
    which cannot be inside a JSON string, or `max_chars`). The tokens evaluated on the way
    are handed to `writer` as the model's own."""
    import llama_cpp
    import numpy as np

    from ragmeter.judges.llamacpp.decode import last_logits

    out: list[int] = []  # sampled and evaluated
    done = ""
    for _ in range(int(max_chars * TOKENS_PER_CHAR) + 8):
        token = int(np.argmax(last_logits(llm)))
        if llama_cpp.llama_vocab_is_eog(native.vocab(llm), token):
            break
        text = llm.detokenize(out + [token]).decode("utf-8", errors="ignore")
        end, newline = closing_quote(text), text.find("\n")
        if (end is not None or newline >= 0) and text.startswith(done):
            writer.took(out, done)
            if end is not None and (newline < 0 or end < newline):
                return _Item(text[:end], text[end + 1:], token, text[len(done):], text[len(done):end], len(out) + 1)
            return _Item(text[:newline], "", None, "", text[len(done):newline], len(out) + 1)
        out.append(token)
        llm.eval([token])
        done = llm.detokenize(out).decode("utf-8", errors="ignore")
        if len(done) > max_chars:
            break
    writer.took(out, done)
    return _Item(done, "", None, "", "", len(out))
