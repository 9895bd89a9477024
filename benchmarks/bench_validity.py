"""Validity of judge metrics against human labels (shared/data/meta-eval), beside the
no-model word-overlap floor on the same rows, with 95% bootstrap intervals.

- q2: Wizard of Wikipedia responses, human faithfulness labels -> faithfulness,
  llamaindex_faithfulness (ROC-AUC, balanced accuracy at 0.5).
- clapnq: does the passage answer the question (human) -> context_relevance (ROC-AUC).
- xquad: Spanish question, gold paragraph or another one of the article ->
  context_relevance with the Spanish prompts (ROC-AUC).
- pairs: RAGChecker, two answers with a human preference in [-2, 2] -> correctness,
  answer_correctness, factual_correctness score each answer; Pearson and Spearman of
  (score2 - score1) against the preference.

Each metric runs once per judge with `judgment: probability`; the same replies are then
read with `judgment: label` from the cache (the probabilities come from the same decode),
so both modes are measured on identical judge outputs.

`--fit-calibration` fits a bundled judge's Platt line (judges/calibration.py) for
faithfulness on the Q2 rows the benchmark does not report (the 80 outside its balanced
sample of 120), with the judge's raw probabilities, and writes it to
src/ragmeter/judges/calibration.json for the current prompt version;
`--calibration-language spanish` fits the Spanish prompt's line on the same rows.

    python benchmarks/bench_validity.py --judge llamacpp:qwen-coder-1.5b --tasks q2,clapnq \
        [--rows 120] [--pairs 60] [--cache PATH] [--json out.json] [--metric-opt faithfulness.statements=judge]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import ragmeter
from ragmeter.meta_eval import (
    balanced_accuracy,
    balanced_sample,
    bootstrap_ci,
    load_labelled,
    pearson,
    roc_auc,
    spearman,
    word_overlap,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "meta-eval"
TASKS = {
    "q2": ("q2_wow_faithfulness.jsonl", ["faithfulness", "llamaindex_faithfulness"], "english"),
    "clapnq": ("clapnq_answerability.jsonl", ["context_relevance"], "english"),
    "xquad": ("xquad_es_context_relevance.jsonl", ["context_relevance"], "spanish"),
}
PAIR_METRICS = ["correctness", "answer_correctness", "factual_correctness"]
MODES = ("probability", "label")


def judge_of(args: argparse.Namespace) -> Any:
    """--judge with its --judge-opt settings (a spec string when there are none)."""
    if not args.judge_opt:
        return args.judge
    return {"spec": args.judge, **{k: v for k, _, v in (o.partition("=") for o in args.judge_opt)}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", default="llamacpp")
    parser.add_argument("--tasks", default="q2,clapnq,xquad,pairs")
    parser.add_argument("--rows", type=int, default=120, help="balanced rows per labelled file")
    parser.add_argument("--pairs", type=int, default=60)
    parser.add_argument("--pair-metrics", default=",".join(PAIR_METRICS))
    parser.add_argument("--only", default=None, help="only these metrics of a labelled task (comma-separated)")
    parser.add_argument("--metric-opt", action="append", default=[], help="metric.setting=value")
    parser.add_argument("--judge-opt", action="append", default=[],
                        help="judge setting KEY=VALUE, e.g. verdicts=decode (the JSON-decoding path, for comparison)")
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "ragmeter" / "bench_validity.sqlite"))
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", type=Path, default=None, help="append the figures as JSON lines")
    parser.add_argument("--layout", default="instruction", choices=["instruction", "row", "auto"],
                        help="where context-reading prompts put the row (prompts/row_first.py)")
    parser.add_argument("--prompts-dir", default=None, help="edited prompt files (a try measured against the shipped)")
    parser.add_argument("--fit-calibration", action="store_true", help="fit the judge's faithfulness Platt line")
    parser.add_argument("--calibration-language", default="english",
                        help="the built-in prompt language the line is fitted for (spanish: the Spanish prompt)")
    args = parser.parse_args()
    if args.fit_calibration:
        fit_calibration(args)
        return
    for task in args.tasks.split(","):
        figures = pairs(args) if task == "pairs" else labelled(args, task)
        if args.json:
            with args.json.open("a") as handle:
                handle.write(json.dumps({"judge": args.judge, "task": task, "opts": args.metric_opt,
                                         **figures}) + "\n")


def fit_calibration(args: argparse.Namespace) -> None:
    """Platt line for faithfulness.verdicts on Q2's rows outside the reported sample."""
    from ragmeter.judges.bundled import BUNDLED, DEFAULT_BUNDLED
    from ragmeter.judges.calibration import fit
    from ragmeter.prompts.template import builtin_prompt

    model = args.judge.partition(":")[2] or DEFAULT_BUNDLED
    if not args.judge.startswith("llamacpp") or model not in BUNDLED:
        raise SystemExit("--fit-calibration is for the bundled judges (llamacpp, llamacpp:NAME)")
    rows = load_labelled(args.data / TASKS["q2"][0])
    reported = {r["id"] for r in balanced_sample(rows, args.rows)}
    held = [r for r in rows if r["id"] not in reported]
    language = args.calibration_language
    result = ragmeter.evaluate(held, metric_specs(["faithfulness"], args.metric_opt, "probability"),
                               judge={"spec": args.judge, "calibrate": False}, cache=args.cache, progress=False,
                               language=language)
    kept = [(row["faithfulness"], r["label"]) for row, r in zip(result.rows, held) if row["faithfulness"] is not None]
    slope, intercept = fit([k[0] for k in kept], [k[1] for k in kept])
    path = Path(__file__).resolve().parents[1] / "src" / "ragmeter" / "judges" / "calibration.json"
    shipped = json.loads(path.read_text())
    key = "faithfulness.verdicts" + ("" if language == "english" else f"@{language}")
    shipped.setdefault(model, {})[key] = {
        "version": builtin_prompt("faithfulness", "verdicts", language).version, "field": "verdict",
        "slope": round(slope, 4), "intercept": round(intercept, 4),
        "fitted_on": f"Q2 faithfulness, {len(kept)} human-labelled rows outside bench_validity's sample"
                     + ("" if language == "english" else f", judged with the {language} prompt")}
    path.write_text(json.dumps(shipped, indent=1, sort_keys=True) + "\n")
    print(f"{model} {key}: slope {slope:.4f}, intercept {intercept:.4f} on {len(kept)} rows "
          f"-> {path}")


