"""`ragmeter meta-eval LABELS --metric M --judge J`: how well does this judge agree with people?

Scores the user's human-labelled rows with one metric and one judge (cached like any run),
then reports agreement with 95% bootstrap intervals beside the no-model word-overlap floor
on the same rows:
- binary labels: ROC-AUC; balanced accuracy and Cohen's kappa at the threshold that
  maximises balanced accuracy on one half of the rows, reported on the other half (a
  threshold chosen and scored on the same rows flatters the judge);
- ordinal labels: Spearman, Kendall tau-b, quadratic-weighted kappa (scores mapped onto
  the label scale);
- pairwise preferences: accuracy of the preferred answer (ties in score count half),
  Spearman of the score difference against the preference, kappa of the signs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ragmeter.errors import DataError
from ragmeter.judges.registry import DEFAULT_JUDGE
from ragmeter.meta_eval.labels import LabelKind, label_kind, load_labelled
from ragmeter.meta_eval.measures import (
    balanced_accuracy,
    balanced_sample,
    best_threshold,
    cohen_kappa,
    kendall_tau_b,
    pearson,
    ranks,
    roc_auc,
    spearman,
    word_overlap,
)
from ragmeter.reading.words import content_words as words
from ragmeter.stats import bootstrap_ci

__all__ = ["MetaEvalResult", "balanced_accuracy", "balanced_sample", "bootstrap_ci", "cohen_kappa",
           "kendall_tau_b", "load_labelled", "meta_evaluate", "pearson", "ranks", "roc_auc", "spearman",
           "word_overlap", "words"]

SEED = 0


class Measure(BaseModel):
    value: float
    ci95: tuple[float, float] | None = None
    n: int  # rows it was computed on (held-out measures: half of them)


class Agreement(BaseModel):
    """One scorer's agreement with the labels (the metric, or the floor)."""

    scorer: str
    n: int
    measures: dict[str, Measure]
    threshold: float | None = None  # binary: chosen on the first half


class MetaEvalResult(BaseModel):
    """Written as meta_eval.json."""

    labels: str
    kind: LabelKind
    metric: str
    judge: str
    rows: int
    scored: int
    unscored: int
    metric_agreement: Agreement | None
    floor: Agreement


def meta_evaluate(labels: str | Path, metric: str, *, judge: str | dict = DEFAULT_JUDGE, limit: int | None = None,
                  out: str | Path | None = None, label_column: str = "label", **options: Any) -> MetaEvalResult:
    """Score the labelled rows with `metric` on `judge` and measure agreement (see module doc).
    `options` go to ragmeter.evaluate (embeddings, language, concurrency, cache, ...)."""
    from ragmeter.api import evaluate
    from ragmeter.metrics import get_metric

    source = str(labels)
    rows = load_labelled(labels, limit, label_column)
    kind = label_kind(rows, source)
    required = get_metric(metric).required
    result = evaluate(_eval_rows(rows, kind), [metric], judge=judge, out=out, **options)
    label = next(iter(result.manifest.metrics))
    column = [row[label] for row in result.rows]
    floor_scores = [_floor(r, required, kind) for r in rows]
    if kind == "pairwise":
        scores = [None if a is None or b is None else b - a for a, b in zip(column[::2], column[1::2])]
    else:
        scores = column
    kept = [(s, r["label"]) for s, r in zip(scores, rows) if s is not None]
    judge_name = (result.manifest.judge or {}).get("name", str(judge))
    measured = _agreement(metric, [k[0] for k in kept], [k[1] for k in kept], kind) if len(kept) >= 4 else None
    meta = MetaEvalResult(labels=source, kind=kind, metric=metric, judge=judge_name, rows=len(rows),
                          scored=len(kept), unscored=len(rows) - len(kept), metric_agreement=measured,
                          floor=_agreement("word-overlap floor", floor_scores, [r["label"] for r in rows], kind))
    if out is not None:
        from ragmeter.io.writers import write_json

        write_json(Path(out) / "meta_eval.json", meta.model_dump(mode="json"))
    return meta


def _eval_rows(rows: list[dict[str, Any]], kind: LabelKind) -> list[dict[str, Any]]:
    fields = ("user_input", "retrieved_contexts", "response", "reference")
    if kind != "pairwise":
        return [{"id": r["id"], **{f: r[f] for f in fields if r[f] not in (None, [])}} for r in rows]
    return [{"id": f"{r['id']}#{side + 1}", **{f: r[f] for f in fields if r[f] not in (None, [])},
             "response": r["response"][side]} for r in rows for side in (0, 1)]


def _floor(row: dict[str, Any], required: tuple[str, ...], kind: LabelKind) -> float:
    """Word overlap between what the metric checks and what it checks it against."""
    if kind == "pairwise":
        reference = row["reference"] or row["user_input"] or ""
        return word_overlap(reference, [row["response"][1]]) - word_overlap(reference, [row["response"][0]])
    if "retrieved_contexts" in required:
        claim = next((row[f] for f in ("response", "reference", "user_input") if f in required), None)
        return word_overlap(claim or "", row["retrieved_contexts"])
    return word_overlap(row["response"] or "", [row["reference"] or ""])


