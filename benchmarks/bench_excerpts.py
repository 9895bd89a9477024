"""How often the excerpts a faithfulness judge is shown hold the sentence the claim comes from.

No model: judge-check's cases are built from documents or a dataset exactly as `ragmeter
judge-check` builds them (the same seed and sizes), and for every case whose answer is copied
from a context (a verbatim sentence; a short answer with its question) the excerpts are
computed as the metric computes them and searched for the supporting sentence. A claim
judged against excerpts that miss its sentence can only fail, however good the judge.

    python benchmarks/bench_excerpts.py examples/docs --chunk-size 500
    python benchmarks/bench_excerpts.py docs --chunk-size 2000 --limit 40
    python benchmarks/bench_excerpts.py examples/dataset.jsonl

Short answers are searched with the claim the metric falls back to ("question answer"),
and with the bare answer (what was judged before short answers took their question).
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict

from ragmeter.judge_check.cases import Case, build_cases
from ragmeter.judge_check.families import FAMILIES
from ragmeter.judge_check.sources import load_sources
from ragmeter.reading.excerpts import excerpts


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[*`_]", "", text).split()).lower()


def supporting(case: Case) -> str:
    """The sentence the case's answer was copied from."""
    question, answer = case.row.get("user_input") or "", case.row["response"]
    if case.check == "short_copied" and question.startswith("What fills the blank in"):
        return question[len('What fills the blank in "'):-2].replace("___", answer, 1)
    return answer


def found(case: Case, claim: str, question: str | None) -> bool:
    """Whether the excerpts for `claim` hold the supporting sentence (or, for a short answer
    from the row's own reference, a sentence holding the answer)."""
    shown = _norm(" ".join(excerpts(claim, case.row["retrieved_contexts"], question=question)))
    target = _norm(supporting(case))
    if case.check == "short_copied" and not (case.row.get("user_input") or "").startswith("What fills"):
        return target in shown
    return all(part in shown for part in _norm(target).split(" … "))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data")
    parser.add_argument("--chunk-size", type=int, default=2000)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--sizes", default="1,3,5")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sources, where = load_sources(args.data, limit=args.limit, seed=args.seed, chunk_size=args.chunk_size,
                                  chunk_overlap=min(200, args.chunk_size // 10))
    sizes = tuple(int(k) for k in args.sizes.split(","))
    cases = build_cases(FAMILIES["grounding"], sources, sizes, args.seed, "english")
    tally: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0])
    for case in cases:
        question = case.row.get("user_input")
        if case.check == "verbatim_sentence":
            variants = {"verbatim_sentence": (case.row["response"], question)}
        elif case.check == "short_copied":
            variants = {"short: question + answer": (f"{question} {case.row['response']}", question),
                        "short: answer alone, no question": (case.row["response"], None)}
        else:
            continue
        for name, (claim, asked) in variants.items():
            counts = tally[(name, case.k)]
            counts[0] += int(found(case, claim, asked))
            counts[1] += 1
    print(f"{where}; chunk size {args.chunk_size}; {len(sources)} sources")
    print(f"{'cases':<36}" + "".join(f"{'k=' + str(k):>14}" for k in sizes))
    for name in sorted({n for n, _ in tally}):
        cells = []
        for k in sizes:
            hit, total = tally.get((name, k), [0, 0])
            cells.append(f"{hit / total:.3f} ({total})" if total else "-")
        print(f"{name:<36}" + "".join(f"{c:>14}" for c in cells))


if __name__ == "__main__":
    main()
