"""The RAG under test with a scripted generator and a tiny corpus: the FAISS index (order,
ids, reuse), prompt assembly, the answer loop (cache, errors, retries, shapes), targets."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragmeter.errors import ConfigError, DataError, TransientRAGError
from ragmeter.judges.scripted import ScriptedJudge
from ragmeter.rag import RAGAnswer, answer, build_index
from ragmeter.rag.index import load_index
from ragmeter.rag.prompt import load_answer_prompt
from tests.cli_runner import run_cli
from tests.conftest import TableEmbedder

#: two paragraphs per document, each one chunk at chunk_size 200
TEXTS = {
    "apples.md": "Apples grow on trees in orchards. " * 5 + "\n\n" + "Cold cellars keep each apple crisp. " * 5,
    "rivers.md": "Rivers carry water from mountains to the sea. " * 4 + "\n\n"
                 + "Salmon swim up a river to spawn in gravel. " * 4,
    "stars.md": "Stars are balls of hot gas far away in space. " * 4 + "\n\n"
                + "Astronomers chart their positions with telescopes. " * 3,
}
#: one axis per document; questions point at the document they are about
AXES = {"apples.md": [1.0, 0.0, 0.0], "rivers.md": [0.0, 1.0, 0.0], "stars.md": [0.0, 0.0, 1.0]}


def corpus(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in TEXTS.items():
        (folder / name).write_text(text)
    return folder


class AxisEmbedder(TableEmbedder):
    """Chunks embed on their document's axis; questions by keyword, leaning on a second axis."""

    def __init__(self) -> None:
        super().__init__({})

    async def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        self.texts = getattr(self, "texts", []) + texts
        out = []
        for t in texts:
            doc = "apples.md" if "apple" in t.lower() else "rivers.md" if "river" in t.lower() else "stars.md"
            if "?" in t:
                out.append({"apples.md": [0.9, 0.3, 0.0], "rivers.md": [0.0, 0.9, 0.3],
                            "stars.md": [0.2, 0.0, 0.9]}[doc])
                continue
            vector = list(AXES[doc])
            if not any(first in t for first in ("Apples grow", "Rivers carry", "Stars are")):
                vector[(vector.index(1.0) + 1) % 3] = -0.1  # a second paragraph ranks just below the first
            out.append(vector)
        return out


def generator() -> ScriptedJudge:
    def reply(request):
        user = request.messages[-1]["content"]
        first = re.findall(r"[A-Z][a-z]+", user.split("Document 1:::\n")[1])[0]
        return f"From document 1 ({first})."
    return ScriptedJudge(reply)


def built(tmp_path: Path, embedder=None):
    emb = embedder or AxisEmbedder()
    info = build_index(corpus(tmp_path / "docs"), tmp_path / "index", chunk_size=200, chunk_overlap=20,
                       embeddings=emb, progress=False)
    return info, emb


def test_index_retrieves_by_cosine_with_stable_ids(tmp_path):
    info, emb = built(tmp_path)
    index = load_index(tmp_path / "index")
    assert info.chunks == len(index.ids) == index.faiss.ntotal and info.embedded == info.chunks
    hits = index.search([[0.9, 0.3, 0.0]], 4)[0]
    assert [h.source for h in hits][:2] == ["apples.md", "apples.md"]
    assert hits[0].score == pytest.approx(0.9 / (0.9 ** 2 + 0.3 ** 2) ** 0.5, abs=1e-5)
    assert all(h.id.startswith("c-") for h in hits) and len({h.id for h in hits}) == 4
    # the same chunk ids as a test set made with the same chunk settings
    from ragmeter.testset.chunking import split
    from ragmeter.testset.documents import load_documents

    assert sorted(index.ids) == sorted(c.id for c in split(load_documents(tmp_path / "docs").documents, 200, 20))


def test_reindexing_unchanged_documents_embeds_nothing(tmp_path):
    info, _ = built(tmp_path)
    again = build_index(tmp_path / "docs", tmp_path / "index", chunk_size=200, chunk_overlap=20,
                        embeddings=AxisEmbedder(), cache=False, progress=False)
    assert (again.embedded, again.reused) == (0, info.chunks)
    (tmp_path / "docs" / "moons.md").write_text("Moons orbit planets, as stars hold planets. " * 3)
    grown = build_index(tmp_path / "docs", tmp_path / "index", chunk_size=200, chunk_overlap=20,
                        embeddings=AxisEmbedder(), cache=False, progress=False)
    assert grown.reused == info.chunks and grown.embedded == grown.chunks - info.chunks > 0


