"""Local Hugging Face transformers judge (a model folder, as seed 000 loads its models).

Optional: `pip install 'ragmeter[hf]'`. No decoding constraint: the schema goes into the
prompt and replies are extracted, validated and re-asked once (session.py). Greedy decoding.
Uses the tokenizer's chat template when it has one, else the few-shot completion prompt.
Label probabilities come from the scores `generate` returns for each step (label_probs.py).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragmeter.errors import ConfigError
from ragmeter.judges.base import DecodingParams, Judge, JudgeReply, JudgeRequest, Message
from ragmeter.judges.label_probs import LabelDist, LabelProbe, label_fields
from ragmeter.judges.render import render_completion

if TYPE_CHECKING:
    from ragmeter.judges.settings import HFConfig

HINT = "pip install 'ragmeter[hf]'"
TOP_ALTERNATIVES = 20


class HFJudge(Judge):
    backend = "hf"
    constrained = False

    def __init__(self, path: Path, params: DecodingParams | None = None, context_window: int | None = None) -> None:
        super().__init__(path.name, params)
        self.path = path
        self._window = context_window
        self._model: Any = None
        self._tokenizer: Any = None
        self._lock = asyncio.Lock()
        self.load_seconds = 0.0

    @classmethod
    def from_config(cls, cfg: HFConfig) -> HFJudge:
        return cls(Path(cfg.needs("model")).expanduser(), cfg.params(), cfg.context_window)

    def describe(self) -> str:
        return f"hf:{self.path}"

    @property
    def context_window(self) -> int | None:
        return self._window

    async def check(self) -> None:
        if not self.path.is_dir():
            raise ConfigError(f"hf judge: model folder not found: {self.path}")
        try:
            import transformers  # noqa: F401
        except ImportError:
            raise ConfigError(f"the hf judge needs transformers: {HINT}") from None

    def _load(self) -> tuple[Any, Any]:
        if self._model is None:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            start = time.perf_counter()
            self._tokenizer = AutoTokenizer.from_pretrained(self.path, local_files_only=True)
            self._model = AutoModelForCausalLM.from_pretrained(self.path, local_files_only=True)
            self._model.eval()
            if self._window is None:
                self._window = getattr(self._model.config, "max_position_embeddings", None)
            self.load_seconds = time.perf_counter() - start
        return self._model, self._tokenizer

    def _prompt(self, messages: list[Message]) -> str:
        _, tokenizer = self._load()
        if getattr(tokenizer, "chat_template", None):
            return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return render_completion(messages)

    def count_tokens(self, text: str) -> int:
        return len(self._load()[1](text)["input_ids"])

    def count_messages(self, messages: list[Message]) -> int:
        return self.count_tokens(self._prompt(messages))

    async def complete(self, request: JudgeRequest) -> JudgeReply:
        async with self._lock:
            return await asyncio.to_thread(self._complete_sync, request)

    def _complete_sync(self, request: JudgeRequest) -> JudgeReply:
        import torch

        model, tokenizer = self._load()
        start = time.perf_counter()
        text = request.prompt if request.prompt is not None else self._prompt(request.messages)
        inputs = tokenizer(text, return_tensors="pt")
        max_new = request.max_tokens or self.params.max_tokens
        torch.manual_seed(self.params.seed)
        sampling = self.params.temperature > 0
        with torch.no_grad():
            output = model.generate(**inputs, max_new_tokens=max_new, do_sample=sampling,
                                    temperature=self.params.temperature or None,
                                    pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id,
                                    output_scores=not sampling, return_dict_in_generate=True)
        new = output.sequences[0][inputs["input_ids"].shape[1]:]
        eos = tokenizer.eos_token_id
        finished = len(new) < max_new or (eos is not None and int(new[-1]) == eos)
        fields = label_fields(request.schema)
        labels = hf_labels(tokenizer, [int(t) for t in new], output.scores, fields) if fields and not sampling \
            else None
        return JudgeReply(text=tokenizer.decode(new, skip_special_tokens=True),
                          prompt_tokens=int(inputs["input_ids"].shape[1]), completion_tokens=len(new),
                          finish_reason="stop" if finished else "length", seconds=time.perf_counter() - start,
                          labels=labels)


def hf_labels(tokenizer: Any, ids: list[int], scores: Any, fields: dict[str, tuple[str, ...]]) -> list[LabelDist]:
    """Label distributions from generate's per-step scores: at step i the text so far is the
    decoded first i tokens, and each top-scoring alternative is what it would append."""
    import torch

    probe = LabelProbe(fields)
    for i, step in enumerate(scores):
        prefix = tokenizer.decode(ids[:i], skip_special_tokens=True)

        def alternatives(typed: str, labels: list[str], i: int = i, prefix: str = prefix,
                         step: Any = step) -> dict[str, float]:
            top = torch.topk(step[0], min(TOP_ALTERNATIVES, step.shape[-1]))
            return {tokenizer.decode(ids[:i] + [int(t)], skip_special_tokens=True)[len(prefix):]: float(v)
                    for v, t in zip(top.values, top.indices)}
        probe.observe(prefix, alternatives)
    return probe.finish()
