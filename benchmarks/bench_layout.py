"""Agreement with people under each prompt layout (issue 75): the row-first layout
(prompts/row_first.py) against the templates' own, on rows shaped like a user's.

The rows are benchmarks/throughput/realistic_rows.jsonl (e2e_blind's questions and answers, five
FAISS chunks of a public document each, English and Spanish); the labels are
benchmarks/throughput/chunk_labels.jsonl, written by helpers that saw only the question and the
five chunks (never an answer, a score or the code): per chunk 2 (states part of the answer),
1 (on the subject, states none of it), 0 (unrelated), and whether the five together answer the
question. The `held` half (e2e_blind's split, fixed by a hash of the question id before any
answer existed) is what this reports by default.

Per layout: context_precision's P(useful) of each chunk against "states part of the answer"
(label 2), ROC-AUC with a 95% bootstrap interval over chunks, per language and kind of document;
and seconds per row.

    python benchmarks/bench_layout.py [--layouts instruction,row] [--split held] [--metrics context_precision]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import ragmeter
from ragmeter.meta_eval import bootstrap_ci, roc_auc

HERE = Path(__file__).resolve().parent / "throughput"
PER_CHUNK = ("context_precision", "context_precision_with_reference")


def load(split: str) -> list[dict[str, Any]]:
    """The realistic rows of `split`, each with its labels."""
    labels = {d["id"]: d for d in map(json.loads, (HERE / "chunk_labels.jsonl").read_text("utf-8").splitlines())}
    rows = [json.loads(line) for line in (HERE / "realistic_rows.jsonl").read_text("utf-8").splitlines()]
    return [{**r, "labels": labels[r["id"]]} for r in rows if split == "all" or labels[r["id"]]["split"] == split]


def chunk_probs(row: dict[str, Any], metric: str) -> list[float] | None:
    """P(useful) per chunk from a scored row's evidence (None where unscored)."""
    evidence = row.get(f"{metric}_evidence") or {}
    found = [v.get("p_useful") for v in evidence.get("verdicts", [])]
    return [float(p) for p in found] if found and None not in found else None


def auc_line(pairs: list[tuple[float, int]]) -> str:
    scores, labels = [p for p, _ in pairs], [y for _, y in pairs]
    if len(set(labels)) < 2:
        return f"n={len(pairs)} (one class)"
    lo, hi = bootstrap_ci(roc_auc, [scores, labels])
    return f"ROC-AUC {roc_auc(scores, labels):.3f} [{lo:.3f}, {hi:.3f}]  n={len(pairs)} ({sum(labels)} positive)"


def report(rows: list[dict[str, Any]], scored: dict[str, dict[str, Any]], metric: str) -> dict[str, Any]:
    """Chunk AUC overall, per language and per kind."""
    groups: dict[str, list[tuple[float, int]]] = {}
    for row in rows:
        row_scored = scored.get(row["id"])
        probs = chunk_probs(row_scored, metric) if row_scored else None
        if probs is None:
            continue
        pairs = [(p, int(label == 2)) for p, label in zip(probs, row["labels"]["chunks"])]
        for key in ("all", row["language"], f"{row['language']}/{row['kind']}"):
            groups.setdefault(key, []).extend(pairs)
    out = {}
    for key in sorted(groups, key=lambda k: (k != "all", k.count("/"), k)):
        line = auc_line(groups[key])
        print(f"    {key:32s} {line}")
        out[key] = line
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layouts", default="instruction,row")
    parser.add_argument("--split", default="held", choices=["held", "dev", "all"])
    parser.add_argument("--metrics", default="context_precision")
    parser.add_argument("--judge", default="llamacpp")
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "ragmeter" / "bench_layout.sqlite"))
    parser.add_argument("--json", type=Path, default=None, help="append the figures as JSON lines")
    args = parser.parse_args()
    metrics = args.metrics.split(",")
    every = load(args.split)
    for layout in args.layouts.split(","):
        for language in ("english", "spanish"):
            rows = [r for r in every if r["language"] == language
                    and (r.get("reference") or "context_precision_with_reference" not in metrics)]
            if not rows:
                continue
            given = [{k: v for k, v in r.items() if k != "labels"} for r in rows]
            start = time.perf_counter()
            result = ragmeter.evaluate(given, metrics, judge=args.judge, cache=args.cache,
                                       progress=False, language=language, layout=layout)
            seconds = time.perf_counter() - start
            scored = {r["id"]: r for r in result.rows}
            print(f"\n== layout {layout}, {language}, split {args.split}: {len(rows)} rows, "
                  f"{seconds / len(rows):.1f} s per row (cached replies count none)")
            for metric in [m for m in metrics if m in PER_CHUNK]:
                print(f"  {metric}: P(useful) per chunk against 'states part of the answer'")
                figures = report(rows, scored, metric)
                if args.json:
                    with args.json.open("a", encoding="utf-8") as out:
                        out.write(json.dumps({"layout": layout, "language": language, "split": args.split,
                                              "metric": metric, "s_per_row": round(seconds / len(rows), 2),
                                              "figures": figures}) + "\n")


if __name__ == "__main__":
    main()