def test_baseline_answers_with_numbered_chunks_and_records_what_it_retrieved(tmp_path):
    built(tmp_path)
    judge = generator()
    rows = [{"id": "a", "user_input": "Where do apples grow?"}, {"id": "r", "user_input": "Where do rivers go?"}]
    run = answer(rows, index=tmp_path / "index", generator=judge, embeddings=AxisEmbedder(), k=2,
                 out=tmp_path / "ans", progress=False)
    first = run.rows[0]
    assert first["response"] == "From document 1 (Apples)." and first["answer_error"] is None
    assert len(first["retrieved_contexts"]) == 2 and "Apples" in first["retrieved_contexts"][0]
    assert len(first["retrieved_context_ids"]) == 2 and first["retrieved_context_scores"][0] > 0.9
    assert run.rows[1]["response"] == "From document 1 (Rivers)."
    messages = judge.requests[0].messages
    assert messages[0]["role"] == "system" and "Document 2:::" in messages[1]["content"]
    assert messages[1]["content"].endswith("Question: Where do apples grow?")
    saved = [json.loads(line) for line in (tmp_path / "ans" / "answers.jsonl").read_text().splitlines()]
    assert [r["id"] for r in saved] == ["a", "r"]
    manifest = json.loads((tmp_path / "ans" / "manifest.json").read_text())
    assert manifest["answered"] == 2 and manifest["cached"] == 0 and manifest["rag"]["k"] == 2
    # a re-run answers from the cache: no generation, no retrieval
    judge2 = generator()
    again = answer(rows, index=tmp_path / "index", generator=judge2, embeddings=AxisEmbedder(), k=2,
                   out=tmp_path / "ans", progress=False)
    assert judge2.calls() == 0 and again.manifest["cached"] == 2 and again.rows[0]["response"] == first["response"]
    # a different k is a different RAG: answered again
    judge3 = generator()
    answer(rows, index=tmp_path / "index", generator=judge3, embeddings=AxisEmbedder(), k=1, progress=False)
    assert judge3.calls() == 2
    assert rows[0] == {"id": "a", "user_input": "Where do apples grow?"}  # the caller's rows are not changed


def test_the_answers_evaluate(tmp_path):
    import ragmeter

    built(tmp_path)
    rows = [{"id": "a", "user_input": "Where do apples grow?", "reference": "Apples grow on trees in orchards."}]
    run = answer(rows, index=tmp_path / "index", generator=generator(), embeddings=AxisEmbedder(), k=2,
                 out=tmp_path / "ans", progress=False)
    result = ragmeter.evaluate(tmp_path / "ans" / "answers.jsonl", ["rouge"], progress=False)
    assert result.summary()["rouge"]["n"] == 1 and run.rows[0]["response"]


