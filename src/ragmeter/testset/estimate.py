"""What a test set would spend, before any judge call (`ragmeter testset --dry-run`,
`plan_testset`): the prompts of the first `size` attempts rendered and measured, as a lower
bound (every question kept) and an upper bound (the whole attempt budget spent), in calls,
prompt tokens and, where the judge's speed is known, seconds."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, Unpack

from ragmeter.testset.build import _check_chunks, corpus_language, parse_types
from ragmeter.testset.config import TestsetConfig, TestsetOptions, testset_config

__all__ = ["plan", "plan_testset"]


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

    size, seed, audience, max_attempts = cfg.size, cfg.seed, cfg.audience, cfg.attempts
    corpus = load_documents(cfg.docs if docs is None else docs)
    followed = corpus_language(corpus.documents) if cfg.language == "auto" else None
    language = followed.name if followed is not None else normalize_language(cfg.language)
    chunks = split(corpus.documents, cfg.chunk_size, cfg.chunk_overlap, cfg.chunk_unit)
    _check_chunks(chunks, {})
    kinds, order = type_plan(parse_types(cfg.types), seed), chunk_order(chunks, seed)
    question = "What does this typical generated question of about twelve words ask about?"
    per_attempt: list[int] = []
    #: per attempt, its calls and how many times it may be asked at most: an answer-first
    #: factoid question and its checks, never written again; any other, a question and three
    #: critiques, at most twice (a rewrite)
    calls_each: list[tuple[int, int]] = []
    answer_first = cfg.write_from == "span"
    for chunk in itertools.islice(order, size):
        kind, text = next(kinds), chunk.text
        subject = f"{chunk.source}: a title > a section\nA typical one-line summary of the document it comes from."
        if answer_first and kind == "factoid":
            per_attempt.append(_answer_first_tokens(subject, question, text, cfg, language))
            calls_each.append((1 + (2 if cfg.answer_check == "both" else 1) + len(cfg.critiques), 1))
            continue
        contexts = {"context": text} if kind != "multi_hop" else {"context1": text, "context2": text}
        tokens = _tokens(builtin_prompt("testset", kind, language).messages({"subject": subject, **contexts}))
        for criterion in ORDER:
            tokens += _critique_tokens(criterion, question, text, audience or "developers", cfg.groundedness, language)
        per_attempt.append(tokens)
        calls_each.append((1 + len(ORDER), 2))
    attempts = len(per_attempt)
    most = sum(c * times for c, times in calls_each) / attempts if attempts else 0
    most_tokens = sum(t * times for t, (_, times) in zip(per_attempt, calls_each)) / attempts if attempts else 0
    # one summary per document asked about; at most, each attempt's question is written again once
    summaries = len({c.source for c in itertools.islice(chunk_order(chunks, seed), size * max_attempts)})
    summary_tokens = sum(_tokens(builtin_prompt("testset", "summary", language).messages(
        {"name": d.source, "document": d.text[:SUMMARY_FROM]})) for d in corpus.documents[:summaries])
    judge_calls = {"at_least": sum(c for c, _ in calls_each) + min(summaries, attempts),
                   "at_most": round(most * size * max_attempts) + summaries}
    prompt_tokens = {"at_least": round(sum(per_attempt)) + summary_tokens,
                     "at_most": round(most_tokens * size * max_attempts) + summary_tokens}
    return {"chunks": len(chunks), "documents": len(corpus.documents), "skipped": corpus.skipped,
            "said": corpus.said(),
            "language": language, "language_from": followed.source if followed is not None else "given",
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
            "pace": speed.pace, "said": speed.said()}


def _answer_first_tokens(subject: str, question: str, text: str, cfg: TestsetConfig, language: str) -> int:
    """An answer-first attempt's prompt tokens: the question written for a typical span (two
    sentences of the chunk), its answer checks (the chunk's sentences, the span alone), the
    critiques asked."""
    from ragmeter.prompts.template import builtin_prompt
    from ragmeter.reading.sentences import split_sentences
    from ragmeter.testset.answer_first import SHOWN
    from ragmeter.testset.spans import sentences

    passage = " ".join(split_sentences(text)[:2])
    tokens = _tokens(builtin_prompt("testset", "from_answer", language).messages(
        {"subject": subject, "passage": passage, "answer": passage}))
    if cfg.answer_check in ("sentence", "both"):
        tokens += _tokens(builtin_prompt("testset", "which_sentence", language).messages(
            {"sentences": sentences(text)[:SHOWN], "question": question}))
    if cfg.answer_check in ("answerable", "both"):
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
