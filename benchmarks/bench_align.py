"""`ragmeter align` measured on human labels: the run's prompt against the aligned prompt on
rows the alignment never saw.

For each seed, `--labels` rows of a shared/data/meta-eval file (balanced by label) are the
labels align learns from; the other rows are unseen. Printed per seed: the cross-validated
agreement align reports (run's prompt, aligned, the difference's interval, whether it would
write), then ROC-AUC on the unseen rows for both prompts and the paired interval of the
difference, align's seconds and judge calls. One run over every row with the run's prompt is
shared by all seeds (cached).

    python benchmarks/bench_align.py --file ../shared/data/meta-eval/q2_wow_faithfulness.jsonl \\
        --metric faithfulness [--judge llamacpp] [--labels 100] [--seeds 5] [--language spanish]
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import ragmeter
from ragmeter.meta_eval import load_labelled, roc_auc
from ragmeter.meta_eval.align import align
from ragmeter.stats import bootstrap_ci

FIELDS = ("user_input", "retrieved_contexts", "response", "reference")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", required=True)
    parser.add_argument("--metric", required=True)
    parser.add_argument("--judge", default="llamacpp")
    parser.add_argument("--labels", type=int, default=100)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--examples", type=int, default=4)
    parser.add_argument("--language", default="english")
    parser.add_argument("--order", default="disagreement", choices=("disagreement", "random"))
    parser.add_argument("--keep-builtin", action="store_true")
    parser.add_argument("--budget", type=int, default=None)
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "ragmeter" / "bench_align.sqlite"))
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_align_"))
    rows = load_labelled(args.file)
    dataset = work / "rows.jsonl"
    dataset.write_text("".join(json.dumps({"id": r["id"], **{f: r[f] for f in FIELDS if r[f] not in (None, [])}})
                               + "\n" for r in rows), encoding="utf-8")
    started = time.perf_counter()
    run = ragmeter.evaluate(dataset, [args.metric], judge=args.judge, out=work / "run", cache=args.cache,
                            language=args.language, progress=False)
    default = {r["id"]: r[args.metric] for r in run.rows}
    sha = run.manifest["dataset"]["sha256"]
    print(f"{Path(args.file).name}: {len(rows)} rows, {args.metric}, judge {args.judge}: run's prompt over every row "
          f"in {time.perf_counter() - started:.0f} s", flush=True)
    results = [one_seed(args, seed, rows, default, sha, work) for seed in range(args.first_seed,
                                                                             args.first_seed + args.seeds)]
    summarize(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


def one_seed(args: argparse.Namespace, seed: int, rows: list[dict[str, Any]], default: dict[str, Any], sha: str,
             work: Path) -> dict[str, Any]:
    labelled = balanced(rows, args.labels, seed)
    unseen = [r for r in rows if r["id"] not in labelled]
    labels = work / f"labels{seed}.jsonl"
    labels.write_text("".join(json.dumps({"id": r["id"], "metric": args.metric, "label": r["label"],
                                          "dataset_sha256": sha}) + "\n" for r in rows if r["id"] in labelled))
    out = work / f"aligned{seed}"
    found = align(work / "run", labels, args.metric, out=out, examples=args.examples, force=True, seed=seed,
                  order=args.order, keep_builtin=args.keep_builtin, budget=args.budget)
    scored = ragmeter.evaluate([{"id": r["id"], **{f: r[f] for f in FIELDS if r[f] not in (None, [])}}
                                for r in unseen], [args.metric], judge=args.judge, prompts_dir=str(out),
                               cache=args.cache, language=args.language, progress=False)
    aligned = {r["id"]: r[args.metric] for r in scored.rows}
    kept = [r for r in unseen if default.get(r["id"]) is not None and aligned.get(r["id"]) is not None]
    b, a, y = ([default[r["id"]] for r in kept], [aligned[r["id"]] for r in kept], [int(r["label"]) for r in kept])
    diff_ci = bootstrap_ci(lambda x, z, t: roc_auc(z, t) - roc_auc(x, t), [b, a, y], seed=0)
    out_row = {"seed": seed, "labels": len(labelled), "unseen": len(kept), "cv_before": found.before["roc_auc"].value,
               "cv_after": found.after["roc_auc"].value, "cv_difference_ci": found.difference.ci95,
               "would_write": found.improved, "unseen_default": roc_auc(b, y), "unseen_aligned": roc_auc(a, y),
               "unseen_difference_ci": diff_ci, "align_seconds": found.seconds, "align_calls": found.judge_calls,
               "examples": found.chosen}
    print(f"seed {seed}: cv {out_row['cv_before']:.3f} -> {out_row['cv_after']:.3f} (diff "
          f"[{diff_text(found.difference.ci95)}], {'writes' if found.improved else 'writes nothing'}) | unseen "
          f"{len(kept)} rows: {out_row['unseen_default']:.3f} -> {out_row['unseen_aligned']:.3f} (diff "
          f"[{diff_text(diff_ci)}]) | align {found.seconds:.0f} s, {found.judge_calls} calls", flush=True)
    return out_row


def balanced(rows: list[dict[str, Any]], n: int, seed: int) -> set[str]:
    """n row ids, half of each label (as far as each label has rows)."""
    rng = random.Random(seed)
    ones = [r["id"] for r in rows if int(r["label"]) == 1]
    zeros = [r["id"] for r in rows if int(r["label"]) == 0]
    rng.shuffle(ones)
    rng.shuffle(zeros)
    return set(ones[: n // 2] + zeros[: n - n // 2])


def diff_text(ci: Any) -> str:
    return "-" if ci is None else f"{ci[0]:+.3f}, {ci[1]:+.3f}"


def summarize(results: list[dict[str, Any]]) -> None:
    def mean(key: str) -> float:
        return sum(r[key] for r in results) / len(results)

    print(f"over {len(results)} seeds: unseen ROC-AUC {mean('unseen_default'):.3f} (run's prompt) -> "
          f"{mean('unseen_aligned'):.3f} (aligned); cross-validated {mean('cv_before'):.3f} -> {mean('cv_after'):.3f}; "
          f"align would write in {sum(r['would_write'] for r in results)} of {len(results)}; unseen difference "
          f"above 0 in {sum(r['unseen_difference_ci'][0] > 0 for r in results)}, below 0 in "
          f"{sum(r['unseen_difference_ci'][1] < 0 for r in results)}; align {mean('align_seconds'):.0f} s, "
          f"{mean('align_calls'):.0f} calls")


if __name__ == "__main__":
    main()
