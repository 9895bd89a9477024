"""The one place that reaches past llama-cpp-python's `Llama`: its context, vocabulary and
batch, which saving prefix states, reading logits at chosen positions and the grammar-free
decoders need and `Llama` does not expose (llama-cpp-python 0.3), and llama.cpp's process-
wide log callback. When its internals move, this module is what changes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from llama_cpp import Llama


def context(llm: Llama) -> Any:
    """The model's `LlamaContext` (decode, KV-cache edits)."""
    return llm._ctx


def context_pointer(llm: Llama) -> Any:
    """The raw `llama_context` pointer the C functions take."""
    return llm._ctx.ctx


def vocab(llm: Llama) -> Any:
    """The raw vocabulary pointer (token pieces, end-of-generation tokens)."""
    return llm._model.vocab


def token_text(llm: Llama, token: int) -> str:
    """A token's text as the model's vocabulary spells it."""
    return str(llm._model.token_get_text(token))


def batch(llm: Llama) -> Any:
    """The `LlamaBatch` `Llama` evaluates through."""
    return llm._batch


_NO_LOG: Any = None  # the ctypes callback must outlive its registration
_QUIET_DEPTH = 0


@contextmanager
def quiet_logs() -> Iterator[None]:
    """llama.cpp logs to stderr while loading a model even with verbose=False (errors still
    raise in Python). Silenced for the load only: the process's logging is restored after,
    so using this backend leaves no global log callback behind."""
    import ctypes

    import llama_cpp

    global _NO_LOG, _QUIET_DEPTH
    if _NO_LOG is None:
        _NO_LOG = llama_cpp.llama_log_callback(lambda level, text, user_data: None)
    _QUIET_DEPTH += 1
    llama_cpp.llama_log_set(_NO_LOG, ctypes.c_void_p(0))
    try:
        yield
    finally:
        _QUIET_DEPTH -= 1
        if _QUIET_DEPTH == 0:
            llama_cpp.llama_log_set(llama_cpp.llama_log_callback(), ctypes.c_void_p(0))  # NULL: the default
