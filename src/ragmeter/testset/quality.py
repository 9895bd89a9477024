"""How good is the test set? Counts and checks no peer reports: survival per criterion,
the question-type mix, source and chunk coverage, duplicates, lengths, whether factoid
answers are in their chunk (a no-model groundedness check), language fidelity, and the
judge's cost per kept question."""

from __future__ import annotations

from collections import Counter
from statistics import median
from typing import Any

from ragmeter.accounting import MetricStats
from ragmeter.reading.identify import language_mismatch
from ragmeter.testset.chunking import Chunk


def answer_in_chunk(answer: str, contexts: list[str]) -> bool:
    """Most (>= 60%) of the answer's content words appear in its chunk(s)."""
    from ragmeter.reading.words import share_held

    share = share_held(answer, contexts)
    return share is None or share >= 0.6


def overlap_by_type(kept: list[dict[str, Any]]) -> dict[str, float]:
    """The mean overlap of the kept questions of each type: the share of a question's content
    words its chunk(s) hold. Generated questions share about 0.55 with their source against
    0.11 for hand-written ones, which makes retrieval look better than it is
    (lossless-claude/lcm PR #367); unanswerable questions have no chunk."""
    from ragmeter.reading.words import share_held

    shares: dict[str, list[float]] = {}
    for row in kept:
        share = share_held(row["user_input"], row.get("reference_contexts") or [])
        if share is not None and row.get("reference_contexts"):
            shares.setdefault(row["question_type"], []).append(share)
    return {kind: round(sum(v) / len(v), 3) for kind, v in shares.items()}


def unsure(row: dict[str, Any], min_score: int) -> bool:
    """Kept on its ratings, but with an expected rating (under the judge's probabilities) that
    misses the bar on some critique: the judge was unsure."""
    from ragmeter.testset.generation import CRITERIA

    for criterion in CRITERIA:
        expected = row.get(f"{criterion}_expected")
        if expected is None:
            continue
        inverted = row.get("question_type") == "unanswerable" and criterion == "groundedness"
        if (expected > 6 - min_score) if inverted else (expected < min_score):
            return True
    return False


def quality_report(kept: list[dict[str, Any]], rejected: list[dict[str, Any]], chunks: list[Chunk],
                   language: str, stats: dict[str, Any], stop_reason: str, size: int,
                   min_score: int = 4) -> dict[str, Any]:
    generated = len(kept) + len(rejected)
    sources = {c.source for c in chunks}
    factoids = [r for r in kept if r["question_type"] == "factoid"]
    calls = sum(s.judge_calls for s in stats.values())
    tokens = sum(s.prompt_tokens + s.completion_tokens for s in stats.values())
    seconds = sum(s.judge_seconds + s.embed_seconds for s in stats.values())
    per_kept = max(1, len(kept))
    return {
        "asked_for": size, "generated": generated, "kept": len(kept), "rejected": len(rejected),
        "survival_rate": round(len(kept) / generated, 4) if generated else None,
        "stopped_short": len(kept) < size, "stop_reason": stop_reason if len(kept) < size else "",
        "rejected_by": dict(Counter(r["rejected_by"] for r in rejected).most_common()),
        "question_types": dict(Counter(r["question_type"] for r in kept).most_common()),
        "source_coverage": round(len({r["source"] for r in kept}) / len(sources), 4) if sources else 0.0,
        "chunk_coverage": round(len({c for r in kept for c in r.get("reference_context_ids", [])})
                                / len(chunks), 4) if chunks else 0.0,
        "sources": len(sources), "chunks": len(chunks),
        "kept_per_source": dict(Counter(r["source"] for r in kept).most_common()),
        "duplicate_rate": round(sum(r["rejected_by"] == "duplicate" for r in rejected) / generated, 4)
        if generated else 0.0,
        "question_chars": _lengths([r["user_input"] for r in kept]),
        "answer_chars": _lengths([r["reference"] for r in kept if r["question_type"] != "unanswerable"]),
        "answer_in_chunk_rate": round(sum(answer_in_chunk(r["reference"], r["reference_contexts"]) for r in factoids)
                                      / len(factoids), 4) if factoids else None,
        "language": language,
        "language_mismatches": sum(language_mismatch(r["user_input"], language) for r in kept),
        "overlap": overlap_by_type(kept),
        "rewritten": sum("rewritten_from" in r for r in kept),
        "rewritten_rejected": sum("rewritten_from" in r for r in rejected),
        "kept_unsure": sum(unsure(r, min_score) for r in kept), "min_score": min_score,
        "answer_first": answer_first(kept),
        "judge_calls": calls, "tokens": tokens, "seconds": round(seconds, 2),
        "judge_calls_per_kept": round(calls / per_kept, 2), "tokens_per_kept": round(tokens / per_kept, 1),
        "seconds_per_kept": round(seconds / per_kept, 2),
        "per_stage": {stage: s.as_dict() for stage, s in stats.items()},
    }


