"""Fit the bundled judge's faithfulness Platt line of one language on real RAG answers in that
language (issue 72 item 4): the labelled answers' dev rows, judged with the shipped options and
the judge's raw probabilities (`calibrate: false`; a cached reply keeps them raw, so a run that
already judged these rows costs no call).

Only rows the verdicts decide are fitted: copies, declines, rows a literal detail settles and
rows that state nothing carry values no line changes. With `combine: min` the score of such a
row is the lowest part's probability, and a Platt line is monotone, so the line fitted on the
rows' scores is exactly the line that makes the rows' scores calibrated.

    python benchmarks/fit_calibration_answers.py --language spanish [--write] \
        [--data benchmarks/e2e_kinds/labelled.jsonl --data benchmarks/e2e_code/labelled.jsonl]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import ragmeter
from ragmeter.judges.calibration import fit
from ragmeter.prompts.template import builtin_prompt

HERE = Path(__file__).resolve().parent
DATA = [HERE / "e2e_kinds" / "labelled.jsonl", HERE / "e2e_code" / "labelled.jsonl",
        HERE / "e2e_blind" / "labelled.jsonl"]
#: evidence keys of a row that no verdict decided
DECIDED = ("copied", "declined", "no_judge_call")


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def dev_rows(paths: list[Path], language: str) -> list[dict[str, Any]]:
    """The rows of `language` that are not set aside (`split` held); a set without splits is all dev."""
    return [r for p in paths if p.exists() for r in load(p)
            if r.get("language", "english") == language and r.get("split", "dev") == "dev"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--language", default="spanish")
    parser.add_argument("--data", type=Path, action="append", help="labelled answers (default: DATA)")
    parser.add_argument("--write", action="store_true", help="write the line into calibration.json")
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "ragmeter" / "bench_e2e.sqlite"))
    args = parser.parse_args()
    rows = dev_rows(args.data or DATA, args.language)
    result = ragmeter.evaluate(rows, ["faithfulness"], judge={"spec": "llamacpp", "calibrate": False},
                               cache=args.cache, progress=False, language=args.language)
    kept = [(out["faithfulness"], row["label"]) for out, row in zip(result.rows, rows)
            if out["faithfulness"] is not None and not any(k in (out["faithfulness_evidence"] or {}) for k in DECIDED)
            and "no_claim" not in (out["faithfulness_evidence"] or {}).get("flags", [])]
    slope, intercept = fit([k[0] for k in kept], [k[1] for k in kept])
    names = sorted({str(p.parent.name) for p in (args.data or DATA) if p.exists()})
    fitted_on = (f"{len(kept)} real RAG answers in {args.language} labelled by reading ({', '.join(names)}; dev rows), "
                 "the rows the verdicts decide")
    print(f"faithfulness.verdicts@{args.language}: slope {slope:.4f}, intercept {intercept:.4f}; {fitted_on}")
    if args.write:
        path = HERE.parent / "src" / "ragmeter" / "judges" / "calibration.json"
        shipped = json.loads(path.read_text())
        key = "faithfulness.verdicts" + ("" if args.language == "english" else f"@{args.language}")
        shipped["qwen-coder-1.5b"][key] = {
            "version": builtin_prompt("faithfulness", "verdicts", args.language).version, "field": "verdict",
            "slope": round(slope, 4), "intercept": round(intercept, 4), "fitted_on": fitted_on}
        path.write_text(json.dumps(shipped, indent=1, sort_keys=True) + "\n")
        print(f"written to {path}")


if __name__ == "__main__":
    main()
