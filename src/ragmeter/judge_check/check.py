"""`ragmeter judge-check DATA --metrics M --judge J`: can I trust this judge on my data?

Builds cases whose right score is known without a model from the user's own rows
(cases.py: copied answers should score high; unrelated, negated and fact-swapped ones
low), at several prompt sizes (the source context alone, and among k-1 contexts of other
rows), scores them with the metric and judge like any run (cached, resumable), and reports
per metric and check the pass rate (score >= 0.5 where it should be high, < 0.5 where low)
with a Wilson 95% interval, the median score, and ROC-AUC between the should-be-high and
should-be-low cases, plus the failing cases with the judge's evidence.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragmeter.errors import ConfigError
from ragmeter.judge_check.cases import Case, build_cases
from ragmeter.judge_check.families import FAMILIES, METRIC_FAMILY
from ragmeter.judge_check.results import CheckResult, Failure, JudgeCheckResult, MetricCheck
from ragmeter.judge_check.sources import load_sources
from ragmeter.judges.registry import DEFAULT_JUDGE
from ragmeter.reading.conflicts import FLAG as DISAGREE

if TYPE_CHECKING:
    from ragmeter.prompts.run_language import Followed

__all__ = ["DEFAULT_SIZES", "JudgeCheckResult", "check_report", "estimate_check", "judge_check", "measure", "plan"]

DEFAULT_SIZES = (1, 3, 5)
PASS_AT = 0.5
#: failing cases kept with their evidence in judge_check.json, per check
FAILURES_KEPT = 5


def judge_check(data: Any, metrics: list[Any] | None = None, *, judge: str | dict = DEFAULT_JUDGE,
                sizes: tuple[int, ...] = DEFAULT_SIZES, seed: int = 0, limit: int | None = None,
                out: str | Path | None = None, columns: dict[str, str] | None = None, language: str = "auto",
                chunk_size: int = 2000, chunk_overlap: int = 200, **options: Any) -> JudgeCheckResult:
    """Build the cases from `data` (a dataset, or a folder of documents), score them with each
    metric on `judge`, and measure. `options` go to ragmeter.evaluate (cache, concurrency,
    embeddings, progress, prompts_dir, ...). With `out`, writes judge_check.json and each
    metric's run folder under `out/runs/`."""
    from ragmeter.api import evaluate

    sources, described, planned, followed = plan(data, metrics, sizes=sizes, seed=seed, limit=limit, columns=columns,
                                                 language=language, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    language = followed.name
    followed.say(options.get("progress"))
    import tempfile

    results: dict[str, MetricCheck] = {}
    judge_name, judge_record = str(judge), None
    scoring, explaining = scores_first(judge)
    with tempfile.TemporaryDirectory(prefix="ragmeter-check-") as scratch:
        for spec, metric, family, cases in planned:
            if not cases:
                results[metric.label] = _no_cases(metric.label, family.name, family.needs_question)
                continue
            run_out = Path(out if out is not None else scratch) / "runs" / metric.label
            result = evaluate([c.row for c in cases], [spec], judge=scoring, out=run_out, language=language,
                              overwrite=True, **options)
            judge_record = result.manifest.judge or judge_record
            judge_name = (judge_record or {}).get("name", judge_name)
            found = _measured(metric.label, family.name, cases, list(result.rows))
            if explaining is not None and found.failures:  # the reasons of the failing cases only
                found = _explained(run_out, metric.label, family.name, cases, found, explaining)
            results[metric.label] = found
    run_k = sorted({c.k for *_, cases in planned for c in cases})
    checked = JudgeCheckResult(data=described, judge=judge_name, language=language, seed=seed, sizes=list(sizes),
                               sources=len(sources), metrics=results, sizes_run=run_k,
                               sizes_note=sizes_note(list(sizes), run_k, len(sources)))
    if out is not None:
        from ragmeter.io.writers import write_json

        write_json(Path(out) / "judge_check.json", checked.model_dump(mode="json"))
    if judge_record is not None:
        from ragmeter.judge_check.records import remember

        remember(judge_record, checked)
    return checked


def plan(data: Any, metrics: list[Any] | None = None, *, sizes: tuple[int, ...] = DEFAULT_SIZES, seed: int = 0,
         limit: int | None = None, columns: dict[str, str] | None = None, language: str = "auto",
         chunk_size: int = 2000, chunk_overlap: int = 200) -> tuple[list[Any], str, list[tuple[Any, ...]], Followed]:
    """The source rows, where they came from, per metric (spec, Metric, Family, cases), and the
    language (prompts/run_language.py: given, else the data's): everything the check will score, built
    before any judge call (the dry run stops here)."""
    from ragmeter.metrics import get_metric
    from ragmeter.prompts.run_language import follow_language

    sizes = _check_sizes(sizes)
    sources, described = load_sources(data, columns=columns, limit=limit, seed=seed, chunk_size=chunk_size,
                                      chunk_overlap=chunk_overlap)
    # the questions and answers, as evaluate reads them; the contexts where the rows have neither
    texts = [t for s in sources[:200] for t in (s.question, s.response) if t] or \
        [c for s in sources[:200] for c in s.contexts[:1]]
    followed = follow_language(language, data, texts)
    planned = []
    for spec in [judged_only(s) for s in metrics or default_metrics(sources)]:
        metric = get_metric(spec)
        family = _family_of(metric.name)
        planned.append((spec, metric, family, build_cases(family, sources, sizes, seed, followed.name)))
    return sources, described, planned, followed


#: the options that decide a row without the judge (faithfulness's copies and declines,
#: metrics/faithfulness/shortcuts.py; context_relevance's contexts sharing no asked word), off
DECIDING_STEPS: dict[str, dict[str, object]] = {
    "faithfulness": {"copies": {"mode": "off"}, "declines": {"mode": "off"}},
    "context_relevance": {"unshared": "judge"}}


def judged_only(spec: Any) -> Any:
    """The spec with the options that decide rows without the judge off, unless it sets them:
    the check measures the judge, and a row decided without a call says nothing about it."""
    from ragmeter.metrics import parse_spec

    if not isinstance(spec, (str, dict)):
        return spec
    name, options = parse_spec(spec)
    if name not in DECIDING_STEPS:
        return spec
    return {name: {**DECIDING_STEPS[name], **options}}


def scores_first(judge: Any) -> tuple[Any, Any]:
    """(the spec to score with, the spec to write failing cases' reasons with, or None). Unless
    the spec sets `reasons`, every case is scored with `reasons: none` (writing every reason took
    2-3x the time of the scores) and only the failing cases kept for the report are asked again
    with every reason (explain/reasons.py: the scores stay the same), so a supported-looking
    failure, a verdict of 1 that `reasons: failing` would not explain, shows why."""
    if not isinstance(judge, (str, dict)):
        return judge, None
    from ragmeter.judges.spec import parse_judge_spec

    cfg = parse_judge_spec(judge)
    if "reasons" not in type(cfg).model_fields or "reasons" in cfg.model_fields_set:
        return judge, None
    base = {"spec": judge} if isinstance(judge, str) else judge
    return {**base, "reasons": "none"}, {**base, "reasons": "all"}


def _measured(label: str, family: str, cases: list[Case], rows: list[dict[str, Any]]) -> MetricCheck:
    return measure(label, family, cases, [r[label] for r in rows], [r[f"{label}_reason"] for r in rows],
                   [r[f"{label}_evidence"] for r in rows])


def _explained(run: Path, label: str, family: str, cases: list[Case], checked: MetricCheck,
               judge: Any) -> MetricCheck:
    """The check measured again once its failing cases' reasons are written into the run."""
    from ragmeter.explain import explain
    from ragmeter.results.runs import load_run

    explain(run, [label], sorted({f.id for f in checked.failures}), judge=judge)
    return _measured(label, family, cases, list(load_run(run).rows))


def estimate_check(data: Any, metrics: list[Any] | None = None, *, judge: str | dict = DEFAULT_JUDGE,
                   language: str = "auto", plan_options: dict[str, Any] | None = None,
                   **options: Any) -> list[Any]:
    """What the check would cost, per metric (dry_run.Estimate each, saying the language and
    where it came from), calling no judge."""
    from ragmeter.api import estimate

    _, _, planned, followed = plan(data, metrics, language=language, **(plan_options or {}))
    judge = scores_first(judge)[0]  # the reasons of a few failing cases are not counted
    found = [estimate([c.row for c in cases], [spec], judge=judge, language=followed.name, **options)
             for spec, _, _, cases in planned if cases]
    for one in found:
        one.language = followed.line()
    return found


def check_report(out: str | Path, result: JudgeCheckResult) -> Path | None:
    """report.html in the check's folder: the judge check's section, and the rows (cases with
    their evidence) of its first metric that has cases."""
    from ragmeter.report import write_report

    first = next((name for name, m in result.metrics.items() if m.cases), None)
    if first is None:
        return None
    return write_report(Path(out) / "runs" / first, out=Path(out) / "report.html", title="ragmeter judge check",
                        judge_check=Path(out) / "judge_check.json")


def sizes_note(asked: list[int], run: list[int], sources: int) -> str | None:
    """Why a prompt size asked for has no case: a prompt of k contexts needs k source rows."""
    missing = [k for k in sorted(set(asked)) if k not in run]
    if not missing:
        return None
    return (f"k = {', '.join(map(str, missing))} not run: a prompt of k contexts takes them from k source rows, "
            f"and {sources} source row{'s' if sources != 1 else ''} gave cases at k = "
            f"{', '.join(map(str, run)) or 'none'} only")


def _check_sizes(sizes: tuple[int, ...]) -> tuple[int, ...]:
    if not sizes or any(k < 1 for k in sizes):
        raise ConfigError(f"prompt sizes must be whole numbers >= 1, got {list(sizes)}")
    return tuple(sorted(set(sizes)))


def default_metrics(sources: list[Any]) -> list[str]:
    """faithfulness always; context_relevance where the rows have questions."""
    return ["faithfulness", *(["context_relevance"] if any(s.question for s in sources) else [])]


def _family_of(name: str) -> Any:
    family = METRIC_FAMILY.get(name)
    if family is None:
        raise ConfigError(f"the judge check has no cases for metric '{name}' (it checks: "
                          f"{', '.join(METRIC_FAMILY)})")
    return FAMILIES[family]


def _no_cases(label: str, family: str, needs_question: bool) -> MetricCheck:
    why = ("the rows have no question (user_input)" if needs_question else
           "no row has a context with a claim-like sentence and enough other rows")
    return MetricCheck(metric=label, family=family, cases=0, roc_auc=None, roc_auc_ci95=None, checks=[],
                       failures=[], note=f"no cases: {why}")


def passes(expect: str, score: float, evidence: dict[str, Any] | None = None) -> bool:
    """A high case scores at least PASS_AT, a low one below it; a flagged one, whatever its
    score, has its disagreement flagged in the evidence."""
    if expect == "flagged":
        return DISAGREE in ((evidence or {}).get("flags") or ())
    return score >= PASS_AT if expect == "high" else score < PASS_AT


def measure(label: str, family: str, cases: list[Case], scores: list[float | None], reasons: list[str],
            evidence: list[dict[str, Any]]) -> MetricCheck:
    """Pass rates per check, ROC-AUC high vs low, and the failures (the worst first)."""
    from ragmeter.meta_eval.measures import roc_auc
    from ragmeter.stats import bootstrap_ci

    checks: list[CheckResult] = []
    readers = {check.name for check in FAMILIES[family].checks if check.reader}
    for check in FAMILIES[family].checks:
        picked = [(c, s, e) for c, s, e in zip(cases, scores, evidence) if c.check == check.name]
        if picked:
            checks.append(_check_result(check, picked))
    # the judge's ROC-AUC is of the score: high cases against low ones (a flagged case is
    # neither), among the cases the judge decides (a reader's are reported apart)
    scored = [(float(s), int(c.expect == "high")) for c, s in zip(cases, scores)
              if s is not None and c.expect != "flagged" and c.check not in readers]
    labels = [y for _, y in scored]
    auc = ci = None
    if 0 < sum(labels) < len(labels):
        values = [s for s, _ in scored]
        auc, ci = roc_auc(values, labels), bootstrap_ci(roc_auc, [values, [float(y) for y in labels]])
    failures = [_failure(c, s, r, e) for c, s, r, e in zip(cases, scores, reasons, evidence)
                if s is not None and not passes(c.expect, s, e)]
    failures.sort(key=lambda f: abs((f.score or 0.0) - PASS_AT), reverse=True)
    kept: list[Failure] = []
    for result in checks:
        kept.extend([f for f in failures if f.check == result.check][:FAILURES_KEPT])
    return MetricCheck(metric=label, family=family, cases=len(cases), roc_auc=auc, roc_auc_ci95=ci, checks=checks,
                       failures=kept, assumed_relevant=sum(c.assumed for c in cases),
                       reader_cases=sum(c.check in readers for c in cases))


def _check_result(check: Any, picked: list[tuple[Case, float | None, dict[str, Any]]]) -> CheckResult:
    from ragmeter.stats import proportion_ci

    scored = [(c, s) for c, s, _ in picked if s is not None]
    wins = [passes(c.expect, s, e) for c, s, e in picked if s is not None]
    by_k: dict[str, list[bool]] = {}
    for (case, _), won in zip(scored, wins):
        by_k.setdefault(str(case.k), []).append(won)
    return CheckResult(check=check.name, expect=check.expect, description=check.description, n=len(picked),
                       unscored=len(picked) - len(scored), passed=sum(wins),
                       pass_rate=sum(wins) / len(wins) if wins else None, ci95=proportion_ci(sum(wins), len(wins)),
                       median=statistics.median(s for _, s in scored) if scored else None,
                       by_k={k: sum(v) / len(v) for k, v in sorted(by_k.items(), key=lambda kv: int(kv[0]))},
                       reader=check.reader)


def _failure(case: Case, score: float | None, reason: str, evidence: dict[str, Any]) -> Failure:
    answer = case.row.get("reference") if case.family == "recall" else case.row.get("response")
    if case.family == "context":
        answer = "\n".join(case.row.get("retrieved_contexts") or [])
    return Failure(id=case.id, check=case.check, k=case.k, expect=case.expect, score=score, answer=str(answer or ""),
                   edit=case.edit, reason=_judge_reason(evidence) or reason, evidence=evidence or {})


def _judge_reason(evidence: dict[str, Any] | None) -> str:
    """The judge's own words where the metric kept them (a statement's reason), else ""."""
    items = (evidence or {}).get("statements") or (evidence or {}).get("verdicts") or []
    return " / ".join(str(i["reason"]) for i in items if isinstance(i, dict) and i.get("reason"))
