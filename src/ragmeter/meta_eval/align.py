"""`ragmeter align RUN labels.jsonl --metric M`: few-shot examples (and, for 0/1 labels, a
decision threshold) chosen from people's labels, with the agreement measured on rows the
choice never saw.

k-fold cross-validation over the labelled rows: for each fold, examples are chosen from the
other folds (examples.py: the largest disagreements between the run's judge and the people
first, the labels balanced, within a token budget) and the fold's rows are judged with that
prompt; the threshold is chosen on the other folds' scores. Agreement (ROC-AUC, balanced
accuracy and kappa for 0/1 labels; Spearman for ratings) is measured on the pooled held-out
rows for the run's prompt and the aligned one, with 95% bootstrap intervals and the paired
interval of the difference. The aligned prompt (examples from every labelled row) is written
only when that interval lies above 0, or with `force`.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from ragmeter.errors import ConfigError, DataError
from ragmeter.judges.base import Judge
from ragmeter.meta_eval.agreement import Measure, measure_with_ci
from ragmeter.meta_eval.measures import balanced_accuracy, cohen_kappa, roc_auc, spearman
from ragmeter.stats import best_threshold

MIN_LABELS = 30
Order = Literal["disagreement", "random"]
SEED = 0


class AlignResult(BaseModel):
    """Written as align.json beside the aligned prompt files."""

    run: str
    labels: str
    labels_sha256: str
    metric: str
    judge: str
    kind: Literal["binary", "rating"]
    rows: int
    folds: int
    examples: int
    primary: str
    before: dict[str, Measure]
    after: dict[str, Measure]
    difference: Measure
    improved: bool
    threshold: float | None
    chosen: dict[str, list[str]]
    written: list[str]
    judge_calls: int
    seconds: float
    notes: list[str]


def align(run: str | Path, labels: str | Path, metric: str, *, judge: str | dict[str, Any] | Judge | None = None,
          out: str | Path | None = None, folds: int = 5, examples: int = 4, budget: int | None = None,
          force: bool = False, seed: int = SEED, order: Order = "disagreement",
          keep_builtin: bool = False) -> AlignResult:
    """Align `metric`'s judgment prompts to the labels (module doc). Every input is checked
    before the first judge call. `order`: which labelled rows are offered first as examples
    (the largest disagreements, or a seeded shuffle); `keep_builtin`: the chosen examples
    follow the prompt's own instead of replacing them (both measured in docs/benchmarks.md)."""
    from ragmeter.accounting import MetricStats
    from ragmeter.io.data_file import file_sha256
    from ragmeter.meta_eval.align_inputs import check_out, file_of, load_inputs

    started = time.perf_counter()
    if folds < 2 or examples < 1:
        raise ConfigError("align needs at least 2 folds and 1 example")
    inputs = load_inputs(Path(run), Path(labels), metric, judge)
    if out is not None:  # a place that cannot take the files fails now, not after every judge call
        check_out(Path(out), [file_of(inputs, name) for name in inputs.metric.aligned_prompts])
    if len(inputs.samples) < MIN_LABELS:
        raise DataError(f"{len(inputs.samples)} labelled rows for {metric}: align needs at least {MIN_LABELS} "
                        "(fewer leave each fold too few rows to tell a better prompt from chance)",
                        source=str(labels))
    stats = MetricStats()
    assigned = stratified_folds(inputs.labels, folds, seed)
    choice = Choice(examples, budget, seed, order, keep_builtin)
    plan, before, after = asyncio.run(_cross_validate(inputs, stats, choice, assigned))
    result = measure(before, after, inputs.labels, assigned, inputs.binary)
    final = plan.choose(list(range(len(inputs.samples))))
    threshold = _final_threshold(after, inputs.labels) if inputs.binary else None
    improved = result.difference.ci95 is not None and result.difference.ci95[0] > 0
    notes = [*inputs.notes, *result.notes]
    aligned = AlignResult(
        run=str(run), labels=str(labels), labels_sha256=file_sha256(Path(labels)), metric=metric,
        judge=inputs.judge.describe(), kind="binary" if inputs.binary else "rating", rows=len(inputs.samples),
        folds=folds, examples=examples, primary=result.primary, before=result.before, after=result.after,
        difference=result.difference, improved=improved, threshold=threshold,
        chosen={name: [inputs.ids[i] for i in final] for name in inputs.metric.aligned_prompts},
        written=[], judge_calls=stats.judge_calls, seconds=round(time.perf_counter() - started, 1), notes=notes)
    if out is not None and (improved or force):
        aligned.written = _write(Path(out), plan, final, aligned)
    return aligned


def stratified_folds(labels: Sequence[float], folds: int, seed: int) -> list[int]:
    """A fold per row, each label spread evenly over the folds (seeded)."""
    rng = random.Random(seed)
    assigned = [0] * len(labels)
    for value in sorted(set(labels)):
        members = [i for i, y in enumerate(labels) if y == value]
        rng.shuffle(members)
        offset = rng.randrange(folds)
        for k, i in enumerate(members):
            assigned[i] = (k + offset) % folds
    return assigned


