"""Validity of Spanish prompts: context_relevance on XQuAD-es (Spanish questions and
paragraphs; label 1 = the gold paragraph, 0 = another paragraph of the same article)
with the built-in Spanish prompts and with the English ones, on the same judge, beside
the no-model word-overlap floor (the data README reports 0.94 ROC-AUC for it).

    python benchmarks/bench_prompt_language.py [--rows N] [--judge SPEC]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import ragmeter
from ragmeter.meta_eval import balanced_accuracy, load_labelled, roc_auc, word_overlap

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "meta-eval" / "xquad_es_context_relevance.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--judge", default="llamacpp")
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    rows = load_labelled(args.data, args.rows)
    labels = [r["label"] for r in rows]
    print(f"{args.data.name}: {len(rows)} rows, {sum(labels)} positive; judge {args.judge}")
    floor = [word_overlap(r["user_input"], r["retrieved_contexts"]) for r in rows]
    print(f"{'word-overlap floor':<22} ROC-AUC {roc_auc(floor, labels):.3f}  (no model)")
    with tempfile.TemporaryDirectory() as tmp:
        for language in ("spanish", "english"):
            start = time.perf_counter()
            result = ragmeter.evaluate(rows, ["context_relevance"], judge=args.judge, language=language,
                                       cache=Path(tmp) / "c.sqlite", progress=False)
            report(language, result.rows, labels, time.perf_counter() - start)


def report(language: str, rows: list[dict], labels: list[int], seconds: float) -> None:
    pairs = [(r["context_relevance"], y) for r, y in zip(rows, labels) if r["context_relevance"] is not None]
    scores, kept = [p[0] for p in pairs], [p[1] for p in pairs]
    print(f"{language + ' prompts':<22} ROC-AUC {roc_auc(scores, kept):.3f}  balanced accuracy "
          f"{balanced_accuracy(scores, kept):.3f}  n={len(pairs)} unscored={len(rows) - len(pairs)}  "
          f"mean score {sum(scores) / len(scores):.3f}  {seconds / len(rows):.2f} s/row")


if __name__ == "__main__":
    main()
