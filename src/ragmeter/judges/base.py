"""One async judge protocol. Backends differ only in how they turn a request into text."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ragmeter.judges.calibration import Platt

Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": str}

#: set when the process is asked to stop (the command line's Ctrl-C or SIGTERM): an in-process
#: model stops at its next token or prompt batch instead of finishing a call nobody will read
STOPPING = threading.Event()


class Halt:
    """A judge's own stop (set when it is closed) or the process's (STOPPING), as one flag
    the decoding loops check between tokens."""

    def __init__(self) -> None:
        self._own = threading.Event()

    def set(self) -> None:
        self._own.set()

    def clear(self) -> None:
        self._own.clear()

    def is_set(self) -> bool:
        return self._own.is_set() or STOPPING.is_set()


class Prompt(Protocol):
    """What the judge session needs of a prompt (prompts/template.py's PromptTemplate is
    one): a cache identity, the fields it may shorten, and its rendered messages."""

    @property
    def key(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def truncatable(self) -> tuple[str, ...]: ...

    def messages(self, inputs: Mapping[str, object], schema: dict[str, object] | None = None,
                 reply_schema: dict[str, object] | None = None) -> list[Message]: ...


@dataclass(frozen=True)
class DecodingParams:
    """Decoding settings that change the output, hence part of the cache key."""

    temperature: float = 0.0
    seed: int = 42
    max_tokens: int = 512


@dataclass(frozen=True)
class ClaimEvidence:
    """Asks a backend that can read prompt-token probabilities (in-process llama.cpp) for each
    claim's token PMI given the evidence (judges/llamacpp/token_evidence.py): which texts of the last
    message are claims, and the same messages without the evidence. With `combiner` (label
    field, then weights on logit(p), 1, minimum PMI, mean PMI: judges/calibration.py), each
    claim's label is written as the combined probability favours."""

    claims: tuple[str, ...]
    bare: tuple[Message, ...]
    combiner: tuple[str, float, float, float, float] | None = None


@dataclass(frozen=True)
class JudgeRequest:
    """What a metric asks: chat-shaped messages and the JSON schema the reply must match."""

    messages: list[Message]
    schema: dict[str, Any] | None = None
    max_tokens: int | None = None
    #: Which prompt asked ("faithfulness.statements"): for logs and scripted judges, not the cache key.
    tag: str = ""
    #: Seconds this call may take; in-process backends stop decoding at it.
    timeout: float | None = None
    #: A raw completion prompt in a model's own format (generation, not judging): sent
    #: verbatim through the completion path instead of the rendered messages.
    prompt: str | None = None
    #: Strings that end the reply (not included in it).
    stop: tuple[str, ...] = ()
    #: False once the server refused structured output: the schema is then in the prompt.
    structured: bool = True
    #: Platt lines (slope, intercept) by binary label field: a backend that decodes itself
    #: writes the label its calibrated probability favours, so the verdict shown, the reason
    #: written after it and the score all follow one probability (judges/calibration.py).
    label_lines: tuple[tuple[str, float, float], ...] = ()
    #: Token PMI of the claims given the evidence, where the backend can read it.
    evidence: ClaimEvidence | None = None
    #: The messages before the last are the row's own (prompts/row_first.py), the same for each
    #: of the row's prompts: a backend that keeps prompt prefixes keeps this one for the row only.
    row_prefix: bool = False


#: call seconds below which a judge's machine share is not said (too few to tell)
MIN_SHARE_SECONDS = 1.0
#: a share below this is not believed (a thread count above the cores the process may use)
MIN_SHARE = 0.1


def share_of(wall: float, cpu: float, threads: int) -> float | None:
    """The share of its threads' cores a process had over `wall` seconds in which it used
    `cpu` seconds (1.0 quiet), or None: too few seconds to tell, or a share below MIN_SHARE."""
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    share = cpu / (wall * min(threads, cores)) if wall >= MIN_SHARE_SECONDS else None
    return None if share is None or share < MIN_SHARE else min(1.0, share)