def metric_specs(names: list[str], opts: list[str], judgment: str) -> list[Any]:
    settings: dict[str, dict[str, Any]] = {n: {"judgment": judgment} for n in names}
    for opt in opts:
        key, _, value = opt.partition("=")
        metric, _, setting = key.partition(".")
        if metric in settings:  # faithfulness.copies.mode=off: the options model groups dotted keys
            settings[metric][setting] = value
    return [{n: s} for n, s in settings.items()]


def run_modes(rows: list[dict], names: list[str], args: argparse.Namespace, language: str) -> tuple[dict, float]:
    """Scores per mode and metric; the probability run calls the judge, the label run reads the cache."""
    out: dict[str, dict[str, list]] = {}
    seconds = 0.0
    for mode in MODES:
        start = time.perf_counter()
        result = ragmeter.evaluate(rows, metric_specs(names, args.metric_opt, mode), judge=judge_of(args),
                                   cache=args.cache, progress=False, language=language, prompts_dir=args.prompts_dir,
                                   layout=args.layout)
        if mode == "probability":
            seconds = time.perf_counter() - start
        out[mode] = {n: [r[n] for r in result.rows] for n in names}
        out[mode]["_reasons"] = {n: result.manifest["metrics"][n]["unscored_reasons"] for n in names}
    return out, seconds