#: ragmeter's own share of a test set's time, as the report names it
OWN_WORK = "ragmeter's own work (sampling, spans, checks, writing)"


def time_spent(wall: float, read: float, busy: float, model_load: float,
               stats: dict[str, MetricStats]) -> dict[str, Any]:
    """Every second of the run in a named part (issue 76 item 3: 6m40s of a 12m41s run were
    the judge's and nothing said what the rest was). `parts` add up to the wall time: reading
    the documents, the judge and the embedder at work (`busy`: the union of their calls, which
    overlap; accounting.BusyClock), and what is left, ragmeter's own work. `within` splits the
    busy time: the judge's model load, its calls by stage, the embeddings (their model's load too)."""
    within = {"loading the judge's model": model_load}
    for stage, s in sorted(stats.items(), key=lambda kv: -kv[1].judge_seconds):
        if s.judge_seconds:
            within[f"judge, {stage}"] = s.judge_seconds
    within["embeddings"] = sum(s.embed_seconds for s in stats.values())
    parts = {"reading and chunking the documents": read, "the judge and embedder at work": busy,
             OWN_WORK: max(0.0, wall - read - busy)}
    return {"wall": round(wall, 2), "parts": {k: round(v, 2) for k, v in parts.items()},
            "within": {k: round(v, 2) for k, v in within.items()}}


def time_line(spent: dict[str, Any]) -> str:
    """The report's line: the wall time, its parts, then what the judge and embedder did."""
    from ragmeter.text import seconds

    def listed(values: dict[str, float]) -> str:
        return ", ".join(f"{name} {seconds(v)}" for name, v in sorted(values.items(), key=lambda kv: -kv[1])
                         if v >= 0.5)

    return (f"time: {seconds(spent['wall'])} = {listed(spent['parts'])}; the judge and embedder's "
            f"time: {listed(spent['within'])} (the embeddings overlap the judge's calls)")


def answer_first(kept: list[dict[str, Any]]) -> dict[str, int]:
    """Of the kept questions, how many were written for a span of their chunk (answer-first),
    hold that span verbatim as their reference, were read as answerable from it, and were
    found by the round trip (testset/answer_first.py)."""
    spans = [r for r in kept if r.get("answer_span")]
    passed = {"reference_in_chunk": lambda r: bool(r["reference_in_chunk"]),
              "answered_by_span": lambda r: r["answered_by_span"] >= 0.5,
              "answerable": lambda r: r["answerable"] >= 0.5,
              "round_trip_rank": lambda r: r["round_trip_rank"] is not None}
    # a check that did not run (answer_check, round_trip_k 0) is left out, not counted as 0
    return {"kept": len(kept), "span": len(spans),
            **{name: sum(check(r) for r in spans) for name, check in passed.items()
               if any(name in r for r in spans)}}


