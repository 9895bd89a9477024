"""Commands that make data: `testset` (questions from documents) and `generate` (answers in
the Pleias formats)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from ragmeter.cli.common import console, judge_setting
from ragmeter.io.formats import suffixes_text
from ragmeter.judges.registry import DEFAULT_JUDGE
from ragmeter.testset.documents import supported_text
from ragmeter.text import counted, plain, seconds


def testset(docs: Annotated[Optional[Path], typer.Argument(help=f"a folder ({supported_text()}), or a "
                                                                f"table ({suffixes_text()}) with a `text` "
                                                                "column")] = None,
            size: Annotated[Optional[int], typer.Option(help="questions to keep (default 50)")] = None,
            out: Annotated[Optional[Path], typer.Option(help="output folder (default testset/)")] = None,
            judge: Annotated[Optional[str], typer.Option(help="judge spec, as for evaluate")] = None,
            embeddings: Annotated[Optional[str], typer.Option(help="for multi-hop pairs and duplicates")] = None,
            language: Annotated[Optional[str], typer.Option(
                help="auto (the default: the documents' own language) | english | spanish")] = None,
            audience: Annotated[Optional[str], typer.Option(help="who the questions should be useful to")] = None,
            types: Annotated[Optional[str], typer.Option(
                help="question mix, e.g. factoid:0.6,multi_hop:0.2,unanswerable:0.2")] = None,
            seed: Annotated[Optional[int], typer.Option()] = None,
            chunk_size: Annotated[Optional[int], typer.Option("--chunk-size")] = None,
            chunk_overlap: Annotated[Optional[int], typer.Option("--chunk-overlap")] = None,
            min_score: Annotated[Optional[int], typer.Option("--min-score", help="keep ratings >= this on every "
                                                                               "critique (default 4)")] = None,
            keep_on: Annotated[Optional[str], typer.Option("--keep-on", help=(
                "rating (the judge's rating, default) | probability (P(rating >= --min-score) >= 0.5) | "
                "expected (the expected rating >= --min-score)"))] = None,
            max_attempts: Annotated[Optional[int], typer.Option(
                "--max-attempts", help="give up after size x this many attempts (default 8 answer-first, 4 with "
                "--write-from chunk: the same judge calls)")] = None,
            write_from: Annotated[Optional[str], typer.Option("--write-from", help=(
                "span (default: each factoid question is written for an answer chosen in its chunk first) | "
                "chunk (question and answer written from the chunk, then critiqued)"))] = None,
            round_trip_k: Annotated[Optional[int], typer.Option("--round-trip-k", help=(
                "span: keep a question only if the baseline retriever finds its answer's chunk among the "
                "first K (default 3; 0: off)"))] = None,
            format: Annotated[Optional[str], typer.Option(help="jsonl | parquet")] = None,
            concurrency: Annotated[Optional[int], typer.Option(help="judge calls in flight")] = None,
            config: Annotated[Optional[Path], typer.Option(help="a YAML file with a `testset:` section")] = None,
            dry_run: Annotated[bool, typer.Option("--dry-run", help="print the judge calls and prompt tokens the run "
                                                                   "would need; call nothing")] = False,
            overwrite: Annotated[bool, typer.Option("--overwrite")] = False) -> None:
    """Generate a test set from your documents: chunk, write questions, critique them
    (groundedness, relevance, standalone), filter, deduplicate, and report on its quality."""
    from ragmeter.testset.build import run_testset
    from ragmeter.testset.config import load_testset_config
    from ragmeter.testset.quality import print_quality

    flags = {"docs": str(docs) if docs else None, "size": size, "out": str(out) if out else None, "judge": judge,
             "embeddings": embeddings, "language": language, "audience": audience, "types": types, "seed": seed,
             "chunk_size": chunk_size, "chunk_overlap": chunk_overlap, "min_score": min_score,
             "keep_on": keep_on, "max_attempts": max_attempts, "format": format, "concurrency": concurrency,
             "write_from": write_from, "round_trip_k": round_trip_k}
    cfg = load_testset_config(config, {k: v for k, v in flags.items() if v is not None})
    if dry_run:
        from ragmeter.testset.estimate import plan

        estimate = plan(cfg)
        print(plain(estimate["said"]), file=sys.stderr)
        print(plain(f"language: {estimate['language']} ({estimate['language_from']})"), file=sys.stderr)
        print(f"{counted(estimate['documents'], 'document')}, {counted(estimate['chunks'], 'chunk')}; "
              f"{estimate['attempts']['at_least']} to "
              f"{estimate['attempts']['at_most']} attempts: {estimate['judge_calls']['at_least']} to "
              f"{estimate['judge_calls']['at_most']} judge calls, {estimate['prompt_tokens_estimate']['at_least']:,} "
              f"to {estimate['prompt_tokens_estimate']['at_most']:,} prompt tokens ({estimate['token_count']}); "
              "a rejected question stops at its first failed critique, so most runs cost less than the upper bound")
        timed = estimate["seconds"]
        print(plain(f"about {seconds(timed['at_least'])} to {seconds(timed['at_most'])} at this judge's speed: "
                    f"{timed['said']}") if timed else
              "no speed known for this judge: `ragmeter bench-judge` measures it, then the dry run gives seconds")
        return
    result = run_testset(cfg, overwrite=overwrite)
    print_quality(result.quality, console())
    print(plain(f"wrote {result.path}, {result.path.parent / 'rejected.jsonl'} and "
                f"{result.path.parent / 'manifest.json'}" if result.path else ""))


def generate(input: Annotated[Path, typer.Option("--input", help="Parquet or JSONL with a `text` column")],
             model: Annotated[str, typer.Option(help="llamacpp | llamacpp:PATH.gguf | openai-compat:URL#MODEL | "
                                                     "openai:MODEL | hf:PATH")] = DEFAULT_JUDGE,
             format: Annotated[str, typer.Option(help="special-tokens | chat")] = "special-tokens",
             rows: Annotated[Optional[int], typer.Option(help="only the first N rows")] = None,
             out: Annotated[Path, typer.Option(help="output folder")] = Path("generations"),
             max_tokens: Annotated[int, typer.Option(help="tokens per generation")] = 512,
             model_opt: Annotated[Optional[list[str]], typer.Option("--model-opt", help="KEY=VALUE")] = None,
             no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
             overwrite: Annotated[bool, typer.Option("--overwrite", help="replace generated_response where the "
                                                                        "input has one")] = False) -> None:
    """Generate `generated_response` for each row (Pleias formats); resumable. A generation cut off
    at --max-tokens is marked (generation_finish_reason=length) and left unscored by evaluate."""
    from ragmeter.cache import open_cache
    from ragmeter.io.data_file import open_data_file
    from ragmeter.judges.spec import make_judge
    from ragmeter.rag.generate import check_rows, generate_rows, write_generations

    file = open_data_file(input)
    records = [{k: v for k, v in r.items() if k != "__line__"} for r in file.records()][:rows]
    check_rows(records, file.source, overwrite)
    judge = make_judge(judge_setting(model, model_opt, "--model-opt"))
    cache = open_cache(not no_cache)

    async def go() -> Any:
        try:
            return await generate_rows(records, judge, cache, format, max_tokens=max_tokens)
        finally:
            await judge.aclose()

    try:
        run = asyncio.run(go())
    finally:
        cache.close()
    parquet, samples = write_generations(run.rows, out)
    print(f"{len(run.rows)} rows: {run.generated} generated ({run.tokens} tokens, {seconds(run.seconds)}), "
          f"{run.cached} from cache; wrote {parquet} and {samples}")
