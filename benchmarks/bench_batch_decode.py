"""Does decoding several rows' free text in one llama.cpp batch pay on this machine?

Evaluates K prompts (~330 tokens each, Qwen chat format) and then greedily writes N tokens
for each, first one sequence at a time, then all K sequences in one llama.cpp batch per
step (`n_seq_max = K`, one KV cache). Prints the writing seconds and tokens per second of
both, and how many of the K replies came out token for token the same (batched kernels
round differently, and a greedy reply that takes another token goes its own way).

    python benchmarks/bench_batch_decode.py [--k 2 4 8] [--tokens 40] [--threads N]
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any


def _callback() -> Any:
    import llama_cpp

    return llama_cpp.llama_log_callback(_silent)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--k", type=int, nargs="+", default=[2, 4, 8], help="sequences per batch")
    parser.add_argument("--tokens", type=int, default=40, help="tokens written per sequence")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    print(f"{'K':>3} {'one at a time':>16} {'batched':>16} {'speed-up':>9} {'same replies':>13}")
    for k in args.k:
        one, batched, same = measure(k, args.tokens, args.threads)
        print(f"{k:>3} {one:>8.2f} s {k * args.tokens / one:>4.0f}/s {batched:>8.2f} s "
              f"{k * args.tokens / batched:>4.0f}/s {one / batched:>8.2f}x {same:>9}/{k}")


def _silent(level: int, text: bytes, data: Any) -> None:
    return None


class Model:
    """The bundled Qwen in a context of K sequences (llama.cpp's C API: the high-level
    Llama class has one sequence)."""

    def __init__(self, k: int, threads: int) -> None:
        import llama_cpp

        from ragmeter.judges.bundled import bundled, model_path

        self.lib = llama_cpp
        self.silent = _callback()  # kept: llama.cpp holds the pointer
        llama_cpp.llama_log_set(self.silent, None)  # llama.cpp's load and context logs
        llama_cpp.llama_backend_init()
        path = str(model_path(bundled("qwen-coder-1.5b"))).encode()
        self.model = llama_cpp.llama_model_load_from_file(path, llama_cpp.llama_model_default_params())
        params = llama_cpp.llama_context_default_params()
        params.n_ctx, params.n_batch, params.n_ubatch, params.n_seq_max = 4096, 512, 512, k
        params.n_threads = params.n_threads_batch = threads
        self.ctx = llama_cpp.llama_init_from_model(self.model, params)
        self.vocab = llama_cpp.llama_model_get_vocab(self.model)
        self.n_vocab = llama_cpp.llama_vocab_n_tokens(self.vocab)
        self.batch = llama_cpp.llama_batch_init(2048, 0, k)
        self.memory = llama_cpp.llama_get_memory(self.ctx)

    def tokenize(self, text: str) -> list[int]:
        data = text.encode()
        out = (self.lib.llama_token * (len(data) + 8))()
        n = self.lib.llama_tokenize(self.vocab, data, len(data), out, len(out), True, True)
        return list(out[:n])

    def decode(self, entries: list[tuple[int, int, int]]) -> None:
        """(token, position, sequence) each; logits kept for every entry."""
        self.batch.n_tokens = len(entries)
        for j, (token, pos, seq) in enumerate(entries):
            self.batch.token[j], self.batch.pos[j], self.batch.n_seq_id[j] = token, pos, 1
            self.batch.seq_id[j][0], self.batch.logits[j] = seq, True
        if self.lib.llama_decode(self.ctx, self.batch) != 0:
            raise RuntimeError("llama_decode failed")

    def best(self, index: int) -> int:
        import numpy as np

        row = np.ctypeslib.as_array(self.lib.llama_get_logits_ith(self.ctx, index), shape=(self.n_vocab,))
        return int(np.argmax(row))

    def prefill(self, prompt: list[int], seq: int) -> int:
        self.decode([(t, i, seq) for i, t in enumerate(prompt)])
        return self.best(len(prompt) - 1)

    def close(self) -> None:
        self.lib.llama_batch_free(self.batch)
        self.lib.llama_free(self.ctx)
        self.lib.llama_model_free(self.model)


def prompts(model: Model, k: int) -> list[list[int]]:
    body = "The Eiffel Tower was built in 1889 for the World's Fair in Paris by Gustave Eiffel's company. " * 6
    return [model.tokenize(f"<|im_start|>user\nWrite three questions that this answer answers ({i}): {body}"
                           "<|im_end|>\n<|im_start|>assistant\n") for i in range(k)]


def measure(k: int, tokens: int, threads: int) -> tuple[float, float, int]:
    """(seconds writing one sequence at a time, seconds writing all K together, replies equal)."""
    model = Model(k, threads)
    try:
        texts = prompts(model, k)
        alone: list[list[int]] = []
        one = 0.0
        for prompt in texts:
            model.lib.llama_memory_clear(model.memory, True)
            token, pos, out = model.prefill(prompt, 0), len(prompt), []
            start = time.perf_counter()
            for _ in range(tokens):
                out.append(token)
                model.decode([(token, pos, 0)])
                pos, token = pos + 1, model.best(0)
            one += time.perf_counter() - start
            alone.append(out)
        model.lib.llama_memory_clear(model.memory, True)
        nxt = [model.prefill(prompt, s) for s, prompt in enumerate(texts)]
        pos = [len(p) for p in texts]
        together: list[list[Any]] = [[] for _ in texts]
        start = time.perf_counter()
        for _ in range(tokens):
            for s in range(k):
                together[s].append(nxt[s])
            model.decode([(nxt[s], pos[s], s) for s in range(k)])
            pos, nxt = [p + 1 for p in pos], [model.best(s) for s in range(k)]
        batched = time.perf_counter() - start
        return one, batched, sum(a == b for a, b in zip(alone, together))
    finally:
        model.close()


if __name__ == "__main__":
    main()
