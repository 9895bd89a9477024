"""Does `ragmeter testset` keep the questions a reader keeps? Measured on generated questions
labelled keep/drop by reading (benchmarks/testset_labels/, labelled before any score was seen)
and on XQuAD-es answerability (a question and its answer against the gold paragraph or another
paragraph of the same article).

For each labelled question: the no-model checks (an answer restating its question, a question
pointing at its source, the prompt's example copied), then each critique as `ragmeter testset`
runs it (standalone, relevance, groundedness), its ROC-AUC against the label, and the keep
rule's precision (kept questions a reader keeps) and recall (questions a reader keeps that are
kept), per language. `--variants` adds what was measured against the defaults: the
rationale-first standalone and relevance prompts, groundedness from the question alone (the
context_relevance 0/1/2 rating) and from the answer alone.

    python benchmarks/bench_testset_labels.py [--variants] [--xquad 96] [--judge SPEC]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LABELLED = ROOT / "benchmarks" / "testset_labels" / "labelled.jsonl"
#: issue 62: questions from an API reference, two PEPs and Spanish tutorial pages, two generators
NEW = ROOT / "benchmarks" / "testset_labels" / "new" / "labelled.jsonl"
XQUAD = ROOT.parent / "shared" / "data" / "meta-eval" / "xquad_es_context_relevance.jsonl"
AUDIENCE = "developers building applications with the documented software"
RATIONALE = {"english": "Give your rationale first, then the rating.",
             "spanish": "Da primero tu justificación y después la puntuación."}
RATING_ONLY = {"english": "Answer with the rating only.", "spanish": "Responde solo con la puntuación."}


def no_model_check(row: dict[str, Any]) -> str | None:
    """The pipeline's checks before any critique: what rejects the question, or None. The
    subject check reads the row's document (docs/ or new/), as `ragmeter testset` does."""
    from ragmeter.prompts.template import builtin_prompt
    from ragmeter.reading.questions import (
        from_example,
        language_mismatch,
        names_subject,
        points_at_source,
        restates_question,
    )

    lang = row["language"]
    if restates_question(row["question"], row["answer"], lang):
        return "restates question"
    if points_at_source(row["question"], lang):
        return "standalone"
    subjects, chunk = _subject_of(row)
    if not names_subject(row["question"], subjects.words(chunk), subjects.held(chunk.source), lang):
        return "names no subject"
    if language_mismatch(row["question"], lang):
        return "language"
    if from_example(row["question"], [row["chunk"]], builtin_prompt("testset", "factoid", lang)):
        return "copied example"
    return None


def _subject_of(row: dict[str, Any]) -> tuple[Any, Any]:
    """The Subjects of the row's document and the row's chunk placed in it."""
    from ragmeter.testset.chunking import Chunk
    from ragmeter.testset.documents import Document
    from ragmeter.testset.subjects import Subjects

    code = "en" if row["language"] == "english" else "es"
    folder = "new" if "variant" in row else "docs"
    path = ROOT / "benchmarks" / "testset_labels" / folder / code / row["source"]
    text = path.read_text(encoding="utf-8")
    start = max(text.find(row["chunk"][:200]), 0)
    return Subjects([Document(row["source"], text)], row["language"]), Chunk("c", row["source"], start, row["chunk"])


