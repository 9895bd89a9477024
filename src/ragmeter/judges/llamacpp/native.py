"""The one place that reaches past llama-cpp-python's public API: the context, vocabulary
and batch of a `Llama`, which saving prefix states, reading logits at chosen positions and
the grammar-free decoders need and `Llama` does not expose (llama-cpp-python 0.3). When
its internals move, this module is what changes."""

from __future__ import annotations

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
