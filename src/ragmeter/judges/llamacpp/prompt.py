"""A prompt evaluated in llama.cpp: its tokens split into the shared prefix (instruction and
few-shot examples) and the row's part, the prefix's KV cells saved and restored instead of
evaluated again, log-probabilities read at chosen tokens, a stop asked for between batches,
and a fresh state per request so a reply depends only on its prompt. Decoding the reply from
there: decode.py."""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragmeter.errors import JudgeError
from ragmeter.judges.llamacpp import native

if TYPE_CHECKING:
    import threading

    from llama_cpp import Llama

    from ragmeter.judges.base import Halt
    from ragmeter.judges.llamacpp.prefix_store import PrefixStore


@dataclass(frozen=True)
class PromptParts:
    """A prompt's tokens in two parts: the `shared` prefix every row of a metric's prompt
    has (instruction and few-shot examples) and the row's own `rest`."""

    shared: tuple[int, ...]
    rest: tuple[int, ...]
    #: the shared part is a row's own (prompts/row_first.py): kept in memory while the row's
    #: other prompts run, never written to disk, where it would serve no other row
    own: bool = False

    def __len__(self) -> int:
        return len(self.shared) + len(self.rest)


def prompt_parts(llm: Llama, prompt: str, special: bool, row_text: str | None = None,
                 own: bool = False) -> PromptParts:
    """Tokens of a prompt (BOS added where the model wants one), split where `row_text` (the
    last message, the row's inputs) begins. `special` parses chat-template markers such as
    <|im_start|> as the model's own tokens."""
    cut = prompt.rfind(row_text) if row_text else -1
    if cut <= 0:
        return PromptParts((), tuple(llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=special)))
    shared = llm.tokenize(prompt[:cut].encode("utf-8"), add_bos=True, special=special)
    rest = llm.tokenize(prompt[cut:].encode("utf-8"), add_bos=False, special=special)
    return PromptParts(tuple(shared), tuple(rest), own)


class PrefixStates:
    """KV cells of shared prompt prefixes, restored instead of evaluated again.

    A prompt is always evaluated as two batches, shared prefix then rest, whether the
    prefix is restored or computed: llama.cpp's logits depend on how tokens are batched
    (measured with Qwen2.5-1.5B: up to 0.37 apart between one batch and two), while restored
    cells give bitwise the logits of computed ones. So a reply depends only on its prompt,
    never on what ran before, and the prefix (most of a few-shot prompt) is paid once per
    metric instead of once per row (measured: 0.57 s instead of 7.0 s for one prompt).
    """

    def __init__(self, max_bytes: int = 256 << 20, store: PrefixStore | None = None) -> None:
        self.max_bytes = max_bytes
        #: prefixes saved by earlier runs (prefix_store.py), read where this run has none yet
        self.store = store
        self._states: OrderedDict[tuple[int, ...], Any] = OrderedDict()
        self._bytes = 0
        self.hits = 0

    def load(self, llm: Llama, prompt: PromptParts, read: frozenset[int] = frozenset(),
             halt: Halt | threading.Event | None = None) -> dict[int, float]:
        """Leave exactly `prompt` evaluated in a fresh context, logits of its last token ready;
        with `read` (indices into `prompt.rest`), also the log-probability of each such token
        given the tokens before it (judges/llamacpp/token_evidence.py). `halt` set stops it between
        prompt batches (JudgeError): a long prompt is seconds of work per batch."""
        fresh_state(llm)
        if prompt.shared and not self._restore(llm, prompt.shared) and not self._stored(llm, prompt):
            eval_halting(llm, list(prompt.shared), halt)
            self._save(llm, prompt)
        if not read:
            eval_halting(llm, list(prompt.rest), halt)  # never empty: it holds the row's text (or the whole prompt)
            return {}
        return eval_reading(llm, list(prompt.rest), read, halt)

    def _restore(self, llm: Llama, shared: tuple[int, ...]) -> bool:
        import llama_cpp

        state = self._states.get(shared)
        if state is None:
            return False
        self._states.move_to_end(shared)
        if llama_cpp.llama_state_seq_set_data(native.context_pointer(llm), state, len(state), 0) != len(state):
            fresh_state(llm)
            return False
        llm.input_ids[:len(shared)] = shared
        llm.n_tokens = len(shared)
        self.hits += 1
        return True

    def _stored(self, llm: Llama, prompt: PromptParts) -> bool:
        """Restored from a state an earlier run saved on disk, where there is one."""
        shared = prompt.shared
        data = self.store.get(shared) if self.store is not None and not prompt.own else None
        if data is None:
            return False
        self._keep(shared, (ctypes.c_uint8 * len(data)).from_buffer_copy(data))
        return self._restore(llm, shared)

    def _save(self, llm: Llama, prompt: PromptParts) -> None:
        import llama_cpp

        shared = prompt.shared
        size = llama_cpp.llama_state_seq_get_size(native.context_pointer(llm), 0)
        if size > self.max_bytes:
            return
        state = (ctypes.c_uint8 * size)()
        if llama_cpp.llama_state_seq_get_data(native.context_pointer(llm), state, size, 0) != size:
            return
        self._keep(shared, state)
        if self.store is not None and not prompt.own:
            self.store.put(shared, bytes(state))

    def _keep(self, shared: tuple[int, ...], state: ctypes.Array[ctypes.c_uint8]) -> None:
        self._states[shared] = state
        self._bytes += len(state)
        while self._bytes > self.max_bytes:
            _, dropped = self._states.popitem(last=False)
            self._bytes -= len(dropped)