def test_each_command_reads_the_folder_the_last_one_wrote_and_answer_takes_a_limit(tmp_path):
    """`evaluate answers/` failed with "unsupported format ''" while `answer testset/` worked."""
    (tmp_path / "echo.py").write_text("def answer(query):\n    return {'answer': query, 'contexts': ['c']}\n")
    testset = tmp_path / "testset"
    testset.mkdir()
    (testset / "testset.jsonl").write_text("".join(
        json.dumps({"id": f"q{i}", "user_input": f"q{i}?", "reference": f"q{i}?"}) + "\n" for i in range(3)))
    (testset / "rejected.jsonl").write_text("")  # testset's other file is not its data
    proc = run_cli("answer", str(testset), "--rag", "echo:answer", "--out", str(tmp_path / "answers"),
                   "--limit", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("2 rows: 2 answered")
    written = [json.loads(line) for line in (tmp_path / "answers" / "answers.jsonl").read_text().splitlines()]
    assert not any("__line__" in row for row in written)  # the reader's line number leaked into the file
    proc = run_cli("evaluate", str(tmp_path / "answers"), "--metrics", "exact_match", "--out", str(tmp_path / "run"),
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    run = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert run["dataset"]["rows"] == 2 and run["dataset"]["source"].endswith("answers.jsonl")
    assert run_cli("evaluate", str(tmp_path / "run"), "--metrics", "exact_match", "--dry-run").returncode == 0

    (tmp_path / "answers" / "testset.jsonl").write_text("{}\n")
    for folder, message in ((tmp_path / "answers", "a folder with 2 data files (answers.jsonl, testset.jsonl)"),
                            (tmp_path, "a folder without a data file")):
        proc = run_cli("evaluate", str(folder), "--metrics", "exact_match")
        assert proc.returncode == 2 and message in proc.stderr and str(folder) in proc.stderr
    with pytest.raises(ConfigError, match="--limit must be at least 1"):
        answer(testset, rag=lambda q: {"answer": q, "contexts": []}, limit=0)


def test_follow_up_turns_search_with_the_conversation(tmp_path):
    built(tmp_path)
    emb, judge = AxisEmbedder(), generator()
    turns = [{"role": "user", "content": "Tell me about apples?"}, {"role": "assistant", "content": "They grow."},
             {"role": "user", "content": "Where?"}]
    run = answer([{"id": "c", "messages": turns, "user_input": "Where?"}], index=tmp_path / "index",
                 generator=judge, embeddings=emb, k=1, progress=False)
    assert emb.texts[-1] == "Tell me about apples? Where?"
    assert "Apples" in run.rows[0]["retrieved_contexts"][0]
    sent = judge.requests[0].messages
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]


def test_index_built_with_other_embeddings_is_refused(tmp_path):
    built(tmp_path)

    class Other(AxisEmbedder):
        name = "other"

    with pytest.raises(ConfigError, match="was built with embeddings table.*not other"):
        answer([{"user_input": "q?"}], index=tmp_path / "index", generator=generator(), embeddings=Other(),
               progress=False)


def test_empty_or_missing_index_and_missing_question(tmp_path):
    with pytest.raises(DataError, match="not an index folder"):
        load_index(tmp_path / "nowhere")
    built(tmp_path)
    import faiss

    (tmp_path / "index" / "index.faiss").write_bytes(faiss.serialize_index(faiss.IndexFlatIP(3)).tobytes())
    with pytest.raises(DataError, match="empty"):
        load_index(tmp_path / "index")
    path = tmp_path / "ts.jsonl"
    path.write_text(json.dumps({"id": "1", "user_input": "q?"}) + "\n" + json.dumps({"id": "2", "reference": "x"})
                    + "\n")
    with pytest.raises(DataError, match=r"ts.jsonl.*row 2.*user_input"):
        answer(path, rag=lambda q: ("a", []), progress=False)


def test_a_rag_that_calls_sys_exit_fails_its_row_and_ctrl_c_stops_cleanly(tmp_path):
    """sys.exit(3) in the user's RAG ended ragmeter with exit 3 (the judge-error code) and no word."""
    import sys

    def exits(query):
        if query == "bye?":
            sys.exit(3)
        return {"answer": "hi", "contexts": ["c"]}

    run = answer([{"id": "1", "user_input": "hi?"}, {"id": "2", "user_input": "bye?"}], rag=exits, progress=False)
    assert run.rows[0]["response"] == "hi" and run.rows[1]["answer_error"] == "SystemExit: the RAG called sys.exit(3)"

    (tmp_path / "stopping.py").write_text("def answer(query):\n    raise KeyboardInterrupt\n")
    (tmp_path / "ts.jsonl").write_text(json.dumps({"id": "1", "user_input": "q?"}) + "\n")
    proc = run_cli("answer", str(tmp_path / "ts.jsonl"), "--rag", "stopping:answer", "--out", str(tmp_path / "o"),
                   cwd=tmp_path)
    assert proc.returncode == 130 and proc.stderr.startswith("ragmeter: stopping on Ctrl-C;")


def test_a_hung_rag_call_is_abandoned_at_the_timeout_and_is_that_rows_error():
    """A sync callable that never returns used to hold the run forever (and Ctrl-C with it)."""
    import threading

    release = threading.Event()

    def hangs(query):
        if query == "hang?":
            release.wait()  # until the test ends: the run must not wait for it
        return {"answer": "ok", "contexts": ["c"]}

    try:
        run = answer([{"id": "1", "user_input": "hang?"}, {"id": "2", "user_input": "fine?"}], rag=hangs,
                     progress=False, rag_timeout=0.2, retries=0, cache=False)
    finally:
        release.set()
    assert run.rows[1]["response"] == "ok" and run.rows[0]["response"] is None
    assert run.rows[0]["answer_error"] == "TransientRAGError after 1 attempts: no answer within 0.2 s (--rag-timeout)"


def test_callable_shapes_errors_and_transient_retries(tmp_path):
    calls = {"n": 0}

    def flaky(query):
        calls["n"] += 1
        if query == "boom?":
            raise ValueError("index offline")
        if query == "flaky?" and calls["n"] < 4:
            raise TransientRAGError("busy")
        return {"answer": f"A to {query}", "contexts": ["plain text", {"text": "t", "id": "d1", "score": 0.5}]}

    rows = [{"id": "1", "user_input": "fine?"}, {"id": "2", "user_input": "boom?"}, {"id": "3", "user_input": "flaky?"}]
    run = answer(rows, rag=flaky, progress=False)
    assert [r["response"] for r in run.rows] == ["A to fine?", None, "A to flaky?"]
    assert run.rows[1]["answer_error"] == "ValueError: index offline" and len(run.rows) == 3
    assert run.rows[0]["retrieved_contexts"] == ["plain text", "t"] and run.rows[0]["retrieved_context_ids"] is None
    assert run.manifest["errors"] == 1 and run.manifest["retries"] == 1
    # errors are not cached: a re-run asks that row again, and only that row
    calls["n"] = 100
    answer(rows, rag=flaky, progress=False)
    assert calls["n"] == 101
    with pytest.raises(DataError, match="row 1: the RAG returned list; expected a RAGAnswer"):
        answer([{"user_input": "q?"}], rag=lambda q: ["just", "a", "list"], rag_id="bad", progress=False)
    with pytest.raises(DataError, match="row 1: context 1 is int"):
        answer([{"user_input": "q?"}], rag=lambda q: RAGAnswer("a", [3]), rag_id="bad2", progress=False)


async def async_rag(query):
    return RAGAnswer(f"async {query}", [{"text": "x", "id": "k1", "score": 1.0}])


def test_async_callables_and_import_targets(tmp_path, monkeypatch):
    run = answer([{"user_input": "q?"}], rag=async_rag, progress=False)
    assert run.rows[0]["response"] == "async q?" and run.rows[0]["retrieved_context_ids"] == ["k1"]
    (tmp_path / "myrag.py").write_text("def answer(q):\n    return ('imported ' + q, ['c'])\n")
    monkeypatch.chdir(tmp_path)
    run = answer([{"user_input": "q?"}], rag="myrag:answer", progress=False)
    assert run.rows[0]["response"] == "imported q?" and "myrag:answer@" in run.manifest["rag"]["id"]
    with pytest.raises(ConfigError, match="cannot import module 'nomodule'"):
        answer([{"user_input": "q?"}], rag="nomodule:answer", progress=False)
    with pytest.raises(ConfigError, match="module 'myrag' has no attribute 'missing'"):
        answer([{"user_input": "q?"}], rag="myrag:missing", progress=False)


def test_http_rag_down_fails_before_the_first_row():
    with pytest.raises(ConfigError, match=r"RAG at http://127.0.0.1:9/rag is not reachable"):
        answer([{"user_input": "q?"}], rag="http://127.0.0.1:9/rag", progress=False)


def test_answer_prompts_ship_in_spanish(tmp_path):
    es = load_answer_prompt(language="spanish")
    messages = es.messages("¿Dónde?", ["uno", "dos"])
    assert "Documento 2:::\ndos" in messages[1]["content"] and messages[1]["content"].endswith("Pregunta: ¿Dónde?")
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps({"system": "s", "user": "no fields"}))
    with pytest.raises(ConfigError, match="must contain \\{context\\}"):
        load_answer_prompt(bad)


