"""The `abstention` metrics against people, per language (issue 51 part 3).

Three measurements, each printed per language with its floor:
1. **answerability** (do the contexts hold an answer?): P(answerable) on ClapNQ's human
   answerability labels (English, 200 rows) and XQuAD-es (Spanish, 96: the question's own
   paragraph or another of the same article). ROC-AUC against the word-overlap floor.
2. **declines** (does the answer decline?): P(declines) on answers a reader model wrote
   for ClapNQ and XQuAD rows (benchmarks/abstention/answers.jsonl), labelled by reading
   before any score (labels.jsonl). ROC-AUC and balanced accuracy against a phrase list
   (the English refusal phrases tools match; the floor).
3. **rates**: the judge's correct_abstention, false_confidence and over_refusal over those
   answers beside the rates from the labels (people's decline labels x the datasets'
   answerability), and agreement on each row's outcome (Cohen's kappa, 4 outcomes).

    python benchmarks/bench_abstention.py [--judge llamacpp] [--parts answerability,declines]
        [--cache PATH] [--metric-opt answerability=likelihood] [--prompts-dir DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path
from typing import Any

import ragmeter
from ragmeter.meta_eval import balanced_accuracy, bootstrap_ci, cohen_kappa, load_labelled, roc_auc, word_overlap

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data" / "meta-eval"
ANSWERABILITY = {"english": "clapnq_answerability.jsonl", "spanish": "xquad_es_context_relevance.jsonl"}
RATES = ["abstention", "correct_abstention", "false_confidence", "over_refusal"]
#: the floor: refusal phrases as evaluation tools match them (English only, as they ship)
PHRASES = re.compile(r"\b(i don'?t know|i do not know|cannot answer|can'?t answer|unable to (answer|find|provide)|"
                     r"not (mentioned|provided|specified|stated|found|available)|does not (provide|contain|mention|"
                     r"answer|say|specify)|do not (provide|contain|mention|answer|say|specify)|no information|"
                     r"not enough information|i'?m sorry)\b", re.I)


def evaluate(rows: list[dict[str, Any]], args: argparse.Namespace, language: str) -> list[dict[str, Any]]:
    options = dict(o.split("=", 1) for o in args.metric_opt)
    specs = [{m: options} if options else m for m in RATES]
    result = ragmeter.evaluate(rows, specs, judge=args.judge, cache=args.cache, progress=False, language=language,
                               prompts_dir=args.prompts_dir)
    return result.rows


def answerability(args: argparse.Namespace) -> dict[str, Any]:
    out = {}
    for language, name in ANSWERABILITY.items():
        labelled = load_labelled(DATA / name)
        rows = [{"id": r["id"], "user_input": r["user_input"], "retrieved_contexts": r["retrieved_contexts"],
                 "response": "It is not stated."} for r in labelled]
        started = time.perf_counter()
        scored = evaluate(rows, args, language)
        probs = [r["abstention_evidence"].get("answerable") for r in scored]
        labels = [int(r["label"]) for r in labelled]
        kept = [(p, y) for p, y in zip(probs, labels) if p is not None]
        floor = [word_overlap(r["user_input"], r["retrieved_contexts"]) for r in labelled]
        out[language] = {"rows": len(kept), "roc_auc": round(roc_auc(*zip(*kept)), 3),
                         "roc_auc_ci95": _ci(*zip(*kept)),
                         "balanced_accuracy": round(balanced_accuracy(*zip(*kept)), 3),
                         "floor_word_overlap_auc": round(roc_auc(floor, labels), 3),
                         "seconds": round(time.perf_counter() - started, 1)}
    return out


def answers() -> list[dict[str, Any]]:
    labels = {json.loads(line)["id"]: json.loads(line)["declined"]
              for line in (HERE / "abstention" / "labels.jsonl").read_text().splitlines() if line.strip()}
    rows = [json.loads(line) for line in (HERE / "abstention" / "answers.jsonl").read_text().splitlines()
            if line.strip()]
    return [{**r, "declined": labels[r["id"]]} for r in rows if r["id"] in labels]


def outcome(declined: int, answerable: int) -> str:
    return {(1, 0): "correct abstention", (0, 0): "false confidence", (1, 1): "over-refusal",
            (0, 1): "answered"}[(declined, answerable)]


def declines(args: argparse.Namespace) -> dict[str, Any]:
    out = {}
    everything = answers()
    for language in ANSWERABILITY:
        labelled = [r for r in everything if r["lang"] == language]
        rows = [{"id": r["id"], "user_input": r["question"], "response": r["response"],
                 "retrieved_contexts": r["retrieved_contexts"]} for r in labelled]
        scored = evaluate(rows, args, language)
        people = [r["declined"] for r in labelled]
        probs = [r["abstention_evidence"]["declined"] for r in scored]
        phrase = [int(bool(PHRASES.search(r["response"]))) for r in labelled]
        judged = [outcome(int(r["abstention_evidence"]["declined"] >= 0.5),
                          int(r["abstention_evidence"]["answerable"] >= 0.5)) for r in scored]
        truth = [outcome(r["declined"], r["answerable"]) for r in labelled]
        n = len(labelled)
        out[language] = {
            "answers": n, "declined_by_people": sum(people),
            "declines_roc_auc": round(roc_auc(probs, people), 3), "declines_roc_auc_ci95": _ci(probs, people),
            "declines_balanced_accuracy": round(balanced_accuracy(probs, people), 3),
            "phrase_list_roc_auc": round(roc_auc(phrase, people), 3),
            "phrase_list_balanced_accuracy": round(balanced_accuracy(phrase, people), 3),
            "outcome_kappa": round(cohen_kappa(judged, truth), 3),
            "outcome_agreement": round(sum(a == b for a, b in zip(judged, truth)) / n, 3),
            "rates_judge": {m: round(sum(r[m] for r in scored) / n, 3) for m in RATES},
            "rates_people": {m: round(sum(_counts(m, t) for t in truth) / n, 3) for m in RATES},
            "missed": [r["id"] for r, p, y in zip(labelled, probs, people) if (p >= 0.5) != bool(y)],
        }
    return out


def _ci(scores: Any, labels: Any) -> list[float]:
    low, high = bootstrap_ci(roc_auc, [list(scores), [float(y) for y in labels]])
    return [round(low, 3), round(high, 3)]


def _counts(metric: str, truth: str) -> int:
    members = {"abstention": ("correct abstention", "answered"), "correct_abstention": ("correct abstention",),
               "false_confidence": ("false confidence",), "over_refusal": ("over-refusal",)}
    return int(truth in members[metric])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", default="llamacpp")
    parser.add_argument("--parts", default="answerability,declines")
    parser.add_argument("--cache", default=str(HERE / ".bench_abstention.sqlite"))
    parser.add_argument("--metric-opt", action="append", default=[], help="a setting of the four metrics, KEY=VALUE")
    parser.add_argument("--prompts-dir", default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    report: dict[str, Any] = {"judge": args.judge, "options": args.metric_opt, "prompts_dir": args.prompts_dir}
    parts = args.parts.split(",")
    if "declines" in parts:
        report["declines"] = declines(args)
        print(json.dumps(report["declines"], indent=1))
    if "answerability" in parts:
        report["answerability"] = answerability(args)
        print(json.dumps(report["answerability"], indent=1))
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
