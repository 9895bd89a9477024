"""Prediction-powered estimates on human labels: does the calibrated interval cover what
people said, and how much narrower is it than the labels' own?

For each labelled dev file (Q2 faithfulness, ClapNQ answerability read by context_relevance,
XQuAD-es context relevance) every row is scored by the judge once (cached); then, for each
seed, a random `--labelled` rows play the human labels and the rest the unlabelled rows. Per
file: how often the 95% interval covers what people said about the whole file (the number a
user wants: the human rate over the run's rows) and about the unlabelled rows alone (a
stricter target: it adds those rows' own sampling noise, which no interval built from the
labelled rows accounts for), the mean width against the labels-only interval, and the
judge's raw mean against the truth.

    python benchmarks/bench_labels.py [--judge llamacpp] [--seeds 20] [--labelled 100] [--cache PATH]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import ragmeter
from ragmeter.labels.calibrate import calibrate_metric
from ragmeter.meta_eval import load_labelled

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "meta-eval"
TASKS = {
    "q2": ("q2_wow_faithfulness.jsonl", "faithfulness", "english"),
    "clapnq": ("clapnq_answerability.jsonl", "context_relevance", "english"),
    "xquad": ("xquad_es_context_relevance.jsonl", "context_relevance", "spanish"),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", default="llamacpp")
    parser.add_argument("--tasks", default="q2,clapnq,xquad")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--labelled", type=int, default=100, help="rows treated as labelled (at most half a file)")
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "ragmeter" / "bench_validity.sqlite"))
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", type=Path, default=None, help="append the figures as JSON lines")
    args = parser.parse_args()
    for task in args.tasks.split(","):
        figures = measure(task, args)
        if args.json:
            with args.json.open("a", encoding="utf-8") as out:
                out.write(json.dumps({"task": task, "judge": args.judge, **figures}) + "\n")


def measure(task: str, args: argparse.Namespace) -> dict:
    filename, metric, language = TASKS[task]
    rows = load_labelled(args.data / filename)
    start = time.perf_counter()
    result = ragmeter.evaluate(rows, [metric], judge=args.judge, cache=args.cache, progress=False, language=language)
    seconds = time.perf_counter() - start
    scores = {r["id"]: out[metric] for r, out in zip(rows, result.rows)}
    truth = {r["id"]: float(r["label"]) for r in rows}
    labelled = min(args.labelled, len(rows) // 2)
    covered = covered_rest = 0
    widths, alone, errors, judge_errors = [], [], [], []
    for seed in range(args.seeds):
        ids = sorted(truth)
        random.Random(seed).shuffle(ids)
        picked, rest = set(ids[:labelled]), ids[labelled:]
        people = sum(truth.values()) / len(truth)  # what people said about every row of the file
        people_rest = sum(truth[i] for i in rest) / len(rest)
        c = calibrate_metric(metric, scores, {i: truth[i] for i in picked})
        assert c.ci95 is not None and c.labels_ci95 is not None and c.estimate is not None
        covered += c.ci95[0] <= people <= c.ci95[1]
        covered_rest += c.ci95[0] <= people_rest <= c.ci95[1]
        widths.append(c.ci95[1] - c.ci95[0])
        alone.append(c.labels_ci95[1] - c.labels_ci95[0])
        errors.append(abs(c.estimate - people))
        judge_errors.append(abs(c.judge_mean - people))
    figures = {"rows": len(rows), "labelled": labelled, "seeds": args.seeds, "coverage": covered / args.seeds,
               "coverage_unlabelled": covered_rest / args.seeds, "people": round(sum(truth.values()) / len(truth), 4),
               "width": round(sum(widths) / len(widths), 4), "labels_only_width": round(sum(alone) / len(alone), 4),
               "estimate_error": round(sum(errors) / len(errors), 4),
               "judge_mean_error": round(sum(judge_errors) / len(judge_errors), 4),
               "judge_seconds": round(seconds, 1)}
    print(f"{task} ({metric}, {len(rows)} rows, {labelled} labelled, {args.seeds} seeds): coverage "
          f"{figures['coverage']:.2f} (of the unlabelled rows' rate {figures['coverage_unlabelled']:.2f}); "
          f"width {figures['width']:.3f} vs labels alone "
          f"{figures['labels_only_width']:.3f}; |estimate - people| {figures['estimate_error']:.3f} vs the "
          f"judge's mean {figures['judge_mean_error']:.3f}; judge {seconds:.0f} s")
    return figures


if __name__ == "__main__":
    main()