def _agreement(scorer: str, scores: list[float], labels: list[Any], kind: LabelKind) -> Agreement:
    if kind == "binary":
        return _binary(scorer, scores, [int(y) for y in labels])
    if kind == "ordinal":
        return _ordinal(scorer, scores, [int(y) for y in labels])
    return _pairwise(scorer, scores, [float(y) for y in labels])


def measure_with_ci(stat: Any, columns: list[list[Any]]) -> Measure:
    """`stat(*columns)` with its seeded 95% bootstrap interval (rows resampled together)."""
    low, high = bootstrap_ci(stat, columns, seed=SEED)
    return Measure(value=stat(*columns), ci95=(low, high), n=len(columns[0]))


def _binary(scorer: str, scores: list[float], labels: list[int]) -> Agreement:
    if min(labels.count(0), labels.count(1)) < 2:
        raise DataError("agreement needs at least two scored rows of each label (0 and 1)")
    first, second = _halves(labels)
    threshold = best_threshold([scores[i] for i in first], [labels[i] for i in first])
    held_scores, held_labels = [scores[i] for i in second], [labels[i] for i in second]

    def bacc(s: list[float], y: list[int]) -> float:
        return balanced_accuracy(s, y, threshold)

    def kappa(s: list[float], y: list[int]) -> float:
        return cohen_kappa([int(v >= threshold) for v in s], y)

    return Agreement(scorer=scorer, n=len(scores), threshold=threshold,
                     measures={"roc_auc": measure_with_ci(roc_auc, [scores, labels]),
                               "balanced_accuracy_held_out": measure_with_ci(bacc, [held_scores, held_labels]),
                               "kappa_held_out": measure_with_ci(kappa, [held_scores, held_labels])})


def _halves(labels: list[int]) -> tuple[list[int], list[int]]:
    """A seeded split, stratified by label, so both halves hold both labels."""
    import random

    rng = random.Random(SEED)
    first: list[int] = []
    second: list[int] = []
    for value in sorted(set(labels)):
        members = [i for i, y in enumerate(labels) if y == value]
        rng.shuffle(members)
        first += members[: len(members) // 2]
        second += members[len(members) // 2:]
    return sorted(first), sorted(second)


def _ordinal(scorer: str, scores: list[float], labels: list[int]) -> Agreement:
    low, high = min(labels), max(labels)

    def kappa(s: list[float], y: list[int]) -> float:
        scaled = [min(high, max(low, round(low + v * (high - low)))) for v in s]
        return cohen_kappa(scaled, y, weights="quadratic")

    return Agreement(scorer=scorer, n=len(scores),
                     measures={"spearman": measure_with_ci(spearman, [scores, labels]),
                               "kendall_tau_b": measure_with_ci(kendall_tau_b, [scores, labels]),
                               "weighted_kappa": measure_with_ci(kappa, [scores, labels])})


def _pairwise(scorer: str, diffs: list[float], prefs: list[float]) -> Agreement:
    def accuracy(d: list[float], p: list[float]) -> float:
        decided = [(x, y) for x, y in zip(d, p) if y != 0]
        if not decided:
            raise ValueError("no pair with a preference")
        return sum(1.0 if x * y > 0 else 0.5 if x == 0 else 0.0 for x, y in decided) / len(decided)

    def kappa(d: list[float], p: list[float]) -> float:
        return cohen_kappa([_sign(x) for x in d], [_sign(y) for y in p])

    return Agreement(scorer=scorer, n=len(diffs),
                     measures={"accuracy": measure_with_ci(accuracy, [diffs, prefs]),
                               "spearman": measure_with_ci(spearman, [diffs, prefs]),
                               "kappa_of_signs": measure_with_ci(kappa, [diffs, prefs])})


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)


def print_meta_eval(result: MetaEvalResult, console: Any) -> None:
    from rich.table import Table

    from ragmeter.text import print_table, printable

    table = Table("scorer", "measure", "value", "95% CI", "n",
                  title=printable(f"{result.metric} vs human {result.kind} labels ({result.labels}) · judge "
                                  f"{result.judge}"))
    for agreement in (result.metric_agreement, result.floor):
        if agreement is None:
            continue
        for name, m in agreement.measures.items():
            ci = "-" if m.ci95 is None else f"{_fixed(m.ci95[0])} to {_fixed(m.ci95[1])}"
            table.add_row(printable(agreement.scorer), name, _fixed(m.value), ci, str(m.n))
    print_table(console, table)
    if result.metric_agreement and result.metric_agreement.threshold is not None:
        console.print(f"threshold {result.metric_agreement.threshold:.3f} chosen on one half of the rows; held-out "
                      "measures are on the other half", highlight=False)
    if result.unscored:
        console.print(f"[yellow]{result.unscored} of {result.rows} rows unscored (left out of the measures)[/yellow]")


def _fixed(value: float) -> str:
    return f"{round(value, 3) + 0.0:.3f}"  # no "-0.000"