def labelled(args: argparse.Namespace, task: str) -> dict[str, Any]:
    filename, names, language = TASKS[task]
    names = [n for n in names if not args.only or n in args.only.split(",")]
    rows = balanced_sample(load_labelled(args.data / filename), args.rows)
    labels = [r["label"] for r in rows]
    floor = [word_overlap(r["response"] or r["user_input"], r["retrieved_contexts"]) for r in rows]
    print(f"\n{task}: {len(rows)} rows ({sum(labels)} positive), judge {args.judge} {args.metric_opt or ''}")
    figures: dict[str, Any] = {"rows": len(rows), "floor": auc_line("word-overlap floor", floor, labels)}
    scores, seconds = run_modes(rows, names, args, language)
    for name in names:
        for mode in MODES:
            kept = [(s, y) for s, y in zip(scores[mode][name], labels) if s is not None]
            line = auc_line(f"{name} ({mode})", [k[0] for k in kept], [k[1] for k in kept], len(rows) - len(kept))
            figures[f"{name}/{mode}"] = line
        for reason, count in scores["probability"]["_reasons"][name].items():
            print(f"      unscored x{count}: {reason[:100]}")
    figures["seconds_per_row"] = round(seconds / len(rows), 2)
    print(f"  ({figures['seconds_per_row']:.2f} s per row for {', '.join(names)})")
    return figures


def auc_line(title: str, scores: list[float], labels: list[int], unscored: int = 0) -> dict[str, Any]:
    auc = roc_auc(scores, labels)
    lo, hi = bootstrap_ci(roc_auc, [scores, labels])
    bacc = balanced_accuracy(scores, labels)
    print(f"  {title:<42} ROC-AUC {auc:.3f} [{lo:.3f}, {hi:.3f}]  balanced acc. {bacc:.3f}  "
          f"n={len(scores)} unscored={unscored}")
    return {"auc": round(auc, 4), "ci": [round(lo, 4), round(hi, 4)], "balanced_accuracy": round(bacc, 4),
            "n": len(scores), "unscored": unscored}


def pairs(args: argparse.Namespace) -> dict[str, Any]:
    raw = [json.loads(line) for line in (args.data / "ragchecker_pairwise_correctness.jsonl").read_text().splitlines()]
    raw = raw[: args.pairs]
    prefs = [r["label"] for r in raw]
    names = args.pair_metrics.split(",")
    print(f"\nRAGChecker pairs: {len(raw)} pairs, judge {args.judge}")
    floor = [word_overlap(r["reference"], [r["answer"][1]]) - word_overlap(r["reference"], [r["answer"][0]])
             for r in raw]
    figures: dict[str, Any] = {"pairs": len(raw), "floor": corr_line("word-overlap floor", floor, prefs)}
    rows = [{"id": f"{r['id']}-{side}", "user_input": r["question"], "response": r["answer"][side],
             "reference": r["reference"]} for r in raw for side in (0, 1)]
    scores, seconds = run_modes(rows, names, args, "english")
    for name in names:
        for mode in MODES:
            col = scores[mode][name]
            kept = [(col[2 * i + 1] - col[2 * i], p) for i, p in enumerate(prefs)
                    if col[2 * i] is not None and col[2 * i + 1] is not None]
            figures[f"{name}/{mode}"] = corr_line(f"{name} ({mode})", [k[0] for k in kept], [k[1] for k in kept])
    figures["seconds_per_answer"] = round(seconds / len(rows), 2)
    print(f"  ({figures['seconds_per_answer']:.2f} s per answer for {', '.join(names)})")
    print("  RAGChecker paper, Table 2 (280 pairs): its correctness metric 0.497 / 0.470; human vs human "
          "0.637 / 0.592")
    return figures


def corr_line(title: str, diffs: list[float], prefs: list[float]) -> dict[str, Any]:
    r, rho = pearson(diffs, prefs), spearman(diffs, prefs)
    lo, hi = bootstrap_ci(spearman, [diffs, prefs])
    print(f"  {title:<42} Pearson {r:+.3f}  Spearman {rho:+.3f} [{lo:+.3f}, {hi:+.3f}]  pairs={len(diffs)}")
    return {"pearson": round(r, 4), "spearman": round(rho, 4), "spearman_ci": [round(lo, 4), round(hi, 4)],
            "pairs": len(diffs)}


if __name__ == "__main__":
    main()