async def _cross_validate(inputs: Any, stats: Any, choice: Choice,
                          assigned: list[int]) -> tuple[_Plan, list[float | None], list[float | None]]:
    """The run's prompt's scores, and each row's score under the prompt its fold was given
    (one event loop for the whole: the judge session's slots belong to it)."""
    plan = _Plan(inputs, stats, choice)
    try:
        await plan.start()
        if len({inputs.labels[i] >= 0.5 for i in plan.examples}) < 2:
            raise DataError(f"no few-shot example of each label among the {len(inputs.samples)} labelled rows (a 0 "
                            "on a reply of several items is an example only where the judge named the failing item)")
        after: list[float | None] = [None] * len(inputs.samples)
        for fold in sorted(set(assigned)):
            held = [i for i, f in enumerate(assigned) if f == fold]
            chosen = plan.choose([i for i, f in enumerate(assigned) if f != fold])
            for i, value in zip(held, await plan.score([inputs.samples[i] for i in held], chosen)):
                after[i] = value
    finally:  # every reply committed, the judge's HTTP session closed, whatever stopped the work
        inputs.session.cache.close()
        await inputs.judge.aclose()
    return plan, [s.value for s in plan.base], after


@dataclass(frozen=True)
class Choice:
    """How examples are chosen: how many, within how many tokens, in which order offered."""

    k: int
    budget: int | None
    seed: int
    order: Order
    keep_builtin: bool


