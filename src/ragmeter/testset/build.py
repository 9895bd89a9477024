"""Test sets from your own documents: `ragmeter testset DOCS --size 50 --out DIR`.

documents.py reads them, chunking.py splits them as the seed does, sampling.py picks the
chunks (round after round), subjects.py says what each chunk is about, generation.py asks the
judge for questions and critiques, checks.py rejects what needs no model (with the readers
of reading/questions.py),
pipeline.py runs the generate -> check -> critique -> rewrite once -> filter -> deduplicate
loop, quality.py reports on the result.
The judge session, cache, retries and accounting are the evaluation engine's.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import json
import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Unpack

from ragmeter.errors import ConfigError
from ragmeter.judges.registry import DEFAULT_JUDGE
from ragmeter.testset.config import TestsetConfig, TestsetOptions, testset_config

__all__ = ["TestsetResult", "generate_testset", "parse_types", "plan", "plan_testset", "run_testset"]


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
                        keep_on=cfg.keep_on, max_attempts=cfg.max_attempts, dedup_threshold=cfg.dedup_threshold,
                        groundedness=cfg.groundedness, write_from=cfg.write_from, round_trip_k=cfg.round_trip_k,
                        critiques=tuple(cfg.critiques))
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
    from ragmeter.testset.quality import CALLS_PER_KEPT, expected_seconds, quality_report

    started = time.perf_counter()
    corpus = load_documents(docs)
    if progress is not False:  # what was read and what was not, before minutes of judging
        import sys

        from ragmeter.text import plain

        print(plain(corpus.said()), file=sys.stderr)
    chunks = split(corpus.documents, options["chunk_size"], options["chunk_overlap"], options["chunk_unit"])
    _check_chunks(chunks, options)
    asked = settings.language
    settings = dataclasses.replace(settings, language=corpus_language(corpus.documents)) if asked == "auto" \
        else settings
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
        judging = Judging(JudgeSession(judge, cache, concurrency=concurrency), settings.language, stats)
        embed_session = EmbeddingSession(embedder, cache)

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
    quality["kept_on_rating"] = judging.on_rating  # --keep-on probability|expected without probabilities
    manifest = {"kind": "testset", "ragmeter_version": _version(),
                "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                "settings": {**asdict(settings), "language": asked}, "chunking": options,
                "language": {"asked": asked, "used": settings.language,
                             **({"from": "the documents' stop words"} if asked == "auto" else {})},
                "documents": corpus.record(str(docs) if isinstance(docs, (str, Path)) else "<in-memory>"),
                "judge": {"name": judge.describe(), **judge.identity()}, "embeddings": embedder.identity(),
                "prompts": {**{n: judging.prompt(n).version for n in (*TYPES, *CRITERIA)},
                            "context_relevance.rating1": judging.prompt("rating1", "context_relevance").version,
                            "faithfulness.verdicts": judging.prompt("verdicts", "faithfulness").version,
                            "from_answer": judging.prompt("from_answer").version,
                            "abstention.answerable": judging.prompt("answerable", "abstention").version},
                "quality": quality, "wall_seconds": round(time.perf_counter() - started, 2)}
    return TestsetResult(outcome.kept, outcome.rejected, quality, manifest)


#: how much of a corpus its language is read from (characters)
LANGUAGE_SAMPLE = 200_000


def corpus_language(documents: list[Any]) -> str:
    """The language of the documents (reading/questions.py: dominant_language), English
    where they hold no covered language's stop words."""
    from ragmeter.reading.questions import dominant_language

    sample, size = [], 0
    for document in documents:
        sample.append(document.text[: LANGUAGE_SAMPLE - size])
        size += len(sample[-1])
        if size >= LANGUAGE_SAMPLE:
            break
    return dominant_language("\n".join(sample)) or "english"


def plan_testset(docs: Any, size: int = 50, **options: Unpack[TestsetOptions]) -> dict[str, Any]:
    """What a run would spend, without a judge call: the prompts of the first `size` attempts
    rendered and measured (4 characters per token, an estimate), as a lower bound (every
    question kept) and an upper bound (the whole attempt budget, every critique asked)."""
    cfg = testset_config(docs=str(docs) if isinstance(docs, (str, Path)) else "<in-memory>", size=size,
                         **{k: v for k, v in options.items() if k in TestsetConfig.model_fields})
    return plan(cfg, docs)


