"""Faithfulness as a user meets it: answers of the baseline RAG over documents nobody in the
project wrote, each labelled faithful or not by reading it (benchmarks/e2e/README.md).

Prints, for the default judge (or --judge), per language (rows carry `language`; each
language is judged with its own built-in prompts): ROC-AUC of the score against the labels
with a 95% bootstrap interval, the mean score beside the labelled rate (overall and per RAG
configuration), the share of faithful answers that pass (score >= 0.5) and of unfaithful
ones that fail, and what `ragmeter calibrate` says from 40 of the labels (seeded): its
prediction-powered interval for the human rate, and whether it covers the rate of the other
labelled rows. Then seconds, judge calls and prompt tokens per row.

    python benchmarks/bench_e2e.py [--judge llamacpp] [--labels 40] [--seed 0] \
        [--metric-opt faithfulness.short_answers=alone] [--cache PATH]
    python benchmarks/bench_e2e.py --data benchmarks/e2e_code/labelled.jsonl   # code, markup, Spanish
    python benchmarks/bench_e2e.py --data benchmarks/e2e_kinds/labelled.jsonl --by kind --split held
        # API reference, specifications, FAQs, a tutorial; per kind of document, the held-out part
    python benchmarks/bench_e2e.py --data benchmarks/e2e_blind/labelled.jsonl --by kind --split held \
        [--without borderline]   # leaflets, a product manual, abstracts, labelled blind (issue 72)
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

import ragmeter
from ragmeter.labels.calibrate import calibrate_metric
from ragmeter.meta_eval import balanced_accuracy, bootstrap_ci, roc_auc

HERE = Path(__file__).resolve().parent / "e2e"


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def options(opts: list[str]) -> dict[str, Any]:
    """faithfulness.KEY=VALUE, or faithfulness.STEP.KEY=VALUE for a step's option (its options
    model groups dotted keys)."""
    settings: dict[str, Any] = {}
    for opt in opts:
        key, _, value = opt.partition("=")
        settings[key.partition(".")[2]] = value
    return settings


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", default="llamacpp")
    parser.add_argument("--data", type=Path, default=HERE / "labelled.jsonl")
    parser.add_argument("--labels", type=int, default=40, help="labels `calibrate` is given")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--metric-opt", action="append", default=[], help="faithfulness.KEY=VALUE")
    parser.add_argument("--by", default="", help="row fields to report by as well, comma-separated (kind,split,config)")
    parser.add_argument("--split", default="all", help="only rows whose `split` is this (dev, held)")
    parser.add_argument("--without", default="", help="leave out rows where this field is true (borderline)")
    parser.add_argument("--dump", type=Path, help="write each row's score and evidence here (JSON lines)")
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "ragmeter" / "bench_e2e.sqlite"))
    args = parser.parse_args()
    every = [r for r in load(args.data) if (args.split == "all" or r.get("split") == args.split)
             and not (args.without and r.get(args.without))]
    for language in sorted({r.get("language", "english") for r in every}):
        rows = [r for r in every if r.get("language", "english") == language]
        start = time.perf_counter()
        result = ragmeter.evaluate(rows, [{"faithfulness": options(args.metric_opt)}], judge=args.judge,
                                   cache=args.cache, progress=False, language=language)
        seconds = time.perf_counter() - start
        stats = result.manifest["metrics"]["faithfulness"]
        scores = {r["id"]: r["faithfulness"] for r in result.rows}
        if args.dump:
            with args.dump.open("a", encoding="utf-8") as out:
                for r in result.rows:
                    out.write(json.dumps({k: r.get(k) for k in ("id", "faithfulness", "faithfulness_reason",
                                                                "faithfulness_evidence")}, ensure_ascii=False) + "\n")
        labels = {r["id"]: r["label"] for r in rows}
        print(f"\n== {language}")
        report(rows, scores, labels)
        for field in [f for f in args.by.split(",") if f]:
            for value in sorted({str(r.get(field, "")) for r in rows}):
                group = [r for r in rows if str(r.get(field, "")) == value]
                print(f"\n  -- {field} {value}", end="")
                report(group, scores, {r["id"]: labels[r["id"]] for r in group})
        covered(scores, labels, args.labels, args.seed)
        print(f"  {seconds / len(rows):.2f} s per row, {stats['judge_calls'] / len(rows):.2f} judge calls per row "
              f"({stats['cache_hits']} cached), {stats['prompt_tokens'] / len(rows):.0f} prompt and "
              f"{stats['completion_tokens'] / len(rows):.0f} completion tokens per row (cached replies count none), "
              f"judge {args.judge} {args.metric_opt or ''}")


def report(rows: list[dict[str, Any]], scores: dict[str, float | None], labels: dict[str, int]) -> None:
    kept = [(scores[i], y) for i, y in labels.items() if scores[i] is not None]
    s, y = [k[0] for k in kept], [k[1] for k in kept]
    lo, hi = bootstrap_ci(roc_auc, [s, y])
    print(f"\n{len(rows)} labelled answers ({sum(y)} faithful), {len(rows) - len(kept)} unscored")
    print(f"  ROC-AUC {roc_auc(s, y):.3f} [{lo:.3f}, {hi:.3f}]  balanced acc. {balanced_accuracy(s, y):.3f}")
    print(f"  mean score {sum(s) / len(s):.3f}  labelled rate {sum(y) / len(y):.3f}  "
          f"(difference {sum(s) / len(s) - sum(y) / len(y):+.3f})")
    passed = [x >= 0.5 for x, label in kept if label == 1]
    failed = [x < 0.5 for x, label in kept if label == 0]
    print(f"  faithful answers pass {sum(passed)}/{len(passed)} ({sum(passed) / max(1, len(passed)):.2f}), "
          f"unfaithful answers fail {sum(failed)}/{len(failed)} ({sum(failed) / max(1, len(failed)):.2f})")
    for config in sorted({r.get("config", "") for r in rows}):
        ids = [r["id"] for r in rows if r.get("config", "") == config and scores[r["id"]] is not None]
        mean = sum(scores[i] for i in ids) / len(ids)  # type: ignore[misc]
        rate = sum(labels[i] for i in ids) / len(ids)
        print(f"    {config or '(all)':<12} n={len(ids):<3} mean score {mean:.3f}  labelled rate {rate:.3f}")


def covered(scores: dict[str, float | None], labels: dict[str, int], n: int, seed: int) -> None:
    """`calibrate` from `n` labels: does its interval cover the rate of the other labelled rows?"""
    ids = sorted(i for i in labels if scores[i] is not None)
    given = set(random.Random(seed).sample(ids, min(n, len(ids))))
    out = calibrate_metric("faithfulness", scores, {i: float(labels[i]) for i in given})
    rest = [labels[i] for i in ids if i not in given]
    rate = sum(rest) / len(rest) if rest else float("nan")
    if out.ci95 is None:
        print(f"  calibrate on {len(given)} labels: {out.note}")
        return
    lo, hi = out.ci95
    print(f"  calibrate on {len(given)} labels: estimate {out.estimate:.3f} [{lo:.3f}, {hi:.3f}]; the other "
          f"{len(rest)} rows' labelled rate {rate:.3f} {'covered' if lo <= rate <= hi else 'NOT covered'}; "
          f"labels alone [{out.labels_ci95[0]:.3f}, {out.labels_ci95[1]:.3f}]")  # type: ignore[index]


if __name__ == "__main__":
    main()
