"""Test sets from your own documents: `ragmeter testset DOCS --size 50 --out DIR`.

documents.py reads them, chunking.py splits them as the seed does, sampling.py picks the
chunks (round after round), subjects.py says what each chunk is about, spans.py chooses the
answers a factoid question is written for and answer_first.py writes and checks it (issue 73),
generation.py asks the judge for questions and critiques, checks.py rejects what needs no
model (with the readers of reading/questions.py), pipeline.py runs the generate -> check ->
critique -> filter -> deduplicate loop, estimate.py plans a dry run, quality.py reports on
the result.
The judge session, cache, retries and accounting are the evaluation engine's.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from ragmeter.errors import ConfigError
from ragmeter.judges.registry import DEFAULT_JUDGE
from ragmeter.testset.config import TestsetConfig, TestsetOptions, testset_config

if TYPE_CHECKING:
    from ragmeter.prompts.run_language import Followed

__all__ = ["TestsetResult", "corpus_language", "generate_testset", "parse_types", "run_testset"]


@dataclass
class TestsetResult:
    rows: list[dict[str, Any]]
    rejected: list[dict[str, Any]]
    quality: dict[str, Any]
    manifest: dict[str, Any]
    path: Path | None = None

    __test__ = False  # not a pytest test class, despite the name


def parse_types(text: str | dict[str, float] | None) -> dict[str, float]:
    """`factoid:0.6,multi_hop:0.2,unanswerable:0.2` -> a mix of known types summing to 1."""
    from ragmeter.testset.pipeline import TYPES

    if text is None:
        return {"factoid": 1.0}
    mix: dict[str, float] = {}
    if isinstance(text, dict):
        mix = {str(k): float(v) for k, v in text.items()}
    else:
        for item in text.split(","):
            name, sep, weight = item.strip().partition(":")
            try:
                mix[name.strip()] = float(weight) if sep else 1.0
            except ValueError:
                raise ConfigError(f"--types: '{item.strip()}' is not TYPE:WEIGHT") from None
    unknown = [t for t in mix if t not in TYPES]
    if unknown:
        raise ConfigError(f"--types: unknown question type(s) {', '.join(unknown)} (known: {', '.join(TYPES)})")
    odd = [f"{t}:{w:g}" for t, w in mix.items() if not math.isfinite(w) or w < 0]
    if odd:
        raise ConfigError(f"--types: weights must be finite numbers >= 0, got {', '.join(odd)}")
    if abs(sum(mix.values()) - 1) > 1e-6:
        raise ConfigError(f"--types: weights must sum to 1, got {sum(mix.values()):g}")
    return {t: w for t, w in mix.items() if w > 0}


def generate_testset(docs: Any, size: int = 50, *, progress: bool | None = None, overwrite: bool = False,
                     **options: Unpack[TestsetOptions]) -> TestsetResult:
    """Chunk `docs` (a folder, a file, or documents in memory), generate and critique questions
    until `size` survive, and write testset.<jsonl|parquet>, rejected.jsonl and manifest.json
    to `out` (if given). Keyword arguments: `TestsetOptions` (meaning and defaults: TestsetConfig)."""
    unknown = set(options) - TestsetOptions.__optional_keys__
    if unknown:
        raise TypeError(f"generate_testset() got unexpected keyword arguments: {', '.join(sorted(unknown))}")
    judge, embeddings = options.pop("judge", DEFAULT_JUDGE), options.pop("embeddings", "bundled")
    cache, out = options.pop("cache", True), options.pop("out", None)
    cfg = testset_config(docs=str(docs) if isinstance(docs, (str, Path)) else "<in-memory>", size=size,
                         out=str(out) if out is not None else None,
                         cache=str(cache) if isinstance(cache, Path) else cache,
                         judge=judge if isinstance(judge, (str, dict)) else "custom",
                         embeddings=embeddings if isinstance(embeddings, (str, dict)) else "custom", **options)
    return run_testset(cfg, docs=docs, judge=judge, embeddings=embeddings, progress=progress, overwrite=overwrite)


def run_testset(cfg: TestsetConfig, *, docs: Any = None, judge: Any = None, embeddings: Any = None,
                progress: bool | None = None, overwrite: bool = False) -> TestsetResult:
    """The test set `cfg` describes (the CLI's and the API's one path); `docs`, `judge`,
    `embeddings`: objects given in place of the config's path and specs."""
    from ragmeter.prompts.languages import normalize_language
    from ragmeter.testset.pipeline import Settings

    language = "auto" if cfg.language == "auto" else normalize_language(cfg.language)
    settings = Settings(size=cfg.size, types=parse_types(cfg.types), language=language,
                        audience=cfg.audience or Settings.audience, seed=cfg.seed, min_score=cfg.min_score,
                        keep_on=cfg.keep_on, max_attempts=cfg.attempts, dedup_threshold=cfg.dedup_threshold,
                        groundedness=cfg.groundedness, write_from=cfg.write_from, round_trip_k=cfg.round_trip_k,
                        critiques=tuple(cfg.critiques), answer_check=cfg.answer_check)
    options = {"chunk_size": cfg.chunk_size, "chunk_overlap": cfg.chunk_overlap, "chunk_unit": cfg.chunk_unit}
    if cfg.out is not None:
        _prepare(Path(cfg.out), settings, options, overwrite)
    coro = _generate(cfg.docs if docs is None else docs, settings, options, cfg.judge if judge is None else judge,
                     cfg.embeddings if embeddings is None else embeddings, cfg.cache, cfg.concurrency, progress)
    from ragmeter.api import run_sync

    result = run_sync(coro)  # inside a running loop (Jupyter): on a worker thread
    if cfg.out is not None:
        result.path = _write(Path(cfg.out), result, cfg.format)
    return result