def _lengths(texts: list[str]) -> dict[str, float] | None:
    if not texts:
        return None
    sizes = sorted(len(t) for t in texts)
    return {"min": sizes[0], "median": median(sizes), "max": sizes[-1]}


#: per kept question with the bundled Qwen on three package READMEs, `--size 12`
#: (benchmarks/e2e_code/docs/en; docs/benchmarks.md)
CALLS_PER_KEPT, TOKENS_PER_KEPT, REPLY_PER_CALL = 4.42, 1651, 15


def expected_seconds(judge: Any, size: int) -> float | None:
    """A rough time for `size` kept questions before the first is kept: the benchmark's calls
    and tokens per kept question at the judge's measured speed (None without one)."""
    from ragmeter.run.judge_speed import load_speed

    speed = load_speed(judge.identity())
    if speed is None:
        return None
    prompt = TOKENS_PER_KEPT / CALLS_PER_KEPT - REPLY_PER_CALL
    return size * CALLS_PER_KEPT * speed.seconds(prompt, REPLY_PER_CALL)


#: what each answer-first check found, as the report says it
CHECKS = {"reference_in_chunk": "reference verbatim in the chunk", "answered_by_span": "the answer its chunk gives",
          "answerable": "answerable from it", "round_trip_rank": "found by the round trip"}


def print_quality(report: dict[str, Any], console: Any) -> None:
    from ragmeter.text import printable, seconds

    def share(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    lines = [
        f"{report['kept']} kept of {report['generated']} generated (survival {share(report['survival_rate'])}); "
        f"asked for {report['asked_for']}"
        + (f"; stopped short: {report['stop_reason']}" if report["stopped_short"] else ""),
        f"rejected by: {', '.join(f'{k} {v}' for k, v in report['rejected_by'].items()) or 'none'}",
        f"types: {', '.join(f'{k} {v}' for k, v in report['question_types'].items()) or 'none'}",
        f"coverage: sources {report['source_coverage']:.0%} of {report['sources']}, chunks "
        f"{report['chunk_coverage']:.0%} of {report['chunks']}; duplicates {report['duplicate_rate']:.0%} of generated",
        "kept per source: " + (", ".join(f"{k} {v}" for k, v in report.get("kept_per_source", {}).items()) or "none"),
        f"answer in its chunk (factoid): {share(report['answer_in_chunk_rate'])}; language: "
        f"{report.get('language', '-')}, {report['language_mismatches']} kept question(s) in another",
        "question words found in their chunk (overlap; hand-written questions share about 11%): "
        + (", ".join(f"{k} {v:.0%}" for k, v in report.get("overlap", {}).items()) or "-"),
        *([f"answer-first: {af['span']} of {af['kept']} kept written for a span of their chunk; of those, "
           + ", ".join(f"{CHECKS[name]} {count}" for name, count in af.items() if name in CHECKS)]
          if (af := report.get("answer_first") or {}).get("span") else []),
        f"rewritten once after a failed check: {report.get('rewritten', 0)} kept, "
        f"{report.get('rewritten_rejected', 0)} dropped again",
        f"kept with an expected rating below {report.get('min_score', 4)} on some critique (the judge unsure): "
        f"{report.get('kept_unsure', 0)} of {report['kept']}"
        + ("; --keep-on probability or expected keeps fewer" if report.get("kept_unsure") else ""),
        *([f"--keep-on: the judge gave no label probabilities for {report['kept_on_rating']} critiques; those were "
           "decided on the rating"] if report.get("kept_on_rating") else []),
        f"judge: {report['judge_calls']:,} calls, {report['tokens']:,.0f} tokens, {seconds(report['seconds'])}; "
        f"per kept question {report['judge_calls_per_kept']:.1f} calls, {report['tokens_per_kept']:,.0f} tokens, "
        f"{seconds(report['seconds_per_kept'])}",
        *([time_line(report["time"])] if report.get("time") else []),
    ]
    for line in lines:
        console.print(printable(line), highlight=False)
