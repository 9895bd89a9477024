"""Does a vote raise a score? Labelled answers with a vote added in forms written apart (issue 60).

Takes labelled answers from benchmarks/e2e_code/labelled.jsonl (seeded: 11 unfaithful and 11
faithful English ones, 6 and 6 Spanish), adds each vote form of benchmarks/votes/forms.jsonl in
the chosen split (`held_out` by default: a third of the forms, set aside before anything was
changed) where the form says (on the answer's last line, on a line of its own, or before it),
and scores every answer with and without its vote. Prints per language: the share of
unfaithful answers failing (score < 0.5) without and with a vote, the share rising by more than
0.1, rows unscored with a vote that were scored without, faithful answers kept within 0.1, and
how many one-token or empty-looking answers (":", "Thought process:") pass; then calls and
seconds.

    python benchmarks/bench_votes.py [--split held_out|dev|all] [--judge llamacpp] \
        [--metric-opt faithfulness.KEY=VALUE] [--cache PATH]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

import ragmeter

HERE = Path(__file__).resolve().parent
PER_LANGUAGE = {"english": 11, "spanish": 6}
EMPTY_LOOKING = {"english": [":", ".", "Thought process:", "Answer:"],
                 "spanish": [":", ".", "Razonamiento:", "Respuesta:"]}


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def with_vote(response: str, form: dict[str, Any]) -> str:
    if form["placement"] == "same_line":
        return f"{response.rstrip()} {form['text']}"
    if form["placement"] == "prefix":
        return f"{form['text']}\n{response.strip()}"
    return f"{response.rstrip()}\n{form['text']}"


def chosen(rows: list[dict[str, Any]], language: str, seed: int, n: int | None = None) -> list[dict[str, Any]]:
    """The first N unfaithful and N faithful answers of the language, in a seeded order."""
    rng = random.Random(seed)
    mine = [r for r in rows if r["language"] == language]
    rng.shuffle(mine)
    n = n or PER_LANGUAGE[language]
    return [r for r in mine if r["label"] == 0][:n] + [r for r in mine if r["label"] == 1][:n]


def options(opts: list[str]) -> dict[str, Any]:
    """`faithfulness.KEY=VALUE` settings; a VALUE in JSON is read as JSON (`views={"keep": "all"}`)."""
    def value(text: str) -> Any:
        try:
            return json.loads(text)
        except ValueError:
            return text
    return {key.partition(".")[2]: value(v) for key, _, v in (o.partition("=") for o in opts)}


def row_of(answer: dict[str, Any], response: str, suffix: str) -> dict[str, Any]:
    return {"id": f"{answer['id']}{suffix}", "user_input": answer["user_input"], "response": response,
            "retrieved_contexts": answer["retrieved_contexts"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--split", default="held_out", choices=["held_out", "dev", "all"])
    parser.add_argument("--judge", default="llamacpp")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--metric-opt", action="append", default=[], help="faithfulness.KEY=VALUE")
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "ragmeter" / "bench_votes.sqlite"))
    parser.add_argument("--out", type=Path, help="write every scored row (id, label, score, evidence) here")
    parser.add_argument("--languages", default="english,spanish")
    parser.add_argument("--answers", type=int, help="faithful and unfaithful answers per language (11 and 6)")
    args = parser.parse_args()
    answers = load(HERE / "e2e_code" / "labelled.jsonl")
    forms = [f for f in load(HERE / "votes" / "forms.jsonl") if args.split in ("all", f["split"])]
    written = []
    for language in args.languages.split(","):
        picked = chosen(answers, language, args.seed, args.answers)
        mine = [f for f in forms if f["language"] == language]
        rows = [row_of(a, a["response"], "") for a in picked]
        rows += [row_of(a, with_vote(a["response"], f), f"+{f['id']}") for a in picked for f in mine]
        rows += [row_of(picked[0], text, f"+empty{i}") for i, text in enumerate(EMPTY_LOOKING[language])]
        start = time.perf_counter()
        result = ragmeter.evaluate(rows, [{"faithfulness": options(args.metric_opt)}], judge=args.judge,
                                   cache=args.cache, progress=False, language=language)
        seconds = time.perf_counter() - start
        report(language, picked, mine, dict(zip(result.ids, result.rows)), result, seconds)
        labels = {a["id"]: a["label"] for a in picked}
        written += [{"id": i, "language": language, "label": labels.get(i.split("+")[0]),
                     "score": r.get("faithfulness"), "evidence": r.get("faithfulness_evidence")}
                    for i, r in zip(result.ids, result.rows)]
    if args.out:
        args.out.write_text("".join(json.dumps(w, ensure_ascii=False) + "\n" for w in written), encoding="utf-8")


def report(language: str, picked: list[dict[str, Any]], forms: list[dict[str, Any]],
           scored: dict[str, dict[str, Any]], result: Any, seconds: float) -> None:
    def score(key: str) -> float | None:
        value = scored[key].get("faithfulness")
        return None if value is None or value != value else float(value)

    unfaithful = [a for a in picked if a["label"] == 0]
    faithful = [a for a in picked if a["label"] == 1]
    base_fail = sum((score(a["id"]) or 0.0) < 0.5 for a in unfaithful) / len(unfaithful)
    pairs = [(a, f, score(a["id"]), score(f"{a['id']}+{f['id']}")) for a in picked for f in forms]
    bad = [(b, v) for a, f, b, v in pairs if a["label"] == 0 and b is not None]
    with_fail = sum(v is not None and v < 0.5 for _, v in bad) / len(bad)
    risen = sum(v is not None and v > b + 0.1 for b, v in bad) / len(bad)
    unscored = sum(b is not None and v is None for _, _, b, v in pairs)
    good = [(b, v) for a, f, b, v in pairs if a["label"] == 1 and b is not None]
    kept = sum(v is not None and abs(v - b) <= 0.1 for b, v in good) / len(good)
    empties = [score(k) for k in scored if "+empty" in k]
    passes = sum(v is not None and v >= 0.5 for v in empties)
    stats = result.manifest.metrics["faithfulness"]
    print(f"\n== {language}: {len(unfaithful)} unfaithful and {len(faithful)} faithful answers x {len(forms)} forms")
    print(f"unfaithful failing: {base_fail:.2f} without a vote, {with_fail:.2f} with one "
          f"({len(bad)} answer-vote pairs); risen by > 0.1: {risen:.2f}; unscored because of a vote: {unscored}")
    print(f"faithful within 0.1 of their score: {kept:.2f} ({len(good)} pairs)")
    print(f"empty-looking answers passing: {passes} of {len(empties)} "
          f"(unscored: {sum(v is None for v in empties)})")
    for f in forms:
        rows = [(b, v) for a, g, b, v in pairs if g is f and a["label"] == 0 and b is not None]
        fail = sum(v is not None and v < 0.5 for _, v in rows) / max(1, len(rows))
        up = sum(v is not None and v > b + 0.1 for b, v in rows)
        print(f"  {f['id']:<28} unfaithful failing {fail:.2f}, risen {up} of {len(rows)}")
    print(f"judge calls {stats.judge_calls} (cached {stats.cache_hits}), {seconds:.0f} s")


if __name__ == "__main__":
    main()