class _Plan:
    """The labelled rows' calls under the run's prompts, and the prompts examples make."""

    def __init__(self, inputs: Any, stats: Any, choice: Choice) -> None:
        self.inputs, self.stats, self.choice = inputs, stats, choice
        window = inputs.judge.context_window or 4096
        self.budget = choice.budget if choice.budget is not None else max(256, window // 4)
        self.base: list[Any] = []
        self.examples: dict[int, dict[str, Any]] = {}
        self.size: dict[int, int] = {}

    async def start(self) -> None:
        """Score the labelled rows with the run's prompts (the run's cached calls) and make the
        example each row can give."""
        from ragmeter.meta_eval.examples import example_of, example_tokens, score_rows

        inputs = self.inputs
        self.base = await score_rows(inputs.metric, inputs.samples, inputs.prompts, inputs.session, self.stats)
        for i, scored in enumerate(self.base):
            made = {c.prompt: example_of(inputs.metric, c, inputs.labels[i]) for c in scored.calls}
            if made and all(made.values()) and set(made) == set(inputs.metric.aligned_prompts):
                self.examples[i] = made
        self.size = {i: sum(example_tokens(e, inputs.prompts.get(inputs.metric.prompt_metric, name).input_fields,
                                           inputs.judge.count_tokens) for name, e in made.items())
                     for i, made in self.examples.items()}

    def choose(self, rows: list[int]) -> list[int]:
        from ragmeter.meta_eval.examples import choose

        labels, scores = self.inputs.labels, [s.value for s in self.base]
        far = {str(i): abs((scores[i] if scores[i] is not None else 0.5) - labels[i])
               if self.choice.order == "disagreement" else 0.0 for i in rows if i in self.examples}
        picked = choose(far, {str(i): labels[i] for i in rows}, {str(i): self.size[i] for i in self.examples},
                        self.choice.k, self.budget, self.choice.seed)
        return [int(i) for i in picked]

    def templates(self, chosen: list[int]) -> list[Any]:
        owner = self.inputs.metric.prompt_metric
        out = []
        for name in self.inputs.metric.aligned_prompts:
            template = self.inputs.prompts.get(owner, name)
            kept = template.examples if self.choice.keep_builtin else ()
            out.append(template.model_copy(update={"examples": (*kept, *(self.examples[i][name] for i in chosen))}))
        return out

    async def score(self, samples: list[Any], chosen: list[int]) -> list[float | None]:
        from ragmeter.meta_eval.examples import score_rows

        prompts = self.inputs.prompts.replaced(self.templates(chosen), "ragmeter align")
        return [s.value for s in await score_rows(self.inputs.metric, samples, prompts, self.inputs.session,
                                                  self.stats)]


class Measured(BaseModel):
    primary: str
    before: dict[str, Measure]
    after: dict[str, Measure]
    difference: Measure
    notes: list[str]


def measure(before: Sequence[float | None], after: Sequence[float | None], labels: Sequence[float],
            assigned: Sequence[int], binary: bool) -> Measured:
    """Agreement of both prompts' held-out scores with the labels, on the rows both scored."""
    keep = [i for i in range(len(labels)) if before[i] is not None and after[i] is not None]
    notes = [f"{len(labels) - len(keep)} labelled rows unscored by one of the prompts (left out)"] \
        if len(keep) < len(labels) else []
    b = [float(before[i]) for i in keep]  # type: ignore[arg-type]
    a = [float(after[i]) for i in keep]  # type: ignore[arg-type]
    y = [labels[i] for i in keep]
    folds = [assigned[i] for i in keep]
    if not binary:
        return Measured(primary="spearman", before={"spearman": _measure(spearman, [b, y])},
                        after={"spearman": _measure(spearman, [a, y])},
                        difference=_measure(lambda x, z, t: spearman(z, t) - spearman(x, t), [b, a, y]), notes=notes)
    ys = [int(v) for v in y]
    return Measured(primary="roc_auc", before=_binary(b, ys, folds), after=_binary(a, ys, folds),
                    difference=_measure(lambda x, z, t: roc_auc(z, t) - roc_auc(x, t), [b, a, ys]), notes=notes)


def _binary(scores: list[float], labels: list[int], folds: list[int]) -> dict[str, Measure]:
    """ROC-AUC of the pooled held-out scores; balanced accuracy and kappa of each row read at
    the threshold chosen on the other folds."""
    cuts = {fold: _cut([x for x, f in zip(scores, folds) if f != fold], [t for t, f in zip(labels, folds) if f != fold])
            for fold in set(folds)}  # one per fold, not one per row
    said = [int(s >= cuts[fold]) for s, fold in zip(scores, folds)]
    ones = [float(v) for v in said]
    return {"roc_auc": _measure(roc_auc, [scores, labels]),
            "balanced_accuracy": _measure(lambda s, t: balanced_accuracy(s, t, 0.5), [ones, labels]),
            "kappa": _measure(cohen_kappa, [said, labels])}


def _cut(scores: list[float], labels: list[int]) -> float:
    found = best_threshold(scores, labels)
    return 0.5 if found is None else found


def _final_threshold(after: Sequence[float | None], labels: Sequence[float]) -> float | None:
    kept = [(a, int(y)) for a, y in zip(after, labels) if a is not None]
    return best_threshold([k[0] for k in kept], [k[1] for k in kept])


def _measure(stat: Callable[..., float], columns: list[list[Any]]) -> Measure:
    """meta-eval's measure, or NaN (shown as "-") where the rows cannot give it."""
    try:
        return measure_with_ci(stat, columns)
    except (ValueError, ZeroDivisionError):
        return Measure(value=float("nan"), n=len(columns[0]))


def _write(out: Path, plan: _Plan, chosen: list[int], result: AlignResult) -> list[str]:
    """The aligned prompt files (their `aligned` key says how they were made) and align.json."""
    from ragmeter.io.writers import write_json
    from ragmeter.prompts.files import ALIGN_RECORD, dump, file_name, to_file, write_prompt_files

    provenance = {"labels": result.labels, "labels_sha256": result.labels_sha256, "run": result.run,
                  "rows": [plan.inputs.ids[i] for i in chosen], "judge": result.judge, "threshold": result.threshold,
                  result.primary: {"before": result.before[result.primary].value,
                                   "after": result.after[result.primary].value}}
    files = {file_name(t): dump(to_file(t, plan.inputs.metric, aligned=provenance)) for t in plan.templates(chosen)}
    from ragmeter.meta_eval.align_inputs import not_yours

    for name in files:
        not_yours(out / name)
    not_yours(out / ALIGN_RECORD, "labels_sha256")
    written = [str(p) for p in write_prompt_files(files, out, force=True)]
    result.written = [*written, str(out / ALIGN_RECORD)]
    write_json(out / ALIGN_RECORD, result.model_dump(mode="json"))
    return result.written


def print_align(result: AlignResult, console: Any) -> None:
    """Before and after, each with its interval, the difference, and what was written."""
    from rich.table import Table

    from ragmeter.text import print_table, printable

    table = Table("measure", "run's prompt", "aligned", title=printable(
        f"{result.metric}: {result.folds}-fold cross-validated agreement with {result.rows} labels · judge "
        f"{result.judge}"))
    for name, before in result.before.items():
        table.add_row(name, _shown(before), _shown(result.after[name]))
    table.add_row(f"{result.primary}: aligned - run's", "", _shown(result.difference))
    print_table(console, table)
    for note in result.notes:
        console.print(printable(note), highlight=False)
    if result.threshold is not None:
        console.print(f"threshold {result.threshold:.3f}: a score at or above it agrees best with your 1s "
                      "(chosen on the held-out scores)", highlight=False)
    if result.written:
        console.print(printable(f"wrote {', '.join(result.written)}; use it with --prompts-dir "
                                f"{Path(result.written[0]).parent}"), highlight=False)
    elif not result.improved:
        console.print("[yellow]the aligned prompt does not agree better beyond the interval of the difference: "
                      "nothing written (--force writes it anyway)[/yellow]")


def _shown(measure: Measure) -> str:
    if measure.value != measure.value:  # NaN: not computable on these rows
        return "-"
    ci = f" [{measure.ci95[0]:.3f}, {measure.ci95[1]:.3f}]" if measure.ci95 else ""
    return f"{measure.value:.3f}{ci}"
