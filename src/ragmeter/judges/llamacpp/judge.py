"""In-process llama.cpp judge: a bundled model by name (`llamacpp:qwen-coder-1.5b`,
`llamacpp:gemma-270m`) or any GGUF file.

Decoding is constrained by a grammar built from the output's JSON schema, so every
reply parses, and the probabilities of the labels the schema allows are read from the
same logits (label_probs.py). A model with a chat template gets its messages rendered by
that template; a base model gets the flattened few-shot prompt. One model instance
answers one request at a time (a lock), in a worker thread so the event loop stays
responsive. The model state is reset before each request so a reply depends only on its
prompt: same prompt, same reply, in any order; the shared prefix of a metric's prompts
(instruction and few-shot examples) is evaluated once and its KV cells restored after.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragmeter.errors import ConfigError, JudgeError, TransientJudgeError
from ragmeter.judges.base import DecodingParams, Halt, Judge, JudgeReply, JudgeRequest, Message, share_of
from ragmeter.judges.bundled import BUNDLED, BundledModel, bundled, check_gguf, model_path
from ragmeter.judges.label_probs import LabelProbe, label_fields
from ragmeter.judges.llamacpp import native
from ragmeter.judges.llamacpp.decode import gbnf_of, greedy_decode
from ragmeter.judges.llamacpp.prompt import PrefixStates, PromptParts, check_window, fresh_state, prompt_parts
from ragmeter.judges.llamacpp.texts import decode_texts, text_plan
from ragmeter.judges.llamacpp.verdicts import decode_verdicts, label_field, read_label, verdict_count
from ragmeter.judges.reasons import reason_skipper
from ragmeter.judges.render import completion_text, transcript_stops

if TYPE_CHECKING:
    from llama_cpp import Llama

    from ragmeter.judges.calibration import Platt
    from ragmeter.judges.settings import LlamaCppConfig

INSTALL_HINT = "pip install 'ragmeter[local]' (or run `make setup`)"
#: what `verdicts: read` changes in a reply (verdicts.py, texts.py): part of the identity
WRITTEN = {"verdicts": "read-after-each-item", "text_lists": "json-written"}


class LlamaCppJudge(Judge):
    backend = "llamacpp"
    constrained = True
    reads_tokens = True

    def __init__(self, model_path: Path | None = None, params: DecodingParams | None = None,
                 n_ctx: int = 4096, n_threads: int | None = None, api: str = "auto",
                 bundled_model: BundledModel | None = None, calibrate: bool = True, reasons: str = "failing",
                 verdicts: str = "read", prefixes: str = "disk") -> None:
        self.model_path, self.bundled = model_path, bundled_model
        if bundled_model is not None:
            name = f"{bundled_model.name}=={bundled_model.version()}"
        elif model_path is not None:
            name = f"{model_path.name}:{model_path.stat().st_size if model_path.exists() else 'missing'}"
        else:
            raise ConfigError("the llamacpp judge needs a GGUF file or a bundled model name")
        super().__init__(name, params)
        self.n_ctx, self.api, self.calibrate, self.reasons = n_ctx, api, calibrate, reasons
        #: verdict lists: "read" from the logits after each item (verdicts.py), or "decode"d as JSON
        self.verdicts = verdicts
        #: saved prompt prefixes: kept on `disk` across runs (prefix_store.py), or in `memory` for this run only
        self.prefixes = prefixes
        self.n_threads = n_threads or max(1, os.cpu_count() or 1)
        self._llm: Llama | None = None
        self._chat: Any = None
        self._prefixes = PrefixStates()
        self._lock = asyncio.Lock()
        #: held by the worker thread while it uses the model: a cancelled call's thread runs on
        #: (a thread cannot be killed), and freeing the model under it crashed the process on
        #: Ctrl-C (exit 139); aclose asks it to stop between tokens and waits for it
        self._busy = threading.Lock()
        self._stop = Halt()
        #: wall and process CPU seconds spent in calls: machine_share()
        self._spent = [0.0, 0.0]
        self.load_seconds = 0.0

    @classmethod
    def from_config(cls, cfg: LlamaCppConfig) -> LlamaCppJudge:
        """`model` is a bundled judge's name or a GGUF path (see judges/spec.py)."""
        from ragmeter.judges.bundled import DEFAULT_BUNDLED

        model = cfg.model or DEFAULT_BUNDLED
        path = None if model in BUNDLED else Path(model).expanduser()
        return cls(path, cfg.params(), n_ctx=cfg.context_window or 4096, n_threads=cfg.n_threads, api=cfg.api,
                   bundled_model=bundled(model) if path is None else None, calibrate=cfg.calibrate,
                   reasons=cfg.reasons, verdicts=cfg.verdicts, prefixes=cfg.prefixes)

    def identity(self) -> dict[str, object]:
        # prompt_eval names how a prompt is batched, which moves logits (decode.py)
        return {**super().identity(), "context_window": self.n_ctx, "api": self.api,
                "prompt_eval": "shared-prefix-then-row",
                **(WRITTEN if self.verdicts == "read" else {})}

    def validity_note(self) -> str | None:
        from ragmeter.judges.bundled import GEMMA, GEMMA_NOTE

        return GEMMA_NOTE if self.bundled is GEMMA else None

    def calibration(self) -> dict[str, Platt]:
        """The bundled judge's shipped Platt lines (unless `calibrate: false`)."""
        if self.bundled is None or not self.calibrate:
            return {}
        from ragmeter.judges.calibration import shipped

        return dict(shipped(self.bundled.name))

    def describe(self) -> str:
        if self.bundled is not None:
            return f"llamacpp:{self.bundled.name} (bundled: {self.bundled.description})"
        return f"llamacpp:{self.model_path}"

    @property
    def context_window(self) -> int:
        return self.n_ctx

    async def check(self) -> None:
        """Cheap: the file exists and llama_cpp imports. The model loads on the first miss."""
        try:
            import llama_cpp  # noqa: F401
        except ImportError:
            raise ConfigError(f"the llamacpp judge needs llama-cpp-python: {INSTALL_HINT}") from None
        if self.model_path is not None:
            check_gguf(self.model_path)
        if self.bundled is not None and self.bundled.version() == "not-installed":
            raise ConfigError(f"the bundled judge {self.bundled.name} is not installed: {self.bundled.install}")

    def _load(self) -> Llama:
        if self._llm is None:
            from llama_cpp import Llama

            start = time.perf_counter()
            path = self.model_path or model_path(self.bundled)  # type: ignore[arg-type]
            with native.quiet_logs():  # nested in a call's: it restores the default only at the outer exit
                try:
                    self._llm = Llama(model_path=str(path), n_ctx=self.n_ctx, n_threads=self.n_threads,
                                      seed=self.params.seed, verbose=False)
                except ValueError as exc:  # a truncated or damaged file: llama.cpp says only that it failed
                    raise ConfigError(f"llama.cpp cannot load {path} ({exc}): a damaged or truncated GGUF "
                                      "file?") from None
            self.load_seconds = time.perf_counter() - start
            if self.prefixes == "disk":
                from ragmeter.judges.llamacpp.prefix_store import PrefixStore, default_dir

                self._prefixes.store = PrefixStore(default_dir(), self._computing(self._llm))
        return self._llm

    def _computing(self, llm: Llama) -> str:
        """What a prompt prefix's KV cells depend on besides its tokens: the model file, llama.cpp's
        build and this CPU's features, and the context's settings (prefix_store.py)."""
        import llama_cpp

        model = self.model
        if self.model_path is not None:
            stat = self.model_path.stat()
            model = f"{self.model_path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"
        params = llm.context_params
        flash = getattr(params, "flash_attn_type", getattr(params, "flash_attn", None))
        return "|".join([model, llama_cpp.__version__, llama_cpp.llama_print_system_info().decode(errors="replace"),
                         f"ctx={llm.n_ctx()} batch={params.n_batch} ubatch={params.n_ubatch} threads={params.n_threads}"
                         f" type_k={params.type_k} type_v={params.type_v} flash={flash}"])

    def writes_transcript(self) -> bool:
        return not self._uses_chat(self._load())

    def _uses_chat(self, llm: Llama) -> bool:
        has_template = bool(llm.metadata.get("tokenizer.chat_template"))
        if self.api == "chat" and not has_template:
            raise ConfigError(f"judge {self.describe()}: the model has no chat template; use api=completions")
        return has_template if self.api == "auto" else self.api == "chat"

    def _chat_formatter(self, llm: Llama) -> Any:
        """The GGUF's own chat template (Jinja), as llama-cpp-python renders it."""
        if self._chat is None:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            def text(token: int) -> str:
                return native.token_text(llm, token) if token != -1 else ""

            self._chat = Jinja2ChatFormatter(template=llm.metadata["tokenizer.chat_template"],
                                             eos_token=text(llm.token_eos()), bos_token=text(llm.token_bos()))
        return self._chat

    def _prompt(self, llm: Llama, request: JudgeRequest) -> tuple[str, bool]:
        """The prompt text and whether it holds the template's special tokens."""
        if request.prompt is None and self._uses_chat(llm):
            return self._chat_formatter(llm)(messages=request.messages).prompt, True
        return completion_text(request), False

    def _parts(self, llm: Llama, request: JudgeRequest) -> PromptParts:
        """The prompt's tokens, split where the row's own message begins."""
        text, special = self._prompt(llm, request)
        row = request.messages[-1]["content"] if request.prompt is None and request.messages else None
        return prompt_parts(llm, text, special, row, request.row_prefix)

    async def aclose(self) -> None:
        """Free the model now (quietly: llama.cpp logs its buffers when a context is freed),
        once a call still running in its thread has stopped (at its next token, or the end of
        the prompt batch it is evaluating)."""
        self._stop.set()
        with self._busy:
            self._stop.clear()
            if self._llm is not None:
                with native.quiet_logs():
                    self._llm.close()
                self._llm = None
                self._prefixes = PrefixStates()

    def count_tokens(self, text: str) -> int:
        return len(self._load().tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def count_messages(self, messages: list[Message]) -> int:
        llm = self._load()
        return len(self._parts(llm, JudgeRequest(messages)))

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        async with self._lock:
            return await asyncio.to_thread(self._complete_quietly, request)

    def _complete_quietly(self, request: JudgeRequest) -> JudgeReply:
        with self._busy, native.quiet_logs():  # restoring a saved prompt prefix logs a line per call
            if self._stop.is_set():
                raise JudgeError("the llama.cpp judge was closed")
            wall, cpu, loaded = time.perf_counter(), time.process_time(), self._llm is not None
            try:
                return self._complete_sync(request)
            finally:
                if loaded:  # a call that loaded the model is the disk's time, not the share's
                    self._spent[0] += time.perf_counter() - wall
                    self._spent[1] += time.process_time() - cpu

    def machine_share(self) -> float | None:
        """The share of its threads' cores the calls so far had (process CPU seconds over wall
        seconds times threads; 1.0 on a quiet machine): a run beside other work is slower by
        its share, not because the judge is (run/judge_speed.py learns the pace from it)."""
        return share_of(self._spent[0], self._spent[1], self.n_threads)

    def _complete_sync(self, request: JudgeRequest) -> JudgeReply:
        llm = self._load()
        start = time.perf_counter()
        max_tokens = request.max_tokens or self.params.max_tokens
        # Property order matters to the grammar (reason before verdict): never sort keys here.
        schema_json = json.dumps(request.schema) if request.schema else None
        if self.params.temperature == 0.0:
            deadline = time.monotonic() + request.timeout if request.timeout else None
            gbnf = gbnf_of(schema_json) if schema_json else None
            fields = label_fields(request.schema)
            skip = reason_skipper(self.reasons, request.schema) if request.prompt is None else None
            parts = self._parts(llm, request)
            check_window(llm, len(parts), max_tokens)
            evidence, lines = self._load_prompt(llm, request, parts)
            written = self._written(llm, request, lines, deadline) \
                if self.verdicts == "read" and request.prompt is None else None
            if written is not None:
                text, labels, sampled, finish = written
                if finish == "stopped":
                    raise JudgeError("the llama.cpp judge was closed mid-reply")
                return JudgeReply(text, len(parts), sampled, finish, time.perf_counter() - start, labels=labels,
                                  evidence=evidence)
            stop = request.stop if self._uses_chat(llm) else transcript_stops(request)
            out = greedy_decode(llm, len(parts), gbnf, max_tokens, deadline, stop,
                                LabelProbe(fields) if fields else None, skip, lines, self._stop)
            if out.finish_reason == "stopped":
                raise JudgeError("the llama.cpp judge was closed mid-reply")
            if out.finish_reason == "timeout":
                raise TransientJudgeError(f"llama.cpp decoding passed the {request.timeout:g} s timeout")
            return JudgeReply(out.text, out.prompt_tokens, out.completion_tokens, out.finish_reason,
                              time.perf_counter() - start, labels=out.labels, evidence=evidence, stop=out.stop)
        return self._complete_library(llm, request, schema_json, max_tokens, start)

    def _written(self, llm: Llama, request: JudgeRequest, lines: tuple[tuple[str, float, float], ...],
                 deadline: float | None) -> tuple[str, list[Any], int, str] | None:
        """The reply with its JSON written by ragmeter, where the schema allows (a rating, a
        verdict list, lists of free text), else None: decode it under the grammar."""
        rating = label_field(request.schema)
        if rating is not None:
            text, labels = read_label(llm, rating[0], rating[1], lines)
            return text, labels, 0, "stop"
        count = verdict_count(request.schema)
        if count is not None:
            return decode_verdicts(llm, count, self.reasons, lines, deadline, self._stop)
        plan = text_plan(request.schema)
        if plan is None:
            return None
        written = decode_texts(llm, plan, lines, deadline, self._stop)
        if written[3] == "timeout":  # unlike a verdict list's missing reasons, a list cut short is no reply
            raise TransientJudgeError(f"llama.cpp decoding passed the {request.timeout:g} s timeout")
        return written

    def _load_prompt(self, llm: Llama, request: JudgeRequest, parts: PromptParts) -> tuple[
            list[dict[str, object] | None] | None, tuple[tuple[str, float, float], ...]]:
        """Evaluate the prompt; where the request asks for its claims' token evidence, read it
        on the way (the prompt without the evidence first, then the prompt itself, the state
        the decode goes on from) and turn the combiner into one label line per claim."""
        ask = request.evidence
        if ask is None or request.prompt is not None or not request.messages:
            self._prefixes.load(llm, parts, halt=self._stop)
            return None, request.label_lines
        from ragmeter.judges.llamacpp.token_evidence import claim_tokens, combined_lines, features

        bare = self._parts(llm, JudgeRequest(list(ask.bare)))
        row, bare_row = request.messages[-1]["content"], ask.bare[-1]["content"]
        idx = claim_tokens([llm.detokenize([t]) for t in parts.rest], row, ask.claims)
        bare_idx = claim_tokens([llm.detokenize([t]) for t in bare.rest], bare_row, ask.claims)
        bare_lp = self._prefixes.load(llm, bare, frozenset(i for ids in bare_idx for i in ids), self._stop)
        with_lp = self._prefixes.load(llm, parts, frozenset(i for ids in idx for i in ids), self._stop)

        def text(token: int) -> str:
            return llm.detokenize([token]).decode("utf-8", errors="replace")

        found = [features(with_lp, bare_lp, i, j, parts.rest, bare.rest, text) for i, j in zip(idx, bare_idx)]
        return found, combined_lines(ask.combiner, found, request.label_lines)

    def _complete_library(self, llm: Any, request: JudgeRequest, schema_json: str | None,
                          max_tokens: int, start: float) -> JudgeReply:
        """Sampling (temperature > 0): llama-cpp-python's own path (labels only, no probabilities)."""
        fresh_state(llm)
        common = dict(max_tokens=max_tokens, temperature=self.params.temperature, seed=self.params.seed,
                      repeat_penalty=1.0, grammar=_grammar(schema_json) if schema_json else None)
        try:
            if self._uses_chat(llm) and request.prompt is None:
                out = llm.create_chat_completion(messages=request.messages, **common)
                text = out["choices"][0]["message"]["content"] or ""
            else:
                stop = list(transcript_stops(request)) or None
                out = llm.create_completion(prompt=completion_text(request), stop=stop, **common)
                text = out["choices"][0]["text"]
        except ValueError as exc:  # e.g. prompt longer than n_ctx
            raise JudgeError(f"llama.cpp rejected the request: {exc}") from None
        usage = out.get("usage", {})
        return JudgeReply(text=text, prompt_tokens=usage.get("prompt_tokens", 0),
                          completion_tokens=usage.get("completion_tokens", 0),
                          finish_reason=out["choices"][0].get("finish_reason") or "stop",
                          seconds=time.perf_counter() - start)


@lru_cache(maxsize=64)
def _grammar(schema_json: str) -> Any:
    from llama_cpp import LlamaGrammar

    return LlamaGrammar.from_json_schema(schema_json, verbose=False)
