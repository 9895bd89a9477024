"""Which llama.cpp settings make the bundled judge fastest on this CPU? Prompt evaluation
(prefill, what a judge run is bound by) and writing speed of the default bundled judge
(Qwen2.5-Coder-1.5B-Instruct, Q4_K_M) under each setting alone: threads, batch and micro-batch
sizes, flash attention, and other quantizations made from the bundled weights at run time
(Q4_0 and IQ4_NL, whose weights llama.cpp repacks for AVX2/AVX-512 at load; Q8_0), written
to a temporary folder and deleted after.

    python benchmarks/bench_kernels.py [--prompt 300 1000] [--quants Q4_0 IQ4_NL Q8_0]

A faster quantization is a different model: its agreement with people must be measured
(ragmeter meta-eval) before it could be shipped.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import tempfile
import time
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parents[1] / "README.md"


def speed(path: str, prompt_lengths: list[int], **settings: Any) -> dict[str, float]:
    """Prompt tokens per second (best of two, fresh state each) and written tokens per second."""
    import llama_cpp

    from ragmeter.judges.llamacpp.prompt import fresh_state

    threads = settings.pop("n_threads", os.cpu_count() or 1)
    llm = llama_cpp.Llama(model_path=path, n_ctx=4096, n_threads=threads, verbose=False, **settings)
    tokens = llm.tokenize(README.read_text(encoding="utf-8")[:8000].encode("utf-8"))
    out: dict[str, float] = {}
    for n in prompt_lengths:
        best = float("inf")
        for _ in range(2):
            fresh_state(llm)
            start = time.perf_counter()
            llm.eval(tokens[:n])
            best = min(best, time.perf_counter() - start)
        out[f"prefill {n} tok/s"] = round(n / best, 1)
    start = time.perf_counter()
    for token in tokens[prompt_lengths[-1]:prompt_lengths[-1] + 30]:
        llm.eval([token])
    out["write tok/s"] = round(30 / (time.perf_counter() - start), 1)
    llm.close()
    return out


def quantize(source: str, target: str, kind: str) -> float:
    """Requantize the bundled GGUF to `kind` (e.g. Q4_0); seconds taken."""
    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, f"LLAMA_FTYPE_MOSTLY_{kind}")
    params.allow_requantize = True
    params.nthread = os.cpu_count() or 1
    start = time.perf_counter()
    if llama_cpp.llama_model_quantize(source.encode(), target.encode(), ctypes.byref(params)) != 0:
        raise RuntimeError(f"llama.cpp could not quantize to {kind}")
    return time.perf_counter() - start


def main() -> None:
    from ragmeter.judges.bundled import QWEN, model_path
    from ragmeter.judges.llamacpp import native

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompt", type=int, nargs="+", default=[300, 1000])
    parser.add_argument("--quants", nargs="*", default=["Q4_0", "IQ4_NL", "Q8_0"])
    args = parser.parse_args()
    with native.quiet_logs():
        run(str(model_path(QWEN)), args.prompt, args.quants)


def run(bundled: str, prompt_lengths: list[int], quants: list[str]) -> None:
    """Each setting alone on the bundled weights, then each quantization made from them."""
    cores = os.cpu_count() or 1
    trials: list[tuple[str, dict[str, Any]]] = [
        ("Q4_K_M (bundled), defaults", {}),
        ("threads 1", {"n_threads": 1}),
        (f"threads {2 * cores}", {"n_threads": 2 * cores}),
        ("batch 256, ubatch 256", {"n_batch": 256, "n_ubatch": 256}),
        ("ubatch 128", {"n_ubatch": 128}),
        ("batch 1024, ubatch 1024", {"n_batch": 1024, "n_ubatch": 1024}),
        ("flash attention", {"flash_attn": True}),
    ]
    for name, settings in trials:
        print(f"{name:32} {speed(bundled, prompt_lengths, **settings)}")
    with tempfile.TemporaryDirectory() as folder:
        for kind in quants:
            target = str(Path(folder) / f"qwen-{kind}.gguf")
            made = quantize(bundled, target, kind)
            print(f"{kind + f' (made in {made:.0f} s)':32} {speed(target, prompt_lengths)}")
            os.remove(target)


if __name__ == "__main__":
    main()