async def _generate(docs: Any, settings: Any, options: dict[str, Any], judge_spec: Any, embed_spec: Any,
                    cache_opt: Any, concurrency: int, progress: bool | None) -> TestsetResult:
    import sys

    from ragmeter.accounting import BusyClock
    from ragmeter.cache import open_cache
    from ragmeter.embeddings import make_embedder
    from ragmeter.embeddings.base import EmbeddingSession
    from ragmeter.engine.progress import judge_calls, judge_work, row_progress
    from ragmeter.judges.session import JudgeSession
    from ragmeter.judges.spec import make_judge
    from ragmeter.testset.chunking import split
    from ragmeter.testset.documents import load_documents
    from ragmeter.testset.generation import Judging
    from ragmeter.testset.pipeline import CRITERIA, TYPES, build
    from ragmeter.testset.quality import CALLS_PER_KEPT, expected_seconds, quality_report, time_spent
    from ragmeter.text import plain

    started = time.perf_counter()
    corpus = load_documents(docs)
    if progress is not False:  # what was read and what was not, before minutes of judging
        print(plain(corpus.said()), file=sys.stderr)
    chunks = split(corpus.documents, options["chunk_size"], options["chunk_overlap"], options["chunk_unit"])
    _check_chunks(chunks, options)
    read_seconds = time.perf_counter() - started
    asked = settings.language
    followed = corpus_language(corpus.documents) if asked == "auto" else None
    settings = dataclasses.replace(settings, language=followed.name) if followed is not None else settings
    if progress is not False and followed is not None:
        print(plain(followed.line()), file=sys.stderr)
    from ragmeter.testset.subjects import Subjects

    subjects = Subjects(corpus.documents, settings.language)
    from ragmeter.embeddings.base import Embedder
    from ragmeter.judges.base import Judge

    judge = judge_spec if isinstance(judge_spec, Judge) else make_judge(judge_spec)
    embedder = embed_spec if isinstance(embed_spec, Embedder) else make_embedder(embed_spec)
    cache = open_cache(cache_opt)
    stats: dict[str, Any] = {}
    try:
        await judge.check()
        clock = BusyClock()  # the union of the judge's and the embedder's calls: the time they worked
        judging = Judging(JudgeSession(judge, cache, concurrency=concurrency, clock=clock), settings.language, stats)
        embed_session = EmbeddingSession(embedder, cache, clock)

        async def embed(texts: list[str]) -> list[list[float]]:
            from ragmeter.accounting import MetricStats

            return await embed_session.embed(texts, stats.setdefault("embed", MetricStats()))

        calls = judge_work(stats)
        with row_progress(settings.size, progress, unit="questions",
                          work=lambda: f"{judging.stages.text()} · {calls()}",
                          expected=expected_seconds(judge, settings.size), calls=judge_calls(stats),
                          expected_calls=round(settings.size * CALLS_PER_KEPT)) as bar:
            outcome = await build(chunks, settings, judging, embed, subjects, bar)
        from ragmeter.run.judge_speed import learn_from

        learn_from(judge, judging.session.by_tag)
    finally:
        cache.close()
        await judge.aclose()
        await embedder.aclose()
    quality = quality_report(outcome.kept, outcome.rejected, chunks, settings.language, stats,
                             outcome.stop_reason, settings.size, settings.min_score)
    quality["time"] = time_spent(time.perf_counter() - started, read_seconds, clock.total, judge.load_seconds,
                                 stats)
    quality["kept_on_rating"] = judging.on_rating  # --keep-on probability|expected without probabilities
    manifest = {"kind": "testset", "ragmeter_version": _version(),
                "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                "settings": {**asdict(settings), "language": asked}, "chunking": options,
                "language": {"asked": asked, "used": settings.language,
                             **({"from": followed.source} if followed is not None else {})},
                "documents": corpus.record(str(docs) if isinstance(docs, (str, Path)) else "<in-memory>"),
                "judge": {"name": judge.describe(), **judge.identity()}, "embeddings": embedder.identity(),
                "prompts": {**{n: judging.prompt(n).version for n in (*TYPES, *CRITERIA)},
                            "context_relevance.rating1": judging.prompt("rating1", "context_relevance").version,
                            "faithfulness.verdicts": judging.prompt("verdicts", "faithfulness").version,
                            "from_answer": judging.prompt("from_answer").version,
                            "abstention.answerable": judging.prompt("answerable", "abstention").version,
                            "which_sentence": judging.prompt("which_sentence").version},
                "quality": quality, "wall_seconds": round(time.perf_counter() - started, 2)}
    return TestsetResult(outcome.kept, outcome.rejected, quality, manifest)


