"""Test-set generation on examples/docs with a judge (default: the bundled Qwen), and the
validity of its groundedness critique against human labels.

1. `ragmeter testset examples/docs --size N`: seconds, judge calls and tokens per kept
   question, survival rate, coverage, duplicate rate, unparseable replies.
2. Groundedness validity: ClapNQ pairs a question with a passage that does (1) or does not
   (0) answer it (human labels, shared/data/meta-eval/clapnq_answerability.jsonl). ROC-AUC of
   the critique's expected 1-5 rating against the label, beside the word-overlap floor, and
   each keep rule at --min-score (the top rating, the expected rating, P(rating >= bar) >= 0.5):
   the share kept, the share of kept rows the passage answers (precision), the share of
   answered rows kept (recall).

    python benchmarks/bench_testset.py [--size 10] [--validity-rows 60] [--judge SPEC] [--skip-generation]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLAPNQ = ROOT.parent / "shared" / "data" / "meta-eval" / "clapnq_answerability.jsonl"


def generation(args: argparse.Namespace) -> None:
    from ragmeter.testset import generate_testset

    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        result = generate_testset(ROOT / "examples" / "docs", args.size, out=Path(tmp) / "ts", judge=args.judge,
                                  types=args.types, cache=args.cache, progress=False, groundedness=args.groundedness)
        seconds = time.perf_counter() - started
    q = result.quality
    unparseable = sum(1 for r in result.rejected if r["rejected_by"] == "parse failure")
    print(f"testset on examples/docs, size {args.size}, types {args.types}, judge {args.judge}")
    print(f"  kept {q['kept']} of {q['generated']} generated (survival {q['survival_rate']}); "
          f"rejected by {q['rejected_by']}; stopped short: {q['stop_reason'] or 'no'}")
    print(f"  per kept question: {q['judge_calls_per_kept']} judge calls, {q['tokens_per_kept']} tokens, "
          f"{q['seconds_per_kept']} s judge time; wall {seconds:.1f} s")
    print(f"  coverage: sources {q['source_coverage']}, chunks {q['chunk_coverage']}; duplicate rate "
          f"{q['duplicate_rate']}; unparseable replies {unparseable}; answer in chunk {q['answer_in_chunk_rate']}; "
          f"language mismatches {q['language_mismatches']}")
    print(f"  types kept: {q['question_types']}")


def validity(args: argparse.Namespace) -> None:
    from ragmeter.cache import open_cache
    from ragmeter.judges.session import JudgeSession
    from ragmeter.judges.spec import make_judge
    from ragmeter.meta_eval import balanced_sample, bootstrap_ci, load_labelled, roc_auc, word_overlap
    from ragmeter.testset.generation import Judging, critique

    rows = balanced_sample(load_labelled(CLAPNQ), args.validity_rows)
    labels = [int(r["label"]) for r in rows]

    async def scores() -> list[dict]:
        judge = make_judge(args.judge)
        cache = open_cache(args.cache)
        judging = Judging(JudgeSession(judge, cache), "english", {})
        try:
            out = []
            for r in rows:
                result = await critique(judging, "groundedness", r["user_input"], "\n\n".join(r["retrieved_contexts"]),
                                        "", args.groundedness)
                out.append(result)
            return out
        finally:
            cache.close()
            await judge.aclose()

    started = time.perf_counter()
    results = asyncio.run(scores())
    seconds = time.perf_counter() - started
    judged = [r["expected"] for r in results]
    floor = [word_overlap(r["user_input"], r["retrieved_contexts"]) for r in rows]
    print(f"groundedness critique ({args.groundedness}) vs ClapNQ human labels, {len(rows)} rows "
          f"({sum(labels)} answerable), "
          f"judge {args.judge}, {seconds / len(rows):.2f} s per row")
    for name, values in (("groundedness (expected 1-5)", judged), ("word-overlap floor", floor)):
        low, high = bootstrap_ci(roc_auc, [values, labels])
        print(f"  {name:<30} ROC-AUC {roc_auc(values, labels):.3f} [{low:.3f}, {high:.3f}]")
    rules = keep_rules(results, labels, args.min_score)
    for name, (kept, precision, recall) in rules.items():
        print(f"  keep on {name:<22} at {args.min_score}: kept {kept:.0%}, answered among kept {precision:.0%}, "
              f"answered rows kept {recall:.0%}")
    print(json.dumps({"rows": len(rows), "auc": round(roc_auc(judged, labels), 4),
                      "floor": round(roc_auc(floor, labels), 4), "keep_rules": rules}))


def keep_rules(results: list[dict], labels: list[int], bar: int) -> dict[str, tuple[float, float, float]]:
    """(share kept, precision, recall) of each keep rule against the human labels."""
    from ragmeter.testset.pipeline import keeps

    rules = {"rating": lambda r: keeps(r, bar, "rating"), "probability": lambda r: keeps(r, bar, "probability"),
             "expected rating": lambda r: keeps(r, bar, "expected")}
    out = {}
    for name, rule in rules.items():
        kept = [label for r, label in zip(results, labels) if rule(r)]
        precision = sum(kept) / len(kept) if kept else 0.0
        out[name] = (round(len(kept) / len(labels), 4), round(precision, 4), round(sum(kept) / max(sum(labels), 1), 4))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", default="llamacpp")
    parser.add_argument("--size", type=int, default=10)
    parser.add_argument("--types", default="factoid:0.6,multi_hop:0.2,unanswerable:0.2")
    parser.add_argument("--validity-rows", type=int, default=60)
    parser.add_argument("--skip-generation", action="store_true")
    parser.add_argument("--min-score", type=int, default=4)
    parser.add_argument("--groundedness", default="rating", help="rating (default) | seed")
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "ragmeter" / "bench_testset.sqlite"))
    args = parser.parse_args()
    if not args.skip_generation:
        generation(args)
    if args.validity_rows:
        if not CLAPNQ.is_file():
            sys.exit(f"{CLAPNQ} not found")
        validity(args)


if __name__ == "__main__":
    main()