def plan(cfg: TestsetConfig, docs: Any = None) -> dict[str, Any]:
    """plan_testset for a validated config (`docs`: documents given in place of its path)."""
    from ragmeter.prompts.languages import normalize_language
    from ragmeter.prompts.template import builtin_prompt
    from ragmeter.testset.chunking import split
    from ragmeter.testset.documents import load_documents
    from ragmeter.testset.pipeline import ORDER, type_plan
    from ragmeter.testset.sampling import chunk_order
    from ragmeter.testset.subjects import SUMMARY_FROM

    size, seed, audience, max_attempts = cfg.size, cfg.seed, cfg.audience, cfg.max_attempts
    corpus = load_documents(cfg.docs if docs is None else docs)
    language = corpus_language(corpus.documents) if cfg.language == "auto" else normalize_language(cfg.language)
    chunks = split(corpus.documents, cfg.chunk_size, cfg.chunk_overlap, cfg.chunk_unit)
    _check_chunks(chunks, {})
    kinds, order = type_plan(parse_types(cfg.types), seed), chunk_order(chunks, seed)
    question = "What does this typical generated question of about twelve words ask about?"
    per_attempt: list[int] = []
    answer_first = cfg.write_from == "span"
    for chunk in itertools.islice(order, size):
        kind, text = next(kinds), chunk.text
        subject = f"{chunk.source}: a title > a section\nA typical one-line summary of the document it comes from."
        if answer_first and kind == "factoid":
            per_attempt.append(_answer_first_tokens(subject, question, text, cfg, language))
            continue
        contexts = {"context": text} if kind != "multi_hop" else {"context1": text, "context2": text}
        tokens = _tokens(builtin_prompt("testset", kind, language).messages({"subject": subject, **contexts}))
        for criterion in ORDER:
            tokens += _critique_tokens(criterion, question, text, audience or "developers", cfg.groundedness, language)
        per_attempt.append(tokens)
    attempts = len(per_attempt)
    mean = sum(per_attempt) / attempts if attempts else 0
    # answer-first: a question and its answerability verdict (and the critiques asked), no rewrite
    calls = 2 + len(cfg.critiques) if answer_first else 1 + len(ORDER)
    rewrites = 1 if answer_first else 2
    # one summary per document asked about; at most, each attempt's question is written again once
    summaries = len({c.source for c in itertools.islice(chunk_order(chunks, seed), size * max_attempts)})
    summary_tokens = sum(_tokens(builtin_prompt("testset", "summary", language).messages(
        {"name": d.source, "document": d.text[:SUMMARY_FROM]})) for d in corpus.documents[:summaries])
    judge_calls = {"at_least": attempts * calls + min(summaries, attempts),
                   "at_most": rewrites * size * max_attempts * calls + summaries}
    prompt_tokens = {"at_least": round(sum(per_attempt)) + summary_tokens,
                     "at_most": round(rewrites * mean * size * max_attempts) + summary_tokens}
    return {"chunks": len(chunks), "documents": len(corpus.documents), "skipped": corpus.skipped,
            "said": corpus.said(),
            "language": language,
            "attempts": {"at_least": attempts, "at_most": size * max_attempts},
            "judge_calls": judge_calls, "prompt_tokens_estimate": prompt_tokens,
            "seconds": _seconds(cfg.judge, judge_calls, prompt_tokens),
            "token_count": "estimate: 4 characters per token"}


def _seconds(judge_spec: Any, calls: dict[str, int], tokens: dict[str, int]) -> dict[str, Any] | None:
    """The bounds in seconds at the judge's measured speed and this machine's learned pace
    (run/judge_speed.py), one call at a time; None where no speed is known."""
    from ragmeter.judges.spec import make_judge
    from ragmeter.run.judge_speed import load_speed
    from ragmeter.testset.quality import REPLY_PER_CALL

    judge = make_judge(judge_spec)
    speed = load_speed(judge.identity())
    if speed is None:
        return None

    def bound(key: str) -> float:
        n = max(1, calls[key])
        return round(n * speed.seconds(tokens[key] / n, REPLY_PER_CALL), 1)
    return {"at_least": bound("at_least"), "at_most": bound("at_most"), "speed": speed.source,
            "pace": speed.pace}


def _answer_first_tokens(subject: str, question: str, text: str, cfg: TestsetConfig, language: str) -> int:
    """An answer-first attempt's prompt tokens: the question written for a typical span (two
    sentences of the chunk), its answerability verdict, the critiques asked."""
    from ragmeter.prompts.template import builtin_prompt
    from ragmeter.reading.sentences import split_sentences

    passage = " ".join(split_sentences(text)[:2])
    tokens = _tokens(builtin_prompt("testset", "from_answer", language).messages(
        {"subject": subject, "passage": passage, "answer": passage}))
    tokens += _tokens(builtin_prompt("abstention", "answerable", language).messages(
        {"context": passage, "question": question}))
    for criterion in cfg.critiques:
        tokens += _critique_tokens(criterion, question, text, cfg.audience or "developers", cfg.groundedness, language)
    return tokens


def _critique_tokens(criterion: str, question: str, text: str, audience: str, groundedness: str,
                     language: str) -> int:
    """The estimated prompt tokens of one critique of a question about `text`."""
    from ragmeter.prompts.template import builtin_prompt

    if criterion == "groundedness" and groundedness == "answer":
        prompt = builtin_prompt("faithfulness", "verdicts", language)
        return _tokens(prompt.messages({"contexts": [text], "statements": [f"{question} A typical answer."]}))
    inputs = {"question": question, "context": text, "audience": audience}
    prompt = builtin_prompt("testset", criterion, language)
    return _tokens(prompt.messages({k: inputs[k] for k in prompt.input_fields}))


def _tokens(messages: list[dict[str, Any]]) -> int:
    return sum(len(m["content"]) for m in messages) // 4


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