async def score(rows: list[dict[str, Any]], judge_spec: str, variants: bool) -> tuple[list[dict], dict[str, float]]:
    from ragmeter.cache import open_cache
    from ragmeter.judges.session import JudgeSession
    from ragmeter.judges.spec import make_judge
    from ragmeter.testset.generation import Judging, critique

    judge, cache = make_judge(judge_spec), open_cache(True)
    seconds: dict[str, float] = {}
    out = []
    try:
        for row in rows:
            judging = Judging(JudgeSession(judge, cache), row["language"], {})
            q, a, c = row["question"], row["answer"], row["chunk"]
            scores: dict[str, Any] = {"id": row["id"], "check": no_model_check(row)}
            asks = {"standalone": (judging, "standalone", q, c, AUDIENCE),
                    "relevance": (judging, "relevance", q, c, AUDIENCE),
                    "groundedness": (judging, "groundedness", q, c, AUDIENCE, "answer", a)}
            if variants:
                old = _rationale_first(row["language"], judge, cache)
                asks.update({"standalone_rationale": (old, "standalone", q, c, AUDIENCE),
                             "relevance_rationale": (old, "relevance", q, c, AUDIENCE),
                             "groundedness_question": (judging, "groundedness", q, c, AUDIENCE, "rating"),
                             "groundedness_answer_alone": (judging, "groundedness", "", c, AUDIENCE, "answer", a)})
            for name, args in asks.items():
                started = time.perf_counter()
                scores[name] = await critique(*args)
                seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - started
            out.append(scores)
    finally:
        cache.close()
        await judge.aclose()
    return out, seconds


def _rationale_first(language: str, judge: Any, cache: Any) -> Any:
    """A Judging whose standalone and relevance prompts ask for the rationale first (the
    shipped prompts before issue 49), replied as the seed's {evaluation, rating}."""
    from ragmeter.judges.session import JudgeSession
    from ragmeter.prompts.template import builtin_prompt
    from ragmeter.testset.generation import Critique, Judging

    class Old(Judging):
        def prompt(self, name: str, family: str = "testset") -> Any:
            p = builtin_prompt(family, name, self.language)
            if family == "testset" and name in ("standalone", "relevance"):
                return p.model_copy(update={"instruction": p.instruction.replace(RATING_ONLY[language],
                                                                                 RATIONALE[language])})
            return p

        async def ask(self, stage: str, name: str, inputs: dict[str, Any], output: Any, max_tokens: int,
                      family: str = "testset") -> Any:
            if family == "testset" and name in ("standalone", "relevance"):
                output, max_tokens = Critique, 200
            return await super().ask(stage, name, inputs, output, max_tokens, family)

    return Old(JudgeSession(judge, cache), language, {})


def kept(scores: dict[str, Any], keep_on: str, min_score: int) -> bool:
    from ragmeter.testset.pipeline import ORDER, passes

    return scores["check"] is None and all(passes("factoid", c, scores[c], min_score, keep_on) for c in ORDER)


def _group(row: dict[str, Any]) -> str:
    """language, and for the questions of issue 62 the generator and the kind of document."""
    if "variant" not in row:
        return f"{row['language']} (issue 49: READMEs, man pages)"
    return f"{row['language']} {row['variant']} ({row['kind']})"


def report(rows: list[dict[str, Any]], scored: list[dict[str, Any]], seconds: dict[str, float]) -> dict[str, Any]:
    from ragmeter.meta_eval import roc_auc

    labels = {r["id"]: r for r in rows}
    summary: dict[str, Any] = {}
    groups = sorted({_group(r) for r in rows}) + [f"{lang} (all)" for lang in sorted({r["language"] for r in rows})]
    for group in groups:
        language = group
        part = [s for s in scored if group in (_group(labels[s["id"]]), f"{labels[s['id']]['language']} (all)")]
        if not part:
            continue
        y = [labels[s["id"]]["label"] for s in part]
        rejected = [s for s in part if s["check"] is not None]
        line: dict[str, Any] = {"rows": len(part), "keep": sum(y), "no_model_rejects": len(rejected),
                                "no_model_rejects_a_reader_keeps": sum(labels[s["id"]]["label"] for s in rejected)}
        for name in [k for k in part[0] if k not in ("id", "check")]:
            line[f"auc_{name}"] = round(roc_auc([s[name]["expected"] for s in part], y), 3)
        for keep_on in ("rating", "probability", "expected"):
            decided = [kept(s, keep_on, 4) for s in part]
            hits = sum(d and label for d, label in zip(decided, y))
            line[f"keep_on_{keep_on}"] = {"kept": sum(decided), "precision": round(hits / max(sum(decided), 1), 3),
                                          "recall": round(hits / max(sum(y), 1), 3)}
        summary[language] = line
        print(f"{language}: {line['rows']} questions, {line['keep']} a reader keeps; the no-model checks reject "
              f"{line['no_model_rejects']} ({line['no_model_rejects_a_reader_keeps']} of them kept by the reader)")
        for key, value in line.items():
            if key.startswith(("auc_", "keep_on_")):
                print(f"  {key:<34} {value}")
    summary["seconds_per_question"] = {k: round(v / len(scored), 2) for k, v in seconds.items()}
    print("judge seconds per question:", summary["seconds_per_question"])
    return summary