@dataclass
class JudgeReply:
    """The raw text plus usage and timing, as the backend reported them."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    #: Label probabilities, one {"field", "probs"} per label field in reply order (label_probs.py);
    #: None when the backend gave none (sampling, no logprobs from the server).
    labels: list[dict[str, Any]] | None = None
    #: Per claim of the request's `evidence`: {"min", "mean", "tokens"} PMI, or None for one not read.
    evidence: list[dict[str, Any] | None] | None = None
    #: The stop string that ended the reply, where the backend says (None: end of turn, or unknown).
    stop: str | None = None


class Judge(ABC):
    """A model that answers JudgeRequests. Subclasses: llamacpp, openai-compatible, hf, scripted."""

    backend: str = "abstract"
    #: True when the backend enforces the JSON schema while decoding (grammar, json_schema).
    constrained: bool = False
    #: Which reasons the judge writes: `all`, or (in-process llama.cpp) `failing` (only for
    #: verdicts of 0) or `none`. Scores are the same; replies differ, so the cache key does.
    reasons: str = "all"
    #: True when the backend answers a request's `evidence` (token PMI of its claims).
    reads_tokens: bool = False
    #: True when requests go through a batch API: the run hands it the cache as the store of
    #: submitted batches (`use_store`), keeps every request in flight and waits up to a day
    queued: bool = False
    #: the environment variable holding the API key, for the manifest (the name, never the key)
    api_key_env: str | None = None
    #: seconds the model took to load (in-process judges; 0 for servers)
    load_seconds: float = 0.0
    #: batch ids and their last status (batch API judges), for the manifest
    batches: dict[str, str] | None = None

    def __init__(self, model: str, params: DecodingParams | None = None) -> None:
        self.model = model
        self.params = params or DecodingParams()

    def identity(self) -> dict[str, object]:
        """What determines the output: backend, model, decoding. Never secrets."""
        return {"backend": self.backend, "model": self.model,
                "temperature": self.params.temperature, "seed": self.params.seed}

    def describe(self) -> str:
        return f"{self.backend}:{self.model}"

    def use_store(self, cache: Any) -> None:
        """Where a `queued` judge remembers submitted batches across restarts: the run's cache."""

    def servers(self) -> list[dict[str, Any]] | None:
        """Each replica's record, for a judge spread over several servers; None otherwise."""
        return None

    def validity_note(self) -> str | None:
        """A warning a run using this judge should show (a bundled judge at chance), or None."""
        return None

    def calibration(self) -> dict[str, Platt]:
        """Platt lines for this judge's verdict probabilities, by prompt key (calibration.py):
        shipped for the bundled judges; none elsewhere."""
        return {}

    @property
    def context_window(self) -> int | None:
        """Tokens the model can see (prompt + reply), or None when unknown."""
        return None

    def machine_share(self) -> float | None:
        """The share of the machine an in-process judge's calls had (1.0 quiet); None where not
        measured (a server's calls wait on others' requests, not on this machine's load)."""
        return None

    def writes_transcript(self) -> bool:
        """Whether free text is generated by continuing a rendered transcript (a base model, no
        chat template): such a model never ends its turn, so a generation says where it ends."""
        return False

    def count_tokens(self, text: str) -> int:
        """Token count for fitting prompts; a conservative estimate unless overridden."""
        return len(text) // 3 + 1

    def count_messages(self, messages: list[Message]) -> int:
        """Prompt tokens these messages will cost, as this backend will send them."""
        return sum(self.count_tokens(m["content"]) + 4 for m in messages)

    async def check(self) -> None:
        """Fail fast (before any row) when the judge cannot work: missing file, key or server."""

    @abstractmethod
    async def complete(self, request: JudgeRequest) -> JudgeReply:
        """Answer one request. Raise TransientJudgeError for retryable failures."""

    async def aclose(self) -> None:
        """Release connections or models."""
