"""The RAG-under-test commands: `ragmeter index`, `ragmeter answer`, `ragmeter experiment`."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ragmeter.cli.common import console
from ragmeter.io.formats import suffixes_text
from ragmeter.judges.registry import DEFAULT_JUDGE
from ragmeter.testset.documents import supported_text
from ragmeter.text import counted, plain, seconds


def index(docs: Annotated[Path, typer.Argument(help=f"a folder ({supported_text()}), or a table "
                                                    f"({suffixes_text()}) with a `text` column")],
          out: Annotated[Path, typer.Option(help="the index folder")],
          chunk_size: Annotated[int, typer.Option("--chunk-size")] = 2000,
          chunk_overlap: Annotated[int, typer.Option("--chunk-overlap")] = 200,
          chunk_unit: Annotated[str, typer.Option("--chunk-unit", help="characters | tokens")] = "characters",
          embeddings: Annotated[str, typer.Option(help="bundled | sentence-transformers:/dir | "
                                                       "openai-compat:URL#MODEL | openai:MODEL")] = "bundled",
          kind: Annotated[str, typer.Option(help="auto (exact up to 20,000 chunks, HNSW above) | flat | hnsw"
                                         )] = "auto",
          no_cache: Annotated[bool, typer.Option("--no-cache")] = False) -> None:
    """Chunk and embed documents into a FAISS index for the baseline RAG (unchanged chunks are
    not embedded again)."""
    from ragmeter.rag.index import build_index

    info = build_index(docs, out, chunk_size=chunk_size, chunk_overlap=chunk_overlap, chunk_unit=chunk_unit,
                       embeddings=embeddings, kind=kind, cache=not no_cache)
    rate = f"{info.embedded / info.embed_seconds:.1f} chunks/s embedding" if info.embed_seconds else "nothing to embed"
    if info.said:
        print(plain(info.said), file=sys.stderr)
    print(plain(f"{counted(info.chunks, 'chunk')} from {counted(info.manifest['documents']['count'], 'document')}: "
                f"{info.embedded} "
                f"embedded, {info.reused} reused ({rate}; {seconds(info.seconds)} in all)"))
    print(plain(f"wrote {out}"))


def answer(testset: Annotated[Path, typer.Argument(help=f"a test set ({suffixes_text()}, or its "
                                                        "folder) with `user_input`")],
           out: Annotated[Path, typer.Option(help="output folder: answers.<format> and manifest.json")],
           rag: Annotated[Optional[str], typer.Option(
               help="your RAG: module:function or http://HOST:PORT/path")] = None,
           index: Annotated[Optional[Path], typer.Option(help="or the baseline RAG over this index")] = None,
           generator: Annotated[str, typer.Option(help="baseline: the reader model, any judge spec")] = DEFAULT_JUDGE,
           embeddings: Annotated[Optional[str], typer.Option(help="baseline: query embeddings (default: the "
                                                                  "index's)")] = None,
           k: Annotated[int, typer.Option("--k", help="baseline: chunks retrieved")] = 5,
           prompt: Annotated[Optional[Path], typer.Option(help="baseline: a reader prompt file")] = None,
           language: Annotated[str, typer.Option(help="baseline: built-in prompt language (auto: the test set's, "
                                                      "from its manifest or its questions)")] = "auto",
           max_tokens: Annotated[int, typer.Option("--max-tokens", help="baseline: answer length limit")] = 512,
           rerank: Annotated[Optional[str], typer.Option(
               help="baseline: judge | judge:SPEC | cross-encoder:/dir (rerank candidates to k)")] = None,
           rerank_candidates: Annotated[Optional[int], typer.Option(
               "--rerank-candidates", help="baseline: chunks retrieved for the reranker (default 3k)")] = None,
           rag_id: Annotated[Optional[str], typer.Option("--rag-id", help="your RAG's version, for the answer "
                                                                          "cache")] = None,
           format: Annotated[str, typer.Option(help="jsonl | parquet")] = "jsonl",
           concurrency: Annotated[int, typer.Option(help="questions in flight")] = 1,
           limit: Annotated[Optional[int], typer.Option("--limit", min=1, help="only the first N rows")] = None,
           rag_timeout: Annotated[float, typer.Option("--rag-timeout", min=0.001, help=(
               "seconds a question may take; then it is abandoned and retried, and after the retries "
               "it is that row's answer_error"))] = 300.0,
           no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
           overwrite: Annotated[bool, typer.Option("--overwrite")] = False,
           dry_run: Annotated[bool, typer.Option("--dry-run", help="baseline: the prompt tokens and seconds it "
                                                                   "would take; call nothing")] = False) -> None:
    """Answer a test set with your RAG (--rag) or ragmeter's baseline (--index), recording the
    response, the retrieved chunks and the latency of every row, ready for `ragmeter evaluate`."""
    from ragmeter.rag import answer as run_answer

    if dry_run:
        from ragmeter.rag.run import plan_answers

        found = plan_answers(testset, rag, index=index, generator=generator, embeddings=embeddings, k=k,
                             prompt=prompt, language=language, max_tokens=max_tokens, cache=not no_cache,
                             limit=limit)
        if found is not None and found.language:
            print(plain(found.language))
        print(plain(found.line() if found is not None else
                    "your RAG's cost is not ragmeter's to know: --dry-run counts the baseline (--index) only"))
        return

    result = run_answer(testset, rag, index=index, generator=generator, embeddings=embeddings, k=k, prompt=prompt,
                        language=language, max_tokens=max_tokens, rerank=rerank, rerank_candidates=rerank_candidates,
                        rag_id=rag_id, out=out, format=format,
                        concurrency=concurrency, cache=not no_cache, overwrite=overwrite, rag_timeout=rag_timeout,
                        limit=limit)
    m = result.manifest
    latency = m["latency_seconds"]
    print(plain(f"{m['rows']} rows: {m['answered']} answered, {m['cached']} from the cache, {m['errors']} errors; "
                f"latency {_latency(latency)}"))
    for row in [r for r in result.rows if r.get("answer_error")][:3]:
        print(plain(f"  row {row.get('id', '?')}: {row['answer_error']}"))
    if m.get("generation_stops"):
        print(plain("answers ended by: " + ", ".join(f"{why} {n}" for why, n in m["generation_stops"].items())))
    for line in answer_warnings(m, max_tokens):
        print(plain(line))
    print(plain(f"wrote {result.path}"))


def answer_warnings(manifest: dict[str, Any], max_tokens: int | None) -> list[str]:
    """What a reader of the answers should know before evaluating them."""
    from ragmeter.rag.stops import LOOP

    lines = []
    cut, echo, rows = manifest.get("cut_at_max_tokens", 0), manifest.get("echo_the_prompt", 0), manifest["rows"]
    looped = manifest.get("generation_stops", {}).get(LOOP, 0)
    if cut - looped:
        limit = max_tokens or "its default"
        lines.append(f"  {cut - looped} of {rows} answers were cut at the generator's token limit ({limit}; "
                     "generation_finish_reason=length): evaluate leaves them unscored; raise --max-tokens")
    if looped:
        lines.append(f"  {looped} of {rows} answers ran to the token limit in a loop (generation_stop: {LOOP}): a "
                     "larger limit cannot end them; evaluate leaves them unscored; try another generator or prompt")
    if echo:
        lines.append(f"  {echo} of {rows} answers repeat the reader prompt (a line starting with its labels, or "
                     "five of its words in a row; answer_echoes_prompt): the generator continued the prompt instead "
                     "of answering it")
    return lines


def _latency(latency: dict[str, float | None]) -> str:
    if latency["p50"] is None:
        return "not measured (no row answered)"
    return f"p50 {seconds(latency['p50'])}, p95 {seconds(latency['p95'] or 0.0)}"


def experiment(config: Annotated[Path, typer.Argument(help="EXPERIMENT.yaml: testset, docs, grid, metrics, "
                                                           "baseline")]) -> None:
    """Compare baseline-RAG configurations (chunk size, embeddings, k, reader model) on one test
    set: a variant x metric table with intervals and paired differences against a baseline."""
    import warnings

    from rich.console import Console

    from ragmeter.judges.bundled import JudgeValidityWarning
    from ragmeter.rag.experiment import load_experiment, print_experiment, run_experiment
    from ragmeter.text import printable

    cfg = load_experiment(config)
    shown: Any = console()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", JudgeValidityWarning)
        summary = asyncio.run(run_experiment(cfg, console=shown))
    print_experiment(summary, shown)
    for message in dict.fromkeys(str(w.message) for w in caught):  # once, not once per variant
        Console(stderr=True).print(f"[yellow]{printable(message)}[/yellow]", highlight=False)
    print(plain(f"wrote {Path(cfg.out) / 'experiment.json'}"))