async def xquad(limit: int, judge_spec: str) -> dict[str, Any]:
    """XQuAD-es: "question answer" against the gold paragraph (1) or another one (0), with the
    shipped groundedness critique in Spanish; ROC-AUC beside the word-overlap floor, and the
    rows kept at P(supported) >= 0.5."""
    from ragmeter.cache import open_cache
    from ragmeter.judges.session import JudgeSession
    from ragmeter.judges.spec import make_judge
    from ragmeter.meta_eval import balanced_sample, bootstrap_ci, load_labelled, roc_auc, word_overlap
    from ragmeter.testset.generation import Judging, critique

    rows = balanced_sample(load_labelled(XQUAD), limit)
    judge, cache = make_judge(judge_spec), open_cache(True)
    judging = Judging(JudgeSession(judge, cache), "spanish", {})
    started = time.perf_counter()
    try:
        results = [await critique(judging, "groundedness", r["user_input"], "\n\n".join(r["retrieved_contexts"]),
                                  "", "answer", r["reference"]) for r in rows]
    finally:
        cache.close()
        await judge.aclose()
    y = [int(r["label"]) for r in rows]
    p = [(r["expected"] - 1) / 4 for r in results]
    floor = [word_overlap(r["user_input"], r["retrieved_contexts"]) for r in rows]
    keep = [v >= 0.5 for v in p]
    hits = sum(k and label for k, label in zip(keep, y))
    out = {"rows": len(rows), "auc": round(roc_auc(p, y), 3), "auc_ci": bootstrap_ci(roc_auc, [p, y]),
           "floor": round(roc_auc(floor, y), 3), "floor_ci": bootstrap_ci(roc_auc, [floor, y]),
           "answerable_kept": round(hits / max(sum(y), 1), 3), "precision": round(hits / max(sum(keep), 1), 3),
           "seconds_per_row": round((time.perf_counter() - started) / len(rows), 2)}
    print("XQuAD-es answerability (question and answer against the paragraph):", out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judge", default="llamacpp")
    parser.add_argument("--variants", action="store_true")
    parser.add_argument("--xquad", type=int, default=0, help="XQuAD-es rows (balanced), 0: skip")
    parser.add_argument("--language", choices=["english", "spanish"], default=None)
    parser.add_argument("--set", choices=["old", "new", "both"], default="both",
                        help="the 70 questions of issue 49, the 170 of issue 62 (new/), or both")
    parser.add_argument("--dump", help="write each question with its checks and critiques to this JSONL file")
    parser.add_argument("--variant", choices=["chunk-only", "subject"], default=None,
                        help="of the new set: the questions of one generator only")
    args = parser.parse_args()
    files = {"old": [LABELLED], "new": [NEW], "both": [LABELLED, NEW]}[args.set]
    rows = [json.loads(line) for f in files for line in f.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if args.variant in (None, r.get("variant"))]
    rows = [r for r in rows if args.language in (None, r["language"])]
    scored, seconds = asyncio.run(score(rows, args.judge, args.variants))
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as out:
            for row, scores in zip(rows, scored):
                out.write(json.dumps({**row, "scores": scores}, ensure_ascii=False, default=str) + "\n")
    summary = {"labelled": report(rows, scored, seconds)}
    if args.xquad:
        summary["xquad_es"] = asyncio.run(xquad(args.xquad, args.judge))
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