def test_langchain_adapter_with_a_real_runnable():
    from langchain_core.documents import Document
    from langchain_core.runnables import RunnableLambda

    from ragmeter.rag.adapters import from_langchain

    seen = []

    def chain(inputs):
        seen.append(inputs)
        return {"answer": f"LC {inputs['input']}", "context": [
            Document(page_content="doc one", metadata={"id": "d1", "score": 0.7}),
            Document(page_content="doc two", metadata={"id": "d2", "score": 0.2})]}

    rag = from_langchain(RunnableLambda(chain), rag_id="lc-v1")
    turns = [{"role": "user", "content": "Hi?"}, {"role": "assistant", "content": "Hello."},
             {"role": "user", "content": "More?"}]
    run = answer([{"id": "1", "user_input": "What?"}, {"id": "2", "messages": turns}], rag=rag, progress=False)
    assert run.rows[0]["response"] == "LC What?" and run.rows[0]["retrieved_context_ids"] == ["d1", "d2"]
    assert run.rows[0]["retrieved_context_scores"] == [0.7, 0.2] and run.manifest["rag"]["id"] == "lc-v1"
    assert seen[1] == {"input": "More?", "chat_history": [("human", "Hi?"), ("ai", "Hello.")]}


def test_llamaindex_adapter_contract():
    """The query-engine contract, with duck-typed objects shaped like llama_index.core's."""
    from types import SimpleNamespace

    from ragmeter.rag.adapters import from_llamaindex

    class Node:
        def __init__(self, text, node_id):
            self.text, self.node_id = text, node_id

        def get_content(self):
            return self.text

    class Engine:
        async def aquery(self, question):
            return SimpleNamespace(response=f"LI {question}", source_nodes=[
                SimpleNamespace(node=Node("n one", "n1"), score=0.9)])

    run = answer([{"user_input": "Why?"}], rag=from_llamaindex(Engine(), rag_id="li"), progress=False)
    assert run.rows[0]["response"] == "LI Why?" and run.rows[0]["retrieved_contexts"] == ["n one"]
    assert run.rows[0]["retrieved_context_ids"] == ["n1"] and run.rows[0]["retrieved_context_scores"] == [0.9]