def corpus_language(documents: list[Any]) -> Followed:
    """The language the documents are written in (reading/identify.py), or a ConfigError naming
    one ragmeter has no prompts and words for: its questions are never written in another
    language's words."""
    from ragmeter.errors import ConfigError
    from ragmeter.prompts.languages import builtin_folders
    from ragmeter.prompts.run_language import FALLBACK, Followed
    from ragmeter.reading.identify import SAMPLE_CHARS, identify_all
    from ragmeter.reading.languages import NOT_COVERED, vocabulary

    share = max(500, SAMPLE_CHARS // max(1, len(documents)))  # each document its slice: a README first decides nothing
    read = identify_all([document.text[:share] for document in documents])
    if read is None:
        return Followed(FALLBACK, "the documents tell no language; --language to choose")
    if read.name not in builtin_folders() or vocabulary(read.name) is None:
        raise ConfigError(f"the documents read as {read.said()}: {NOT_COVERED.format(language=read.name)}; give "
                          "--language english or --language spanish to write the questions in one of those, or "
                          "add an entry for it (docs/architecture.md, add a language)")
    return Followed(read.name, f"read from the documents' text, P {read.probability:.2f}")


def _check_chunks(chunks: list[Any], options: dict[str, Any]) -> None:
    from ragmeter.errors import DataError
    from ragmeter.testset.chunking import MIN_CHUNK_CHARS

    if not any(len(c.text.strip()) >= MIN_CHUNK_CHARS for c in chunks):
        raise DataError(f"every document is shorter than the minimum chunk ({MIN_CHUNK_CHARS} characters): "
                        "nothing to ask questions about")


def _version() -> str:
    from ragmeter import __version__

    return __version__


def _prepare(out: Path, settings: Any, options: dict[str, Any], overwrite: bool) -> None:
    """Before any judge call: the folder is writable and holds no other test set."""
    from ragmeter.io.output import prepare_output

    fingerprint = {"kind": "testset", "settings": asdict(settings), "chunking": options}
    prepare_output(out, fingerprint, overwrite, fingerprint_of=_testset_fingerprint)


def _testset_fingerprint(manifest: Path) -> Any:
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return {"kind": data.get("kind"), "settings": data.get("settings"), "chunking": data.get("chunking")}


def _write(out: Path, result: TestsetResult, fmt: str) -> Path:
    from ragmeter.io.writers import atomic_write_bytes, jsonl_bytes, parquet_bytes, write_json

    path = out / f"testset.{fmt}"
    if fmt == "parquet":
        atomic_write_bytes(path, parquet_bytes(result.rows))
    else:
        atomic_write_bytes(path, jsonl_bytes(result.rows))
    atomic_write_bytes(out / "rejected.jsonl",
                       jsonl_bytes(result.rejected))
    write_json(out / "manifest.json", {**result.manifest, "testset_file": path.name})
    return path
