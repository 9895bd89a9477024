"""Validity of judge metrics against human labels (shared/data/meta-eval), beside the
no-model word-overlap floor.

- Q2 (Wizard of Wikipedia responses, human faithfulness labels): faithfulness and
  llamaindex_faithfulness, ROC-AUC and balanced accuracy (score >= 0.5 is faithful).
- RAGChecker pairs (two answers, human preference in [-2, 2], > 0 = the second is better):
  correctness, answer_correctness and factual_correctness score each answer; Pearson and
  Spearman of (score2 - score1) against the preference.

    python benchmarks/bench_validity.py [--q2-rows 60] [--pairs 20] [--only q2|pairs] [--judge SPEC]

With the bundled judge on 2 cores: about 6 s per Q2 row, and about 40 s per RAGChecker pair
(long answers and references: claims are extracted from each).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import ragmeter
from ragmeter.meta_eval import (balanced_accuracy, balanced_sample, load_labelled, pearson, roc_auc, spearman,
                                word_overlap)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "meta-eval"
Q2_METRICS = ["faithfulness", "llamaindex_faithfulness"]
PAIR_METRICS = ["correctness", "answer_correctness", "factual_correctness"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--q2-rows", type=int, default=60)
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--judge", default="llamacpp")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--only", choices=["q2", "pairs"], default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache.sqlite"
        if args.only in (None, "q2"):
            q2(args, cache)
        if args.only in (None, "pairs"):
            pairs(args, cache)


def q2(args: argparse.Namespace, cache: Path) -> None:
    rows = balanced_sample(load_labelled(args.data / "q2_wow_faithfulness.jsonl"), args.q2_rows)
    labels = [r["label"] for r in rows]
    print(f"\nQ2 faithfulness: {len(rows)} rows ({sum(labels)} faithful), judge {args.judge}")
    floor = [word_overlap(r["response"], r["retrieved_contexts"]) for r in rows]
    print(f"  {'word-overlap floor':<26} ROC-AUC {roc_auc(floor, labels):.3f}")
    start = time.perf_counter()
    result = ragmeter.evaluate(rows, Q2_METRICS, judge=args.judge, cache=cache, progress=False)
    seconds = (time.perf_counter() - start) / len(rows)
    for metric in Q2_METRICS:
        pairs_ = [(r[metric], y) for r, y in zip(result.rows, labels) if r[metric] is not None]
        scores, kept = [p[0] for p in pairs_], [p[1] for p in pairs_]
        print(f"  {metric:<26} ROC-AUC {roc_auc(scores, kept):.3f}  balanced accuracy "
              f"{balanced_accuracy(scores, kept):.3f}  n={len(pairs_)} unscored={len(rows) - len(pairs_)}")
        for reason, count in result.manifest["metrics"][metric]["unscored_reasons"].items():
            print(f"      unscored x{count}: {reason[:100]}")
    print(f"  ({seconds:.2f} s per row for both metrics)")


def pairs(args: argparse.Namespace, cache: Path) -> None:
    import json

    raw = [json.loads(line) for line in (args.data / "ragchecker_pairwise_correctness.jsonl").read_text().splitlines()]
    raw = raw[: args.pairs]
    prefs = [r["label"] for r in raw]
    print(f"\nRAGChecker pairs: {len(raw)} pairs, judge {args.judge}")
    floor = [word_overlap(r["reference"], [r["answer"][1]]) - word_overlap(r["reference"], [r["answer"][0]])
             for r in raw]
    print(f"  {'word-overlap floor':<26} Pearson {pearson(floor, prefs):+.3f}  Spearman {spearman(floor, prefs):+.3f}")
    rows = [{"id": f"{r['id']}-{side}", "user_input": r["question"], "response": r["answer"][side],
             "reference": r["reference"]} for r in raw for side in (0, 1)]
    start = time.perf_counter()
    result = ragmeter.evaluate(rows, PAIR_METRICS, judge=args.judge, cache=cache, progress=False)
    seconds = (time.perf_counter() - start) / len(rows)
    for metric in PAIR_METRICS:
        diffs, kept = [], []
        for i, pref in enumerate(prefs):
            a, b = result.rows[2 * i][metric], result.rows[2 * i + 1][metric]
            if a is not None and b is not None:
                diffs.append(b - a)
                kept.append(pref)
        print(f"  {metric:<26} Pearson {pearson(diffs, kept):+.3f}  Spearman {spearman(diffs, kept):+.3f}  "
              f"pairs={len(kept)}")
    print(f"  ({seconds:.2f} s per answer for the three metrics)")
    print("  RAGChecker paper, Table 2 (280 pairs): its correctness metric 0.497 / 0.470; human vs human "
          "0.637 / 0.592")


if __name__ == "__main__":
    main()