def test_http_rag_contract_on_127_0_0_1(monkeypatch):
    import http.server
    import threading

    monkeypatch.setenv("RAGMETER_RAG_API_KEY", "sk-rag-SECRET")
    seen: list = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_OPTIONS(self):  # noqa: N802 - the http.server naming
            self.send_response(204)
            self.end_headers()

        def do_POST(self):  # noqa: N802
            seen.append(self.headers.get("Authorization"))
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if body["question"] == "fail?":
                self.send_response(400)
                self.end_headers()
                self.wfile.write(b"bad question")
                return
            reply = json.dumps({"answer": f"served {body['question']} ({body['id']})",
                                "contexts": [{"text": "c", "id": "x1", "score": 0.3}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args):
            return None

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/rag"
        run = answer([{"id": "r1", "user_input": "ok?"}, {"id": "r2", "user_input": "fail?"}], rag=url,
                     progress=False)
    finally:
        server.shutdown()
    assert run.rows[0]["response"] == "served ok? (r1)" and run.rows[0]["retrieved_context_ids"] == ["x1"]
    assert run.rows[1]["response"] is None and "HTTP 400: bad question" in run.rows[1]["answer_error"]
    assert seen[0] == "Bearer sk-rag-SECRET" and "SECRET" not in json.dumps(run.manifest)


@pytest.mark.parametrize("url", ["http://user:sk-rag-URLKEY@rag.test/answer", "https://rag.test/answer?token=sk-rag-URLKEY"])
def test_a_key_in_a_rag_url_is_refused_without_echoing_it(url):
    with pytest.raises(ConfigError) as err:
        answer([{"user_input": "q?"}], rag=url, progress=False)
    assert "URLKEY" not in str(err.value) and "rag.test/answer" in str(err.value)
    assert "RAGMETER_RAG_API_KEY" in str(err.value)


def test_experiment_grid_table_best_and_paired_differences(tmp_path):
    import asyncio

    from ragmeter.rag.experiment import ExperimentConfig, print_experiment, run_experiment, variants

    docs = corpus(tmp_path / "docs")
    from ragmeter.testset.chunking import split
    from ragmeter.testset.documents import load_documents

    chunks = split(load_documents(docs).documents, 200, 20)
    testset = tmp_path / "ts.jsonl"
    # each question needs both chunks of its document: k=1 finds half, k=2 all
    rows = [{"id": f"q{i}", "user_input": q, "reference": TEXTS[doc][:40],
             "reference_contexts": [c.text for c in chunks if c.source == doc]}
            for i, (q, doc) in enumerate([("Where do apples grow?", "apples.md"), ("Where do rivers go?", "rivers.md"),
                                          ("What are stars?", "stars.md")])]
    assert all(len(r["reference_contexts"]) == 2 for r in rows)
    testset.write_text("".join(json.dumps(r) + "\n" for r in rows))
    emb = AxisEmbedder()
    cfg = ExperimentConfig(testset=str(testset), docs=str(docs), out=str(tmp_path / "exp"),
                           metrics=["rouge", "non_llm_context_recall"], baseline={"k": 1, "chunk_overlap": 20},
                           settings={"chunk_size": 200, "chunk_overlap": 20, "generator": generator(),
                                     "embeddings": emb},
                           grid={"k": [1, 2], "chunk_overlap": [20, 40]})
    assert [v["name"] for v in variants(cfg)] == ["k=1,chunk_overlap=20", "k=1,chunk_overlap=40",
                                                  "k=2,chunk_overlap=20", "k=2,chunk_overlap=40"]
    summary = asyncio.run(run_experiment(cfg, progress=False))
    assert summary["baseline"] == "k=1,chunk_overlap=20"
    assert len(list((tmp_path / "exp" / "indexes").iterdir())) == 2  # one per chunking, shared across k
    table = summary["table"]
    assert set(table) == {v["name"] for v in variants(cfg)} and table["k=1,chunk_overlap=20"]["rouge"]["n"] == 3
    diff = summary["compared_with_baseline"]["k=2,chunk_overlap=20"]
    assert diff["rouge"]["difference"] == pytest.approx(0.0) and diff["rouge"]["verdict"] != "better"
    assert table["k=1,chunk_overlap=20"]["non_llm_context_recall"]["mean"] == pytest.approx(0.5)
    assert table["k=2,chunk_overlap=20"]["non_llm_context_recall"]["mean"] == pytest.approx(1.0)
    recall = diff["non_llm_context_recall"]
    assert recall["difference"] == pytest.approx(0.5) and recall["n"] == 3
    assert recall["verdict"] == "no significant difference"  # 3 rows: the exact sign-flip p is 0.25
    assert summary["best"] == {"rouge": "k=1,chunk_overlap=20", "non_llm_context_recall": "k=2,chunk_overlap=20"}
    saved = json.loads((tmp_path / "exp" / "experiment.json").read_text())
    assert saved["table"] == json.loads(json.dumps(table))
    from rich.console import Console

    shown = Console(record=True, width=200)
    print_experiment(summary, shown)
    assert "k=1,chunk_overlap=20 (baseline)" in shown.export_text()


def test_experiment_refuses_unknown_settings_and_baselines(tmp_path):
    from ragmeter.rag.experiment import ExperimentConfig, baseline_name, variants

    with pytest.raises(ConfigError, match="unknown setting\\(s\\) top_k"):
        variants(ExperimentConfig(testset="t", docs="d", grid={"top_k": [1]}))
    cfg = ExperimentConfig(testset="t", docs="d", grid={"k": [1, 2]}, baseline="k=9")
    with pytest.raises(ConfigError, match="baseline 'k=9' is not a variant; variants: k=1, k=2"):
        baseline_name(cfg, variants(cfg))


def test_hnsw_index_finds_what_the_exact_one_finds(tmp_path):
    corpus(tmp_path / "docs")
    flat = build_index(tmp_path / "docs", tmp_path / "flat", chunk_size=200, chunk_overlap=20,
                       embeddings=AxisEmbedder(), progress=False)
    hnsw = build_index(tmp_path / "docs", tmp_path / "hnsw", chunk_size=200, chunk_overlap=20,
                       embeddings=AxisEmbedder(), kind="hnsw", progress=False)
    assert (flat.manifest["search"], hnsw.manifest["search"]) == ("flat", "hnsw")
    query = [[0.0, 0.9, 0.3]]
    exact, graph = load_index(tmp_path / "flat"), load_index(tmp_path / "hnsw")
    assert [h.id for h in graph.search(query, 2)[0]] == [h.id for h in exact.search(query, 2)[0]]
    assert graph.identity() != exact.identity()  # answers from the two are cached apart
    with pytest.raises(ConfigError, match="index kind must be one of auto, flat, hnsw"):
        build_index(tmp_path / "docs", tmp_path / "x", embeddings=AxisEmbedder(), kind="ivf", progress=False)


def test_judge_reranker_keeps_the_best_k_of_the_candidates(tmp_path):
    built(tmp_path)

    def reply(request):
        if request.tag == "context_relevance.rating1":  # the second paragraph is the relevant one
            return {"rating": 2 if "Cold cellars" in request.messages[-1]["content"] else 0}
        return "Answer."
    judge = ScriptedJudge(reply)
    run = answer([{"id": "a", "user_input": "Where do apples keep?"}], index=tmp_path / "index", generator=judge,
                 embeddings=AxisEmbedder(), k=1, rerank="judge", rerank_candidates=3, progress=False)
    row = run.rows[0]
    assert judge.calls("context_relevance.rating1") == 3 and judge.calls("rag.answer") == 1
    assert "Cold cellars" in row["retrieved_contexts"][0] and row["retrieved_context_scores"] == [1.0]
    assert run.manifest["rag"]["candidates"] == 3 and run.manifest["rag"]["reranker"]["rerank"] == "judge"
    with pytest.raises(ConfigError, match="--rerank 'colbert'"):
        answer([{"user_input": "q?"}], index=tmp_path / "index", generator=judge, embeddings=AxisEmbedder(),
               rerank="colbert", progress=False)


def test_cross_encoder_reranker_through_sentence_transformers(tmp_path, monkeypatch):
    """The CrossEncoder contract (predict over (question, text) pairs), with a stand-in model."""
    import sentence_transformers

    class FakeCrossEncoder:
        def __init__(self, path, **kwargs):
            self.path = path

        def predict(self, pairs, **kwargs):
            return [len(text) for _, text in pairs]  # longest first

    monkeypatch.setattr(sentence_transformers, "CrossEncoder", FakeCrossEncoder)
    built(tmp_path)
    (tmp_path / "ce").mkdir()
    run = answer([{"user_input": "Where do apples grow?"}], index=tmp_path / "index", generator=generator(),
                 embeddings=AxisEmbedder(), k=2, rerank=f"cross-encoder:{tmp_path / 'ce'}", progress=False)
    scores = run.rows[0]["retrieved_context_scores"]
    assert scores == sorted(scores, reverse=True) and scores[0] == max(len(c) for c in run.rows[0]
                                                                       ["retrieved_contexts"])
    with pytest.raises(ConfigError, match="cross-encoder folder not found"):
        answer([{"user_input": "q?"}], index=tmp_path / "index", generator=generator(), embeddings=AxisEmbedder(),
               rerank=f"cross-encoder:{tmp_path / 'none'}", progress=False)


@pytest.mark.parametrize("grid, message", [
    ({"chunk_size": ["abc", 1000]}, "experiment variant chunk_size=abc: chunk_size: Input should be a valid integer"),
    ({"k": [0, 3]}, "experiment variant k=0: k: Input should be greater than or equal to 1"),
    ({"chunk_unit": ["words"]}, "experiment variant chunk_unit=words: chunk_unit: Input should be 'characters'"),
])
def test_grid_values_are_type_checked_before_anything_runs(grid, message):
    """`chunk_size: [abc, 1000]` used to end in a TypeError traceback mid-run."""
    from ragmeter.rag.experiment import ExperimentConfig, variants

    with pytest.raises(ConfigError, match=re.escape(message)):
        variants(ExperimentConfig(testset="t.jsonl", docs="docs", grid=grid))


def test_ctrl_c_stops_a_run_whose_sync_rag_hangs(tmp_path):
    """A real process and a real SIGINT (the point of the test): the hung call's thread is
    abandoned, and the run ends with the resume message instead of ignoring Ctrl-C."""
    import os
    import signal
    import subprocess
    import sys

    fifo = tmp_path / "started"
    os.mkfifo(fifo)
    (tmp_path / "hanging.py").write_text(
        "import threading\n"
        f"def answer(query):\n    open({str(fifo)!r}, 'w').write('x')\n    threading.Event().wait()\n")
    (tmp_path / "ts.jsonl").write_text(json.dumps({"id": "1", "user_input": "q?"}) + "\n")
    proc = subprocess.Popen([sys.executable, "-m", "ragmeter.cli", "answer", "ts.jsonl", "--rag", "hanging:answer",
                             "--out", "o", "--no-cache"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as on a terminal
    try:
        with open(fifo) as started:  # blocks until the RAG has been called
            assert started.read() == "x"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130 and "ragmeter: stopping on Ctrl-C;" in err


def test_an_answer_cut_at_max_tokens_is_marked_and_left_unscored_and_an_echo_is_said(tmp_path):
    """Issue 64 item 7: all 22 answers of a weak configuration stopped mid-sentence at 128
    tokens and were scored as if whole; the generator also echoed the reader prompt."""
    import ragmeter
    from ragmeter.cli.rag import answer_warnings
    from ragmeter.judges.base import JudgeReply

    built(tmp_path)

    def reply(request):
        if "apples" in request.messages[-1]["content"]:
            return JudgeReply("Apples grow in orchards and they are picked in", finish_reason="length")
        return "Rivers carry water.\nQuestion: Where do rivers go?"  # continues the prompt

    rows = [{"id": "a", "user_input": "Where do apples grow?", "reference": "In orchards."},
            {"id": "r", "user_input": "Where do rivers go?", "reference": "To the sea."}]
    run = answer(rows, index=tmp_path / "index", generator=ScriptedJudge(reply), embeddings=AxisEmbedder(), k=2,
                 out=tmp_path / "ans", progress=False, max_tokens=128)
    assert [r["generation_finish_reason"] for r in run.rows] == ["length", "stop"]
    assert [r["answer_echoes_prompt"] for r in run.rows] == [False, True]
    assert (run.manifest["cut_at_max_tokens"], run.manifest["echo_the_prompt"]) == (1, 1)
    said = answer_warnings(run.manifest, 128)
    assert said[0].startswith("  1 of 2 answers were cut at the generator's token limit (128")
    assert said[1].startswith("  1 of 2 answers repeat the reader prompt")
    result = ragmeter.evaluate(tmp_path / "ans" / "answers.jsonl", ["rouge"], progress=False)
    scored = {r["id"]: r for r in result.rows}
    assert scored["a"]["rouge"] is None and "cut off at max_tokens" in scored["a"]["rouge_reason"]
    assert scored["r"]["rouge"] is not None


def test_answering_says_what_it_will_take_before_it_starts_and_in_a_dry_run(tmp_path, capsys):
    """Issue 64 item 3: the baseline took 135-150 s a row and nothing said so before it began;
    `answer` had no dry run. Its generator's speed (with the pace this machine ran it at)
    gives the seconds; cached rows cost nothing; a RAG of your own is not counted."""
    from ragmeter.rag.run import plan_answers
    from ragmeter.run.judge_speed import JudgeSpeed, save_speed

    built(tmp_path)
    judge = generator()
    save_speed(judge.identity(), JudgeSpeed(judge="script", measured_at="2026-11-20T10:00:00+00:00", calls=9,
                                            overhead_seconds=40.0, prompt_tokens_per_second=None,
                                            completion_tokens_per_second=None, completion_tokens={},
                                            mean_completion_tokens=5.0))
    rows = [{"id": "a", "user_input": "Where do apples grow?"}, {"id": "r", "user_input": "Where do rivers go?"},
            {"id": "s", "user_input": "What are stars?"}]
    planned = plan_answers(rows, index=tmp_path / "index", generator=judge, embeddings=AxisEmbedder(), k=2)
    assert (planned.rows, planned.cached, planned.seconds) == (3, 0, (120.0, 120.0))
    assert planned.line().startswith("3 of 3 rows to answer (0 cached): about ")
    assert planned.line().endswith("; 2m00s to 2m00s at the generator's speed: the speed bench-judge measured here "
                                   "(2026-11-20T10:00:00+00:00)")
    assert judge.calls() == 0  # nothing called
    answer(rows[:1], index=tmp_path / "index", generator=judge, embeddings=AxisEmbedder(), k=2, progress=True)
    assert "ragmeter: 1 of 1 rows to answer (0 cached)" not in capsys.readouterr().err  # 40 s: under a minute
    answer(rows, index=tmp_path / "index", generator=judge, embeddings=AxisEmbedder(), k=2, progress=True)
    assert "ragmeter: 2 of 3 rows to answer (1 cached)" in " ".join(capsys.readouterr().err.split())
    assert plan_answers(rows, "mypkg.rag:answer") is None


class _FlakyGenerator:
    """An OpenAI-compatible server as the baseline's generator: a 500 on every fifth call (the
    first call among them), a 400 for any prompt about stars, else an answer naming the
    question. `calls`: the POSTs it got."""

    calls: list[str] = []

    @staticmethod
    def handler():
        from tests.http_fakes import JSONHandler

        class Handler(JSONHandler):
            def do_GET(self) -> None:  # /v1/models
                self._send({"data": [{"id": "m"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                question = body["messages"][-1]["content"].rsplit("Question: ", 1)[-1]
                _FlakyGenerator.calls.append(question)
                if len(_FlakyGenerator.calls) % 5 == 1:
                    self._send({"error": "overloaded"}, status=500)
                elif "stars" in question:
                    self._send({"error": "prompt refused"}, status=400)
                else:
                    self._send({"choices": [{"message": {"content": f"Answer to {question}"},
                                             "finish_reason": "stop"}],
                                "usage": {"prompt_tokens": 9, "completion_tokens": 4}})
        return Handler


def test_an_http_generator_retries_and_a_refused_row_is_that_rows_error(tmp_path):
    """Issue 77 item 2: one 500 on the first request ended `answer` (exit 3) after one call,
    one row's 400 ended every run, and nothing reached --out. The generator's calls are now
    retried with backoff as a judge's are, a refused row is that row's error, the answered
    rows are written and cached, and a re-run asks only the row that failed."""
    from tests.http_fakes import serving

    built(tmp_path)
    topics = ["apples", "rivers", "stars", "apples again", "rivers again", "apples once more"]
    rows = [{"id": f"q{i}", "user_input": f"Where do {t} go?"} for i, t in enumerate(topics)]
    _FlakyGenerator.calls = []
    with serving(_FlakyGenerator.handler()) as url:
        answer(rows, index=tmp_path / "index", generator=f"openai-compat:{url}/v1#m",
               embeddings=AxisEmbedder(), k=1, out=tmp_path / "ans", progress=False, backoff=0.0)
        saved = [json.loads(line) for line in (tmp_path / "ans" / "answers.jsonl").read_text().splitlines()]
        assert [r["id"] for r in saved] == [r["id"] for r in rows]
        by_id = {r["id"]: r for r in saved}
        assert all(by_id[r["id"]]["response"] == f"Answer to {r['user_input']}" for r in rows if r["id"] != "q2")
        assert by_id["q2"]["response"] is None
        assert by_id["q2"]["answer_error"].startswith("generator call failed: HTTP 400 from ")
        manifest = json.loads((tmp_path / "ans" / "manifest.json").read_text())
        assert (manifest["answered"], manifest["errors"], manifest["retries"]) == (5, 1, 2)
        assert _FlakyGenerator.calls.count("Where do stars go?") == 1  # refused: not asked again
        # a re-run answers the five from the cache and asks the refused row once more
        _FlakyGenerator.calls = ["(a call that answered)"]
        again = answer(rows, index=tmp_path / "index", generator=f"openai-compat:{url}/v1#m",
                       embeddings=AxisEmbedder(), k=1, progress=False, backoff=0.0)
    assert _FlakyGenerator.calls[1:] == ["Where do stars go?"]
    assert (again.manifest["cached"], again.manifest["errors"]) == (5, 1)


def test_a_generator_that_fails_every_call_stops_the_run_naming_it(tmp_path):
    """Failures in a row with no answer between, and the generator never answering: it is down."""
    from ragmeter.engine.failed_calls import IN_A_ROW
    from ragmeter.errors import JudgeUnavailable, TransientJudgeError

    built(tmp_path)

    def down(request):
        raise TransientJudgeError("HTTP 503 from the generator", status=503)

    rows = [{"id": str(i), "user_input": f"Where do apples grow {i}?"} for i in range(IN_A_ROW + 2)]
    with pytest.raises(JudgeUnavailable, match=f"{IN_A_ROW} calls failed in a row"):
        answer(rows, index=tmp_path / "index", generator=ScriptedJudge(down), embeddings=AxisEmbedder(), k=1,
               out=tmp_path / "ans", progress=False, retries=1, backoff=0.0)