def eval_halting(llm: Llama, tokens: list[int], halt: Halt | threading.Event | None) -> None:
    """`llm.eval(tokens)` a batch at a time (as llm.eval itself goes), stopping between
    batches once `halt` is set."""
    for lo in range(0, len(tokens), llm.n_batch):
        _check_halt(halt)
        llm.eval(tokens[lo:lo + llm.n_batch])


def _check_halt(halt: Halt | threading.Event | None) -> None:
    if halt is not None and halt.is_set():
        raise JudgeError("the llama.cpp judge was stopped")


def eval_reading(llm: Llama, tokens: list[int], read: frozenset[int],
                 halt: Halt | threading.Event | None = None) -> dict[int, float]:
    """`llm.eval(tokens)`, also asking llama.cpp for the logits before each token in `read`
    (index 0 is not readable: its logits belong to the previous batch) and returning that
    token's log-probability. Only those rows of the output layer are computed."""
    import llama_cpp
    import numpy as np

    n_vocab = llm.n_vocab()
    want = {i - 1 for i in read if 0 < i < len(tokens)}
    out: dict[int, float] = {}
    native.context(llm).kv_cache_seq_rm(-1, llm.n_tokens, -1)
    batch = native.batch(llm)
    for lo in range(0, len(tokens), llm.n_batch):
        _check_halt(halt)
        chunk = tokens[lo:lo + llm.n_batch]
        batch.set_batch(batch=chunk, n_past=llm.n_tokens, logits_all=False)
        for j in range(len(chunk)):
            batch.batch.logits[j] = (lo + j) in want or j == len(chunk) - 1
        native.context(llm).decode(batch)
        llm.input_ids[llm.n_tokens:llm.n_tokens + len(chunk)] = chunk
        llm.n_tokens += len(chunk)
        for j in range(len(chunk)):
            if (lo + j) in want:
                logits = llama_cpp.llama_get_logits_ith(native.context_pointer(llm), j)
                row = np.ctypeslib.as_array(logits, shape=(n_vocab,))
                top = float(row.max())
                norm = top + float(np.log(np.exp(row - top).sum()))
                out[lo + j + 1] = float(row[tokens[lo + j + 1]]) - norm
    return out


def check_window(llm: Llama, prompt_tokens: int, max_tokens: int) -> None:
    if prompt_tokens + max_tokens > llm.n_ctx():
        raise JudgeError(f"prompt of {prompt_tokens} tokens + {max_tokens} for the reply exceeds the "
                         f"window of {llm.n_ctx()} tokens")


def fresh_state(llm: Llama) -> None:
    """Forget every previous request, KV cells included (not just the token counter), so a
    reply depends only on its prompt and not on which requests came before it: otherwise
    leftover cells change where new ones land and, rarely, a greedy choice (measured: 3 of
    120 scores differed between two identical runs)."""
    llm.reset()
    native.context(llm).kv_cache_clear()
